// One Lloyd iteration of k-means as two kernels.
// assign: one thread per point finds the nearest centroid (squared Euclidean
// distance, ties to the lower index). Points are row-major, so a thread
// reads its own point's features at a stride of `dims` floats from its
// neighbours (uncoalesced) and re-reads them for every centroid: the kernel
// is cache-sensitive, fast when each warp's lines stay in L1 between
// centroids and memory-bound when too many warps evict each other.
// partial_sums: a CTA takes a chunk of points; thread t < k * dims sums
// feature t % dims of the chunk's points in cluster t / dims, and thread
// k * dims + c counts cluster c's members, so most lanes skip most points
// (divergent) and the rest of the CTA idles. The host adds the CTAs' partial
// sums in CTA order and divides by the counts.

extern "C" __global__ void kmeans_assign(const float* __restrict__ points, const float* __restrict__ centroids,
                                         int* __restrict__ membership, int n, int dims, int k) {
  const int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= n) return;
  float best = 3.402823466e38f;
  int best_c = 0;
  for (int c = 0; c < k; ++c) {
    float dist = 0.0f;
    for (int d = 0; d < dims; ++d) {
      const float diff = points[p * dims + d] - centroids[c * dims + d];
      dist = fmaf(diff, diff, dist);
    }
    if (dist < best) {
      best = dist;
      best_c = c;
    }
  }
  membership[p] = best_c;
}

extern "C" __global__ void kmeans_partial_sums(const float* __restrict__ points, const int* __restrict__ membership,
                                               float* __restrict__ partial, int* __restrict__ counts, int n, int dims,
                                               int k, int chunk) {
  const int t = threadIdx.x;
  const int first = blockIdx.x * chunk;
  const int last = min(first + chunk, n);
  if (t < k * dims) {
    const int cluster = t / dims, d = t % dims;
    float sum = 0.0f;
    for (int p = first; p < last; ++p)
      if (membership[p] == cluster) sum += points[p * dims + d];
    partial[blockIdx.x * k * dims + t] = sum;
  } else if (t < k * dims + k) {
    const int cluster = t - k * dims;
    int count = 0;
    for (int p = first; p < last; ++p) count += membership[p] == cluster;
    counts[blockIdx.x * k + cluster] = count;
  }
}
