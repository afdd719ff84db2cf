// backprop as a CUDA program: the host steps of workloads/backprop/backprop.cpp
// (forward partial sums checked exactly, host hidden layer and deltas, then
// the weight adjustment checked exactly).
#include "tests/cuda/workloads/program_support.h"
#include "workloads/backprop/backprop.cu"

namespace {
constexpr int kHidden = HIDDEN;
}

int main(int argc, char** argv) {
  const program::Options opt = program::parse_options(argc, argv);
  const int n_in = opt.size == program::Size::Small ? 1000 : 65536;
  const float eta = 0.3f, momentum = 0.3f;
  const size_t n_weights = size_t(n_in) * kHidden;

  program::InputRng rng(opt.seed);
  std::vector<float> input(static_cast<size_t>(n_in)), weights(n_weights), previous_dw(n_weights), output_weights(kHidden);
  for (auto& v : input) v = rng.uniform(0.0f, 1.0f);
  for (auto& w : weights) w = rng.uniform(-0.05f, 0.05f);
  for (auto& w : previous_dw) w = rng.uniform(-0.01f, 0.01f);
  for (auto& w : output_weights) w = rng.uniform(-1.0f, 1.0f);
  const float target = 0.75f;

  const unsigned ctas = unsigned((n_in + kHidden - 1) / kHidden);
  float* d_input = program::upload(input);
  float* d_weights = program::upload(weights);
  float* d_previous = program::upload(previous_dw);
  float* d_partial = program::device_alloc<float>(size_t(ctas) * kHidden);
  bp_layer_forward<<<ctas, dim3(kHidden, kHidden)>>>(d_input, d_weights, d_partial, n_in);
  CUDA_CHECK_LAUNCH();
  const std::vector<float> got_partial = program::download(d_partial, size_t(ctas) * kHidden);

  // CPU forward: the kernel's products and reduction tree, CTA by CTA.
  std::vector<float> want_partial(size_t(ctas) * kHidden);
  for (unsigned b = 0; b < ctas; ++b) {
    float product[kHidden][kHidden];
    for (int local = 0; local < kHidden; ++local) {
      const size_t i = size_t(b) * kHidden + size_t(local);
      for (int j = 0; j < kHidden; ++j)
        product[local][j] = i < size_t(n_in) ? weights[i * kHidden + size_t(j)] * input[i] : 0.0f;
    }
    for (int stride = kHidden / 2; stride > 0; stride >>= 1)
      for (int local = 0; local < stride; ++local)
        for (int j = 0; j < kHidden; ++j) product[local][j] += product[local + stride][j];
    for (int j = 0; j < kHidden; ++j) want_partial[size_t(b) * kHidden + size_t(j)] = product[0][j];
  }
  program::Result r = program::compare_exact(got_partial, want_partial, "partial");
  if (!r.verified) return program::report("backprop", r);

  // Hidden activations, one sigmoid output unit and the hidden deltas, from
  // the reference values the device was just checked on.
  float hidden[kHidden], delta[kHidden];
  float out_sum = 0.0f;
  for (int j = 0; j < kHidden; ++j) {
    float sum = 0.0f;
    for (unsigned b = 0; b < ctas; ++b) sum += want_partial[size_t(b) * kHidden + size_t(j)];
    hidden[j] = 1.0f / (1.0f + std::exp(-sum));
    out_sum += hidden[j] * output_weights[size_t(j)];
  }
  const float out = 1.0f / (1.0f + std::exp(-out_sum));
  const float out_delta = out * (1.0f - out) * (target - out);
  for (int j = 0; j < kHidden; ++j) delta[j] = hidden[j] * (1.0f - hidden[j]) * output_weights[size_t(j)] * out_delta;
  float* d_delta = program::upload(std::vector<float>(delta, delta + kHidden));

  const unsigned block = 256;
  bp_adjust_weights<<<unsigned((n_weights + block - 1) / block), block>>>(d_weights, d_previous, d_input, d_delta, n_in,
                                                                          eta, momentum);
  CUDA_CHECK_LAUNCH();
  const std::vector<float> got_weights = program::download(d_weights, n_weights);
  const std::vector<float> got_previous = program::download(d_previous, n_weights);
  for (float* d : {d_input, d_weights, d_previous, d_partial, d_delta}) CUDA_CHECK(cudaFree(d));

  for (size_t w = 0; w < n_weights; ++w) {
    const float dw = std::fma(momentum, previous_dw[w], (eta * delta[w % kHidden]) * input[w / kHidden]);
    weights[w] += dw;
    previous_dw[w] = dw;
  }
  r = program::compare_exact(got_weights, weights, "weights");
  if (r.verified) r = program::compare_exact(got_previous, previous_dw, "previous_dw");
  return program::report("backprop", r);
}
