// Needleman-Wunsch global alignment scores of two integer sequences.
// Reproduces Rodinia's NW: the (n+1) x (n+1) score matrix is cut into 16 x
// 16 tiles; tiles on one anti-diagonal of the tile grid are independent, so
// each launch does one tile diagonal with one 16-thread CTA per tile.
// needle_cuda_shared_1 does the diagonals of the upper-left triangle of the
// tile grid (launch i: i tiles), needle_cuda_shared_2 those of the
// lower-right one. Inside a tile the CTA loads the tile's substitution
// scores and its north row / west column into shared memory, then sweeps
// the tile's 31 cell anti-diagonals with a barrier after each:
// M[y][x] = max(M[y-1][x-1] + ref[y][x], M[y][x-1] - penalty, M[y-1][x] - penalty).

#define TILE 16
#define SMEM_PAD 240  // words: 15 threads x 64 bytes

__device__ __forceinline__ void nw_tile(const int* __restrict__ ref, int* __restrict__ matrix, int cols, int penalty,
                                        int tile_x, int tile_y)
{
  // score: row 0 / column 0 hold the neighbours north and west; sub: the
  // tile's substitution scores. Both sit in one block behind SMEM_PAD unused
  // words: nvcc addresses a diagonal's cells from per-thread base addresses
  // down to 60-64 bytes x 15 threads below an array's start, plus constant
  // offsets, and tlmgpu does not wrap such a shared address at 32 bits (a
  // negative base faults). The padding keeps every base inside the block.
  __shared__ int smem[SMEM_PAD + (TILE + 1) * (TILE + 1) + TILE * TILE];
  int(*score)[TILE + 1] = reinterpret_cast<int(*)[TILE + 1]>(smem + SMEM_PAD);
  int(*sub)[TILE] = reinterpret_cast<int(*)[TILE]>(smem + SMEM_PAD + (TILE + 1) * (TILE + 1));
  const int tx = threadIdx.x;
  // Matrix index of the cell north-west of the tile's first cell.
  const int corner = cols * TILE * tile_y + TILE * tile_x;

  if (tx == 0) score[0][0] = matrix[corner];
  for (int r = 0; r < TILE; ++r) sub[r][tx] = ref[corner + cols * (r + 1) + tx + 1];
  __syncthreads();
  score[tx + 1][0] = matrix[corner + cols * (tx + 1)];
  __syncthreads();
  score[0][tx + 1] = matrix[corner + tx + 1];
  __syncthreads();

  // Anti-diagonals growing from the north-west corner: diagonal d has d + 1
  // cells; thread tx takes cell (y, x) = (d - tx + 1, tx + 1).
  for (int d = 0; d < TILE; ++d) {
    if (tx <= d) {
      const int x = tx + 1, y = d - tx + 1;
      score[y][x] = max(max(score[y - 1][x - 1] + sub[y - 1][x - 1], score[y][x - 1] - penalty),
                        score[y - 1][x] - penalty);
    }
    __syncthreads();
  }
  // Then shrinking towards the south-east corner: d + 1 cells again.
  for (int d = TILE - 2; d >= 0; --d) {
    if (tx <= d) {
      const int x = tx + TILE - d, y = TILE - tx;
      score[y][x] = max(max(score[y - 1][x - 1] + sub[y - 1][x - 1], score[y][x - 1] - penalty),
                        score[y - 1][x] - penalty);
    }
    __syncthreads();
  }

  for (int r = 0; r < TILE; ++r) matrix[corner + cols * (r + 1) + tx + 1] = score[r + 1][tx + 1];
}

// Launch i (1..tiles): the i tiles of tile diagonal i - 1, from the top row.
extern "C" __global__ void needle_cuda_shared_1(const int* __restrict__ ref, int* __restrict__ matrix, int cols,
                                                int penalty, int i, int tiles)
{
  (void)tiles;
  nw_tile(ref, matrix, cols, penalty, blockIdx.x, i - 1 - blockIdx.x);
}

// Launch i (tiles - 1 down to 1): the i tiles of a lower-right diagonal,
// from the rightmost tile column.
extern "C" __global__ void needle_cuda_shared_2(const int* __restrict__ ref, int* __restrict__ matrix, int cols,
                                                int penalty, int i, int tiles)
{
  nw_tile(ref, matrix, cols, penalty, blockIdx.x + tiles - i, tiles - blockIdx.x - 1);
}
