// One training step of the input -> hidden layer of a two-layer perceptron
// with 16 hidden units, as two kernels.
// forward: a 16 x 16 CTA takes 16 inputs; thread (j, i) forms
// input[i] * weight[i][j] in shared memory and the CTA reduces over i in a
// tree (strides 8, 4, 2, 1, a barrier after each), leaving one partial sum
// per hidden unit per CTA; the host sums the CTAs and applies the sigmoid.
// Barrier-heavy, with half the warps idle at each reduction step.
// adjust: one thread per weight,
//   dw = eta * delta[j] * input[i] + momentum * previous_dw,
// read-modify-write of two large arrays: streaming and memory-bound.
// Both use explicit fmaf / __fmul_rn so the host reference rounds alike.

#define HIDDEN 16

extern "C" __global__ void bp_layer_forward(const float* __restrict__ input, const float* __restrict__ weights,
                                            float* __restrict__ partial, int n_in) {
  __shared__ float input_s[HIDDEN];
  __shared__ float product[HIDDEN][HIDDEN];
  const int j = threadIdx.x, local = threadIdx.y;
  const int i = blockIdx.x * HIDDEN + local;
  if (j == 0) input_s[local] = i < n_in ? input[i] : 0.0f;
  __syncthreads();
  product[local][j] = i < n_in ? __fmul_rn(weights[i * HIDDEN + j], input_s[local]) : 0.0f;
  __syncthreads();
  for (int stride = HIDDEN / 2; stride > 0; stride >>= 1) {
    if (local < stride) product[local][j] += product[local + stride][j];
    __syncthreads();
  }
  if (local == 0) partial[blockIdx.x * HIDDEN + j] = product[0][j];
}

extern "C" __global__ void bp_adjust_weights(float* __restrict__ weights, float* __restrict__ previous_dw,
                                             const float* __restrict__ input, const float* __restrict__ delta,
                                             int n_in, float eta, float momentum) {
  const int w = blockIdx.x * blockDim.x + threadIdx.x;
  if (w >= n_in * HIDDEN) return;
  const int i = w / HIDDEN, j = w % HIDDEN;
  const float dw = fmaf(momentum, previous_dw[w], __fmul_rn(__fmul_rn(eta, delta[j]), input[i]));
  weights[w] += dw;
  previous_dw[w] = dw;
}
