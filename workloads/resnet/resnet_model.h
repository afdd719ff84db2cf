// The network of the resnet workload as plain C++ (no simulator types), so
// that workloads/resnet/resnet.cpp and its CUDA-program twin
// tests/cuda/workloads/resnet.cu build the same layers from the same random
// draws, launch the same kernels in the same order and check them against
// the same CPU model of resnet.cu (nvcc -O3's order and fusion, so the
// activations match exactly; only the classifier's atomics add in another order).
//
// Shape: a stem 3x3 convolution (3 -> width channels), then 3 stages of
// `blocks` bottleneck blocks (1x1 reduce + BN + ReLU, 3x3 + BN + ReLU, 1x1
// expand + BN, residual add + ReLU: 4 launches each). Stage s has
// width * 4^s output channels (a quarter of that inside the bottleneck) at
// image / 2^s squared pixels; its first block (s > 0) has stride 2 in the 3x3
// convolution and an option-A shortcut. The widths grow 4x per stage so that
// every block-output tensor holds image^2 * width values and every inner one
// a quarter of that. Then global average pool + fully connected (1 launch).
// Launches: 2 + 12 * blocks.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace resnet_model {

constexpr int kBlock = 256;  // threads per CTA (RN_BLOCK)
constexpr int kClasses = 10;

struct Shape {
  int image = 32;  // input: 3 x image x image
  int width = 64;  // stem channels = stage 1's block-output channels
  int blocks = 3;  // bottleneck blocks per stage
};

enum class Kind { Conv3x3BnRelu, Conv1x1BnRelu, Conv1x1Bn, AddRelu, AvgpoolFc };

// One launch. Buffers: 0 the image, 1..5 activation buffers, -1 none.
struct Op {
  Kind kind;
  int layer = -1;  // convolutions: index into Network::convs
  int in = 0, shortcut = -1, out = 0;
  int c_in = 0, h_in = 0, c_out = 0, stride = 1;  // add: c_in = shortcut channels
  int ctas = 0;
};

struct Conv {
  int c_in = 0, c_out = 0, k = 1;
  std::vector<float> weight, scale, shift;
};

struct Network {
  Shape shape;
  std::vector<float> image;
  std::vector<Conv> convs;
  std::vector<float> fc_weight, fc_bias;  // classes x channels, classes
  std::vector<Op> ops;
  size_t buffer_floats = 0;  // each activation buffer
  int final_buffer = 0, final_channels = 0, final_hw = 0;
};

// Uniform draws from `rng` (InputRng or program::InputRng), in a fixed order:
// the image, then per convolution in launch order its weights, BN scales and
// shifts, then the classifier's weights and biases.
template <typename Rng>
Network build(const Shape& shape, Rng& rng) {
  Network net;
  net.shape = shape;
  const int s0 = shape.image;
  net.buffer_floats = size_t(s0) * s0 * shape.width;
  net.image.resize(size_t(3) * s0 * s0);
  for (float& v : net.image) v = rng.uniform(0.0f, 1.0f);

  // He-uniform weights; BN scales that keep the activations near 1, the
  // expansion's small so that the residual sums stay bounded.
  auto conv = [&](int c_in, int c_out, int k, float scale_lo, float scale_hi) {
    Conv c;
    c.c_in = c_in;
    c.c_out = c_out;
    c.k = k;
    const float a = std::sqrt(6.0f / float(c_in * k * k));
    c.weight.resize(size_t(c_out) * c_in * k * k);
    for (float& v : c.weight) v = rng.uniform(-a, a);
    c.scale.resize(size_t(c_out));
    for (float& v : c.scale) v = rng.uniform(scale_lo, scale_hi);
    c.shift.resize(size_t(c_out));
    for (float& v : c.shift) v = rng.uniform(-0.1f, 0.1f);
    net.convs.push_back(std::move(c));
    return int(net.convs.size()) - 1;
  };
  auto ctas = [](long values) { return int((values + kBlock - 1) / kBlock); };

  // Buffers: x (block input) and y (block output) alternate; 3, 4, 5 hold
  // the branch.
  int x = 1, y = 2;
  Op stem{Kind::Conv3x3BnRelu};
  stem.layer = conv(3, shape.width, 3, 0.5f, 1.0f);
  stem.in = 0;
  stem.out = x;
  stem.c_in = 3;
  stem.h_in = s0;
  stem.c_out = shape.width;
  stem.ctas = ctas(long(shape.width) * s0 * s0);
  net.ops.push_back(stem);

  int channels = shape.width, res = s0;
  for (int stage = 0; stage < 3; ++stage) {
    const int outer = shape.width << (2 * stage), inner = outer / 4;
    for (int b = 0; b < shape.blocks; ++b) {
      const int stride = (stage > 0 && b == 0) ? 2 : 1;
      const int out_res = res / stride;
      Op reduce{Kind::Conv1x1BnRelu};
      reduce.layer = conv(channels, inner, 1, 0.5f, 1.0f);
      reduce.in = x;
      reduce.out = 3;
      reduce.c_in = channels;
      reduce.h_in = res;
      reduce.c_out = inner;
      reduce.ctas = ctas(long(inner) * res * res);
      Op mid{Kind::Conv3x3BnRelu};
      mid.layer = conv(inner, inner, 3, 0.5f, 1.0f);
      mid.in = 3;
      mid.out = 4;
      mid.c_in = inner;
      mid.h_in = res;
      mid.c_out = inner;
      mid.stride = stride;
      mid.ctas = ctas(long(inner) * out_res * out_res);
      Op expand{Kind::Conv1x1Bn};
      expand.layer = conv(inner, outer, 1, 0.1f, 0.3f);
      expand.in = 4;
      expand.out = 5;
      expand.c_in = inner;
      expand.h_in = out_res;
      expand.c_out = outer;
      expand.ctas = ctas(long(outer) * out_res * out_res);
      Op add{Kind::AddRelu};
      add.in = 5;
      add.shortcut = x;
      add.out = y;
      add.c_in = channels;
      add.h_in = out_res;
      add.c_out = outer;
      add.stride = stride;
      add.ctas = expand.ctas;
      net.ops.insert(net.ops.end(), {reduce, mid, expand, add});
      std::swap(x, y);
      channels = outer;
      res = out_res;
    }
  }
  net.final_buffer = x;
  net.final_channels = channels;
  net.final_hw = res * res;

  const float a = std::sqrt(6.0f / float(channels));
  net.fc_weight.resize(size_t(kClasses) * channels);
  for (float& v : net.fc_weight) v = rng.uniform(-a, a);
  net.fc_bias.resize(kClasses);
  for (float& v : net.fc_bias) v = rng.uniform(-0.1f, 0.1f);
  Op head{Kind::AvgpoolFc};
  head.in = x;
  head.c_in = channels;
  head.h_in = res;
  head.ctas = ctas(long(channels) * res * res);
  net.ops.push_back(head);
  return net;
}

