/* vector_add on the GPU (workloads/vector_add): c = a + b over a grid-stride
 * loop, checked element by element against the CPU's sums. */
#include "firmware/kernel_jobs.h"

int main(void) {
  start_gpu("vector_add");
  vector_add_job job;
  vector_add_prepare(&job);
  if (gpu_launch(&job.module, "vector_add", vector_add_grid(), vector_add_block(), 0, &job.params) != 0) {
    printf("vector_add: FAIL: launch refused\n");
    return EXIT_FAIL;
  }
  wait_ok("vector_add");
  return finish("vector_add", vector_add_mismatches(&job, "vector_add"));
}
