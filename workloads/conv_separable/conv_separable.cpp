// conv_separable: the CUDA SDK's convolutionSeparable. A 17-tap filter in
// constant memory; convolutionRowsKernel filters every row into a buffer,
// convolutionColumnsKernel filters the buffer's columns into the output, both
// through shared-memory tiles with zero-padded halos. As in the SDK, image
// and filter hold small integers (0..15), so every sum is exact in float and
// the output is compared exactly with a CPU pass.
#include <cstdint>
#include <memory>
#include <vector>

#include "workloads/common/workload_support.h"
#include "workloads/ptxas_registers.h"

namespace tlmgpu::workloads {
namespace {

constexpr int kRadius = 8;
constexpr int kTaps = 2 * kRadius + 1;
// The kernels' tiling (conv_separable.cu).
constexpr uint32_t kRowsBx = 16, kRowsBy = 4, kRowsSteps = 8;
constexpr uint32_t kColsBx = 16, kColsBy = 8, kColsSteps = 8;

class ConvSeparable : public Workload {
 public:
  WorkloadResult run(platform::GpuDevice& device, Size size, uint64_t seed) override {
    // Small: 256 x 128 (rows 2 x 32 = 64 CTAs, columns 16 x 2 = 32 CTAs).
    // Default: 1024 x 1024 (rows 8 x 256 = 2,048 CTAs, columns 64 x 16 = 1,024).
    // Paper: the SDK's default 3072 x 3072 image, rows 24 x 768 = 18,432 CTAs
    // and columns 192 x 48 = 9,216 CTAs (seed 000 Table II: 18432 and 9216).
    const int width = size == Size::Small ? 256 : size == Size::Default ? 1024 : 3072;
    const int height = size == Size::Small ? 128 : size == Size::Default ? 1024 : 3072;
    const size_t pixels = size_t(width) * size_t(height);

    InputRng rng(seed);
    std::vector<float> filter(kTaps), image(pixels);
    for (auto& f : filter) f = float(rng.below(16));
    for (auto& p : image) p = float(rng.below(16));

    auto module = load_workload_module(device, "conv_separable");
    device.write_symbol(module, "c_filter", filter.data(), kTaps * sizeof(float));
    uint64_t d_input = device.upload(image, "input");
    uint64_t d_buffer = device.allocate(pixels * sizeof(float), "buffer");
    uint64_t d_output = device.allocate(pixels * sizeof(float), "output");
    device.launch(module, "convolutionRowsKernel",
                  {uint32_t(width) / (kRowsSteps * kRowsBx), uint32_t(height) / kRowsBy, 1}, {kRowsBx, kRowsBy, 1}, 0,
                  platform::KernelArgs().ptr(d_buffer).ptr(d_input).add<int32_t>(width));
    device.launch(module, "convolutionColumnsKernel",
                  {uint32_t(width) / kColsBx, uint32_t(height) / (kColsSteps * kColsBy), 1}, {kColsBx, kColsBy, 1}, 0,
                  platform::KernelArgs().ptr(d_output).ptr(d_buffer).add<int32_t>(width).add<int32_t>(height));
    std::vector<float> got = device.download<float>(d_output, pixels);
    for (uint64_t d : {d_input, d_buffer, d_output}) device.free(d);

    // CPU passes, zero outside the image (integer sums: exact in any order).
    std::vector<float> rows(pixels), want(pixels);
    for (int y = 0; y < height; ++y)
      for (int x = 0; x < width; ++x) {
        float acc = 0.0f;
        for (int k = -kRadius; k <= kRadius; ++k)
          if (x + k >= 0 && x + k < width) acc += filter[size_t(kRadius - k)] * image[size_t(y) * width + size_t(x + k)];
        rows[size_t(y) * width + size_t(x)] = acc;
      }
    for (int y = 0; y < height; ++y)
      for (int x = 0; x < width; ++x) {
        float acc = 0.0f;
        for (int k = -kRadius; k <= kRadius; ++k)
          if (y + k >= 0 && y + k < height) acc += filter[size_t(kRadius - k)] * rows[size_t(y + k) * width + size_t(x)];
        want[size_t(y) * width + size_t(x)] = acc;
      }
    return compare_exact(got, want, "pixel");
  }
};

const bool registered = register_workload(
    {"conv_separable", "SDK convolutionSeparable: 17-tap row then column filters through shared-memory tiles",
     /*ipdom_safe=*/true, [] { return std::make_unique<ConvSeparable>(); }});

}  // namespace
}  // namespace tlmgpu::workloads
