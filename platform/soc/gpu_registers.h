/* The GPU peripheral's programming interface: register offsets on its `mmio`
 * socket, the launch descriptor a driver places in SoC memory, error codes and
 * interrupt bits. Plain C so that firmware (firmware/) includes the same file
 * as the model; docs/SOC.md explains each register.
 *
 * Every register is 32 bits wide and must be accessed with a 4-byte aligned
 * 4-byte transaction; 64-bit values are LO/HI pairs (LO at the lower offset).
 * All multi-byte values in SoC memory are little-endian. */
#ifndef TLMGPU_PLATFORM_SOC_GPU_REGISTERS_H
#define TLMGPU_PLATFORM_SOC_GPU_REGISTERS_H

#include <stdint.h>

/* ---- identification and capabilities (read-only) ---- */
#define TLMGPU_REG_ID 0x000u               /* TLMGPU_ID_VALUE */
#define TLMGPU_REG_VERSION 0x004u          /* major << 16 | minor of this register map */
#define TLMGPU_REG_CAP_SMS 0x008u          /* streaming multiprocessors */
#define TLMGPU_REG_CAP_WARP_SIZE 0x00Cu    /* threads per warp */
#define TLMGPU_REG_CAP_MAX_THREADS 0x010u  /* threads per CTA */
#define TLMGPU_REG_CAP_SHARED_BYTES 0x014u /* shared memory per CTA, bytes */
#define TLMGPU_REG_CAP_MODE 0x018u         /* TLMGPU_MODE_* the peripheral runs kernels in */
#define TLMGPU_REG_CAP_CLOCK_KHZ 0x01Cu    /* GPU core clock */
#define TLMGPU_REG_PRESET_NAME 0x020u      /* 16 bytes, 4 registers: preset name, ASCII, NUL-padded */

#define TLMGPU_ID_VALUE 0x55504754u /* "TGPU" as little-endian bytes */
#define TLMGPU_VERSION_VALUE 0x00010000u
#define TLMGPU_MODE_LT 0u
#define TLMGPU_MODE_TIMING 1u

/* ---- memory the GPU may use for its own data (read-write) ----
 * A module's .global variables are placed in this carve-out of SoC memory,
 * given by the driver before the first launch of a module that has any. */
#define TLMGPU_REG_HEAP_BASE_LO 0x030u
#define TLMGPU_REG_HEAP_BASE_HI 0x034u
#define TLMGPU_REG_HEAP_SIZE 0x038u

/* ---- command queue: a ring of TLMGPU_DESCRIPTOR_BYTES descriptors in SoC memory ----
 * The driver writes descriptors at TAIL, advances TAIL (modulo SIZE) and
 * writes DOORBELL; the GPU runs descriptors from HEAD to TAIL in order and
 * advances HEAD as each completes. BASE must be 8-byte aligned; SIZE is the
 * number of entries (1 .. TLMGPU_QUEUE_MAX_ENTRIES). Writing BASE or SIZE
 * while STATUS is busy is ignored. */
#define TLMGPU_REG_QUEUE_BASE_LO 0x040u
#define TLMGPU_REG_QUEUE_BASE_HI 0x044u
#define TLMGPU_REG_QUEUE_SIZE 0x048u
#define TLMGPU_REG_QUEUE_HEAD 0x04Cu /* read-only */
#define TLMGPU_REG_QUEUE_TAIL 0x050u
#define TLMGPU_REG_DOORBELL 0x054u   /* write-only; reads as 0 */
#define TLMGPU_QUEUE_MAX_ENTRIES 4096u

/* ---- status and errors (read-only) ---- */
#define TLMGPU_REG_STATUS 0x060u
#define TLMGPU_REG_ERROR_CODE 0x064u
#define TLMGPU_REG_ERROR_ADDRESS_LO 0x068u /* faulting address (device fault, memory error) */
#define TLMGPU_REG_ERROR_ADDRESS_HI 0x06Cu
#define TLMGPU_REG_ERROR_INFO 0x070u       /* PTX error: source line; otherwise 0 */
#define TLMGPU_REG_ERROR_DESCRIPTOR 0x074u /* queue index of the failing descriptor */
#define TLMGPU_REG_ERROR_PC 0x078u         /* device fault: PC (instruction index x 8) */
#define TLMGPU_REG_ERROR_CTA 0x07Cu        /* device fault: linear CTA id */
#define TLMGPU_REG_ERROR_THREAD 0x080u     /* device fault: linear thread id in the CTA */
#define TLMGPU_REG_ERROR_MESSAGE 0x400u    /* 256 bytes: the error as text, NUL-terminated */
#define TLMGPU_ERROR_MESSAGE_BYTES 256u

