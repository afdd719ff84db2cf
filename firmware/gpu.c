#include "firmware/gpu.h"

#include <string.h>

#include "firmware/runtime.h"
#include "vp/soc_memory_map.h"

/* Per queue entry: the descriptor, and the copies of its name and parameters
 * it points to (valid until the entry is reused). */
struct gpu_device {
  tlmgpu_launch_descriptor queue[GPU_QUEUE_ENTRIES] __attribute__((aligned(64)));
  char kernel_names[GPU_QUEUE_ENTRIES][GPU_MAX_KERNEL_NAME];
  uint8_t param_blocks[GPU_QUEUE_ENTRIES][GPU_MAX_PARAM_BYTES] __attribute__((aligned(16)));
  uintptr_t base;
  unsigned index;
  volatile int ready; /* initialised: the interrupt handler serves it */
  volatile uint32_t interrupts;
};

static gpu_device devices[GPU_MAX_DEVICES];
static const uintptr_t device_bases[GPU_MAX_DEVICES] = {VP_GPU_BASE, VP_GPU1_BASE};

/* Each GPU's carve-out for modules' .global variables (link.ld). */
extern uint8_t __gpu_heap_start[], __gpu_heap_end[];
extern uint8_t __gpu1_heap_start[], __gpu1_heap_end[];
extern uint8_t __buffer_pool_start[], __buffer_pool_end[];
static uintptr_t pool_next;

static inline uint32_t reg_read(const gpu_device* gpu, uint32_t offset) {
  return *(volatile uint32_t*)(gpu->base + offset);
}
static inline void reg_write(const gpu_device* gpu, uint32_t offset, uint32_t value) {
  *(volatile uint32_t*)(gpu->base + offset) = value;
}
static inline uint64_t reg_read64(const gpu_device* gpu, uint32_t lo) {
  return reg_read(gpu, lo) | ((uint64_t)reg_read(gpu, lo + 4) << 32);
}
static inline void reg_write64(const gpu_device* gpu, uint32_t lo, uint64_t value) {
  reg_write(gpu, lo, (uint32_t)value);
  reg_write(gpu, lo + 4, (uint32_t)(value >> 32));
}

/* The hart has one external interrupt for every GPU: ask each which it was.
 * Write-1-to-clear: the line falls once every pending bit is acknowledged. */
static void gpu_interrupt(void) {
  for (unsigned i = 0; i < GPU_MAX_DEVICES; ++i) {
    gpu_device* gpu = &devices[i];
    if (!gpu->ready) {
      continue;
    }
    const uint32_t pending = reg_read(gpu, TLMGPU_REG_IRQ_STATUS);
    if (pending != 0) {
      reg_write(gpu, TLMGPU_REG_IRQ_STATUS, pending);
      gpu->interrupts = gpu->interrupts + 1;
    }
  }
}

gpu_device* gpu_device_init(unsigned index) {
  if (index >= GPU_MAX_DEVICES) {
    return NULL;
  }
  gpu_device* gpu = &devices[index];
  gpu->base = device_bases[index];
  gpu->index = index;
  /* (Where the platform has no GPU the bus answers an error: the hart's
   * access fault, which the trap handler reports.) */
  if (reg_read(gpu, TLMGPU_REG_ID) != TLMGPU_ID_VALUE) {
    return NULL;
  }
  uint8_t* heap_start = index == 0 ? __gpu_heap_start : __gpu1_heap_start;
  uint8_t* heap_end = index == 0 ? __gpu_heap_end : __gpu1_heap_end;
  reg_write64(gpu, TLMGPU_REG_HEAP_BASE_LO, (uintptr_t)heap_start);
  reg_write(gpu, TLMGPU_REG_HEAP_SIZE, (uint32_t)(heap_end - heap_start));
  reg_write64(gpu, TLMGPU_REG_QUEUE_BASE_LO, (uintptr_t)gpu->queue);
  reg_write(gpu, TLMGPU_REG_QUEUE_SIZE, GPU_QUEUE_ENTRIES);
  set_external_interrupt_handler(gpu_interrupt);
  reg_write(gpu, TLMGPU_REG_IRQ_STATUS, 0xFFFFFFFFu);
  gpu->ready = 1;
  reg_write(gpu, TLMGPU_REG_IRQ_ENABLE, TLMGPU_IRQ_QUEUE_EMPTY | TLMGPU_IRQ_ERROR);
  irq_external_enable();
  irq_global_enable();
  return gpu;
}

