/* A small driver for the GPU peripheral (platform/soc/gpu_registers.h):
 * buffers in SoC RAM, launches through the command queue, and a wait that
 * sleeps in wfi until the GPU's interrupt says the queue drained or failed. */
#ifndef TLMGPU_FIRMWARE_GPU_H
#define TLMGPU_FIRMWARE_GPU_H

#include <stddef.h>
#include <stdint.h>

#include "platform/soc/gpu_registers.h"

#define GPU_QUEUE_ENTRIES 16u
#define GPU_MAX_PARAM_BYTES 256u
#define GPU_MAX_KERNEL_NAME 256u

typedef struct gpu_module {
  const char* ptx;
  uint32_t ptx_bytes;
} gpu_module;

typedef struct gpu_dim3 {
  uint32_t x, y, z;
} gpu_dim3;

/* A kernel's parameter block, built in the order of its .param list; each
 * value is placed at its natural alignment, as the PTX ABI lays it out. */
typedef struct gpu_params {
  uint8_t bytes[GPU_MAX_PARAM_BYTES];
  uint32_t size;
  int overflow;
} gpu_params;

typedef struct gpu_error {
  uint32_t code; /* TLMGPU_ERROR_* */
  uint64_t address;
  uint32_t info;
  uint32_t descriptor;
  uint32_t pc;
  uint32_t cta;
  uint32_t thread;
  char message[TLMGPU_ERROR_MESSAGE_BYTES];
} gpu_error;

/* Checks the ID register, gives the GPU its queue and heap carve-out and
 * enables its interrupt. Returns 0, or -1 when no GPU answers. */
int gpu_init(void);

/* Registers a PTX image (it stays in place: the GPU reads it from SoC memory
 * at each launch). */
void gpu_load_ptx(gpu_module* module, const char* ptx, uint32_t ptx_bytes);

/* A buffer in SoC RAM that the GPU can address (256-byte aligned), or NULL
 * when RAM is exhausted. gpu_free_all() releases every buffer. */
void* gpu_alloc(size_t bytes);
void gpu_free_all(void);

void gpu_params_init(gpu_params* params);
void gpu_param_u32(gpu_params* params, uint32_t value);
void gpu_param_u64(gpu_params* params, uint64_t value);
void gpu_param_f32(gpu_params* params, float value);
void gpu_param_ptr(gpu_params* params, const void* pointer);

/* Queues one launch and rings the doorbell. The kernel name and parameters
 * are copied, so the caller's may change at once. Returns 0, or -1 when the
 * parameter block overflowed or the name is too long. Waits (gpu_wait) when
 * the queue is full. */
int gpu_launch(const gpu_module* module, const char* kernel, gpu_dim3 grid, gpu_dim3 block,
               uint32_t dynamic_shared_bytes, const gpu_params* params);

/* Sleeps until every queued launch completed or the GPU stopped on an error;
 * returns TLMGPU_ERROR_NONE or the error code. */
uint32_t gpu_wait(void);

/* The error registers, after gpu_wait() returned an error. */
void gpu_read_error(gpu_error* error);
/* Clears an error (and the queue) so that the next launch runs. */
void gpu_reset(void);

const char* gpu_error_name(uint32_t code);
uint64_t gpu_cycles(void);
uint64_t gpu_warp_instructions(void);
uint32_t gpu_interrupts(void); /* interrupts the driver has handled */

#endif
