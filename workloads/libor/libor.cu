// libor: LIBOR market model Monte Carlo, as the ISPASS 2009 suite's "LIB"
// (Giles' swaption-portfolio benchmark; seed 004 Table 2 "LIBOR Monte
// Carlo"). One thread per path, two launches as the original host program:
//   Pathcalc_Portfolio_KernelGPU2  forward-rate evolution over Nmat steps
//                                  (the rates still alive move by a drift
//                                  that sums over the longer rates and a
//                                  log-normal shock), then the value of a
//                                  portfolio of Nopt receiver swaptions;
//   Pathcalc_Portfolio_KernelGPU   the same evolution storing every step's
//                                  rates (a 3,280-float array per thread),
//                                  the value with its hand-coded reverse-
//                                  mode sensitivity to the final rates, then
//                                  the reverse sweep back through the stored
//                                  steps: path-wise deltas (Greeks).
// The per-thread arrays are in local memory, the model's constants in
// constant memory, and 1.0 + delta * L, 0.5 * con1, the swap values and the
// discount divisions in double precision, as in the original. Our own code; libor_host.h is the
// CPU reference. The shocks z come from the host (the original fills them
// with a constant 0.3 "for a real application, z should be randomly generated").

#include "libor_host.h"

__constant__ int lib_N, lib_Nmat, lib_Nopt, lib_maturities[libor::kNopt];
__constant__ float lib_delta, lib_swaprates[libor::kNopt], lib_lambda[libor::kNN];

// Forward rates L evolved over Nmat steps with shocks z; with L2, every
// step's rates are stored (L2[i + n * N]: rate i after n steps).
template <bool kStore>
__device__ __forceinline__ void lib_path_calc(float* L, const float* z, float* L2)
{
  const int N = lib_N, Nmat = lib_Nmat;
  const float delta = lib_delta;
  if (kStore)
    for (int i = 0; i < N; ++i) L2[i] = L[i];
  for (int n = 0; n < Nmat; ++n) {
    const float sqez = sqrtf(delta) * z[n];
    float v = 0.0f;
    for (int i = n + 1; i < N; ++i) {
      const float lam = lib_lambda[i - n - 1];
      const float con1 = delta * lam;
      v += __fdividef(con1 * L[i], 1.0 + delta * L[i]);
      const float vrat = __expf(con1 * v + lam * (sqez - 0.5 * con1));
      L[i] = L[i] * vrat;
      if (kStore) L2[i + (n + 1) * N] = L[i];
    }
  }
}

// Reverse sweep: the sensitivities L_b to the final rates carried back to
// the initial rates through the stored steps.
__device__ __forceinline__ void lib_path_calc_b2(float* L_b, const float* L2)
{
  const int N = lib_N, Nmat = lib_Nmat;
  const float delta = lib_delta;
  for (int n = Nmat - 1; n >= 0; --n) {
    float v1 = 0.0f;
    for (int i = N - 1; i > n; --i) {
      v1 += lib_lambda[i - n - 1] * L2[i + (n + 1) * N] * L_b[i];
      const float faci = __fdividef(delta, 1.0 + delta * L2[i + n * N]);
      L_b[i] = L_b[i] * __fdividef(L2[i + (n + 1) * N], L2[i + n * N]) + v1 * lib_lambda[i - n - 1] * faci * faci;
    }
  }
}

// Portfolio value: swaption n pays 100 * max(0, -(B + swaprate * S - 1)) at
// its maturity (B: discount factor, S: annuity), discounted to today.
__device__ __forceinline__ float lib_portfolio(const float* L)
{
  const int N = lib_N, Nmat = lib_Nmat, Nopt = lib_Nopt;
  const float delta = lib_delta;
  float BS[2 * libor::kNmat];  // B, then S
  float *B = BS, *S = BS + libor::kNmat;
  float b = 1.0f, s = 0.0f;
  for (int n = Nmat; n < N; ++n) {
    b = b / (1.0 + delta * L[n]);
    s = s + delta * b;
    B[n - Nmat] = b;
    S[n - Nmat] = s;
  }
  float v = 0.0f;
  for (int k = 0; k < Nopt; ++k) {
    const int m = lib_maturities[k] - 1;
    const float swapval = B[m] + lib_swaprates[k] * S[m] - 1.0;
    if (swapval < 0.0f) v += -100.0 * swapval;
  }
  b = 1.0f;
  for (int n = 0; n < Nmat; ++n) b = b / (1.0 + delta * L[n]);
  return b * v;
}