unsigned gpu_device_index(const gpu_device* gpu) { return gpu->index; }

void gpu_load_ptx(gpu_module* module, const char* ptx, uint32_t ptx_bytes) {
  module->ptx = ptx;
  module->ptx_bytes = ptx_bytes;
}

void* gpu_alloc(size_t bytes) {
  if (pool_next == 0) {
    pool_next = (uintptr_t)__buffer_pool_start;
  }
  const uintptr_t start = (pool_next + 255u) & ~(uintptr_t)255u;
  if (start > (uintptr_t)__buffer_pool_end || bytes > (uintptr_t)__buffer_pool_end - start) {
    return NULL;
  }
  pool_next = start + bytes;
  return (void*)start;
}

void gpu_free_all(void) { pool_next = (uintptr_t)__buffer_pool_start; }

void gpu_params_init(gpu_params* params) {
  params->size = 0;
  params->overflow = 0;
}

static void param_put(gpu_params* params, const void* value, uint32_t bytes) {
  const uint32_t offset = (params->size + bytes - 1) & ~(bytes - 1);
  if (offset + bytes > GPU_MAX_PARAM_BYTES) {
    params->overflow = 1;
    return;
  }
  memset(params->bytes + params->size, 0, offset - params->size);
  memcpy(params->bytes + offset, value, bytes);
  params->size = offset + bytes;
}

void gpu_param_u32(gpu_params* params, uint32_t value) { param_put(params, &value, 4); }
void gpu_param_u64(gpu_params* params, uint64_t value) { param_put(params, &value, 8); }
void gpu_param_f32(gpu_params* params, float value) { param_put(params, &value, 4); }
void gpu_param_ptr(gpu_params* params, const void* pointer) { gpu_param_u64(params, (uintptr_t)pointer); }

int gpu_device_launch(gpu_device* gpu, const gpu_module* module, const char* kernel, gpu_dim3 grid,
                      gpu_dim3 block, uint32_t dynamic_shared_bytes, const gpu_params* params) {
  const size_t name_bytes = strlen(kernel) + 1;
  if (params->overflow || name_bytes > GPU_MAX_KERNEL_NAME) {
    return -1;
  }
  uint32_t tail = reg_read(gpu, TLMGPU_REG_QUEUE_TAIL);
  if ((tail + 1) % GPU_QUEUE_ENTRIES == reg_read(gpu, TLMGPU_REG_QUEUE_HEAD)) {
    gpu_device_wait(gpu);
    tail = reg_read(gpu, TLMGPU_REG_QUEUE_TAIL);
  }
  memcpy(gpu->kernel_names[tail], kernel, name_bytes);
  memcpy(gpu->param_blocks[tail], params->bytes, params->size);
  tlmgpu_launch_descriptor* d = &gpu->queue[tail];
  d->ptx_address = (uintptr_t)module->ptx;
  d->ptx_bytes = module->ptx_bytes;
  d->dynamic_shared_bytes = dynamic_shared_bytes;
  d->kernel_name_address = (uintptr_t)gpu->kernel_names[tail];
  d->grid[0] = grid.x;
  d->grid[1] = grid.y;
  d->grid[2] = grid.z;
  d->block[0] = block.x;
  d->block[1] = block.y;
  d->block[2] = block.z;
  d->params_address = (uintptr_t)gpu->param_blocks[tail];
  d->params_bytes = params->size;
  d->flags = 0;
  /* The descriptor is in memory before the GPU is told of it. */
  __asm__ volatile("fence w, w" ::: "memory");
  reg_write(gpu, TLMGPU_REG_QUEUE_TAIL, (tail + 1) % GPU_QUEUE_ENTRIES);
  reg_write(gpu, TLMGPU_REG_DOORBELL, 1);
  return 0;
}

uint32_t gpu_device_wait(gpu_device* gpu) {
  for (;;) {
    /* Checked with interrupts off, then wfi: an interrupt raised in between
     * keeps the (level) line high, so wfi returns at once and is not lost. */
    irq_global_disable();
    const uint32_t status = reg_read(gpu, TLMGPU_REG_STATUS);
    if (status == TLMGPU_STATUS_ERROR) {
      irq_global_enable();
      return reg_read(gpu, TLMGPU_REG_ERROR_CODE);
    }
    if (status == TLMGPU_STATUS_IDLE &&
        reg_read(gpu, TLMGPU_REG_QUEUE_HEAD) == reg_read(gpu, TLMGPU_REG_QUEUE_TAIL)) {
      irq_global_enable();
      return TLMGPU_ERROR_NONE;
    }
    wait_for_interrupt();
    irq_global_enable(); /* the pending interrupt is taken here */
  }
}

