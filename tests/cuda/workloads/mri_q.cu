// mri_q as a CUDA program: the host steps of workloads/mri_q/mri_q.cpp
// (|phi|^2 on the device and back, the samples streamed through constant
// memory 1024 per ComputeQ_GPU launch, checked against a CPU model in
// nvcc's order).
#include <algorithm>

#include "tests/cuda/workloads/program_support.h"
#include "workloads/mri_q/mri_q.cu"

int main(int argc, char** argv) {
  const program::Options opt = program::parse_options(argc, argv);
  const int num_x = opt.size == program::Size::Small ? 512 : opt.size == program::Size::Default ? 12288 : 32768;
  const int num_k = opt.size == program::Size::Small ? 1100 : opt.size == program::Size::Default ? 1280 : 3072;
  const size_t nx = static_cast<size_t>(num_x), nk = static_cast<size_t>(num_k);
  const float two_pi = 6.2831853071795864769f;

  program::InputRng rng(opt.seed);
  std::vector<float> kx(nk), ky(nk), kz(nk), phi_r(nk), phi_i(nk);
  for (size_t k = 0; k < nk; ++k) {
    kx[k] = rng.uniform(-0.5f, 0.5f);
    ky[k] = rng.uniform(-0.5f, 0.5f);
    kz[k] = rng.uniform(-0.5f, 0.5f);
    phi_r[k] = rng.uniform(-1.0f, 1.0f);
    phi_i[k] = rng.uniform(-1.0f, 1.0f);
  }
  std::vector<float> x(nx), y(nx), z(nx);
  for (size_t v = 0; v < nx; ++v) {
    x[v] = rng.uniform(-16.0f, 16.0f);
    y[v] = rng.uniform(-16.0f, 16.0f);
    z[v] = rng.uniform(-16.0f, 16.0f);
  }

  float* d_phi_r = program::upload(phi_r);
  float* d_phi_i = program::upload(phi_i);
  float* d_phi_mag = program::device_alloc<float>(nk);
  const unsigned phi_ctas = unsigned((num_k + MRIQ_PHI_MAG_BLOCK - 1) / MRIQ_PHI_MAG_BLOCK);
  ComputePhiMag_GPU<<<phi_ctas, MRIQ_PHI_MAG_BLOCK>>>(d_phi_r, d_phi_i, d_phi_mag, num_k);
  CUDA_CHECK_LAUNCH();
  const std::vector<float> phi_mag = program::download(d_phi_mag, nk);

  std::vector<KSample> samples(nk);
  for (size_t k = 0; k < nk; ++k) samples[k] = {kx[k], ky[k], kz[k], phi_mag[k]};

  float* d_x = program::upload(x);
  float* d_y = program::upload(y);
  float* d_z = program::upload(z);
  float* d_qr = program::device_alloc<float>(nx);
  float* d_qi = program::device_alloc<float>(nx);
  CUDA_CHECK(cudaMemset(d_qr, 0, nx * sizeof(float)));
  CUDA_CHECK(cudaMemset(d_qi, 0, nx * sizeof(float)));
  for (int base = 0; base < num_k; base += MRIQ_K_PER_LAUNCH) {
    const int count = std::min(MRIQ_K_PER_LAUNCH, num_k - base);
    CUDA_CHECK(cudaMemcpyToSymbol(ck, &samples[size_t(base)], size_t(count) * sizeof(KSample)));
    ComputeQ_GPU<<<unsigned(num_x / MRIQ_Q_BLOCK), MRIQ_Q_BLOCK>>>(num_k, base, d_x, d_y, d_z, d_qr, d_qi);
    CUDA_CHECK_LAUNCH();
  }
  const std::vector<float> got_r = program::download(d_qr, nx);
  const std::vector<float> got_i = program::download(d_qi, nx);

  std::vector<float> want_mag(nk);
  for (size_t k = 0; k < nk; ++k) want_mag[k] = std::fma(phi_r[k], phi_r[k], phi_i[k] * phi_i[k]);
  const program::Result mag = program::compare_exact(phi_mag, want_mag, "phi_mag");
  if (!mag.verified) return program::report("mri_q", mag);

  std::vector<float> want_r(nx), want_i(nx);
  for (size_t v = 0; v < nx; ++v) {
    float qr = 0.0f, qi = 0.0f;
    for (const KSample& s : samples) {
      const float arg = two_pi * std::fma(s.kz, z[v], std::fma(s.kx, x[v], s.ky * y[v]));
      qr = std::fma(s.phi_mag, std::cos(arg), qr);
      qi = std::fma(s.phi_mag, std::sin(arg), qi);
    }
    want_r[v] = qr;
    want_i[v] = qi;
  }
  const program::Result r = program::compare_close(got_r, want_r, 1e-5, "Qr", 1e-3);
  if (!r.verified) return program::report("mri_q", r);
  const program::Result i = program::compare_close(got_i, want_i, 1e-5, "Qi", 1e-3);
  if (!i.verified) return program::report("mri_q", i);
  return program::report("mri_q", {true, "phi_mag, Qr, Qi: " + std::to_string(num_x) + " voxels x " +
                                             std::to_string(num_k) + " samples within tolerance"});
}
