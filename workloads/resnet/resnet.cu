// ResNet inference (seed 002's "RN"): a bottleneck residual network for
// 32x32 images as direct-convolution kernels, one thread per output value.
// Batch normalisation is folded into a per-channel scale and shift applied
// after each convolution; shortcuts are parameter-free (a stride-2 subsample
// and zero channels where the width grows, He et al.'s option A); a global
// average pool feeds a fully connected classifier whose sums are
// accumulated with atomics. Tensors are CHW, one image.

#define RN_BLOCK 256  // threads per CTA of every kernel

// 3x3 convolution, padding 1, stride 1 or 2, then BN and ReLU.
// out: c_out x (h_in / stride) x (w_in / stride).
extern "C" __global__ void conv3x3_bn_relu(const float* __restrict__ in, const float* __restrict__ weight,
                                           const float* __restrict__ scale, const float* __restrict__ shift,
                                           float* __restrict__ out, int c_in, int h_in, int w_in, int c_out,
                                           int stride)
{
  const int h_out = h_in / stride, w_out = w_in / stride;
  const int idx = blockIdx.x * RN_BLOCK + threadIdx.x;
  if (idx >= c_out * h_out * w_out) return;
  const int x = idx % w_out, y = (idx / w_out) % h_out, co = idx / (w_out * h_out);
  const float* w = weight + co * c_in * 9;
  float acc = 0.0f;
  for (int ci = 0; ci < c_in; ++ci) {
    const float* plane = in + ci * h_in * w_in;
    for (int ky = 0; ky < 3; ++ky) {
      const int iy = y * stride + ky - 1;
      if (iy < 0 || iy >= h_in) continue;
      for (int kx = 0; kx < 3; ++kx) {
        const int ix = x * stride + kx - 1;
        if (ix < 0 || ix >= w_in) continue;
        acc += plane[iy * w_in + ix] * w[ci * 9 + ky * 3 + kx];
      }
    }
  }
  out[idx] = fmaxf(acc * scale[co] + shift[co], 0.0f);
}

__device__ inline float conv1x1(const float* __restrict__ in, const float* __restrict__ weight, int c_in, int hw,
                                int co, int p)
{
  const float* w = weight + co * c_in;
  float acc = 0.0f;
  for (int ci = 0; ci < c_in; ++ci) acc += in[ci * hw + p] * w[ci];
  return acc;
}

// 1x1 convolution (the bottleneck's channel reduction), BN, ReLU.
extern "C" __global__ void conv1x1_bn_relu(const float* __restrict__ in, const float* __restrict__ weight,
                                           const float* __restrict__ scale, const float* __restrict__ shift,
                                           float* __restrict__ out, int c_in, int hw, int c_out)
{
  const int idx = blockIdx.x * RN_BLOCK + threadIdx.x;
  if (idx >= c_out * hw) return;
  const int co = idx / hw, p = idx % hw;
  out[idx] = fmaxf(conv1x1(in, weight, c_in, hw, co, p) * scale[co] + shift[co], 0.0f);
}

// 1x1 convolution (the bottleneck's channel expansion) and BN; the ReLU
// comes after the residual addition.
extern "C" __global__ void conv1x1_bn(const float* __restrict__ in, const float* __restrict__ weight,
                                      const float* __restrict__ scale, const float* __restrict__ shift,
                                      float* __restrict__ out, int c_in, int hw, int c_out)
{
  const int idx = blockIdx.x * RN_BLOCK + threadIdx.x;
  if (idx >= c_out * hw) return;
  const int co = idx / hw, p = idx % hw;
  out[idx] = conv1x1(in, weight, c_in, hw, co, p) * scale[co] + shift[co];
}

// out = ReLU(branch + shortcut). branch: c x h x w; shortcut: c_sc x
// (h * stride) x (w * stride), read at every stride-th position, zero for
// channels c >= c_sc.
extern "C" __global__ void add_relu(const float* __restrict__ branch, const float* __restrict__ shortcut,
                                    float* __restrict__ out, int c, int h, int w, int c_sc, int stride)
{
  const int idx = blockIdx.x * RN_BLOCK + threadIdx.x;
  if (idx >= c * h * w) return;
  const int x = idx % w, y = (idx / w) % h, ch = idx / (w * h);
  const float s = ch < c_sc ? shortcut[(ch * h * stride + y * stride) * w * stride + x * stride] : 0.0f;
  out[idx] = fmaxf(branch[idx] + s, 0.0f);
}

// Global average pool and the fully connected layer. Each CTA takes
// RN_BLOCK / hw channels (hw a power of two dividing RN_BLOCK): a
// shared-memory tree sums each channel's plane, then every (channel, class)
// pair adds weight * mean to its class's logit (logits start at the bias).
extern "C" __global__ void avgpool_fc(const float* __restrict__ in, const float* __restrict__ fc_weight,
                                      float* __restrict__ logits, int c, int hw, int classes)
{
  __shared__ float sums[RN_BLOCK];
  const int t = threadIdx.x;
  const int per_cta = RN_BLOCK / hw;
  const int p = t % hw;
  sums[t] = in[blockIdx.x * RN_BLOCK + t];
  for (int half = hw / 2; half > 0; half >>= 1) {
    __syncthreads();
    if (p < half) sums[t] += sums[t + half];
  }
  __syncthreads();
  for (int pair = t; pair < per_cta * classes; pair += RN_BLOCK) {
    const int local = pair / classes, k = pair % classes;
    const int ch = blockIdx.x * per_cta + local;
    const float mean = sums[local * hw] / (float)hw;
    atomicAdd(&logits[k], fc_weight[k * c + ch] * mean);
  }
}
