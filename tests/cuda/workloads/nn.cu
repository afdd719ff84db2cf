// nn as a CUDA program: the host steps of workloads/nn/nn.cpp (seeded
// images and weights, the four layer launches, each layer checked against
// the CPU layer applied to the device's input to it).
#include "tests/cuda/workloads/program_support.h"
#include "workloads/nn/nn.cu"
#include "workloads/nn/nn_reference.h"

int main(int argc, char** argv) {
  const program::Options opt = program::parse_options(argc, argv);
  const int count = opt.size == program::Size::Small ? 1 : opt.size == program::Size::Default ? 4 : 28;
  const unsigned images = unsigned(count);

  program::InputRng rng(opt.seed);
  std::vector<float> input(size_t(count) * 841);
  for (auto& p : input) p = rng.uniform(-1.0f, 1.0f);
  auto weights = [&rng](int rows, int row_length, float scale) {
    std::vector<float> w(size_t(rows) * size_t(row_length));
    for (size_t i = 0; i < w.size(); ++i)
      w[i] = i % size_t(row_length) == 0 ? rng.uniform(-0.1f, 0.1f) : rng.uniform(-scale, scale);
    return w;
  };
  const std::vector<float> w1 = weights(6, 26, 1.0f / 5.0f), w2 = weights(50, 151, 1.0f / std::sqrt(150.0f)),
                           w3 = weights(100, 1251, 1.0f / std::sqrt(1250.0f)), w4 = weights(10, 101, 0.1f);

  float* d_input = program::upload(input);
  float* d_w1 = program::upload(w1);
  float* d_w2 = program::upload(w2);
  float* d_w3 = program::upload(w3);
  float* d_w4 = program::upload(w4);
  float* d_l1 = program::device_alloc<float>(size_t(count) * 1014);
  float* d_l2 = program::device_alloc<float>(size_t(count) * 1250);
  float* d_l3 = program::device_alloc<float>(size_t(count) * 100);
  float* d_l4 = program::device_alloc<float>(size_t(count) * 10);
  executeFirstLayer<<<dim3(6, images), dim3(13, 13)>>>(d_input, d_w1, d_l1);
  CUDA_CHECK_LAUNCH();
  executeSecondLayer<<<dim3(50, images), dim3(5, 5)>>>(d_l1, d_w2, d_l2);
  CUDA_CHECK_LAUNCH();
  executeThirdLayer<<<dim3(100, images), 1>>>(d_l2, d_w3, d_l3);
  CUDA_CHECK_LAUNCH();
  executeFourthLayer<<<dim3(10, images), 1>>>(d_l3, d_w4, d_l4);
  CUDA_CHECK_LAUNCH();
  const std::vector<float> l1 = program::download(d_l1, size_t(count) * 1014), l2 = program::download(d_l2, size_t(count) * 1250),
                           l3 = program::download(d_l3, size_t(count) * 100), l4 = program::download(d_l4, size_t(count) * 10);

  const double rel = 1e-5, abs_tol = 1e-6;
  program::Result r = program::compare_close(l1, nn_reference::first_layer(input, w1, count), rel, "layer1", abs_tol);
  if (r.verified) r = program::compare_close(l2, nn_reference::second_layer(l1, w2, count), rel, "layer2", abs_tol);
  if (r.verified) r = program::compare_close(l3, nn_reference::dense_layer(l2, w3, count, 1250, 100), rel, "layer3", abs_tol);
  if (r.verified) r = program::compare_close(l4, nn_reference::dense_layer(l3, w4, count, 100, 10), rel, "layer4", abs_tol);
  if (r.verified) r.detail = "4 layers of " + std::to_string(count) + " image(s) within tolerance";
  return program::report("nn", r);
}
