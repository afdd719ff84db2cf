// backprop host side: seeded inputs and input->hidden weights; the forward
// kernel's per-CTA partial sums are checked exactly against a CPU pass with
// the same tree order; the host finishes the hidden layer (sigmoid), a
// one-unit output layer and the hidden deltas from the CPU reference values,
// then the adjust kernel updates weights and momenta, checked exactly
// against the same fma / mul sequence on the CPU.
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "workloads/common/workload_support.h"
#include "workloads/ptxas_registers.h"

namespace tlmgpu::workloads {
namespace {

constexpr int kHidden = 16;  // HIDDEN in backprop.cu

class Backprop : public Workload {
 public:
  WorkloadResult run(platform::GpuDevice& device, Size size, uint64_t seed) override {
    // Small: 1000 inputs (63 CTAs, the last partial). Default and Paper:
    // 65,536 inputs (4,096 CTAs of 256 threads; 1 M weights to adjust), as
    // seed 000 Table II (bpnn_layerforward and bpnn_adjust_weights_cuda,
    // 4096 TBs each) and seed 004 Table 2 (BP 65536 nodes, 181 M
    // instructions) state.
    const int n_in = size == Size::Small ? 1000 : 65536;
    const float eta = 0.3f, momentum = 0.3f;
    const size_t n_weights = size_t(n_in) * kHidden;

    InputRng rng(seed);
    std::vector<float> input(static_cast<size_t>(n_in)), weights(n_weights), previous_dw(n_weights),
        output_weights(kHidden);
    for (auto& v : input) v = rng.uniform(0.0f, 1.0f);
    for (auto& w : weights) w = rng.uniform(-0.05f, 0.05f);
    for (auto& w : previous_dw) w = rng.uniform(-0.01f, 0.01f);
    for (auto& w : output_weights) w = rng.uniform(-1.0f, 1.0f);
    const float target = 0.75f;

    const uint32_t ctas = uint32_t((n_in + kHidden - 1) / kHidden);
    auto module = load_workload_module(device, "backprop");
    uint64_t d_input = device.upload(input, "input"), d_weights = device.upload(weights, "weights"),
             d_previous = device.upload(previous_dw, "previous_dw");
    uint64_t d_partial = device.allocate(size_t(ctas) * kHidden * sizeof(float), "partial");
    device.launch(module, "bp_layer_forward", {ctas, 1, 1}, {uint32_t(kHidden), uint32_t(kHidden), 1}, 0,
                  platform::KernelArgs().ptr(d_input).ptr(d_weights).ptr(d_partial).add<int32_t>(n_in));
    auto got_partial = device.download<float>(d_partial, size_t(ctas) * kHidden);

    // CPU forward: the kernel's products and reduction tree, CTA by CTA.
    std::vector<float> want_partial(size_t(ctas) * kHidden);
    for (uint32_t b = 0; b < ctas; ++b) {
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
    WorkloadResult r = compare_exact(got_partial, want_partial, "partial");
    if (!r.verified) return r;

    // Hidden activations, a single sigmoid output unit and the hidden deltas
    // (host work, from the reference values the device was just checked on).
    float hidden[kHidden], delta[kHidden];
    float out_sum = 0.0f;
    for (int j = 0; j < kHidden; ++j) {
      float sum = 0.0f;
      for (uint32_t b = 0; b < ctas; ++b) sum += want_partial[size_t(b) * kHidden + size_t(j)];
      hidden[j] = 1.0f / (1.0f + std::exp(-sum));
      out_sum += hidden[j] * output_weights[size_t(j)];
    }
    const float out = 1.0f / (1.0f + std::exp(-out_sum));
    const float out_delta = out * (1.0f - out) * (target - out);
    for (int j = 0; j < kHidden; ++j) delta[j] = hidden[j] * (1.0f - hidden[j]) * output_weights[size_t(j)] * out_delta;
    const std::vector<float> delta_v(delta, delta + kHidden);
    uint64_t d_delta = device.upload(delta_v, "delta");

    const uint32_t block = 256;
    device.launch(module, "bp_adjust_weights", {uint32_t((n_weights + block - 1) / block), 1, 1}, {block, 1, 1}, 0,
                  platform::KernelArgs()
                      .ptr(d_weights)
                      .ptr(d_previous)
                      .ptr(d_input)
                      .ptr(d_delta)
                      .add<int32_t>(n_in)
                      .add<float>(eta)
                      .add<float>(momentum));
    auto got_weights = device.download<float>(d_weights, n_weights);
    auto got_previous = device.download<float>(d_previous, n_weights);
    for (uint64_t d : {d_input, d_weights, d_previous, d_partial, d_delta}) device.free(d);

    for (size_t w = 0; w < n_weights; ++w) {
      const float dw = std::fma(momentum, previous_dw[w], (eta * delta[w % kHidden]) * input[w / kHidden]);
      weights[w] += dw;
      previous_dw[w] = dw;
    }
    r = compare_exact(got_weights, weights, "weights");
    if (r.verified) r = compare_exact(got_previous, previous_dw, "previous_dw");
    return r;
  }
};

const bool registered = register_workload(
    {"backprop", "perceptron layer: forward with a shared-memory tree reduction per CTA, then weight adjust",
     /*ipdom_safe=*/true, [] { return std::make_unique<Backprop>(); }});

}  // namespace
}  // namespace tlmgpu::workloads