// The CPU model of every launch but the classifier's atomics; returns the
// activation buffers (index as Op::in/out; 0 is the image).
inline std::vector<std::vector<float>> forward(const Network& net) {
  std::vector<std::vector<float>> buf(6, std::vector<float>(net.buffer_floats, 0.0f));
  buf[0] = net.image;
  for (const Op& op : net.ops) {
    const std::vector<float>& in = buf[size_t(op.in)];
    std::vector<float>& out = buf[size_t(op.out)];
    const int h = op.h_in, hw = h * h;
    switch (op.kind) {
      case Kind::Conv3x3BnRelu: {
        const Conv& c = net.convs[size_t(op.layer)];
        const int ho = h / op.stride;
        for (int co = 0; co < op.c_out; ++co)
          for (int y = 0; y < ho; ++y)
            for (int x = 0; x < ho; ++x) {
              float acc = 0.0f;
              for (int ci = 0; ci < op.c_in; ++ci)
                for (int ky = 0; ky < 3; ++ky) {
                  const int iy = y * op.stride + ky - 1;
                  if (iy < 0 || iy >= h) continue;
                  for (int kx = 0; kx < 3; ++kx) {
                    const int ix = x * op.stride + kx - 1;
                    if (ix < 0 || ix >= h) continue;
                    acc = std::fma(in[size_t(ci * hw + iy * h + ix)], c.weight[size_t((co * op.c_in + ci) * 9 + ky * 3 + kx)],
                                   acc);
                  }
                }
              out[size_t((co * ho + y) * ho + x)] =
                  std::max(std::fma(acc, c.scale[size_t(co)], c.shift[size_t(co)]), 0.0f);
            }
        break;
      }
      case Kind::Conv1x1BnRelu:
      case Kind::Conv1x1Bn: {
        const Conv& c = net.convs[size_t(op.layer)];
        for (int co = 0; co < op.c_out; ++co)
          for (int p = 0; p < hw; ++p) {
            float acc = 0.0f;
            for (int ci = 0; ci < op.c_in; ++ci)
              acc = std::fma(in[size_t(ci * hw + p)], c.weight[size_t(co * op.c_in + ci)], acc);
            const float v = std::fma(acc, c.scale[size_t(co)], c.shift[size_t(co)]);
            out[size_t(co * hw + p)] = op.kind == Kind::Conv1x1BnRelu ? std::max(v, 0.0f) : v;
          }
        break;
      }
      case Kind::AddRelu: {
        const std::vector<float>& sc = buf[size_t(op.shortcut)];
        const int hs = h * op.stride;
        for (int ch = 0; ch < op.c_out; ++ch)
          for (int y = 0; y < h; ++y)
            for (int x = 0; x < h; ++x) {
              const float s =
                  ch < op.c_in ? sc[size_t((ch * hs + y * op.stride) * hs + x * op.stride)] : 0.0f;
              out[size_t((ch * h + y) * h + x)] = std::max(in[size_t((ch * h + y) * h + x)] + s, 0.0f);
            }
        break;
      }
      case Kind::AvgpoolFc:
        break;
    }
  }
  return buf;
}

// The classifier: each channel's mean by avgpool_fc's shared-memory tree,
// then bias + the sum of weight * mean over the channels (in channel order;
// the device's atomics add in another, so compare with a tolerance).
inline std::vector<float> classify(const Network& net, const std::vector<float>& features) {
  const int c = net.final_channels, hw = net.final_hw;
  std::vector<float> logits = net.fc_bias;
  std::vector<float> plane(static_cast<size_t>(hw));
  for (int ch = 0; ch < c; ++ch) {
    std::copy(features.begin() + long(ch) * hw, features.begin() + long(ch + 1) * hw, plane.begin());
    for (int half = hw / 2; half > 0; half /= 2)
      for (int p = 0; p < half; ++p) plane[size_t(p)] += plane[size_t(p + half)];
    const float mean = plane[0] / float(hw);
    for (int k = 0; k < kClasses; ++k) logits[size_t(k)] += net.fc_weight[size_t(k * c + ch)] * mean;
  }
  return logits;
}

}  // namespace resnet_model