#define TLMGPU_STATUS_IDLE 0u
#define TLMGPU_STATUS_BUSY 1u
#define TLMGPU_STATUS_ERROR 2u /* stays until RESET; the queue is stopped */

#define TLMGPU_ERROR_NONE 0u
#define TLMGPU_ERROR_BAD_QUEUE 1u       /* doorbell with no queue, or TAIL >= SIZE */
#define TLMGPU_ERROR_BAD_DESCRIPTOR 2u  /* reserved bits set, sizes out of range, unreadable name */
#define TLMGPU_ERROR_PTX 3u             /* the PTX image does not parse; ERROR_INFO = line */
#define TLMGPU_ERROR_UNKNOWN_KERNEL 4u  /* no .entry of that name in the image */
#define TLMGPU_ERROR_BAD_LAUNCH 5u      /* grid/block shape, shared memory, parameter size, no heap */
#define TLMGPU_ERROR_DEVICE_FAULT 6u    /* out-of-bounds/misaligned access, trap, barrier deadlock */
#define TLMGPU_ERROR_WATCHDOG 7u        /* no forward progress */
#define TLMGPU_ERROR_MEMORY 8u          /* SoC memory answered an error response; ERROR_ADDRESS */

/* ---- interrupts ----
 * `irq` is high while (IRQ_STATUS & IRQ_ENABLE) != 0. IRQ_STATUS bits are
 * set by the GPU and cleared by writing 1 to them. */
#define TLMGPU_REG_IRQ_ENABLE 0x090u
#define TLMGPU_REG_IRQ_STATUS 0x094u
#define TLMGPU_IRQ_LAUNCH_DONE 0x1u  /* a descriptor completed */
#define TLMGPU_IRQ_QUEUE_EMPTY 0x2u  /* HEAD reached TAIL */
#define TLMGPU_IRQ_ERROR 0x4u        /* STATUS became error */

/* Writing TLMGPU_RESET_MAGIC stops the queue, clears STATUS, the error
 * registers, IRQ_STATUS, HEAD and TAIL; loaded PTX images and counters stay. */
#define TLMGPU_REG_RESET 0x098u
#define TLMGPU_RESET_MAGIC 0x1u

/* ---- counters (read-only, since power-on) ---- */
#define TLMGPU_REG_CYCLES_LO 0x0A0u      /* GPU core cycles spent in launches (lt: the cost model's) */
#define TLMGPU_REG_CYCLES_HI 0x0A4u
#define TLMGPU_REG_WARP_INSTS_LO 0x0A8u  /* warp instructions executed */
#define TLMGPU_REG_WARP_INSTS_HI 0x0ACu
#define TLMGPU_REG_LAUNCHES_DONE 0x0B0u  /* descriptors completed without error */

#define TLMGPU_MMIO_BYTES 0x1000u

/* ---- launch descriptor (in SoC memory, 8-byte aligned, 64 bytes) ---- */
typedef struct tlmgpu_launch_descriptor {
  uint64_t ptx_address;          /* PTX text (need not be NUL-terminated) */
  uint32_t ptx_bytes;            /* 1 .. 16 MiB */
  uint32_t dynamic_shared_bytes;
  uint64_t kernel_name_address;  /* NUL-terminated .entry name, at most 255 bytes */
  uint32_t grid[3];              /* x, y, z; each >= 1 */
  uint32_t block[3];             /* x, y, z; each >= 1 */
  uint64_t params_address;       /* the kernel's parameters laid out as its .param list */
  uint32_t params_bytes;         /* must equal the kernel's parameter buffer size */
  uint32_t flags;                /* TLMGPU_DESC_*; other bits must be 0 */
} tlmgpu_launch_descriptor;

#define TLMGPU_DESCRIPTOR_BYTES 64u
#define TLMGPU_DESC_IRQ_ON_DONE 0x1u /* raise TLMGPU_IRQ_LAUNCH_DONE when this launch completes */

#ifdef __cplusplus
static_assert(sizeof(tlmgpu_launch_descriptor) == TLMGPU_DESCRIPTOR_BYTES, "descriptor layout");
#else
_Static_assert(sizeof(tlmgpu_launch_descriptor) == TLMGPU_DESCRIPTOR_BYTES, "descriptor layout");
#endif

#endif /* TLMGPU_PLATFORM_SOC_GPU_REGISTERS_H */
