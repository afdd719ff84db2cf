/* sgemm on the GPU (workloads/sgemm): C = alpha * A * B + beta * C with 16x16
 * shared-memory tiles, sizes that are not multiples of the tile; checked
 * against the CPU's product within a relative tolerance (the GPU may fuse
 * multiply-adds the CPU rounds separately). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "firmware/check.h"
#include "firmware/ptx_images.h"

#define M 40u
#define NCOLS 36u
#define K 24u
#define TILE 16u

int main(void) {
  start_gpu("sgemm");
  gpu_module module;
  gpu_load_ptx(&module, ptx_sgemm_start, PTX_BYTES(sgemm));
  float* a = gpu_alloc(M * K * sizeof(float));
  float* b = gpu_alloc(K * NCOLS * sizeof(float));
  float* c = gpu_alloc(M * NCOLS * sizeof(float));
  static float expected[M * NCOLS];
  const float alpha = 1.5f, beta = 0.5f;
  uint64_t seed = 7;
  for (uint32_t i = 0; i < M * K; ++i) a[i] = (float)((int)(test_random(&seed) % 200u) - 100) / 64.0f;
  for (uint32_t i = 0; i < K * NCOLS; ++i) b[i] = (float)((int)(test_random(&seed) % 200u) - 100) / 64.0f;
  for (uint32_t i = 0; i < M * NCOLS; ++i) c[i] = (float)(i % 7u);
  for (uint32_t r = 0; r < M; ++r) {
    for (uint32_t col = 0; col < NCOLS; ++col) {
      float acc = 0.0f;
      for (uint32_t k = 0; k < K; ++k) acc += a[r * K + k] * b[k * NCOLS + col];
      expected[r * NCOLS + col] = alpha * acc + beta * c[r * NCOLS + col];
    }
  }
  gpu_params p;
  gpu_params_init(&p);
  gpu_param_ptr(&p, a);
  gpu_param_ptr(&p, b);
  gpu_param_ptr(&p, c);
  gpu_param_u32(&p, M);
  gpu_param_u32(&p, NCOLS);
  gpu_param_u32(&p, K);
  gpu_param_f32(&p, alpha);
  gpu_param_f32(&p, beta);
  const gpu_dim3 grid = {(NCOLS + TILE - 1) / TILE, (M + TILE - 1) / TILE, 1};
  if (gpu_launch(&module, "sgemm_tiled", grid, (gpu_dim3){TILE, TILE, 1}, 0, &p) != 0) {
    printf("sgemm: FAIL: launch refused\n");
    return EXIT_FAIL;
  }
  wait_ok("sgemm");
  unsigned mismatches = 0;
  for (uint32_t i = 0; i < M * NCOLS; ++i) {
    const float tolerance = 1e-4f * (1.0f + fabsf(expected[i]));
    if (!(fabsf(c[i] - expected[i]) <= tolerance)) {
      if (mismatches < 5) {
        printf("sgemm: c[%u] = %f, expected %f\n", (unsigned)i, (double)c[i], (double)expected[i]);
      }
      ++mismatches;
    }
  }
  return finish("sgemm", mismatches);
}
