// aes: AES-128 encryption (ECB) of a buffer, reproducing the GPGPU-Sim
// ISPASS-2009 benchmark AES (kernel aesEncrypt128). A CTA of 256 threads
// encrypts 1 KB: 64 AES blocks of 16 bytes, one thread per 32-bit state
// column. The state lives in two shared-memory buffers that the ten rounds
// alternate between, with a barrier after each round; a round is four
// T-table lookups and a round-key XOR per thread. Like the original, each
// CTA first copies the four T-tables from constant memory into shared memory
// (indexed constant reads would serialise); the round keys come from
// constant memory (the original fetches them through a texture), so the
// only global accesses are one load and one store per thread.
//
// Words are little-endian: byte r of state word c is row r of column c.
// aes_te[k][x] holds the MixColumns column for S-box output S[x] in row k,
// so byte 1 of aes_te[0][x] is S[x] itself (used by the last round).

__constant__ unsigned int aes_te[4][256];
__constant__ unsigned int aes_round_keys[44];

// blockDim.x must be 256 (a thread per T-table entry and per state word).
extern "C" __global__ void aesEncrypt128(unsigned int* __restrict__ out, const unsigned int* __restrict__ in)
{
  __shared__ unsigned int te[4][256];
  __shared__ unsigned int state[2][256];

  const unsigned int t = threadIdx.x;
  const unsigned int col = t & 3u;
  const unsigned int first = t & ~3u;  // this thread's AES block in the CTA
  const unsigned int c1 = first + ((col + 1) & 3u), c2 = first + ((col + 2) & 3u), c3 = first + ((col + 3) & 3u);

#pragma unroll
  for (int k = 0; k < 4; ++k) te[k][t] = aes_te[k][t];
  // Stage 1 (as the original): the input word into shared memory, then
  // the first round key added, a barrier after each.
  state[1][t] = in[blockIdx.x * 256u + t];
  __syncthreads();
  state[0][t] = state[1][t] ^ aes_round_keys[col];
  __syncthreads();

  // Rounds 1..9: SubBytes + ShiftRows + MixColumns through the T-tables.
#pragma unroll
  for (int round = 1; round < 10; ++round) {
    const unsigned int* s = state[(round - 1) & 1];
    const unsigned int v = te[0][s[t] & 0xffu] ^ te[1][(s[c1] >> 8) & 0xffu] ^ te[2][(s[c2] >> 16) & 0xffu] ^
                           te[3][s[c3] >> 24] ^ aes_round_keys[4 * round + col];
    state[round & 1][t] = v;
    __syncthreads();
  }

  // Round 10: SubBytes + ShiftRows (no MixColumns); S[x] is byte 1 of te[0][x].
  const unsigned int* s = state[1];
  const unsigned int b0 = (te[0][s[t] & 0xffu] >> 8) & 0xffu;
  const unsigned int b1 = (te[0][(s[c1] >> 8) & 0xffu] >> 8) & 0xffu;
  const unsigned int b2 = (te[0][(s[c2] >> 16) & 0xffu] >> 8) & 0xffu;
  const unsigned int b3 = (te[0][s[c3] >> 24] >> 8) & 0xffu;
  out[blockIdx.x * 256u + t] = (b0 | (b1 << 8) | (b2 << 16) | (b3 << 24)) ^ aes_round_keys[40 + col];
}
