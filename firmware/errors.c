/* Provokes each kind of GPU error and checks that the driver reads the right
 * error code, then that the next launch after gpu_reset() works:
 * bad PTX, an unknown kernel, an out-of-bounds access (no memory at the
 * address), a misaligned access, and an access to an unmapped GPU register
 * (a bus error the hart takes as a load access fault). */
#include <stdint.h>
#include <stdio.h>

#include "firmware/check.h"
#include "firmware/ptx_images.h"
#include "vp/soc_memory_map.h"

#define N 300u

static unsigned failures;

static void expect(int ok, const char* what) {
  printf("errors: %s: %s\n", what, ok ? "ok" : "WRONG");
  if (!ok) ++failures;
}

static void launch_vector_add(const gpu_module* module, const float* a, const float* b, float* c) {
  gpu_params p;
  gpu_params_init(&p);
  gpu_param_ptr(&p, a);
  gpu_param_ptr(&p, b);
  gpu_param_ptr(&p, c);
  gpu_param_u32(&p, N);
  gpu_launch(module, "vector_add", (gpu_dim3){3, 1, 1}, (gpu_dim3){128, 1, 1}, 0, &p);
}

/* Expects `code` from the queued launch, shows the error registers, resets,
 * then checks that a good launch runs. */
static void expect_error(const char* what, uint32_t code, const gpu_module* good, float* a, float* b, float* c) {
  const uint32_t got = gpu_wait();
  gpu_error e;
  gpu_read_error(&e);
  printf("errors: %s -> %u (%s), address 0x%llx, info %u: %s\n", what, (unsigned)got, gpu_error_name(got),
         (unsigned long long)e.address, (unsigned)e.info, e.message);
  expect(got == code && e.code == code, what);
  gpu_reset();
  for (uint32_t i = 0; i < N; ++i) c[i] = 0.0f;
  launch_vector_add(good, a, b, c);
  const uint32_t after = gpu_wait();
  unsigned wrong = 0;
  for (uint32_t i = 0; i < N; ++i) wrong += c[i] != a[i] + b[i];
  expect(after == TLMGPU_ERROR_NONE && wrong == 0, "the next launch works");
}

int main(void) {
  start_gpu("errors");
  gpu_module good, bad;
  gpu_load_ptx(&good, ptx_vector_add_start, PTX_BYTES(vector_add));
  static const char not_ptx[] = ".version 7.0\n.target sm_75\nthis is not PTX\n";
  gpu_load_ptx(&bad, not_ptx, sizeof not_ptx - 1);
  float* a = gpu_alloc(N * sizeof(float));
  float* b = gpu_alloc(N * sizeof(float));
  float* c = gpu_alloc(N * sizeof(float));
  for (uint32_t i = 0; i < N; ++i) {
    a[i] = (float)i;
    b[i] = 2.0f * (float)i;
  }

  launch_vector_add(&bad, a, b, c);
  expect_error("bad PTX", TLMGPU_ERROR_PTX, &good, a, b, c);

  gpu_params p;
  gpu_params_init(&p);
  gpu_param_ptr(&p, a);
  gpu_launch(&good, "no_such_kernel", (gpu_dim3){1, 1, 1}, (gpu_dim3){32, 1, 1}, 0, &p);
  expect_error("unknown kernel", TLMGPU_ERROR_UNKNOWN_KERNEL, &good, a, b, c);

  /* No memory at 0x30000000: the GPU's store gets the bus's error response. */
  launch_vector_add(&good, a, b, (float*)(uintptr_t)0x30000000u);
  expect_error("out-of-bounds access", TLMGPU_ERROR_MEMORY, &good, a, b, c);

  launch_vector_add(&good, a, b, (float*)((uintptr_t)c + 2));
  expect_error("misaligned access", TLMGPU_ERROR_DEVICE_FAULT, &good, a, b, c);

  uint32_t value = 0;
  const uintptr_t unmapped = VP_GPU_BASE + 0x3FCu;
  expect(probe_read32(unmapped, &value) == -1, "unmapped GPU register faults");
  expect(probe_read32(VP_GPU_BASE + TLMGPU_REG_ID, &value) == 0 && value == TLMGPU_ID_VALUE,
         "a mapped register still reads");
  launch_vector_add(&good, a, b, c);
  expect(gpu_wait() == TLMGPU_ERROR_NONE, "a launch after the bus error works");

  if (failures != 0) {
    printf("errors: FAIL (%u checks wrong)\n", failures);
    return EXIT_FAIL;
  }
  printf("errors: PASS\n");
  return EXIT_PASS;
}
