/* histogram on the GPU (workloads/histogram): per-CTA partial histograms of
 * the bytes of 32-bit words with shared-memory atomics, then a merge kernel;
 * two launches queued back to back. Checked bin by bin against the CPU. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "firmware/check.h"
#include "firmware/ptx_images.h"

#define WORDS 6000u
#define BINS 256u
#define CTAS 6u

int main(void) {
  start_gpu("histogram");
  gpu_module module;
  gpu_load_ptx(&module, ptx_histogram_start, PTX_BYTES(histogram));
  uint32_t* words = gpu_alloc(WORDS * sizeof(uint32_t));
  uint32_t* partials = gpu_alloc(CTAS * BINS * sizeof(uint32_t));
  uint32_t* hist = gpu_alloc(BINS * sizeof(uint32_t));
  static uint32_t expected[BINS];
  memset(expected, 0, sizeof expected);
  uint64_t seed = 3;
  for (uint32_t i = 0; i < WORDS; ++i) {
    /* Skewed bytes: some bins collect many more counts than others. */
    const uint32_t r = test_random(&seed);
    words[i] = r & (i % 3u == 0 ? 0x0F0F0F0Fu : 0xFFFFFFFFu);
    for (uint32_t byte = 0; byte < 4; ++byte) ++expected[(words[i] >> (8 * byte)) & 0xFFu];
  }
  memset(hist, 0xFF, BINS * sizeof(uint32_t));
  gpu_params p;
  gpu_params_init(&p);
  gpu_param_ptr(&p, words);
  gpu_param_u32(&p, WORDS);
  gpu_param_ptr(&p, partials);
  gpu_params merge;
  gpu_params_init(&merge);
  gpu_param_ptr(&merge, partials);
  gpu_param_u32(&merge, CTAS);
  gpu_param_ptr(&merge, hist);
  if (gpu_launch(&module, "histogram_partial", (gpu_dim3){CTAS, 1, 1}, (gpu_dim3){256, 1, 1}, 0, &p) != 0 ||
      gpu_launch(&module, "histogram_merge", (gpu_dim3){1, 1, 1}, (gpu_dim3){BINS, 1, 1}, 0, &merge) != 0) {
    printf("histogram: FAIL: launch refused\n");
    return EXIT_FAIL;
  }
  wait_ok("histogram");
  unsigned mismatches = 0;
  for (uint32_t i = 0; i < BINS; ++i) {
    if (hist[i] != expected[i]) {
      if (mismatches < 5) {
        printf("histogram: bin %u = %u, expected %u\n", (unsigned)i, (unsigned)hist[i], (unsigned)expected[i]);
      }
      ++mismatches;
    }
  }
  return finish("histogram", mismatches);
}
