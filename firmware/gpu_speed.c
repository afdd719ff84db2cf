/* A GPU-bound program for measuring the GPU's speed inside the VP
 * (docs/PERFORMANCE.md): one 128x128x128 sgemm; 64 sampled outputs are
 * checked on the CPU so that the hart mostly sleeps in wfi. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "firmware/check.h"
#include "firmware/ptx_images.h"

#define DIM 128u

int main(void) {
  start_gpu("gpu_speed");
  gpu_module module;
  gpu_load_ptx(&module, ptx_sgemm_start, PTX_BYTES(sgemm));
  float* a = gpu_alloc(DIM * DIM * sizeof(float));
  float* b = gpu_alloc(DIM * DIM * sizeof(float));
  float* c = gpu_alloc(DIM * DIM * sizeof(float));
  uint64_t seed = 5;
  for (uint32_t i = 0; i < DIM * DIM; ++i) {
    a[i] = (float)(test_random(&seed) % 16u) / 8.0f;
    b[i] = (float)(test_random(&seed) % 16u) / 8.0f;
    c[i] = 0.0f;
  }
  gpu_params p;
  gpu_params_init(&p);
  gpu_param_ptr(&p, a);
  gpu_param_ptr(&p, b);
  gpu_param_ptr(&p, c);
  gpu_param_u32(&p, DIM);
  gpu_param_u32(&p, DIM);
  gpu_param_u32(&p, DIM);
  gpu_param_f32(&p, 1.0f);
  gpu_param_f32(&p, 0.0f);
  gpu_launch(&module, "sgemm_tiled", (gpu_dim3){DIM / 16, DIM / 16, 1}, (gpu_dim3){16, 16, 1}, 0, &p);
  wait_ok("gpu_speed");
  unsigned mismatches = 0;
  for (uint32_t s = 0; s < 64; ++s) {
    const uint32_t row = (s * 37u) % DIM, col = (s * 91u) % DIM;
    float acc = 0.0f;
    for (uint32_t k = 0; k < DIM; ++k) acc += a[row * DIM + k] * b[k * DIM + col];
    mismatches += !(fabsf(c[row * DIM + col] - acc) <= 1e-4f * (1.0f + fabsf(acc)));
  }
  return finish("gpu_speed", mismatches);
}
