// Register-estimate fixtures: 64-bit addressing, shared-memory tiling, vector loads.
// PTX: nvcc -ptx -arch=sm_75 -O3 memory.cu; counts: ptxas -arch=sm_75 -v memory.ptx

extern "C" __global__ void gather64(const long long* idx, const double* src, double* dst, long long n) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) dst[i] = src[idx[i]] + src[idx[n - 1 - i]];
}

extern "C" __global__ void pointer_chase(const unsigned long long* next, unsigned long long* out, int steps) {
  unsigned long long p = blockIdx.x * blockDim.x + threadIdx.x;
  for (int s = 0; s < steps; ++s) p = next[p];
  out[blockIdx.x * blockDim.x + threadIdx.x] = p;
}

extern "C" __global__ void many_pointers(const float* a, const float* b, const float* c, const float* d,
                                         const float* e, const float* f, float* out, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    out[i] = a[i] * b[i] + c[i] * d[i] + e[i] * f[i];
}

extern "C" __global__ void transpose_tile(const float* in, float* out, int w, int h) {
  __shared__ float tile[32][33];
  int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += 8)
    if (x < w && y + j < h) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * w + x];
  __syncthreads();
  x = blockIdx.y * 32 + threadIdx.x;
  y = blockIdx.x * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += 8)
    if (x < h && y + j < w) out[(y + j) * h + x] = tile[threadIdx.x][threadIdx.y + j];
}

extern "C" __global__ void matmul_tile16(const float* A, const float* B, float* C, int n) {
  __shared__ float As[16][16], Bs[16][16];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * 16 + ty, col = blockIdx.x * 16 + tx;
  float acc = 0;
  for (int t = 0; t < n; t += 16) {
    As[ty][tx] = A[row * n + t + tx];
    Bs[ty][tx] = B[(t + ty) * n + col];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < 16; ++k) acc += As[ty][k] * Bs[k][tx];
    __syncthreads();
  }
  C[row * n + col] = acc;
}

extern "C" __global__ void matmul_reg_block(const float* A, const float* B, float* C, int n) {
  __shared__ float As[16][64], Bs[16][64];
  int tx = threadIdx.x, ty = threadIdx.y;
  float acc[4][4] = {};
  for (int t = 0; t < n; t += 16) {
    for (int k = ty; k < 16; k += 16) {
#pragma unroll
      for (int q = 0; q < 4; ++q) {
        As[k][tx * 4 + q] = A[(blockIdx.y * 64 + tx * 4 + q) * n + t + k];
        Bs[k][tx * 4 + q] = B[(t + k) * n + blockIdx.x * 64 + tx * 4 + q];
      }
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < 16; ++k) {
      float a[4], b[4];
#pragma unroll
      for (int q = 0; q < 4; ++q) { a[q] = As[k][ty * 4 + q]; b[q] = Bs[k][tx * 4 + q]; }
#pragma unroll
      for (int r = 0; r < 4; ++r)
#pragma unroll
        for (int c = 0; c < 4; ++c) acc[r][c] += a[r] * b[c];
    }
    __syncthreads();
  }
#pragma unroll
  for (int r = 0; r < 4; ++r)
#pragma unroll
    for (int c = 0; c < 4; ++c) C[(blockIdx.y * 64 + ty * 4 + r) * n + blockIdx.x * 64 + tx * 4 + c] = acc[r][c];
}

extern "C" __global__ void float4_copy(const float4* in, float4* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float4 v = in[i], w = in[i + n];
    out[i] = make_float4(v.x + w.w, v.y * w.z, v.z - w.y, v.w + w.x);
  }
}

extern "C" __global__ void stencil5(const float* in, float* out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 1 || y < 1 || x >= w - 1 || y >= h - 1) return;
  int c = y * w + x;
  out[c] = 0.2f * (in[c] + in[c - 1] + in[c + 1] + in[c - w] + in[c + w]);
}

extern "C" __global__ void atomic_histogram(const unsigned char* data, unsigned* bins, int n) {
  __shared__ unsigned local[256];
  for (int b = threadIdx.x; b < 256; b += blockDim.x) local[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(&local[data[i]], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < 256; b += blockDim.x) atomicAdd(&bins[b], local[b]);
}
