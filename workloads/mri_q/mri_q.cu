// MRI-Q (Parboil mri-q): the Q matrix of a non-Cartesian MRI reconstruction.
// ComputePhiMag_GPU squares the magnitude of each K-space sample's phi;
// ComputeQ_GPU then gives every voxel X the sums over K-space samples k of
//   |phi_k|^2 * cos(2 pi k.X)  (Qr)   and   |phi_k|^2 * sin(2 pi k.X)  (Qi),
// one thread per voxel. The host streams the samples through constant memory
// in chunks of MRIQ_K_PER_LAUNCH, one ComputeQ_GPU launch per chunk, each
// launch adding its chunk's terms to Qr and Qi.

#define MRIQ_PHI_MAG_BLOCK 512  // threads per ComputePhiMag_GPU CTA
#define MRIQ_Q_BLOCK 256        // threads per ComputeQ_GPU CTA
#define MRIQ_K_PER_LAUNCH 1024  // K-space samples in constant memory per launch
// The running sums are stored every MRIQ_K_PER_STORE samples, not only at
// the end: the simulator's watchdog takes a kernel whose warps together
// execute 20 million instructions without a store for a hung one, and the
// 1024 warps of a paper-size launch need about 70 million for 1024 samples.
#define MRIQ_K_PER_STORE 128

struct KSample {
  float kx, ky, kz, phi_mag;
};

__constant__ KSample ck[MRIQ_K_PER_LAUNCH];

extern "C" __global__ void ComputePhiMag_GPU(const float* __restrict__ phi_r, const float* __restrict__ phi_i,
                                             float* __restrict__ phi_mag, int num_k)
{
  const int k = blockIdx.x * MRIQ_PHI_MAG_BLOCK + threadIdx.x;
  if (k < num_k) {
    const float re = phi_r[k];
    const float im = phi_i[k];
    phi_mag[k] = re * re + im * im;
  }
}

// k_base: the global index of ck[0]; the launch covers samples
// [k_base, min(k_base + MRIQ_K_PER_LAUNCH, num_k)). The grid covers num_x exactly.
extern "C" __global__ void ComputeQ_GPU(int num_k, int k_base, const float* __restrict__ x,
                                        const float* __restrict__ y, const float* __restrict__ z,
                                        float* __restrict__ q_r, float* __restrict__ q_i)
{
  const float two_pi = 6.2831853071795864769f;
  const int v = blockIdx.x * MRIQ_Q_BLOCK + threadIdx.x;
  const float vx = x[v], vy = y[v], vz = z[v];
  float qr = q_r[v], qi = q_i[v];
  int count = num_k - k_base;
  if (count > MRIQ_K_PER_LAUNCH) count = MRIQ_K_PER_LAUNCH;
  for (int k0 = 0; k0 < count; k0 += MRIQ_K_PER_STORE) {
    const int end = k0 + MRIQ_K_PER_STORE < count ? k0 + MRIQ_K_PER_STORE : count;
    for (int k = k0; k < end; ++k) {
      const float arg = two_pi * (ck[k].kx * vx + ck[k].ky * vy + ck[k].kz * vz);
      qr += ck[k].phi_mag * cosf(arg);
      qi += ck[k].phi_mag * sinf(arg);
    }
    // volatile: nvcc would otherwise keep only the last of these stores.
    *(volatile float*)&q_r[v] = qr;
    *(volatile float*)&q_i[v] = qi;
  }
}
