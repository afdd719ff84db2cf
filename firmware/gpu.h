/* A small driver for the GPU peripheral (platform/soc/gpu_registers.h):
 * buffers in SoC RAM, launches through the command queue, and a wait that
 * sleeps in wfi until the GPU's interrupt says the queue drained or failed.
 *
 * The platform may have two GPUs (vp/soc_memory_map.h): the gpu_device_*
 * functions drive the one they are given; the plain gpu_* functions drive
 * GPU 0, for programs that use one GPU. */
#ifndef TLMGPU_FIRMWARE_GPU_H
#define TLMGPU_FIRMWARE_GPU_H

#include <stddef.h>
#include <stdint.h>

#include "platform/soc/gpu_registers.h"

#define GPU_QUEUE_ENTRIES 16u
#define GPU_MAX_PARAM_BYTES 256u
#define GPU_MAX_KERNEL_NAME 256u
#define GPU_MAX_DEVICES 2u

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

/* One GPU: its register window, its command queue and its carve-out for
 * modules' .global variables (each GPU has its own). */
typedef struct gpu_device gpu_device;

/* GPU `index` (0 at VP_GPU_BASE, 1 at VP_GPU1_BASE): checks its ID register,
 * gives it its queue and heap carve-out and enables its interrupt (and the
 * hart's). Again after a reset: programs the power-on registers anew.
 * Returns NULL when the ID is wrong or index >= GPU_MAX_DEVICES; where
 * nothing is mapped the load faults (probe_read32 tells without a fault). */
gpu_device* gpu_device_init(unsigned index);
unsigned gpu_device_index(const gpu_device* gpu);

/* Queues one launch and rings the doorbell. The kernel name and parameters
 * are copied, so the caller's may change at once. Returns 0, or -1 when the
 * parameter block overflowed or the name is too long. Waits (gpu_device_wait)
 * when the queue is full. */
int gpu_device_launch(gpu_device* gpu, const gpu_module* module, const char* kernel, gpu_dim3 grid,
                      gpu_dim3 block, uint32_t dynamic_shared_bytes, const gpu_params* params);
/* Sleeps until every launch queued on `gpu` completed or it stopped on an
 * error; returns TLMGPU_ERROR_NONE or the error code. (Another GPU's
 * interrupts wake the hart too; they are acknowledged and the wait goes on.) */
uint32_t gpu_device_wait(gpu_device* gpu);
void gpu_device_read_error(gpu_device* gpu, gpu_error* error);
/* Soft reset (the RESET register): clears an error and the queue. */
void gpu_device_reset(gpu_device* gpu);
/* The reset controller's line for this GPU: 1 holds it in reset (a launch
 * that hangs is aborted, every register returns to its power-on value), 0
 * lets it run; then gpu_device_init() programs it again. */
void gpu_device_hold_in_reset(unsigned index, int held);
uint32_t gpu_device_read(gpu_device* gpu, uint32_t offset);
void gpu_device_write(gpu_device* gpu, uint32_t offset, uint32_t value);
uint64_t gpu_device_cycles(gpu_device* gpu);
uint64_t gpu_device_warp_instructions(gpu_device* gpu);
uint32_t gpu_device_interrupts(const gpu_device* gpu); /* interrupts of this GPU the driver handled */

/* GPU 0: gpu_device_init(0); returns 0, or -1 when no GPU answers. */
int gpu_init(void);

/* Registers a PTX image (it stays in place: the GPU reads it from SoC memory
 * at each launch). */
void gpu_load_ptx(gpu_module* module, const char* ptx, uint32_t ptx_bytes);

/* A buffer in SoC RAM that every GPU can address (256-byte aligned), or NULL
 * when RAM is exhausted. gpu_free_all() releases every buffer. */
void* gpu_alloc(size_t bytes);
void gpu_free_all(void);

void gpu_params_init(gpu_params* params);
void gpu_param_u32(gpu_params* params, uint32_t value);
void gpu_param_u64(gpu_params* params, uint64_t value);
void gpu_param_f32(gpu_params* params, float value);
void gpu_param_ptr(gpu_params* params, const void* pointer);

/* GPU 0's gpu_device_* functions. */
int gpu_launch(const gpu_module* module, const char* kernel, gpu_dim3 grid, gpu_dim3 block,
               uint32_t dynamic_shared_bytes, const gpu_params* params);
uint32_t gpu_wait(void);
void gpu_read_error(gpu_error* error);
void gpu_reset(void);
uint64_t gpu_cycles(void);
uint64_t gpu_warp_instructions(void);
uint32_t gpu_interrupts(void);

const char* gpu_error_name(uint32_t code);

#endif
