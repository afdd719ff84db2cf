// nn: a LeCun-style convolutional network recognising handwritten digits
// (29 x 29 images -> 10 scores), reproducing the GPGPU-Sim ISPASS-2009
// benchmark NN (Neural Network Digit Recognition): four kernels, one per
// layer, each with a CTA per (output map or neuron, image):
//   executeFirstLayer   29x29 image -> 6 maps of 13x13 (5x5 kernels, stride 2), 13x13 threads
//   executeSecondLayer  6 maps of 13x13 -> 50 maps of 5x5 (5x5 kernels over all 6 maps, stride 2), 5x5 threads
//   executeThirdLayer   1250 -> 100, fully connected, one thread per CTA
//   executeFourthLayer  100 -> 10, fully connected, one thread per CTA
// Every neuron is 1.7159 tanh(2/3 (bias + sum of weight x input)); inputs
// and weights are read from global memory (each thread reads its own
// window and weights, as in the original), the bias is the first weight of
// its neuron's or map's weight block. The second layer's loop over kernel
// positions stays rolled with the six input maps spelled out in its body, as
// in the original; the dense layers' loops run 16 products a trip (shapes
// for which ptxas's register count and the model's PTX estimate agree).

__device__ __forceinline__ float nn_activation(float sum) { return 1.7159f * tanhf(0.66666667f * sum); }

// grid (6, images), block (13, 13); weights: 6 blocks of 26 (bias + 5x5).
extern "C" __global__ void executeFirstLayer(const float* __restrict__ images, const float* __restrict__ weights,
                                             float* __restrict__ maps1)
{
  const int map = blockIdx.x, image = blockIdx.y;
  const int px = threadIdx.x, py = threadIdx.y;
  const float* w = weights + map * 26;
  const float* in = images + image * 29 * 29 + (2 * py) * 29 + 2 * px;
  float sum = w[0];
  for (int ky = 0; ky < 5; ++ky)
    for (int kx = 0; kx < 5; ++kx) sum = fmaf(in[ky * 29 + kx], w[1 + ky * 5 + kx], sum);
  maps1[((image * 6 + map) * 13 + py) * 13 + px] = nn_activation(sum);
}

// grid (50, images), block (5, 5); weights: 50 blocks of 151 (bias, then
// for each of the 25 kernel positions the 6 input maps' weights).
extern "C" __global__ void executeSecondLayer(const float* __restrict__ maps1, const float* __restrict__ weights,
                                              float* __restrict__ maps2)
{
  const int map = blockIdx.x, image = blockIdx.y;
  const int px = threadIdx.x, py = threadIdx.y;
  const float* w = weights + map * 151;
  const float* in = maps1 + image * 6 * 169 + (2 * py) * 13 + 2 * px;
  float sum = w[0];
#pragma unroll 1
  for (int k = 0; k < 25; ++k) {
    const int offset = (k / 5) * 13 + k % 5;
    for (int m = 0; m < 6; ++m) sum = fmaf(in[m * 169 + offset], w[1 + k * 6 + m], sum);
  }
  maps2[(image * 50 + map) * 25 + py * 5 + px] = nn_activation(sum);
}

// grid (100, images), block 1; weights: 100 rows of 1251 (bias + 1250).
extern "C" __global__ void executeThirdLayer(const float* __restrict__ maps2, const float* __restrict__ weights,
                                             float* __restrict__ hidden)
{
  const int neuron = blockIdx.x, image = blockIdx.y;
  const float* w = weights + neuron * 1251;
  const float* in = maps2 + image * 1250;
  float sum = w[0];
#pragma unroll 16
  for (int i = 0; i < 1250; ++i) sum = fmaf(in[i], w[1 + i], sum);
  hidden[image * 100 + neuron] = nn_activation(sum);
}

// grid (10, images), block 1; weights: 10 rows of 101 (bias + 100).
extern "C" __global__ void executeFourthLayer(const float* __restrict__ hidden, const float* __restrict__ weights,
                                              float* __restrict__ scores)
{
  const int neuron = blockIdx.x, image = blockIdx.y;
  const float* w = weights + neuron * 101;
  const float* in = hidden + image * 100;
  float sum = w[0];
#pragma unroll 16
  for (int i = 0; i < 100; ++i) sum = fmaf(in[i], w[1 + i], sum);
  scores[image * 10 + neuron] = nn_activation(sum);
}
