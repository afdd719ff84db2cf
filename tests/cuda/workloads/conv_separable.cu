// conv_separable as a CUDA program: the host steps of
// workloads/conv_separable/conv_separable.cpp (the SDK's convolutionSeparable:
// row pass, column pass, integer-valued inputs checked exactly).
#include "tests/cuda/workloads/program_support.h"
#include "workloads/conv_separable/conv_separable.cu"

int main(int argc, char** argv) {
  const program::Options opt = program::parse_options(argc, argv);
  const int width = opt.size == program::Size::Small ? 256 : opt.size == program::Size::Default ? 1024 : 3072;
  const int height = opt.size == program::Size::Small ? 128 : opt.size == program::Size::Default ? 1024 : 3072;
  const size_t pixels = size_t(width) * size_t(height);

  program::InputRng rng(opt.seed);
  std::vector<float> filter(KERNEL_LENGTH), image(pixels);
  for (auto& f : filter) f = float(rng.below(16));
  for (auto& p : image) p = float(rng.below(16));

  CUDA_CHECK(cudaMemcpyToSymbol(c_filter, filter.data(), KERNEL_LENGTH * sizeof(float)));
  float* d_input = program::upload(image);
  float* d_buffer = program::device_alloc<float>(pixels);
  float* d_output = program::device_alloc<float>(pixels);
  convolutionRowsKernel<<<dim3(width / (ROWS_STEPS * ROWS_BX), height / ROWS_BY), dim3(ROWS_BX, ROWS_BY)>>>(
      d_buffer, d_input, width);
  CUDA_CHECK_LAUNCH();
  convolutionColumnsKernel<<<dim3(width / COLS_BX, height / (COLS_STEPS * COLS_BY)), dim3(COLS_BX, COLS_BY)>>>(
      d_output, d_buffer, width, height);
  CUDA_CHECK_LAUNCH();
  const std::vector<float> got = program::download(d_output, pixels);
  program::free_all(d_input, d_buffer, d_output);

  std::vector<float> rows(pixels), want(pixels);
  const int r = KERNEL_RADIUS;
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      float acc = 0.0f;
      for (int k = -r; k <= r; ++k)
        if (x + k >= 0 && x + k < width) acc += filter[size_t(r - k)] * image[size_t(y) * width + size_t(x + k)];
      rows[size_t(y) * width + size_t(x)] = acc;
    }
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      float acc = 0.0f;
      for (int k = -r; k <= r; ++k)
        if (y + k >= 0 && y + k < height) acc += filter[size_t(r - k)] * rows[size_t(y + k) * width + size_t(x)];
      want[size_t(y) * width + size_t(x)] = acc;
    }
  return program::report("conv_separable", program::compare_exact(got, want, "pixel"));
}
