/* Helpers the GPU test programs share: start-up, a checked wait, the verdict. */
#ifndef TLMGPU_FIRMWARE_CHECK_H
#define TLMGPU_FIRMWARE_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#include "firmware/gpu.h"
#include "firmware/runtime.h"

/* Exit codes of the test programs. */
#define EXIT_PASS 0
#define EXIT_FAIL 1
#define EXIT_NO_GPU 2

static inline void start_gpu(const char* program) {
  if (gpu_init() != 0) {
    printf("%s: FAIL: no GPU at the expected address\n", program);
    exit(EXIT_NO_GPU);
  }
}

/* Waits for the queue; on a GPU error prints the error registers and fails. */
static inline void wait_ok(const char* program) {
  const uint32_t code = gpu_wait();
  if (code != TLMGPU_ERROR_NONE) {
    gpu_error e;
    gpu_read_error(&e);
    printf("%s: FAIL: GPU error %u (%s): %s\n", program, (unsigned)code, gpu_error_name(code), e.message);
    exit(EXIT_FAIL);
  }
}

static inline int finish(const char* program, unsigned mismatches) {
  printf("%s: %u warp instructions, %u GPU cycles, %u interrupts\n", program,
         (unsigned)gpu_warp_instructions(), (unsigned)gpu_cycles(), (unsigned)gpu_interrupts());
  if (mismatches != 0) {
    printf("%s: FAIL (%u mismatches)\n", program, mismatches);
    return EXIT_FAIL;
  }
  printf("%s: PASS\n", program);
  return EXIT_PASS;
}

#endif
