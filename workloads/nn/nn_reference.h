// The nn workload's four layers on the CPU, for nn.cpp and its CUDA-program
// twin: the kernels' weight layouts and summation order (an fma chain from
// the bias), activation 1.7159 tanh(0.66666667 x). Plain C++.
#pragma once

#include <cmath>
#include <vector>

namespace nn_reference {

inline float activation(float sum) { return 1.7159f * std::tanh(0.66666667f * sum); }

/// images x 29 x 29 -> images x 6 x 13 x 13.
inline std::vector<float> first_layer(const std::vector<float>& images, const std::vector<float>& w, int count) {
  std::vector<float> out(size_t(count) * 6 * 169);
  for (int im = 0; im < count; ++im)
    for (int map = 0; map < 6; ++map)
      for (int py = 0; py < 13; ++py)
        for (int px = 0; px < 13; ++px) {
          const float* wm = &w[size_t(map) * 26];
          float sum = wm[0];
          for (int ky = 0; ky < 5; ++ky)
            for (int kx = 0; kx < 5; ++kx)
              sum = std::fma(images[size_t(im) * 841 + size_t((2 * py + ky) * 29 + 2 * px + kx)], wm[1 + ky * 5 + kx], sum);
          out[((size_t(im) * 6 + size_t(map)) * 13 + size_t(py)) * 13 + size_t(px)] = activation(sum);
        }
  return out;
}

/// images x 6 x 13 x 13 -> images x 50 x 5 x 5.
inline std::vector<float> second_layer(const std::vector<float>& maps1, const std::vector<float>& w, int count) {
  std::vector<float> out(size_t(count) * 1250);
  for (int im = 0; im < count; ++im)
    for (int map = 0; map < 50; ++map)
      for (int py = 0; py < 5; ++py)
        for (int px = 0; px < 5; ++px) {
          const float* wm = &w[size_t(map) * 151];
          float sum = wm[0];
          for (int k = 0; k < 25; ++k)
            for (int m = 0; m < 6; ++m) {
              const size_t at = size_t(im) * 1014 + size_t(m) * 169 + size_t((2 * py + k / 5) * 13 + 2 * px + k % 5);
              sum = std::fma(maps1[at], wm[1 + k * 6 + m], sum);
            }
          out[(size_t(im) * 50 + size_t(map)) * 25 + size_t(py * 5 + px)] = activation(sum);
        }
  return out;
}

/// Fully connected: images x inputs -> images x outputs; w is outputs rows of (bias + inputs).
inline std::vector<float> dense_layer(const std::vector<float>& in, const std::vector<float>& w, int count, int inputs,
                                      int outputs) {
  std::vector<float> out(size_t(count) * size_t(outputs));
  for (int im = 0; im < count; ++im)
    for (int o = 0; o < outputs; ++o) {
      const float* row = &w[size_t(o) * size_t(inputs + 1)];
      float sum = row[0];
      for (int i = 0; i < inputs; ++i) sum = std::fma(in[size_t(im) * size_t(inputs) + size_t(i)], row[1 + i], sum);
      out[size_t(im) * size_t(outputs) + size_t(o)] = activation(sum);
    }
  return out;
}

}  // namespace nn_reference
