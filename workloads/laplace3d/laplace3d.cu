// One Jacobi sweep of the 3-D Laplace equation on an NX x NY x NZ grid with
// Dirichlet boundaries (boundary points are copied, interior points become
// the mean of their 6 neighbours). Reproduces ISPASS 2009's LPS (Giles'
// laplace3d, kernel GPU_laplace3d): a 32 x 4 CTA owns a 32 x 4 column of the
// grid and marches up it in z, keeping planes k-1, k and k+1 of its tile plus
// a one-point halo in shared memory; each step rotates the planes down and
// reads plane k+1. The first 76 threads also carry one halo point each (64
// above and below the tile, 12 left and right including the corners). Rows
// are `pitch` floats apart (pitched allocation).

#define BLOCK_X 32
#define BLOCK_Y 4
#define TILE_X (BLOCK_X + 2)
#define TILE_PLANE (TILE_X * (BLOCK_Y + 2))
#define HALO_POINTS (2 * (BLOCK_X + BLOCK_Y + 2))

extern "C" __global__ void GPU_laplace3d(int nx, int ny, int nz, int pitch, const float* __restrict__ u1,
                                         float* __restrict__ u2)
{
  __shared__ float planes[3 * TILE_PLANE];  // k-1, k, k+1
  const int plane_stride = pitch * ny;
  const int t = threadIdx.x + threadIdx.y * BLOCK_X;

  // This thread's halo point, if any: tile coordinates (hi, hj) in [-1, BLOCK].
  bool halo = t < HALO_POINTS;
  int halo_tile = 0, halo_global = 0;
  if (halo) {
    int hi, hj;
    if (t < 2 * BLOCK_X) {  // rows above and below the tile (coalesced)
      hi = t % BLOCK_X;
      hj = t < BLOCK_X ? -1 : BLOCK_Y;
    } else {  // columns left and right, six rows each
      const int e = t - 2 * BLOCK_X;
      hi = (e & 1) ? BLOCK_X : -1;
      hj = e / 2 - 1;
    }
    halo_tile = (hj + 1) * TILE_X + hi + 1 + TILE_PLANE;
    const int gi = blockIdx.x * BLOCK_X + hi, gj = blockIdx.y * BLOCK_Y + hj;
    halo = gi >= 0 && gi < nx && gj >= 0 && gj < ny;
    halo_global = gj * pitch + gi;
  }

  const int i = blockIdx.x * BLOCK_X + threadIdx.x;
  const int j = blockIdx.y * BLOCK_Y + threadIdx.y;
  const int tile = (threadIdx.y + 1) * TILE_X + threadIdx.x + 1 + TILE_PLANE;  // in the middle plane
  const bool active = i < nx && j < ny;
  int global = j * pitch + i;
  const bool edge = i == 0 || i == nx - 1 || j == 0 || j == ny - 1;

  // Plane 0 goes into the top slot; the first rotation moves it to the middle.
  if (active) planes[tile + TILE_PLANE] = u1[global];
  if (halo) planes[halo_tile + TILE_PLANE] = u1[halo_global];

  for (int k = 0; k < nz; ++k) {
    const int here = global;
    if (active) {
      global += plane_stride;
      planes[tile - TILE_PLANE] = planes[tile];
      planes[tile] = planes[tile + TILE_PLANE];
      if (k < nz - 1) planes[tile + TILE_PLANE] = u1[global];
    }
    if (halo) {
      halo_global += plane_stride;
      planes[halo_tile - TILE_PLANE] = planes[halo_tile];
      planes[halo_tile] = planes[halo_tile + TILE_PLANE];
      if (k < nz - 1) planes[halo_tile + TILE_PLANE] = u1[halo_global];
    }
    __syncthreads();

    if (active) {
      float v;
      if (edge || k == 0 || k == nz - 1) {
        v = planes[tile];
      } else {
        v = (planes[tile - 1] + planes[tile + 1] + planes[tile - TILE_X] + planes[tile + TILE_X] +
             planes[tile - TILE_PLANE] + planes[tile + TILE_PLANE]) * (1.0f / 6.0f);
      }
      u2[here] = v;
    }
    __syncthreads();
  }
}
