// One explicit time step of a 2-D chip thermal model. Each cell's temperature
// T changes by
//   kp * P + ky * (T_north + T_south - 2T) + kx * (T_east + T_west - 2T) + kz * (T_amb - T)
// (power input, lateral conduction along y and x, vertical conduction to the
// ambient), with k* = dt / (capacitance * resistance) folded on the host.
// Outside the chip a neighbour is taken equal to the cell (no heat flows out
// of the edges). A CTA stages a TILE x TILE block plus a one-cell halo in
// shared memory; the host launches one step per kernel and swaps buffers.

#define TILE 16

extern "C" __global__ void hotspot_step(const float* __restrict__ temp_in, const float* __restrict__ power,
                                        float* __restrict__ temp_out, int rows, int cols, float kx, float ky,
                                        float kz, float kp, float ambient)
{
  __shared__ float tile[TILE + 2][TILE + 2];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int col = blockIdx.x * TILE + tx;
  const int row = blockIdx.y * TILE + ty;
  // Clamping the loaded cell makes threads past the edge of a partial tile
  // duplicate the last row / column, which is exactly the edge condition.
  const int r = min(row, rows - 1);
  const int c = min(col, cols - 1);

  tile[ty + 1][tx + 1] = temp_in[r * cols + c];
  if (ty == 0) tile[0][tx + 1] = temp_in[max(r - 1, 0) * cols + c];
  if (ty == TILE - 1) tile[TILE + 1][tx + 1] = temp_in[min(r + 1, rows - 1) * cols + c];
  if (tx == 0) tile[ty + 1][0] = temp_in[r * cols + max(c - 1, 0)];
  if (tx == TILE - 1) tile[ty + 1][TILE + 1] = temp_in[r * cols + min(c + 1, cols - 1)];
  __syncthreads();

  if (row < rows && col < cols) {
    float t = tile[ty + 1][tx + 1];
    float north = tile[ty][tx + 1];
    float south = tile[ty + 2][tx + 1];
    float west = tile[ty + 1][tx];
    float east = tile[ty + 1][tx + 2];
    float delta = kp * power[row * cols + col] + ky * (north + south - 2.0f * t) + kx * (east + west - 2.0f * t) +
                  kz * (ambient - t);
    temp_out[row * cols + col] = t + delta;
  }
}
