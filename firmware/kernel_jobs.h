/* The kernels more than one firmware program runs, each with its inputs,
 * launch arguments and the CPU's check: sgemm (workloads/sgemm) and
 * vector_add (workloads/vector_add). */
#ifndef TLMGPU_FIRMWARE_KERNEL_JOBS_H
#define TLMGPU_FIRMWARE_KERNEL_JOBS_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "firmware/check.h"
#include "firmware/ptx_images.h"

/* C = alpha * A * B + beta * C with 16x16 shared-memory tiles, sizes that
 * are not multiples of the tile. */
#define SGEMM_M 40u
#define SGEMM_N 36u
#define SGEMM_K 24u
#define SGEMM_TILE 16u

typedef struct {
  gpu_module module;
  gpu_params params;
  float *a, *b, *c;
  float expected[SGEMM_M * SGEMM_N];
} sgemm_job;

/* Loads the kernel, fills the inputs and computes the CPU's product. */
static inline void sgemm_prepare(sgemm_job* j) {
  gpu_load_ptx(&j->module, ptx_sgemm_start, PTX_BYTES(sgemm));
  j->a = gpu_alloc(SGEMM_M * SGEMM_K * sizeof(float));
  j->b = gpu_alloc(SGEMM_K * SGEMM_N * sizeof(float));
  j->c = gpu_alloc(SGEMM_M * SGEMM_N * sizeof(float));
  const float alpha = 1.5f, beta = 0.5f;
  uint64_t seed = 7;
  for (uint32_t i = 0; i < SGEMM_M * SGEMM_K; ++i) j->a[i] = (float)((int)(test_random(&seed) % 200u) - 100) / 64.0f;
  for (uint32_t i = 0; i < SGEMM_K * SGEMM_N; ++i) j->b[i] = (float)((int)(test_random(&seed) % 200u) - 100) / 64.0f;
  for (uint32_t i = 0; i < SGEMM_M * SGEMM_N; ++i) j->c[i] = (float)(i % 7u);
  for (uint32_t r = 0; r < SGEMM_M; ++r) {
    for (uint32_t col = 0; col < SGEMM_N; ++col) {
      float acc = 0.0f;
      for (uint32_t k = 0; k < SGEMM_K; ++k) acc += j->a[r * SGEMM_K + k] * j->b[k * SGEMM_N + col];
      j->expected[r * SGEMM_N + col] = alpha * acc + beta * j->c[r * SGEMM_N + col];
    }
  }
  gpu_params_init(&j->params);
  gpu_param_ptr(&j->params, j->a);
  gpu_param_ptr(&j->params, j->b);
  gpu_param_ptr(&j->params, j->c);
  gpu_param_u32(&j->params, SGEMM_M);
  gpu_param_u32(&j->params, SGEMM_N);
  gpu_param_u32(&j->params, SGEMM_K);
  gpu_param_f32(&j->params, alpha);
  gpu_param_f32(&j->params, beta);
}

static inline gpu_dim3 sgemm_grid(void) {
  return (gpu_dim3){(SGEMM_N + SGEMM_TILE - 1) / SGEMM_TILE, (SGEMM_M + SGEMM_TILE - 1) / SGEMM_TILE, 1};
}
static inline gpu_dim3 sgemm_block(void) { return (gpu_dim3){SGEMM_TILE, SGEMM_TILE, 1}; }

/* Elements of C off the CPU's product by more than a relative 1e-4 (the
 * GPU may fuse multiply-adds the CPU rounds separately); the first five are
 * printed after `label`. */
static inline unsigned sgemm_mismatches(const sgemm_job* j, const char* label) {
  unsigned mismatches = 0;
  for (uint32_t i = 0; i < SGEMM_M * SGEMM_N; ++i) {
    const float tolerance = 1e-4f * (1.0f + fabsf(j->expected[i]));
    if (!(fabsf(j->c[i] - j->expected[i]) <= tolerance)) {
      if (mismatches < 5) {
        printf("%s: c[%u] = %f, expected %f\n", label, (unsigned)i, (double)j->c[i], (double)j->expected[i]);
      }
      ++mismatches;
    }
  }
  return mismatches;
}

/* c = a + b over a grid-stride loop, with fewer threads than elements. */
#define VECTOR_ADD_N 5000u

typedef struct {
  gpu_module module;
  gpu_params params;
  float *a, *b, *c;
} vector_add_job;

static inline void vector_add_prepare(vector_add_job* j) {
  gpu_load_ptx(&j->module, ptx_vector_add_start, PTX_BYTES(vector_add));
  j->a = gpu_alloc(VECTOR_ADD_N * sizeof(float));
  j->b = gpu_alloc(VECTOR_ADD_N * sizeof(float));
  j->c = gpu_alloc(VECTOR_ADD_N * sizeof(float));
  uint64_t seed = 1;
  for (uint32_t i = 0; i < VECTOR_ADD_N; ++i) {
    j->a[i] = (float)i * 0.5f;
    j->b[i] = (float)(test_random(&seed) % 1000u) / 8.0f;
    j->c[i] = -1.0f;
  }
  gpu_params_init(&j->params);
  gpu_param_ptr(&j->params, j->a);
  gpu_param_ptr(&j->params, j->b);
  gpu_param_ptr(&j->params, j->c);
  gpu_param_u32(&j->params, VECTOR_ADD_N);
}

/* 8 CTAs of 128 threads: the kernel's stride loop covers the rest. */
static inline gpu_dim3 vector_add_grid(void) { return (gpu_dim3){8, 1, 1}; }
static inline gpu_dim3 vector_add_block(void) { return (gpu_dim3){128, 1, 1}; }

/* Elements of c that are not a + b; the first five are printed after `label`. */
static inline unsigned vector_add_mismatches(const vector_add_job* j, const char* label) {
  unsigned mismatches = 0;
  for (uint32_t i = 0; i < VECTOR_ADD_N; ++i) {
    if (j->c[i] != j->a[i] + j->b[i]) {
      if (mismatches < 5) {
        printf("%s: c[%u] = %f, expected %f\n", label, (unsigned)i, (double)j->c[i], (double)(j->a[i] + j->b[i]));
      }
      ++mismatches;
    }
  }
  return mismatches;
}

#endif
