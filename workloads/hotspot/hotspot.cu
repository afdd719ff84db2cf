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

// The same model advanced `steps` (<= pyramid) time steps per launch with
// ghost zones, as Rodinia's hotspot does (the paper size): a 16 x 16 CTA
// loads a tile that overlaps its neighbours by `pyramid` cells on each side,
// runs the steps in shared memory (the valid region shrinking by one cell per
// side and step, except at the edges of the chip), and writes only its inner
// (16 - 2 pyramid)^2 cells. Same arithmetic as hotspot_step, with the terms
// in the host reference's order.
extern "C" __global__ void calculate_temp(const float* __restrict__ temp_in, const float* __restrict__ power,
                                          float* __restrict__ temp_out, int rows, int cols, int pyramid, int steps,
                                          float kx, float ky, float kz, float kp, float ambient)
{
  __shared__ float now[TILE][TILE];
  __shared__ float next[TILE][TILE];
  __shared__ float heat[TILE][TILE];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int inner = TILE - 2 * pyramid;  // cells each CTA writes per dimension
  const int row = blockIdx.y * inner - pyramid + ty;
  const int col = blockIdx.x * inner - pyramid + tx;
  const bool on_chip = row >= 0 && row < rows && col >= 0 && col < cols;
  if (on_chip) {
    now[ty][tx] = temp_in[row * cols + col];
    heat[ty][tx] = power[row * cols + col];
  }
  __syncthreads();

  // A neighbour off the chip is the cell itself (no heat flows out).
  const int north = row == 0 ? ty : ty - 1, south = row == rows - 1 ? ty : ty + 1;
  const int west = col == 0 ? tx : tx - 1, east = col == cols - 1 ? tx : tx + 1;
  bool computed = false;
#pragma unroll 1  // at most `pyramid` steps: not worth unrolling
  for (int s = 0; s < steps; ++s) {
    // Neighbours inside the tile still hold step s's values.
    computed = on_chip && north >= s && south <= TILE - 1 - s && west >= s && east <= TILE - 1 - s;
    if (computed) {
      const float t = now[ty][tx];
      float delta = kp * heat[ty][tx];
      delta = fmaf((now[north][tx] + now[south][tx]) - (t + t), ky, delta);
      delta = fmaf((now[ty][west] + now[ty][east]) - (t + t), kx, delta);
      delta = fmaf(ambient - t, kz, delta);
      next[ty][tx] = t + delta;
    }
    __syncthreads();
    if (computed) now[ty][tx] = next[ty][tx];
    __syncthreads();
  }
  if (computed && tx >= pyramid && tx < TILE - pyramid && ty >= pyramid && ty < TILE - pyramid)
    temp_out[row * cols + col] = now[ty][tx];
}
