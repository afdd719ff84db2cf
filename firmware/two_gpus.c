/* Two GPUs at once (tlmgpu_vp --gpu1-preset P): sgemm on GPU 0 and
 * vector_add on GPU 1, launched one after the other without waiting, so that
 * both run at the same time; then waited for one after the other (one
 * interrupt line into the hart: the driver asks each GPU's IRQ_STATUS) and
 * each result checked against the CPU's. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "firmware/kernel_jobs.h"
#include "vp/soc_memory_map.h"

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

  /* sgemm's and vector_add's inputs and the CPU's results (firmware/kernel_jobs.h). */
  static sgemm_job sgemm;
  sgemm_prepare(&sgemm);
  vector_add_job add;
  vector_add_prepare(&add);

  /* Everything is ready: both launches go out back to back. */
  const int launched0 =
      gpu_device_launch(gpu0, &sgemm.module, "sgemm_tiled", sgemm_grid(), sgemm_block(), 0, &sgemm.params);
  const int launched1 =
      gpu_device_launch(gpu1, &add.module, "vector_add", vector_add_grid(), vector_add_block(), 0, &add.params);
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

  const unsigned sgemm_wrong = sgemm_mismatches(&sgemm, "two_gpus: sgemm");
  const unsigned add_wrong = vector_add_mismatches(&add, "two_gpus: vector_add");
  expect(sgemm_wrong == 0, "sgemm on GPU 0 matches the CPU");
  expect(add_wrong == 0, "vector_add on GPU 1 matches the CPU");

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
