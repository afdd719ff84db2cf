// Separable 2-D convolution of a float image with a 17-tap filter (radius 8)
// held in constant memory: a row pass into a buffer, then a column pass into
// the output, each through a shared-memory tile with halos. Reproduces the
// CUDA SDK sample convolutionSeparable (seed 000 Table II): its tiling (rows:
// 16x4 threads, 8 results per thread, one halo step each side; columns: 16x8
// threads, 8 results per thread, one halo step each side) and its zero
// padding outside the image. Width must be a multiple of 8*16 = 128 and
// height a multiple of 8*8 = 64.

#define KERNEL_RADIUS 8
#define KERNEL_LENGTH (2 * KERNEL_RADIUS + 1)

__constant__ float c_filter[KERNEL_LENGTH];

#define ROWS_BX 16
#define ROWS_BY 4
#define ROWS_STEPS 8
#define ROWS_HALO 1

// Each thread loads ROWS_STEPS + 2*ROWS_HALO pixels of its row, ROWS_BX apart,
// into the tile, then writes ROWS_STEPS results. A halo step of 16 pixels
// covers the filter radius of 8.
extern "C" __global__ void convolutionRowsKernel(float* __restrict__ dst, const float* __restrict__ src, int width)
{
  __shared__ float tile[ROWS_BY][(ROWS_STEPS + 2 * ROWS_HALO) * ROWS_BX];
  const int tx = threadIdx.x, ty = threadIdx.y;
  // Image column of the thread's first tile slot (in the left halo).
  const int x0 = (blockIdx.x * ROWS_STEPS - ROWS_HALO) * ROWS_BX + tx;
  const int row = (blockIdx.y * ROWS_BY + ty) * width;

#pragma unroll
  for (int s = 0; s < ROWS_HALO; ++s) {
    const int x = x0 + s * ROWS_BX;
    tile[ty][tx + s * ROWS_BX] = x >= 0 ? src[row + x] : 0.0f;
  }
#pragma unroll
  for (int s = ROWS_HALO; s < ROWS_HALO + ROWS_STEPS; ++s) tile[ty][tx + s * ROWS_BX] = src[row + x0 + s * ROWS_BX];
#pragma unroll
  for (int s = ROWS_HALO + ROWS_STEPS; s < ROWS_STEPS + 2 * ROWS_HALO; ++s) {
    const int x = x0 + s * ROWS_BX;
    tile[ty][tx + s * ROWS_BX] = x < width ? src[row + x] : 0.0f;
  }
  __syncthreads();

  // Two results per loop pass: fully unrolled, ptxas keeps more of the tile
  // in registers (59) than the simulator's register estimate allows for.
#pragma unroll 2
  for (int s = ROWS_HALO; s < ROWS_HALO + ROWS_STEPS; ++s) {
    float acc = 0.0f;
#pragma unroll
    for (int k = -KERNEL_RADIUS; k <= KERNEL_RADIUS; ++k) acc += c_filter[KERNEL_RADIUS - k] * tile[ty][tx + s * ROWS_BX + k];
    dst[row + x0 + s * ROWS_BX] = acc;
  }
}

#define COLS_BX 16
#define COLS_BY 8
#define COLS_STEPS 8
#define COLS_HALO 1

// The same down the columns: each thread covers COLS_STEPS + 2*COLS_HALO
// pixels of its column, COLS_BY rows apart. The tile is stored transposed
// (one tile row per image column) with one float of padding per row.
extern "C" __global__ void convolutionColumnsKernel(float* __restrict__ dst, const float* __restrict__ src, int width,
                                                    int height)
{
  __shared__ float tile[COLS_BX][(COLS_STEPS + 2 * COLS_HALO) * COLS_BY + 1];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int x = blockIdx.x * COLS_BX + tx;
  // Image row of the thread's first tile slot (in the upper halo).
  const int y0 = (blockIdx.y * COLS_STEPS - COLS_HALO) * COLS_BY + ty;

#pragma unroll
  for (int s = 0; s < COLS_HALO; ++s) {
    const int y = y0 + s * COLS_BY;
    tile[tx][ty + s * COLS_BY] = y >= 0 ? src[y * width + x] : 0.0f;
  }
#pragma unroll
  for (int s = COLS_HALO; s < COLS_HALO + COLS_STEPS; ++s) tile[tx][ty + s * COLS_BY] = src[(y0 + s * COLS_BY) * width + x];
#pragma unroll
  for (int s = COLS_HALO + COLS_STEPS; s < COLS_STEPS + 2 * COLS_HALO; ++s) {
    const int y = y0 + s * COLS_BY;
    tile[tx][ty + s * COLS_BY] = y < height ? src[y * width + x] : 0.0f;
  }
  __syncthreads();

#pragma unroll
  for (int s = COLS_HALO; s < COLS_HALO + COLS_STEPS; ++s) {
    float acc = 0.0f;
#pragma unroll
    for (int k = -KERNEL_RADIUS; k <= KERNEL_RADIUS; ++k) acc += c_filter[KERNEL_RADIUS - k] * tile[tx][ty + s * COLS_BY + k];
    dst[(y0 + s * COLS_BY) * width + x] = acc;
  }
}
