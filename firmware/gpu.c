#include "firmware/gpu.h"

#include <string.h>

#include "firmware/runtime.h"
#include "vp/soc_memory_map.h"

static inline uint32_t reg_read(uint32_t offset) {
  return *(volatile uint32_t*)(uintptr_t)(VP_GPU_BASE + offset);
}
static inline void reg_write(uint32_t offset, uint32_t value) {
  *(volatile uint32_t*)(uintptr_t)(VP_GPU_BASE + offset) = value;
}
static inline uint64_t reg_read64(uint32_t lo) { return reg_read(lo) | ((uint64_t)reg_read(lo + 4) << 32); }
static inline void reg_write64(uint32_t lo, uint64_t value) {
  reg_write(lo, (uint32_t)value);
  reg_write(lo + 4, (uint32_t)(value >> 32));
}

/* Per queue entry: the descriptor, and the copies of its name and parameters
 * it points to (valid until the entry is reused). */
static tlmgpu_launch_descriptor queue[GPU_QUEUE_ENTRIES] __attribute__((aligned(64)));
static char kernel_names[GPU_QUEUE_ENTRIES][GPU_MAX_KERNEL_NAME];
static uint8_t param_blocks[GPU_QUEUE_ENTRIES][GPU_MAX_PARAM_BYTES] __attribute__((aligned(16)));

extern uint8_t __gpu_heap_start[], __gpu_heap_end[];
extern uint8_t __buffer_pool_start[], __buffer_pool_end[];
static uintptr_t pool_next;

static volatile uint32_t interrupts_handled;

static void gpu_interrupt(void) {
  /* Write-1-to-clear: the line falls once every pending bit is acknowledged. */
  const uint32_t pending = reg_read(TLMGPU_REG_IRQ_STATUS);
  reg_write(TLMGPU_REG_IRQ_STATUS, pending);
  interrupts_handled = interrupts_handled + 1;
}

int gpu_init(void) {
  if (reg_read(TLMGPU_REG_ID) != TLMGPU_ID_VALUE) {
    return -1;
  }
  pool_next = (uintptr_t)__buffer_pool_start;
  reg_write64(TLMGPU_REG_HEAP_BASE_LO, (uintptr_t)__gpu_heap_start);
  reg_write(TLMGPU_REG_HEAP_SIZE, (uint32_t)(__gpu_heap_end - __gpu_heap_start));
  reg_write64(TLMGPU_REG_QUEUE_BASE_LO, (uintptr_t)queue);
  reg_write(TLMGPU_REG_QUEUE_SIZE, GPU_QUEUE_ENTRIES);
  set_external_interrupt_handler(gpu_interrupt);
  reg_write(TLMGPU_REG_IRQ_STATUS, 0xFFFFFFFFu);
  reg_write(TLMGPU_REG_IRQ_ENABLE, TLMGPU_IRQ_QUEUE_EMPTY | TLMGPU_IRQ_ERROR);
  irq_external_enable();
  irq_global_enable();
  return 0;
}

void gpu_load_ptx(gpu_module* module, const char* ptx, uint32_t ptx_bytes) {
  module->ptx = ptx;
  module->ptx_bytes = ptx_bytes;
}

void* gpu_alloc(size_t bytes) {
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

int gpu_launch(const gpu_module* module, const char* kernel, gpu_dim3 grid, gpu_dim3 block,
               uint32_t dynamic_shared_bytes, const gpu_params* params) {
  const size_t name_bytes = strlen(kernel) + 1;
  if (params->overflow || name_bytes > GPU_MAX_KERNEL_NAME) {
    return -1;
  }
  uint32_t tail = reg_read(TLMGPU_REG_QUEUE_TAIL);
  if ((tail + 1) % GPU_QUEUE_ENTRIES == reg_read(TLMGPU_REG_QUEUE_HEAD)) {
    gpu_wait();
    tail = reg_read(TLMGPU_REG_QUEUE_TAIL);
  }
  memcpy(kernel_names[tail], kernel, name_bytes);
  memcpy(param_blocks[tail], params->bytes, params->size);
  tlmgpu_launch_descriptor* d = &queue[tail];
  d->ptx_address = (uintptr_t)module->ptx;
  d->ptx_bytes = module->ptx_bytes;
  d->dynamic_shared_bytes = dynamic_shared_bytes;
  d->kernel_name_address = (uintptr_t)kernel_names[tail];
  d->grid[0] = grid.x;
  d->grid[1] = grid.y;
  d->grid[2] = grid.z;
  d->block[0] = block.x;
  d->block[1] = block.y;
  d->block[2] = block.z;
  d->params_address = (uintptr_t)param_blocks[tail];
  d->params_bytes = params->size;
  d->flags = 0;
  /* The descriptor is in memory before the GPU is told of it. */
  __asm__ volatile("fence w, w" ::: "memory");
  reg_write(TLMGPU_REG_QUEUE_TAIL, (tail + 1) % GPU_QUEUE_ENTRIES);
  reg_write(TLMGPU_REG_DOORBELL, 1);
  return 0;
}

uint32_t gpu_wait(void) {
  for (;;) {
    /* Checked with interrupts off, then wfi: an interrupt raised in between
     * keeps the (level) line high, so wfi returns at once and is not lost. */
    irq_global_disable();
    const uint32_t status = reg_read(TLMGPU_REG_STATUS);
    if (status == TLMGPU_STATUS_ERROR) {
      irq_global_enable();
      return reg_read(TLMGPU_REG_ERROR_CODE);
    }
    if (status == TLMGPU_STATUS_IDLE && reg_read(TLMGPU_REG_QUEUE_HEAD) == reg_read(TLMGPU_REG_QUEUE_TAIL)) {
      irq_global_enable();
      return TLMGPU_ERROR_NONE;
    }
    wait_for_interrupt();
    irq_global_enable(); /* the pending interrupt is taken here */
  }
}

void gpu_read_error(gpu_error* error) {
  error->code = reg_read(TLMGPU_REG_ERROR_CODE);
  error->address = reg_read64(TLMGPU_REG_ERROR_ADDRESS_LO);
  error->info = reg_read(TLMGPU_REG_ERROR_INFO);
  error->descriptor = reg_read(TLMGPU_REG_ERROR_DESCRIPTOR);
  error->pc = reg_read(TLMGPU_REG_ERROR_PC);
  error->cta = reg_read(TLMGPU_REG_ERROR_CTA);
  error->thread = reg_read(TLMGPU_REG_ERROR_THREAD);
  for (uint32_t i = 0; i < TLMGPU_ERROR_MESSAGE_BYTES; i += 4) {
    const uint32_t word = reg_read(TLMGPU_REG_ERROR_MESSAGE + i);
    memcpy(error->message + i, &word, 4);
  }
  error->message[TLMGPU_ERROR_MESSAGE_BYTES - 1] = '\0';
}

void gpu_reset(void) { reg_write(TLMGPU_REG_RESET, TLMGPU_RESET_MAGIC); }

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

uint64_t gpu_cycles(void) { return reg_read64(TLMGPU_REG_CYCLES_LO); }
uint64_t gpu_warp_instructions(void) { return reg_read64(TLMGPU_REG_WARP_INSTS_LO); }
uint32_t gpu_interrupts(void) { return interrupts_handled; }
