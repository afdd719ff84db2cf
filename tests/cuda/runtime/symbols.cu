// __constant__ and __device__ variables reached from the host by symbol:
// cudaMemcpyToSymbol / FromSymbol with offsets, cudaGetSymbolAddress,
// cudaGetSymbolSize. Argument "constant-address": instead, write a
// __constant__ variable through the address cudaGetSymbolAddress gives.
#include <cmath>
#include <cstring>
#include <vector>

#include "tests/cuda/runtime/rt_check.h"

constexpr int kCoeffs = 16, kTable = 64;

__constant__ float c_coeffs[kCoeffs];
__constant__ int c_scale = 5;  // initialised in the module, not by the host
__device__ int d_table[kTable];
__device__ unsigned d_hits;

// out[i] = sum_k c_coeffs[k] * x^k for x = i / n; d_table[i % kTable] += scale.
__global__ void eval_kernel(float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float x = float(i) / float(n);
  float acc = 0.0f;
  for (int k = kCoeffs - 1; k >= 0; --k) acc = acc * x + c_coeffs[k];
  out[i] = acc;
  atomicAdd(&d_table[i % kTable], c_scale);
  atomicAdd(&d_hits, 1u);
}

// The constant bank through a device address, as cudaMemcpyAsync-to-symbol
// code does it: every __constant__ variable has one on a GPU.
static int constant_address() {
  float* coeffs_ptr = nullptr;
  RT_CHECK(cudaGetSymbolAddress(reinterpret_cast<void**>(&coeffs_ptr), c_coeffs));
  float coeffs[kCoeffs] = {};
  coeffs[0] = 2.0f;  // out[i] = 2 for every x
  RT_CHECK(cudaMemcpy(coeffs_ptr, coeffs, sizeof coeffs, cudaMemcpyHostToDevice));
  float* d_out;
  RT_CHECK(cudaMalloc(&d_out, 64 * sizeof(float)));
  eval_kernel<<<1, 64>>>(d_out, 64);
  RT_CHECK(cudaGetLastError());
  float out[64];
  RT_CHECK(cudaMemcpy(out, d_out, sizeof out, cudaMemcpyDeviceToHost));
  for (float v : out) RT_EXPECT(v == 2.0f);
  float back = 0.0f;
  RT_CHECK(cudaMemcpy(&back, coeffs_ptr, sizeof back, cudaMemcpyDeviceToHost));
  RT_EXPECT(back == 2.0f);
  RT_CHECK(cudaFree(d_out));
  return rt_finish("symbols constant-address");
}

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "constant-address") == 0) return constant_address();
  const int n = 256;
  // Two writes into c_coeffs: the first half, then the second half by offset.
  float coeffs[kCoeffs];
  for (int k = 0; k < kCoeffs; ++k) coeffs[k] = 1.0f / float(k + 1);
  RT_CHECK(cudaMemcpyToSymbol(c_coeffs, coeffs, 8 * sizeof(float)));
  RT_CHECK(cudaMemcpyToSymbol(c_coeffs, coeffs + 8, 8 * sizeof(float), 8 * sizeof(float)));

  // d_table starts as 1000 + i, written through the address of the symbol.
  int* table_ptr = nullptr;
  RT_CHECK(cudaGetSymbolAddress(reinterpret_cast<void**>(&table_ptr), d_table));
  size_t table_size = 0, coeffs_size = 0, hits_size = 0;
  RT_CHECK(cudaGetSymbolSize(&table_size, d_table));
  RT_CHECK(cudaGetSymbolSize(&coeffs_size, c_coeffs));
  RT_CHECK(cudaGetSymbolSize(&hits_size, d_hits));
  RT_EXPECT(table_size == kTable * sizeof(int));
  RT_EXPECT(coeffs_size == kCoeffs * sizeof(float));
  RT_EXPECT(hits_size == sizeof(unsigned));
  std::vector<int> table(kTable);
  for (int i = 0; i < kTable; ++i) table[i] = 1000 + i;
  RT_CHECK(cudaMemcpy(table_ptr, table.data(), kTable * sizeof(int), cudaMemcpyHostToDevice));
  const unsigned zero = 0;
  RT_CHECK(cudaMemcpyToSymbol(d_hits, &zero, sizeof zero, 0, cudaMemcpyHostToDevice));

  float* d_out;
  RT_CHECK(cudaMalloc(&d_out, n * sizeof(float)));
  eval_kernel<<<n / 64, 64>>>(d_out, n);
  RT_CHECK(cudaGetLastError());
  std::vector<float> out(n);
  RT_CHECK(cudaMemcpy(out.data(), d_out, n * sizeof(float), cudaMemcpyDeviceToHost));
  int bad_eval = 0;
  for (int i = 0; i < n; ++i) {
    const float x = float(i) / float(n);
    float acc = 0.0f;
    for (int k = kCoeffs - 1; k >= 0; --k) acc = acc * x + coeffs[k];
    if (std::fabs(out[i] - acc) > 1e-5f * std::fabs(acc) + 1e-6f) ++bad_eval;
  }
  RT_EXPECT(bad_eval == 0);

  // Read back part of the table by offset: entries 10..19.
  int part[10];
  RT_CHECK(cudaMemcpyFromSymbol(part, d_table, sizeof part, 10 * sizeof(int)));
  const int per_entry = (n / kTable) * 5;
  for (int j = 0; j < 10; ++j) RT_EXPECT(part[j] == 1000 + 10 + j + per_entry);
  unsigned hits = 0;
  RT_CHECK(cudaMemcpyFromSymbol(&hits, d_hits, sizeof hits, 0, cudaMemcpyDeviceToHost));
  RT_EXPECT(hits == unsigned(n));
  float back[4];
  RT_CHECK(cudaMemcpyFromSymbol(back, c_coeffs, sizeof back, 6 * sizeof(float)));
  for (int j = 0; j < 4; ++j) RT_EXPECT(back[j] == coeffs[6 + j]);
  int scale = 0;
  RT_CHECK(cudaMemcpyFromSymbol(&scale, c_scale, sizeof scale));
  RT_EXPECT(scale == 5);

  std::printf("symbols: table[10]=%d hits=%u scale=%d sizes=%zu,%zu,%zu\n", part[0], hits, scale, coeffs_size,
              table_size, hits_size);
  RT_CHECK(cudaFree(d_out));
  return rt_finish("symbols");
}
