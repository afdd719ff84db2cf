// The gain of opening candidate facilities in online clustering: every point
// (weight w, current assignment cost) measures its weighted squared distance
// to each of a batch of candidate centres, which are themselves points, and
// keeps the cheapest candidate if it beats its current cost. Points are stored
// feature-major (coordinate d of point p at d * n + p) so a warp's loads of
// its own coordinates coalesce, while every lane reads the same candidate
// coordinate (a broadcast from a gathered address): many loads per thread,
// little arithmetic, memory-bound. Each CTA then sums its points' savings in
// shared memory (a tree, strides 64 .. 1) for the host's gain total.

#define BLOCK 128

extern "C" __global__ void streamcluster_gain(const float* __restrict__ coords, const float* __restrict__ weight,
                                              const float* __restrict__ cost, const int* __restrict__ candidates,
                                              int* __restrict__ choice, float* __restrict__ saving,
                                              float* __restrict__ cta_saving, int n, int dims, int num_candidates) {
  __shared__ float sums[BLOCK];
  const int p = blockIdx.x * BLOCK + threadIdx.x;
  float gain = 0.0f;
  if (p < n) {
    float best = cost[p];
    int best_c = -1;
    const float w = weight[p];
    for (int c = 0; c < num_candidates; ++c) {
      const int centre = candidates[c];
      float dist = 0.0f;
      for (int d = 0; d < dims; ++d) {
        const float diff = coords[d * n + p] - coords[d * n + centre];
        dist = fmaf(diff, diff, dist);
      }
      const float weighted = dist * w;
      if (weighted < best) {  // strict: the earlier candidate wins a tie
        best = weighted;
        best_c = c;
      }
    }
    gain = cost[p] - best;
    choice[p] = best_c;
    saving[p] = gain;
  }
  sums[threadIdx.x] = gain;
  __syncthreads();
  for (int stride = BLOCK / 2; stride > 0; stride >>= 1) {
    if (threadIdx.x < stride) sums[threadIdx.x] += sums[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) cta_saving[blockIdx.x] = sums[0];
}