// The value and, in L_b, its derivative with respect to each final rate
// (hand-coded reverse mode).
__device__ __forceinline__ float lib_portfolio_b(const float* L, float* L_b)
{
  const int N = lib_N, Nmat = lib_Nmat, Nopt = lib_Nopt;
  const float delta = lib_delta;
  float BS[4 * libor::kNmat];  // B, S, B_b, S_b
  float *B = BS, *S = BS + libor::kNmat, *B_b = BS + 2 * libor::kNmat, *S_b = BS + 3 * libor::kNmat;
  float b = 1.0f, s = 0.0f;
  #pragma unroll 1  // a serial recurrence
  for (int m = 0; m < N - Nmat; ++m) {
    const int n = m + Nmat;
    b = __fdividef(b, 1.0 + delta * L[n]);
    s = s + delta * b;
    B[m] = b;
    S[m] = s;
  }
  float v = 0.0f;
  for (int m = 0; m < N - Nmat; ++m) {
    B_b[m] = 0.0f;
    S_b[m] = 0.0f;
  }
  for (int k = 0; k < Nopt; ++k) {
    const int m = lib_maturities[k] - 1;
    const float swapval = B[m] + lib_swaprates[k] * S[m] - 1.0;
    if (swapval < 0.0f) {
      v += -100.0f * swapval;
      S_b[m] += -100.0f * lib_swaprates[k];
      B_b[m] += -100.0f;
    }
  }
  #pragma unroll 1  // a serial recurrence
  for (int m = N - Nmat - 1; m >= 0; --m) {
    const int n = m + Nmat;
    B_b[m] += delta * S_b[m];
    L_b[n] = -B_b[m] * B[m] * __fdividef(delta, 1.0 + delta * L[n]);
    if (m > 0) {
      S_b[m - 1] += S_b[m];
      B_b[m - 1] += __fdividef(B_b[m], 1.0 + delta * L[n]);
    }
  }
  b = 1.0f;
  for (int n = 0; n < Nmat; ++n) b = b / (1.0 + delta * L[n]);
  v = b * v;
  for (int n = 0; n < Nmat; ++n) L_b[n] = -v * delta / (1.0 + delta * L[n]);
  for (int n = Nmat; n < N; ++n) L_b[n] = b * L_b[n];
  return v;
}

// Value and deltas: L_b shares L's storage, as in the original.
extern "C" __global__ void Pathcalc_Portfolio_KernelGPU(float* __restrict__ d_v, float* __restrict__ d_Lb,
                                                        const float* __restrict__ d_z, float L0, int npath)
{
  const int tid = blockDim.x * blockIdx.x + threadIdx.x;
  const int threads = blockDim.x * gridDim.x;
  float work[2 * libor::kNN + libor::kL2Size];  // L, z, L2 in one local array
  float *L = work, *z = work + libor::kNN, *L2 = work + 2 * libor::kNN;
  float* L_b = L;
  for (int path = tid; path < npath; path += threads) {
    for (int i = 0; i < lib_N; ++i) {
      z[i] = i < lib_Nmat ? d_z[i * npath + path] : 0.0f;
      L[i] = L0;
    }
    lib_path_calc<true>(L, z, L2);
    d_v[path] = lib_portfolio_b(L, L_b);
    lib_path_calc_b2(L_b, L2);
    d_Lb[path] = L_b[libor::kNN - 1];
  }
}

// Value only.
extern "C" __global__ void Pathcalc_Portfolio_KernelGPU2(float* __restrict__ d_v, const float* __restrict__ d_z,
                                                         float L0, int npath)
{
  const int tid = blockDim.x * blockIdx.x + threadIdx.x;
  const int threads = blockDim.x * gridDim.x;
  float work[2 * libor::kNN];  // L, z
  float *L = work, *z = work + libor::kNN;
  for (int path = tid; path < npath; path += threads) {
    for (int i = 0; i < lib_N; ++i) {
      z[i] = i < lib_Nmat ? d_z[i * npath + path] : 0.0f;
      L[i] = L0;
    }
    lib_path_calc<false>(L, z, nullptr);
    d_v[path] = lib_portfolio(L);
  }
}
