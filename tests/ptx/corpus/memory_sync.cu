// Corpus: data movement, memory spaces, atomics, fences, barriers and warp
// communication.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__constant__ float c_coeff[16];
__device__ int d_counter;
__device__ unsigned long long d_ull;
__device__ double d_sum;

struct Pair { float x; int y; };

extern "C" __global__ void memory_sync_ops(const float* __restrict__ in, float* out, int* iout,
                                           Pair* pairs, int n) {
  __shared__ float tile[256];
  extern __shared__ int dyn[];
  int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  float v = i < n ? __ldg(&in[i]) : 0.0f;
  tile[t] = v * c_coeff[t & 15];
  dyn[t] = t;
  __syncthreads();
  int cnt = __syncthreads_count(v > 0.0f);
  int all = __syncthreads_and(v > -1.0f);
  int any = __syncthreads_or(v > 100.0f);
  float4 q = reinterpret_cast<const float4*>(in)[i / 4 % (n / 4)];
  float s = tile[(t + 1) & 255] + q.x + q.y + q.z + q.w + float(dyn[(t + 3) & 255]);
  s += __shfl_sync(0xffffffffu, s, 0) + __shfl_up_sync(0xffffffffu, s, 1) +
       __shfl_down_sync(0xffffffffu, s, 2) + __shfl_xor_sync(0xffffffffu, s, 4);
  unsigned ballot = __ballot_sync(0xffffffffu, s > 0.0f);
  int votes = __all_sync(0xffffffffu, s > -1e30f) + __any_sync(0xffffffffu, s > 1e30f) +
              __uni_sync(0xffffffffu, t < 1024);
  unsigned act = __activemask();
  unsigned peers = __match_any_sync(0xffffffffu, int(s) & 3);
  int pred;
  unsigned allm = __match_all_sync(0xffffffffu, 1, &pred);
  __syncwarp();
  auto tile32 = cg::tiled_partition<16>(cg::this_thread_block());
  s += tile32.shfl(s, 3);
  tile32.sync();
  atomicAdd(&d_counter, 1);
  atomicAdd(&d_ull, 3ull);
  atomicAdd(&d_sum, double(s));
  atomicAdd(&out[n], s);
  atomicSub(&iout[0], 1);
  atomicMin(&iout[1], i);
  atomicMax(&iout[2], i);
  atomicAnd(&iout[3], ~(1 << (t & 7)));
  atomicOr(&iout[4], 1 << (t & 7));
  atomicXor(&iout[5], t);
  atomicExch(&iout[6], t);
  atomicCAS(&iout[7], 0, t);
  atomicInc(reinterpret_cast<unsigned*>(&iout[8]), 100u);
  atomicDec(reinterpret_cast<unsigned*>(&iout[9]), 100u);
  atomicAdd_block(&iout[10], 1);
  atomicAdd_system(&iout[11], 1);
  atomicMax(reinterpret_cast<unsigned long long*>(&d_ull), 5ull);
  __threadfence();
  __threadfence_block();
  __threadfence_system();
  volatile int* vp = iout + 12;
  *vp = int(ballot ^ act ^ peers ^ allm) + votes + pred + cnt + all + any;
  if (i < n) {
    Pair p = pairs[i];
    p.x += s;
    p.y ^= int(__isGlobal(pairs)) + 2 * int(__isShared(tile));
    pairs[i] = p;
    out[i] = s;
    __stcs(&out[i], s + 1.0f);
    out[i] += __ldcg(&in[i]) + __ldca(&in[i]) + __ldcs(&in[i]) + __ldlu(&in[i]) + __ldcv(&in[i]);
    __stwb(&iout[13], i);
    __stcg(&iout[14], i);
    __stwt(&iout[15], i);
  }
  long long c = clock64();
  unsigned lane;
  asm("mov.u32 %0, %%laneid;" : "=r"(lane));
  iout[16 + (i & 7)] = int(c & 1) + int(lane) + (__nanosleep(0), 0);
}
