/* Two GPUs at once (tlmgpu_vp --gpu1-preset P): sgemm on GPU 0 and
 * vector_add on GPU 1, launched one after the other without waiting, so that
 * both run at the same time; then waited for one after the other (one
 * interrupt line into the hart: the driver asks each GPU's IRQ_STATUS) and
 * each result checked against the CPU's. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "firmware/check.h"
#include "firmware/ptx_images.h"
#include "vp/soc_memory_map.h"

#define M 40u
#define NCOLS 36u
#define K 24u
#define TILE 16u
#define N 5000u

static unsigned failures;

static void expect(int ok, const char* what) {
  printf("two_gpus: %s: %s\n", what, ok ? "ok" : "WRONG");
  if (!ok) ++failures;
}

static void preset_name(gpu_device* gpu, char name[17]) {
  for (uint32_t i = 0; i < 16; i += 4) {
    const uint32_t word = gpu_device_read(gpu, TLMGPU_REG_PRESET_NAME + i);
    memcpy(name + i, &word, 4);
  }
  name[16] = '\0';
}

int main(void) {
  uint32_t id = 0;
  if (probe_read32(VP_GPU1_BASE + TLMGPU_REG_ID, &id) != 0 || id != TLMGPU_ID_VALUE) {
    printf("two_gpus: FAIL: no second GPU at 0x%x (tlmgpu_vp --gpu1-preset P adds one)\n", VP_GPU1_BASE);
    return EXIT_NO_GPU;
  }
  gpu_device* gpu0 = gpu_device_init(0);
  gpu_device* gpu1 = gpu_device_init(1);
  if (gpu0 == NULL || gpu1 == NULL) {
    printf("two_gpus: FAIL: a GPU's ID register is wrong\n");
    return EXIT_NO_GPU;
  }
  char name0[17], name1[17];
  preset_name(gpu0, name0);
  preset_name(gpu1, name1);
  printf("two_gpus: GPU 0 is %s, GPU 1 is %s\n", name0, name1);

  /* sgemm's inputs and the CPU's product (workloads/sgemm, as firmware/sgemm.c). */
  gpu_module sgemm_module;
  gpu_load_ptx(&sgemm_module, ptx_sgemm_start, PTX_BYTES(sgemm));
  float* a = gpu_alloc(M * K * sizeof(float));
  float* b = gpu_alloc(K * NCOLS * sizeof(float));
  float* c = gpu_alloc(M * NCOLS * sizeof(float));
  static float expected_c[M * NCOLS];
  const float alpha = 1.5f, beta = 0.5f;
  uint64_t seed = 7;
  for (uint32_t i = 0; i < M * K; ++i) a[i] = (float)((int)(test_random(&seed) % 200u) - 100) / 64.0f;
  for (uint32_t i = 0; i < K * NCOLS; ++i) b[i] = (float)((int)(test_random(&seed) % 200u) - 100) / 64.0f;
  for (uint32_t i = 0; i < M * NCOLS; ++i) c[i] = (float)(i % 7u);
  for (uint32_t r = 0; r < M; ++r) {
    for (uint32_t col = 0; col < NCOLS; ++col) {
      float acc = 0.0f;
      for (uint32_t k = 0; k < K; ++k) acc += a[r * K + k] * b[k * NCOLS + col];
      expected_c[r * NCOLS + col] = alpha * acc + beta * c[r * NCOLS + col];
    }
  }
  gpu_params sgemm_params;
  gpu_params_init(&sgemm_params);
  gpu_param_ptr(&sgemm_params, a);
  gpu_param_ptr(&sgemm_params, b);
  gpu_param_ptr(&sgemm_params, c);
  gpu_param_u32(&sgemm_params, M);
  gpu_param_u32(&sgemm_params, NCOLS);
  gpu_param_u32(&sgemm_params, K);
  gpu_param_f32(&sgemm_params, alpha);
  gpu_param_f32(&sgemm_params, beta);

  /* vector_add's inputs (workloads/vector_add, as firmware/vector_add.c). */
  gpu_module add_module;
  gpu_load_ptx(&add_module, ptx_vector_add_start, PTX_BYTES(vector_add));
  float* x = gpu_alloc(N * sizeof(float));
  float* y = gpu_alloc(N * sizeof(float));
  float* sum = gpu_alloc(N * sizeof(float));
  seed = 1;
  for (uint32_t i = 0; i < N; ++i) {
    x[i] = (float)i * 0.5f;
    y[i] = (float)(test_random(&seed) % 1000u) / 8.0f;
    sum[i] = -1.0f;
  }
  gpu_params add_params;
  gpu_params_init(&add_params);
  gpu_param_ptr(&add_params, x);
  gpu_param_ptr(&add_params, y);
  gpu_param_ptr(&add_params, sum);
  gpu_param_u32(&add_params, N);

  /* Everything is ready: both launches go out back to back. */
  const gpu_dim3 sgemm_grid = {(NCOLS + TILE - 1) / TILE, (M + TILE - 1) / TILE, 1};
  const int launched0 =
      gpu_device_launch(gpu0, &sgemm_module, "sgemm_tiled", sgemm_grid, (gpu_dim3){TILE, TILE, 1}, 0, &sgemm_params);
  const int launched1 =
      gpu_device_launch(gpu1, &add_module, "vector_add", (gpu_dim3){8, 1, 1}, (gpu_dim3){128, 1, 1}, 0, &add_params);
  expect(launched0 == 0 && launched1 == 0, "both launches queued");
  const uint32_t status0 = gpu_device_read(gpu0, TLMGPU_REG_STATUS);
  const uint32_t status1 = gpu_device_read(gpu1, TLMGPU_REG_STATUS);
  expect(status0 == TLMGPU_STATUS_BUSY && status1 == TLMGPU_STATUS_BUSY, "both GPUs busy at once");

  const uint32_t error0 = gpu_device_wait(gpu0);
  const uint32_t error1 = gpu_device_wait(gpu1);
  if (error0 != TLMGPU_ERROR_NONE || error1 != TLMGPU_ERROR_NONE) {
    gpu_error e;
    gpu_device_read_error(error0 != TLMGPU_ERROR_NONE ? gpu0 : gpu1, &e);
    printf("two_gpus: FAIL: GPU errors %u (%s) and %u (%s): %s\n", (unsigned)error0, gpu_error_name(error0),
           (unsigned)error1, gpu_error_name(error1), e.message);
    return EXIT_FAIL;
  }

  unsigned sgemm_mismatches = 0;
  for (uint32_t i = 0; i < M * NCOLS; ++i) {
    const float tolerance = 1e-4f * (1.0f + fabsf(expected_c[i]));
    if (!(fabsf(c[i] - expected_c[i]) <= tolerance)) {
      if (sgemm_mismatches < 5) {
        printf("two_gpus: sgemm c[%u] = %f, expected %f\n", (unsigned)i, (double)c[i], (double)expected_c[i]);
      }
      ++sgemm_mismatches;
    }
  }
  unsigned add_mismatches = 0;
  for (uint32_t i = 0; i < N; ++i) {
    if (sum[i] != x[i] + y[i]) {
      if (add_mismatches < 5) {
        printf("two_gpus: vector_add c[%u] = %f, expected %f\n", (unsigned)i, (double)sum[i], (double)(x[i] + y[i]));
      }
      ++add_mismatches;
    }
  }
  expect(sgemm_mismatches == 0, "sgemm on GPU 0 matches the CPU");
  expect(add_mismatches == 0, "vector_add on GPU 1 matches the CPU");

  gpu_device* gpus[2] = {gpu0, gpu1};
  for (unsigned g = 0; g < 2; ++g) {
    printf("two_gpus: GPU %u: %u launches, %u warp instructions, %u GPU cycles, %u interrupts\n", g,
           (unsigned)gpu_device_read(gpus[g], TLMGPU_REG_LAUNCHES_DONE),
           (unsigned)gpu_device_warp_instructions(gpus[g]), (unsigned)gpu_device_cycles(gpus[g]),
           (unsigned)gpu_device_interrupts(gpus[g]));
    expect(gpu_device_read(gpus[g], TLMGPU_REG_LAUNCHES_DONE) == 1 && gpu_device_warp_instructions(gpus[g]) > 0 &&
               gpu_device_interrupts(gpus[g]) >= 1,
           g == 0 ? "GPU 0 ran its launch and interrupted" : "GPU 1 ran its launch and interrupted");
  }

  if (failures != 0) {
    printf("two_gpus: FAIL (%u checks wrong)\n", failures);
    return EXIT_FAIL;
  }
  printf("two_gpus: PASS\n");
  return EXIT_PASS;
}
