/* The firmware's runtime: stdout on the UART (printf works), exit() through
 * the test finisher, the trap handler, and small helpers for test programs. */
#ifndef TLMGPU_FIRMWARE_RUNTIME_H
#define TLMGPU_FIRMWARE_RUNTIME_H

#include <stdint.h>

/* Machine-mode interrupt enable (mstatus.MIE) and external interrupt enable (mie.MEIE). */
static inline void irq_global_disable(void) { __asm__ volatile("csrci mstatus, 8" ::: "memory"); }
static inline void irq_global_enable(void) { __asm__ volatile("csrsi mstatus, 8" ::: "memory"); }
static inline void irq_external_enable(void) { __asm__ volatile("csrs mie, %0" ::"r"(1u << 11) : "memory"); }
static inline void wait_for_interrupt(void) { __asm__ volatile("wfi" ::: "memory"); }

/* Called from the trap handler on a machine external interrupt. */
typedef void (*external_interrupt_handler)(void);
void set_external_interrupt_handler(external_interrupt_handler handler);

/* Reads a 32-bit word from `address`; returns 0, or -1 when the bus answered
 * an error (the hart's access fault, mcause 5, reached the trap handler with
 * mtval == address). */
int probe_read32(uintptr_t address, uint32_t* value);

/* A deterministic generator for test inputs (xorshift64*). */
uint32_t test_random(uint64_t* state);

#endif
