// libor's model constants and CPU reference, shared by the kernels
// (libor.cu), the workload's host set-up (libor.cpp) and its CUDA-program twin.
#pragma once

#include <cmath>
#include <vector>

namespace libor {

// The ISPASS LIB benchmark's model: 80 forward rates, 40 time steps, a
// portfolio of 15 swaptions, a quarter-year tenor, volatility 0.2, initial
// rates 5%.
constexpr int kNN = 80, kNmat = 40, kNopt = 15;
constexpr int kL2Size = kNN * (kNmat + 1);  // 3,280
constexpr float kDelta = 0.25f, kLambda = 0.2f, kL0 = 0.05f;
constexpr int kMaturities[kNopt] = {4, 4, 4, 8, 8, 8, 20, 20, 20, 28, 28, 28, 40, 40, 40};
constexpr float kSwaprates[kNopt] = {.045f, .05f, .055f, .045f, .05f, .055f, .045f, .05f,
                                     .055f, .045f, .05f, .055f, .045f, .05f, .055f};

// One path's value (and, when lb is given, the delta of the last rate as the
// Greeks kernel stores it). z: the path's Nmat shocks. The kernels' order and
// precision (float, with the original's double-precision 1.0 + delta * L,
// 0.5 * con1, swap values and discount divisions); the device's fast
// division and exponential differ in the last places, hence the tolerance.
inline float reference_path(const float* z, float* lb) {
  const int N = kNN, Nmat = kNmat;
  const float delta = kDelta;
  std::vector<float> L(size_t(N), kL0), L2(static_cast<size_t>(kL2Size));
  for (int i = 0; i < N; ++i) L2[size_t(i)] = L[size_t(i)];
  for (int n = 0; n < Nmat; ++n) {
    const float sqez = std::sqrt(delta) * z[n];
    float v = 0.0f;
    for (int i = n + 1; i < N; ++i) {
      const float lam = kLambda;
      const float con1 = delta * lam;
      v += (con1 * L[size_t(i)]) / float(1.0 + delta * L[size_t(i)]);
      const float vrat = std::exp(float(con1 * v + lam * (sqez - 0.5 * con1)));
      L[size_t(i)] = L[size_t(i)] * vrat;
      L2[size_t(i + (n + 1) * N)] = L[size_t(i)];
    }
  }
  float B[kNmat], S[kNmat], B_b[kNmat], S_b[kNmat];
  float b = 1.0f, s = 0.0f;
  for (int m = 0; m < N - Nmat; ++m) {
    b = b / float(1.0 + delta * L[size_t(m + Nmat)]);
    s = s + delta * b;
    B[m] = b;
    S[m] = s;
    B_b[m] = S_b[m] = 0.0f;
  }
  float v = 0.0f;
  for (int k = 0; k < kNopt; ++k) {
    const int m = kMaturities[k] - 1;
    const float swapval = float(B[m] + kSwaprates[k] * S[m] - 1.0);
    if (swapval < 0.0f) {
      v += float(-100.0 * swapval);
      S_b[m] += -100.0f * kSwaprates[k];
      B_b[m] += -100.0f;
    }
  }
  b = 1.0f;
  for (int n = 0; n < Nmat; ++n) b = float(b / (1.0 + delta * L[size_t(n)]));
  v = b * v;
  if (!lb) return v;

  std::vector<float> L_b(static_cast<size_t>(N));
  for (int m = N - Nmat - 1; m >= 0; --m) {
    const int n = m + Nmat;
    B_b[m] += delta * S_b[m];
    L_b[size_t(n)] = -B_b[m] * B[m] * (delta / float(1.0 + delta * L[size_t(n)]));
    if (m > 0) {
      S_b[m - 1] += S_b[m];
      B_b[m - 1] += B_b[m] / float(1.0 + delta * L[size_t(n)]);
    }
  }
  for (int n = 0; n < Nmat; ++n) L_b[size_t(n)] = float(-v * delta / (1.0 + delta * L[size_t(n)]));
  for (int n = Nmat; n < N; ++n) L_b[size_t(n)] = b * L_b[size_t(n)];
  for (int n = Nmat - 1; n >= 0; --n) {
    float v1 = 0.0f;
    for (int i = N - 1; i > n; --i) {
      const float l_next = L2[size_t(i + (n + 1) * N)], l_now = L2[size_t(i + n * N)];
      v1 += kLambda * l_next * L_b[size_t(i)];
      const float faci = delta / float(1.0 + delta * l_now);
      L_b[size_t(i)] = L_b[size_t(i)] * (l_next / l_now) + v1 * kLambda * faci * faci;
    }
  }
  *lb = L_b[size_t(N - 1)];
  return v;
}

}  // namespace libor
