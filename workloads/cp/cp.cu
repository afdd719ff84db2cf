// cp: Coulombic potential on a 2-D slice of a lattice, reproducing the
// GPGPU-Sim ISPASS-2009 benchmark CP (kernel cenergy, from the Parboil
// cuenergy code by Stone et al.). The atoms sit in constant memory as
// (x, y, dz^2, charge), dz^2 precomputed by the host for the slice; every
// thread sums charge / distance over all atoms for kCpUnrollX grid points
// of one row, kCpBlockX points apart (so a warp's accesses stay coalesced),
// accumulating onto the energy grid's values (a host with more atoms than
// constant memory holds launches once per chunk of atoms). Every warp reads
// the same atom at the same time: constant-cache broadcasts, an SFU rsqrt
// per point and atom.
//
// Grid: (width / (16 * kCpUnrollX), height / 8) CTAs of 16 x 8 threads
// (blockDim.x must be kCpBlockX); the grid's row length is
// gridDim.x * kCpBlockX * kCpUnrollX points. The atom loop is not unrolled,
// as in the original (one constant load and the loop test per atom).

constexpr int kCpBlockX = 16;
constexpr int kCpUnrollX = 2;
constexpr int kCpMaxAtoms = 4000;  // 64 KB of constant memory holds about this many

__constant__ float4 cp_atoms[kCpMaxAtoms];

extern "C" __global__ void cenergy(int num_atoms, float spacing, float* __restrict__ energy)
{
  const unsigned int x = blockIdx.x * blockDim.x * kCpUnrollX + threadIdx.x;
  const unsigned int y = blockIdx.y * blockDim.y + threadIdx.y;
  const unsigned int row = gridDim.x * blockDim.x * kCpUnrollX;
  const float px = spacing * float(x);
  const float py = spacing * float(y);
  const float step = spacing * float(kCpBlockX);

  float* out = energy + y * row + x;
  float e[kCpUnrollX];
#pragma unroll
  for (int k = 0; k < kCpUnrollX; ++k) e[k] = out[k * kCpBlockX];

#pragma unroll 1
  for (int a = 0; a < num_atoms; ++a) {
    const float4 atom = cp_atoms[a];
    const float dy = py - atom.y;
    const float dyz2 = fmaf(dy, dy, atom.z);
    float dx = px - atom.x;
#pragma unroll
    for (int k = 0; k < kCpUnrollX; ++k) {
      e[k] = fmaf(atom.w, rsqrtf(fmaf(dx, dx, dyz2)), e[k]);
      dx += step;
    }
  }

#pragma unroll
  for (int k = 0; k < kCpUnrollX; ++k) out[k * kCpBlockX] = e[k];
}
