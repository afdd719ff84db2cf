// Pathfinder: minimum-cost path from the top row to each cell of the bottom
// row of a weight grid, moving down to one of the three cells below.
// One launch advances a band of `steps` rows. Each CTA keeps one row of costs
// for blockDim.x columns in shared memory; the band's outer `halo` columns on
// each side are recomputed redundantly (the valid region shrinks by one
// column per side per row), so CTAs never exchange data within a band.

#define PF_INF 0x3fffffff  // larger than any path cost, small enough not to overflow

extern "C" __global__ void pathfinder_band(const int* __restrict__ wall, const int* __restrict__ src,
                                           int* __restrict__ dst, int cols, int first_row, int steps,
                                           int halo) {
  extern __shared__ int row[];  // blockDim.x costs of the previous row
  const int t = threadIdx.x;
  const int width = blockDim.x;
  const int col = blockIdx.x * (width - 2 * halo) - halo + t;
  const bool in_grid = col >= 0 && col < cols;

  row[t] = in_grid ? src[col] : PF_INF;
  __syncthreads();

  for (int s = 0; s < steps; ++s) {
    // Cells whose three parents are still valid inside this tile.
    const bool valid = t > s && t < width - 1 - s;
    int cost = PF_INF;
    if (valid && in_grid) {
      int best = min(row[t - 1], min(row[t], row[t + 1]));
      cost = wall[(first_row + s) * cols + col] + best;
    }
    __syncthreads();  // everyone has read the previous row
    if (valid) row[t] = cost;
    __syncthreads();  // the new row is complete
  }

  if (t >= halo && t < width - halo && in_grid) dst[col] = row[t];
}
