/* Resets a hung GPU through the SoC's reset controller and goes on. A kernel
 * spins on a flag nobody sets (run tlmgpu_vp with --watchdog off, or the
 * watchdog ends it first); the GPU is still busy a while later. Holding it
 * in reset aborts the launch and brings every register to its power-on
 * value without an interrupt, and register writes do nothing meanwhile.
 * Released, it stays quiet (setting the flag now ends no launch: it is
 * gone), and once programmed again it runs vector_add, checked against the
 * CPU. */
#include <stdint.h>
#include <stdio.h>

#include "firmware/check.h"
#include "firmware/ptx_images.h"

#define N 1000u

static unsigned failures;

static void expect(int ok, const char* what) {
  printf("hung_gpu: %s: %s\n", what, ok ? "ok" : "WRONG");
  if (!ok) ++failures;
}

/* Lets simulated time pass: each MMIO read is a bus transaction. */
static uint32_t read_repeatedly(gpu_device* gpu, uint32_t offset, unsigned times) {
  uint32_t value = 0;
  for (unsigned i = 0; i < times; ++i) value = gpu_device_read(gpu, offset);
  return value;
}

/* Every register the reset sets to 0 (docs/SOC.md) reads 0. */
static int registers_at_power_on(gpu_device* gpu) {
  static const uint32_t zero[] = {
      TLMGPU_REG_HEAP_BASE_LO,  TLMGPU_REG_HEAP_SIZE,   TLMGPU_REG_QUEUE_BASE_LO, TLMGPU_REG_QUEUE_SIZE,
      TLMGPU_REG_QUEUE_HEAD,    TLMGPU_REG_QUEUE_TAIL,  TLMGPU_REG_STATUS,        TLMGPU_REG_ERROR_CODE,
      TLMGPU_REG_IRQ_ENABLE,    TLMGPU_REG_IRQ_STATUS,  TLMGPU_REG_CYCLES_LO,     TLMGPU_REG_WARP_INSTS_LO,
      TLMGPU_REG_LAUNCHES_DONE};
  int ok = gpu_device_read(gpu, TLMGPU_REG_ID) == TLMGPU_ID_VALUE;
  for (unsigned i = 0; i < sizeof zero / sizeof zero[0]; ++i) ok &= gpu_device_read(gpu, zero[i]) == 0;
  return ok;
}

int main(void) {
  gpu_device* gpu = gpu_device_init(0);
  if (gpu == NULL) {
    printf("hung_gpu: FAIL: no GPU at the expected address\n");
    return EXIT_NO_GPU;
  }
  gpu_module spin;
  gpu_load_ptx(&spin, ptx_spin_until_flag_start, PTX_BYTES(spin_until_flag));
  volatile uint32_t* flag = gpu_alloc(sizeof(uint32_t));
  *flag = 0;
  gpu_params p;
  gpu_params_init(&p);
  gpu_param_ptr(&p, (const void*)flag);
  expect(gpu_device_launch(gpu, &spin, "spin_until_flag", (gpu_dim3){2, 1, 1}, (gpu_dim3){64, 1, 1}, 0, &p) == 0,
         "the spinning kernel is queued");
  expect(read_repeatedly(gpu, TLMGPU_REG_STATUS, 5000) == TLMGPU_STATUS_BUSY, "the GPU hangs (still busy)");
  const uint32_t interrupts = gpu_device_interrupts(gpu);

  gpu_device_hold_in_reset(0, 1);
  expect(registers_at_power_on(gpu), "held in reset: the registers read their power-on values");
  gpu_device_write(gpu, TLMGPU_REG_QUEUE_SIZE, 5);
  gpu_device_write(gpu, TLMGPU_REG_IRQ_ENABLE, TLMGPU_IRQ_QUEUE_EMPTY);
  gpu_device_write(gpu, TLMGPU_REG_DOORBELL, 1);
  expect(read_repeatedly(gpu, TLMGPU_REG_STATUS, 1000) == TLMGPU_STATUS_IDLE &&
             gpu_device_read(gpu, TLMGPU_REG_QUEUE_SIZE) == 0 && gpu_device_read(gpu, TLMGPU_REG_IRQ_ENABLE) == 0,
         "held in reset: writes change nothing");

  gpu_device_hold_in_reset(0, 0);
  *flag = 1; /* would end the spinning kernel, were it still running */
  expect(read_repeatedly(gpu, TLMGPU_REG_IRQ_STATUS, 2000) == 0 && registers_at_power_on(gpu),
         "released: IRQ_STATUS stays 0, the aborted launch does not complete");
  expect(gpu_device_interrupts(gpu) == interrupts, "no interrupt from the reset");

  /* Programmed again, the GPU works. */
  if (gpu_device_init(0) != gpu) {
    printf("hung_gpu: FAIL: the GPU does not answer after the reset\n");
    return EXIT_FAIL;
  }
  gpu_module add;
  gpu_load_ptx(&add, ptx_vector_add_start, PTX_BYTES(vector_add));
  float* a = gpu_alloc(N * sizeof(float));
  float* b = gpu_alloc(N * sizeof(float));
  float* c = gpu_alloc(N * sizeof(float));
  for (uint32_t i = 0; i < N; ++i) {
    a[i] = (float)i;
    b[i] = 0.25f * (float)i + 3.0f;
    c[i] = -1.0f;
  }
  gpu_params_init(&p);
  gpu_param_ptr(&p, a);
  gpu_param_ptr(&p, b);
  gpu_param_ptr(&p, c);
  gpu_param_u32(&p, N);
  expect(gpu_device_launch(gpu, &add, "vector_add", (gpu_dim3){4, 1, 1}, (gpu_dim3){128, 1, 1}, 0, &p) == 0,
         "vector_add is queued");
  const uint32_t code = gpu_device_wait(gpu);
  if (code != TLMGPU_ERROR_NONE) {
    gpu_error e;
    gpu_device_read_error(gpu, &e);
    printf("hung_gpu: GPU error %u (%s): %s\n", (unsigned)code, gpu_error_name(code), e.message);
  }
  unsigned mismatches = 0;
  for (uint32_t i = 0; i < N; ++i) mismatches += c[i] != a[i] + b[i];
  expect(code == TLMGPU_ERROR_NONE && mismatches == 0, "vector_add after the reset matches the CPU");
  expect(gpu_device_read(gpu, TLMGPU_REG_LAUNCHES_DONE) == 1, "LAUNCHES_DONE counts from the reset");

  if (failures != 0) {
    printf("hung_gpu: FAIL (%u checks wrong)\n", failures);
    return EXIT_FAIL;
  }
  printf("hung_gpu: %u warp instructions, %u GPU cycles since the reset\n",
         (unsigned)gpu_device_warp_instructions(gpu), (unsigned)gpu_device_cycles(gpu));
  printf("hung_gpu: PASS\n");
  return EXIT_PASS;
}