void gpu_device_read_error(gpu_device* gpu, gpu_error* error) {
  error->code = reg_read(gpu, TLMGPU_REG_ERROR_CODE);
  error->address = reg_read64(gpu, TLMGPU_REG_ERROR_ADDRESS_LO);
  error->info = reg_read(gpu, TLMGPU_REG_ERROR_INFO);
  error->descriptor = reg_read(gpu, TLMGPU_REG_ERROR_DESCRIPTOR);
  error->pc = reg_read(gpu, TLMGPU_REG_ERROR_PC);
  error->cta = reg_read(gpu, TLMGPU_REG_ERROR_CTA);
  error->thread = reg_read(gpu, TLMGPU_REG_ERROR_THREAD);
  for (uint32_t i = 0; i < TLMGPU_ERROR_MESSAGE_BYTES; i += 4) {
    const uint32_t word = reg_read(gpu, TLMGPU_REG_ERROR_MESSAGE + i);
    memcpy(error->message + i, &word, 4);
  }
  error->message[TLMGPU_ERROR_MESSAGE_BYTES - 1] = '\0';
}

void gpu_device_reset(gpu_device* gpu) { reg_write(gpu, TLMGPU_REG_RESET, TLMGPU_RESET_MAGIC); }

void gpu_device_hold_in_reset(unsigned index, int held) {
  volatile uint32_t* lines = (volatile uint32_t*)(uintptr_t)(VP_RESET_CTRL_BASE + VP_RESET_CTRL_GPU_RESET);
  const uint32_t bit = 1u << index;
  *lines = held ? (*lines | bit) : (*lines & ~bit);
}

uint32_t gpu_device_read(gpu_device* gpu, uint32_t offset) { return reg_read(gpu, offset); }
void gpu_device_write(gpu_device* gpu, uint32_t offset, uint32_t value) { reg_write(gpu, offset, value); }
uint64_t gpu_device_cycles(gpu_device* gpu) { return reg_read64(gpu, TLMGPU_REG_CYCLES_LO); }
uint64_t gpu_device_warp_instructions(gpu_device* gpu) { return reg_read64(gpu, TLMGPU_REG_WARP_INSTS_LO); }
uint32_t gpu_device_interrupts(const gpu_device* gpu) { return gpu->interrupts; }

int gpu_init(void) { return gpu_device_init(0) != NULL ? 0 : -1; }

int gpu_launch(const gpu_module* module, const char* kernel, gpu_dim3 grid, gpu_dim3 block,
               uint32_t dynamic_shared_bytes, const gpu_params* params) {
  return gpu_device_launch(&devices[0], module, kernel, grid, block, dynamic_shared_bytes, params);
}
uint32_t gpu_wait(void) { return gpu_device_wait(&devices[0]); }
void gpu_read_error(gpu_error* error) { gpu_device_read_error(&devices[0], error); }
void gpu_reset(void) { gpu_device_reset(&devices[0]); }
uint64_t gpu_cycles(void) { return gpu_device_cycles(&devices[0]); }
uint64_t gpu_warp_instructions(void) { return gpu_device_warp_instructions(&devices[0]); }
uint32_t gpu_interrupts(void) { return gpu_device_interrupts(&devices[0]); }

const char* gpu_error_name(uint32_t code) {
  switch (code) {
  case TLMGPU_ERROR_NONE: return "none";
  case TLMGPU_ERROR_BAD_QUEUE: return "bad queue";
  case TLMGPU_ERROR_BAD_DESCRIPTOR: return "bad descriptor";
  case TLMGPU_ERROR_PTX: return "PTX error";
  case TLMGPU_ERROR_UNKNOWN_KERNEL: return "unknown kernel";
  case TLMGPU_ERROR_BAD_LAUNCH: return "bad launch";
  case TLMGPU_ERROR_DEVICE_FAULT: return "device fault";
  case TLMGPU_ERROR_WATCHDOG: return "watchdog";
  case TLMGPU_ERROR_MEMORY: return "memory error";
  default: return "unknown error code";
  }
}
