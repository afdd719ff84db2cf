// C = alpha * A * B + beta * C (row-major, A is M x K, B is K x N) with 16x16
// shared-memory tiles. Any M, N, K: tile elements outside the matrices are
// loaded as zero, and threads outside C skip the store (but still take part
// in the barriers).

#define TILE 16

extern "C" __global__ void sgemm_tiled(const float* __restrict__ a, const float* __restrict__ b,
                                       float* __restrict__ c, int m, int n, int k, float alpha, float beta) {
  __shared__ float as[TILE][TILE];
  __shared__ float bs[TILE][TILE];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * TILE + ty;
  const int col = blockIdx.x * TILE + tx;

  float acc = 0.0f;
  for (int k0 = 0; k0 < k; k0 += TILE) {
    as[ty][tx] = (row < m && k0 + tx < k) ? a[row * k + k0 + tx] : 0.0f;
    bs[ty][tx] = (k0 + ty < k && col < n) ? b[(k0 + ty) * n + col] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int i = 0; i < TILE; ++i) acc += as[ty][i] * bs[i][tx];
    __syncthreads();  // the tile is consumed before the next one overwrites it
  }
  if (row < m && col < n) c[row * n + col] = alpha * acc + beta * c[row * n + col];
}
