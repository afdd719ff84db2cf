/* sgemm on the GPU (workloads/sgemm): C = alpha * A * B + beta * C with 16x16
 * shared-memory tiles, sizes that are not multiples of the tile; checked
 * against the CPU's product within a relative tolerance (the GPU may fuse
 * multiply-adds the CPU rounds separately). */
#include "firmware/kernel_jobs.h"

int main(void) {
  start_gpu("sgemm");
  static sgemm_job job;
  sgemm_prepare(&job);
  if (gpu_launch(&job.module, "sgemm_tiled", sgemm_grid(), sgemm_block(), 0, &job.params) != 0) {
    printf("sgemm: FAIL: launch refused\n");
    return EXIT_FAIL;
  }
  wait_ok("sgemm");
  return finish("sgemm", sgemm_mismatches(&job, "sgemm"));
}
