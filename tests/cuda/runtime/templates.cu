// Kernel templates instantiated for int, float and double, with a functor as
// a template argument and a block reduction templated on the block size:
// each instantiation is its own mangled kernel in the PTX.
#include <cmath>
#include <vector>

#include "tests/cuda/runtime/rt_check.h"

template <typename T>
struct AffineOp {
  T mul, add;
  __host__ __device__ T operator()(T x) const { return x * mul + add; }
};

template <typename T>
struct SquareOp {
  __host__ __device__ T operator()(T x) const { return x * x; }
};

template <typename T, typename Op>
__global__ void transform_kernel(const T* in, T* out, int n, Op op) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) out[i] = op(in[i]);
}

// One partial sum per block.
template <typename T, int kBlock>
__global__ void block_sum_kernel(const T* in, T* partial, int n) {
  __shared__ T s[kBlock];
  const int i = blockIdx.x * kBlock + threadIdx.x;
  s[threadIdx.x] = i < n ? in[i] : T(0);
  __syncthreads();
  for (int stride = kBlock / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) s[threadIdx.x] += s[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) partial[blockIdx.x] = s[0];
}

template <typename T, typename Op>
bool run(const char* type, Op op, T tolerance) {
  constexpr int kBlock = 64;
  const int n = 500, blocks = (n + kBlock - 1) / kBlock;
  std::vector<T> in(n);
  for (int i = 0; i < n; ++i) in[i] = T(i % 23) - T(7);
  T *d_in, *d_out, *d_partial;
  RT_CHECK(cudaMalloc(&d_in, n * sizeof(T)));
  RT_CHECK(cudaMalloc(&d_out, n * sizeof(T)));
  RT_CHECK(cudaMalloc(&d_partial, blocks * sizeof(T)));
  RT_CHECK(cudaMemcpy(d_in, in.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  transform_kernel<<<3, 96>>>(d_in, d_out, n, op);
  RT_CHECK(cudaGetLastError());
  block_sum_kernel<T, kBlock><<<blocks, kBlock>>>(d_out, d_partial, n);
  RT_CHECK(cudaGetLastError());
  std::vector<T> out(n), partial(blocks);
  RT_CHECK(cudaMemcpy(out.data(), d_out, n * sizeof(T), cudaMemcpyDeviceToHost));
  RT_CHECK(cudaMemcpy(partial.data(), d_partial, blocks * sizeof(T), cudaMemcpyDeviceToHost));
  RT_CHECK(cudaFree(d_in));
  RT_CHECK(cudaFree(d_out));
  RT_CHECK(cudaFree(d_partial));

  bool good = true;
  T want_sum = T(0), sum = T(0);
  for (int i = 0; i < n; ++i) {
    const T want = op(in[i]);
    good = good && std::abs(double(out[i] - want)) <= double(tolerance);
    want_sum += want;
  }
  for (T p : partial) sum += p;
  good = good && std::abs(double(sum - want_sum)) <= double(tolerance) * n;
  std::printf("templates: %s sum=%.3f\n", type, double(sum));
  RT_EXPECT(good);
  return good;
}

int main() {
  run<int>("int affine", AffineOp<int>{3, -2}, 0);
  run<int>("int square", SquareOp<int>{}, 0);
  run<float>("float affine", AffineOp<float>{0.5f, 1.25f}, 1e-6f);
  run<double>("double affine", AffineOp<double>{-1.5, 0.125}, 1e-12);
  run<double>("double square", SquareOp<double>{}, 1e-12);
  return rt_finish("templates");
}
