/* vector_add on the GPU (workloads/vector_add): c = a + b over a grid-stride
 * loop, checked element by element against the CPU's sums. */
#include <stdint.h>
#include <stdio.h>

#include "firmware/check.h"
#include "firmware/ptx_images.h"

#define N 5000u

int main(void) {
  start_gpu("vector_add");
  gpu_module module;
  gpu_load_ptx(&module, ptx_vector_add_start, PTX_BYTES(vector_add));
  float* a = gpu_alloc(N * sizeof(float));
  float* b = gpu_alloc(N * sizeof(float));
  float* c = gpu_alloc(N * sizeof(float));
  uint64_t seed = 1;
  for (uint32_t i = 0; i < N; ++i) {
    a[i] = (float)i * 0.5f;
    b[i] = (float)(test_random(&seed) % 1000u) / 8.0f;
    c[i] = -1.0f;
  }
  gpu_params p;
  gpu_params_init(&p);
  gpu_param_ptr(&p, a);
  gpu_param_ptr(&p, b);
  gpu_param_ptr(&p, c);
  gpu_param_u32(&p, N);
  /* Fewer threads than elements: the kernel's stride loop covers the rest. */
  if (gpu_launch(&module, "vector_add", (gpu_dim3){8, 1, 1}, (gpu_dim3){128, 1, 1}, 0, &p) != 0) {
    printf("vector_add: FAIL: launch refused\n");
    return EXIT_FAIL;
  }
  wait_ok("vector_add");
  unsigned mismatches = 0;
  for (uint32_t i = 0; i < N; ++i) {
    if (c[i] != a[i] + b[i]) {
      if (mismatches < 5) {
        printf("vector_add: c[%u] = %f, expected %f\n", (unsigned)i, (double)c[i], (double)(a[i] + b[i]));
      }
      ++mismatches;
    }
  }
  return finish("vector_add", mismatches);
}
