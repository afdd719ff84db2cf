/* The virtual platform's address map, shared by the SystemC platform (vp/)
 * and the firmware (firmware/), so it is plain C. */
#ifndef TLMGPU_VP_SOC_MEMORY_MAP_H
#define TLMGPU_VP_SOC_MEMORY_MAP_H

#define VP_FINISHER_BASE 0x00100000u /* vp/test_finisher.h */
#define VP_FINISHER_SIZE 0x1000u
#define VP_RESET_CTRL_BASE 0x00110000u /* vp/reset_controller.h; present with a GPU */
#define VP_RESET_CTRL_SIZE 0x1000u
#define VP_RESET_CTRL_GPU_RESET 0x0u   /* bit n: GPU n held in reset (RW) */
#define VP_UART_BASE 0x10000000u     /* vp/uart.h, 16550 byte registers */
#define VP_UART_SIZE 0x1000u
#define VP_GPU_BASE 0x20000000u      /* GPU 0, platform/soc/gpu_registers.h */
#define VP_GPU1_BASE 0x20010000u     /* GPU 1, when the platform has a second GPU */
#define VP_RAM_BASE 0x80000000u      /* firmware is linked and loaded here */
#define VP_RAM_SIZE 0x04000000u      /* 64 MiB */

#endif
