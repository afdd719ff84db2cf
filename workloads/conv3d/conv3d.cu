// 3x3x3 convolution of a volume with 27 distinct weights (a general 3-D
// filter, not a separable one). One thread per output voxel of the interior;
// a CTA covers a 32 x 4 tile of one z-plane (grid z = plane). Each thread
// makes 27 loads of the input, most of which its neighbours in the tile (and
// the CTAs of the planes above and below) also read: the kernel lives on L1
// and L2 reuse and is memory-bound when the caches thrash. Boundary voxels
// are not written (the host zeroes the output).
// The accumulation order is dz, dy, dx ascending with explicit fmaf, so the
// host reference can follow it exactly.

extern "C" __global__ void conv3d_3x3x3(const float* __restrict__ in, const float* __restrict__ weights,
                                        float* __restrict__ out, int nx, int ny, int nz) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  const int z = blockIdx.z;
  if (x < 1 || y < 1 || z < 1 || x >= nx - 1 || y >= ny - 1 || z >= nz - 1) return;
  const int plane = nx * ny;
  float acc = 0.0f;
#pragma unroll
  for (int dz = -1; dz <= 1; ++dz)
#pragma unroll
    for (int dy = -1; dy <= 1; ++dy)
#pragma unroll
      for (int dx = -1; dx <= 1; ++dx)
        acc = fmaf(weights[(dz + 1) * 9 + (dy + 1) * 3 + (dx + 1)], in[(z + dz) * plane + (y + dy) * nx + (x + dx)],
                   acc);
  out[z * plane + y * nx + x] = acc;
}

// The same convolution one z-plane per launch, as Polybench's 3DCONV host
// loop launches it (the paper size): the host launches z = 1 .. nz - 2 in
// turn, each over a grid of 32 x 8 tiles of that plane.
extern "C" __global__ void convolution3D_kernel(const float* __restrict__ in, const float* __restrict__ weights,
                                                float* __restrict__ out, int nx, int ny, int nz, int z) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 1 || y < 1 || z < 1 || x >= nx - 1 || y >= ny - 1 || z >= nz - 1) return;
  const int plane = nx * ny;
  float acc = 0.0f;
#pragma unroll
  for (int dz = -1; dz <= 1; ++dz)
#pragma unroll
    for (int dy = -1; dy <= 1; ++dy)
#pragma unroll
      for (int dx = -1; dx <= 1; ++dx)
        acc = fmaf(weights[(dz + 1) * 9 + (dy + 1) * 3 + (dx + 1)], in[(z + dz) * plane + (y + dy) * nx + (x + dx)],
                   acc);
  out[z * plane + y * nx + x] = acc;
}
