// One Jacobi sweep of the 7-point Laplacian smoother over a volume:
//   out = c0 * centre + c1 * (below + above + north + south + west + east)
// with the boundary copied unchanged; the host runs several sweeps,
// ping-ponging two buffers. A 32 x 4 CTA covers a tile of (x, y) columns and
// each thread marches up its column in z, keeping the cells below, at and
// above in registers, so each step loads one new cell of its own column and
// its four lateral neighbours (shared with adjacent threads through the
// caches). Streaming and memory-bound; the sum order is fixed by the
// parentheses and the explicit fmaf so the host reference matches exactly.

extern "C" __global__ void jacobi7_sweep(const float* __restrict__ in, float* __restrict__ out, int nx, int ny,
                                         int nz, float c0, float c1) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= nx || y >= ny) return;
  const int plane = nx * ny;
  const int column = y * nx + x;
  if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1) {
    for (int z = 0; z < nz; ++z) out[z * plane + column] = in[z * plane + column];
    return;
  }
  float below = in[column];
  float centre = in[plane + column];
  out[column] = below;
  for (int z = 1; z < nz - 1; ++z) {
    const int at = z * plane + column;
    const float above = in[at + plane];
    const float lateral = ((in[at - nx] + in[at + nx]) + in[at - 1]) + in[at + 1];
    out[at] = fmaf(c1, ((below + above) + lateral), __fmul_rn(c0, centre));
    below = centre;
    centre = above;
  }
  out[(nz - 1) * plane + column] = centre;
}
