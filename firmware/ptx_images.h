/* The embedded PTX images (ptx_images.S). */
#ifndef TLMGPU_FIRMWARE_PTX_IMAGES_H
#define TLMGPU_FIRMWARE_PTX_IMAGES_H

#include <stdint.h>

#define PTX_IMAGE(name) extern const char ptx_##name##_start[], ptx_##name##_end[];
PTX_IMAGE(vector_add)
PTX_IMAGE(sgemm)
PTX_IMAGE(histogram)
PTX_IMAGE(transactions)
PTX_IMAGE(spin_until_flag) /* firmware/spin_until_flag.ptx */
#undef PTX_IMAGE

#define PTX_BYTES(name) ((uint32_t)(ptx_##name##_end - ptx_##name##_start))

#endif
