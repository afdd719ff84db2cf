// global_increment_ipdom as a CUDA program: global_increment's host steps,
// launching the module's IPDOM-safe variant of the kernel.
#define GLOBAL_INCREMENT_KERNEL global_increment_ipdom
#define GLOBAL_INCREMENT_NAME "global_increment_ipdom"
#include "tests/cuda/workloads/global_increment.cu"
