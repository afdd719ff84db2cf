// sto: SHA-1 of overlapping windows of a buffer, reproducing the GPGPU-Sim
// ISPASS-2009 benchmark STO (StoreGPU, kernel sha1_overlap): thread t
// hashes the chunk_size bytes that start at byte t * offset (windows
// overlap when offset < chunk_size, as in content-addressable storage's
// sliding-window hashing) and writes the first digest word (StoreGPU's
// reduced hash size). As in StoreGPU's shared-memory variant, each thread
// copies a whole 64-byte message block into its own column of shared
// memory (word i of lane l of warp w at [512 w + 32 i + l]: no bank
// conflicts), pads it there, and runs the 80 rounds with the message
// schedule kept in place in those 16 shared words. The copy is a rolled
// loop and the rounds run 20 to a trip, a shape for which ptxas's register
// count and the model's PTX estimate agree (fully unrolled, ptxas hoists
// every global load and takes 64 registers).
//
// chunk_size must be a multiple of 4 and at most 52 (one block with its
// padding); offset a multiple of 4. The buffer must hold 64 bytes from every
// window's start. Up to 256 threads per CTA.

__device__ __forceinline__ unsigned int sto_rotl(unsigned int x, int n) { return (x << n) | (x >> (32 - n)); }

extern "C" __global__ void sha1_overlap(const unsigned int* __restrict__ input, int chunk_size, int offset,
                                        int total_threads, unsigned int* __restrict__ output)
{
  __shared__ unsigned int block_words[8 * 512];
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= total_threads) return;

  // volatile: every schedule word goes through shared memory, as in StoreGPU.
  volatile unsigned int* w = block_words + (threadIdx.x >> 5) * 512 + (threadIdx.x & 31);
  const unsigned int* src = input + t * (offset / 4);
  const int data_words = chunk_size / 4;
  // The whole 64-byte block into shared memory, then the chunk's words to
  // big-endian and the padding (0x80 byte, zeros, length in bits) over the rest.
#pragma unroll 1
  for (int i = 0; i < 16; ++i) w[32 * i] = src[i];
#pragma unroll
  for (int i = 0; i < 15; ++i)
    w[32 * i] = i < data_words ? __byte_perm(w[32 * i], 0, 0x0123) : i == data_words ? 0x80000000u : 0u;
  w[32 * 15] = unsigned(chunk_size) * 8u;

  unsigned int a = 0x67452301u, b = 0xEFCDAB89u, c = 0x98BADCFEu, d = 0x10325476u, e = 0xC3D2E1F0u;
#pragma unroll 20
  for (int r = 0; r < 80; ++r) {
    unsigned int x;
    if (r < 16) {
      x = w[32 * r];
    } else {
      x = sto_rotl(w[32 * ((r - 3) & 15)] ^ w[32 * ((r - 8) & 15)] ^ w[32 * ((r - 14) & 15)] ^ w[32 * (r & 15)], 1);
      w[32 * (r & 15)] = x;
    }
    unsigned int f, k;
    if (r < 20) {
      f = d ^ (b & (c ^ d));
      k = 0x5A827999u;
    } else if (r < 40) {
      f = b ^ c ^ d;
      k = 0x6ED9EBA1u;
    } else if (r < 60) {
      f = (b & c) | (d & (b | c));
      k = 0x8F1BBCDCu;
    } else {
      f = b ^ c ^ d;
      k = 0xCA62C1D6u;
    }
    const unsigned int temp = sto_rotl(a, 5) + f + e + k + x;
    e = d;
    d = c;
    c = sto_rotl(b, 30);
    b = a;
    a = temp;
  }
  output[t] = 0x67452301u + a;
}
