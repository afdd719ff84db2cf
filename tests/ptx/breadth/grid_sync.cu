// Fixture: a cooperative-groups grid barrier (two-phase reduction across
// CTAs). Regenerate: nvcc -ptx -arch=sm_75 -O3 grid_sync.cu -o grid_sync.ptx
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

extern "C" __global__ void grid_reduce(const int *in, int *partial, int *out, int n) {
    cg::grid_group grid = cg::this_grid();
    __shared__ int s[256];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    s[t] = i < n ? in[i] : 0;
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k >>= 1) {
        if (t < k) s[t] += s[t + k];
        __syncthreads();
    }
    if (t == 0) partial[blockIdx.x] = s[0];
    grid.sync();
    // Phase 2: every CTA reads every CTA's partial sum (only valid after the barrier).
    if (t == 0) {
        int sum = 0;
        for (int b = 0; b < gridDim.x; ++b) sum += partial[b];
        out[blockIdx.x] = sum;
    }
    grid.sync();
    // Phase 3: a second barrier episode; CTA 0 checks all CTAs agreed.
    if (blockIdx.x == 0 && t == 0) {
        int agree = 1;
        for (int b = 1; b < gridDim.x; ++b) agree &= out[b] == out[0];
        out[gridDim.x] = agree;
    }
}
