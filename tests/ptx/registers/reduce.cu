// Register-estimate fixtures: reductions, warp shuffles, votes.
// PTX: nvcc -ptx -arch=sm_75 -O3 reduce.cu; counts: ptxas -arch=sm_75 -v reduce.ptx

extern "C" __global__ void reduce_shared(const float* in, float* out, int n) {
  __shared__ float s[256];
  int t = threadIdx.x;
  float v = 0;
  for (int i = blockIdx.x * 256 + t; i < n; i += gridDim.x * 256) v += in[i];
  s[t] = v;
  __syncthreads();
#pragma unroll
  for (int k = 128; k > 0; k >>= 1) {
    if (t < k) s[t] += s[t + k];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = s[0];
}

extern "C" __global__ void reduce_shuffle(const float* in, float* out, int n) {
  float v = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) v += in[i];
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  if ((threadIdx.x & 31) == 0) atomicAdd(out, v);
}

extern "C" __global__ void reduce_unrolled8(const float* in, float* out, int n) {
  int i = (blockIdx.x * blockDim.x + threadIdx.x) * 8;
  if (i + 7 >= n) return;
  float a = in[i], b = in[i + 1], c = in[i + 2], d = in[i + 3];
  float e = in[i + 4], f = in[i + 5], g = in[i + 6], h = in[i + 7];
  float s = (a + b) + (c + d) + ((e + f) + (g + h));
#pragma unroll
  for (int o = 1; o < 32; o <<= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
  if ((threadIdx.x & 31) == 0) out[i / 256] = s;
}

extern "C" __global__ void scan_warp(const int* in, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i < n ? in[i] : 0;
  int lane = threadIdx.x & 31;
#pragma unroll
  for (int o = 1; o < 32; o <<= 1) {
    int u = __shfl_up_sync(0xffffffffu, v, o);
    if (lane >= o) v += u;
  }
  if (i < n) out[i] = v;
}

extern "C" __global__ void ballot_count(const float* in, int* out, int n, float threshold) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  bool p = i < n && in[i] > threshold;
  unsigned mask = __ballot_sync(0xffffffffu, p);
  bool all = __all_sync(0xffffffffu, p);
  if ((threadIdx.x & 31) == 0) out[i >> 5] = __popc(mask) + (all ? 1000 : 0);
}

extern "C" __global__ void reduce_double(const double* in, double* out, int n) {
  __shared__ double s[128];
  double v = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) v += in[i] * in[i];
  s[threadIdx.x] = v;
  __syncthreads();
  for (int k = blockDim.x / 2; k > 0; k >>= 1) {
    if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}
