// hotspot_32x32 as a CUDA program: hotspot's host steps on seed 003's
// 32 x 32 grid, 6 time steps (2 at small).
#define HOTSPOT_NAME "hotspot_32x32"
#define HOTSPOT_SEED003_SHAPE true
#include "tests/cuda/workloads/hotspot.cu"
