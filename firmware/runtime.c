#include "firmware/runtime.h"

#include <stdio.h>
#include <stdlib.h>

#include "vp/soc_memory_map.h"

#define UART_THR (*(volatile uint8_t*)(uintptr_t)(VP_UART_BASE + 0))
#define FINISHER_EXIT (*(volatile uint32_t*)(uintptr_t)(VP_FINISHER_BASE + 0))

static int uart_put(char c, FILE* file) {
  (void)file;
  UART_THR = (uint8_t)c;
  return (unsigned char)c;
}

static FILE uart_stream = FDEV_SETUP_STREAM(uart_put, NULL, NULL, _FDEV_SETUP_WRITE);
FILE* const stdout = &uart_stream;
FILE* const stderr = &uart_stream;

/* picolibc's exit() ends here. */
void _exit(int code) {
  FINISHER_EXIT = (uint32_t)code;
  for (;;) {
    __asm__ volatile("wfi");
  }
}

static external_interrupt_handler current_handler;

void set_external_interrupt_handler(external_interrupt_handler handler) { current_handler = handler; }

#define MCAUSE_INTERRUPT (1ull << 63)
#define MCAUSE_MACHINE_EXTERNAL 11u
#define MCAUSE_LOAD_ACCESS_FAULT 5u

/* Set while probe_read32 expects that its load may fault. */
static volatile int access_fault_expected;
static volatile uint64_t access_fault_address;

int probe_read32(uintptr_t address, uint32_t* value) {
  access_fault_address = 0;
  access_fault_expected = 1;
  *value = *(volatile uint32_t*)address;
  access_fault_expected = 0;
  return access_fault_address == address ? -1 : 0;
}

void trap_handler(uint64_t mcause, uint64_t mepc);
void trap_handler(uint64_t mcause, uint64_t mepc) {
  if (mcause == (MCAUSE_INTERRUPT | MCAUSE_MACHINE_EXTERNAL) && current_handler != NULL) {
    current_handler();
    return;
  }
  if (mcause == MCAUSE_LOAD_ACCESS_FAULT && access_fault_expected) {
    uint64_t mtval;
    __asm__ volatile("csrr %0, mtval" : "=r"(mtval));
    access_fault_address = mtval;
    access_fault_expected = 0;
    /* Resume after the faulting load (2 or 4 bytes long). */
    const uint16_t first_half = *(const uint16_t*)(uintptr_t)mepc;
    const uint64_t next = mepc + ((first_half & 3u) == 3u ? 4u : 2u);
    __asm__ volatile("csrw mepc, %0" ::"r"(next));
    return;
  }
  printf("FAIL: unexpected trap, mcause 0x%llx at mepc 0x%llx\n", (unsigned long long)mcause,
         (unsigned long long)mepc);
  _exit(100);
}

uint32_t test_random(uint64_t* state) {
  uint64_t x = *state;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  *state = x;
  return (uint32_t)((x * 0x2545F4914F6CDD1Dull) >> 32);
}
