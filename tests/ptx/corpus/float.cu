// Corpus: single and double precision floating point, including the
// intrinsics nvcc lowers to approximate instructions.
extern "C" __global__ void float_ops(const float* a, const float* b, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = a[i], y = b[i];
  int k = 0;
  out[n * k++ + i] = x + y;
  out[n * k++ + i] = x * y - x;
  out[n * k++ + i] = fmaf(x, y, 1.5f);
  out[n * k++ + i] = x / y;
  out[n * k++ + i] = __fdividef(x, y);
  out[n * k++ + i] = __fdiv_rz(x, y);
  out[n * k++ + i] = sqrtf(fabsf(x));
  out[n * k++ + i] = rsqrtf(fabsf(x) + 1.0f);
  out[n * k++ + i] = __frcp_rn(y);
  out[n * k++ + i] = __fsqrt_ru(fabsf(y));
  out[n * k++ + i] = __sinf(x) + __cosf(y);
  out[n * k++ + i] = __expf(x * 0.01f) + __logf(fabsf(y) + 1.0f);
  out[n * k++ + i] = exp2f(x * 0.01f) + log2f(fabsf(x) + 2.0f);
  out[n * k++ + i] = tanhf(x * 0.1f);
  out[n * k++ + i] = sinf(x) * cosf(y);
  out[n * k++ + i] = fminf(x, y) + fmaxf(x, y);
  out[n * k++ + i] = copysignf(x, y);
  out[n * k++ + i] = __saturatef(x);
  out[n * k++ + i] = __fadd_rd(x, y) + __fmul_ru(x, y) + __fmaf_rz(x, y, 2.0f);
  out[n * k++ + i] = floorf(x) + ceilf(y) + truncf(x) + rintf(y) + roundf(x);
  out[n * k++ + i] = float(isnan(x) + 2 * isinf(y) + 4 * isfinite(x) + 8 * signbit(y));
  out[n * k++ + i] = float(__float2int_rn(x) + __float2uint_rz(fabsf(y)) + __float2ll_rd(x));
  out[n * k++ + i] = __int_as_float(__float_as_int(x) ^ 0x80000000);
  out[n * k++ + i] = powf(fabsf(x) + 1.0f, 1.5f);
  double dx = x, dy = double(y) + 3.0;
  out[n * k++ + i] = float(dx / dy + sqrt(fabs(dx)) + fma(dx, dy, 1.0) + rsqrt(fabs(dy) + 1.0));
  out[n * k++ + i] = float(exp(dx * 0.01) + log(fabs(dy) + 1.0) + sin(dx) + cos(dy));
  out[n * k++ + i] = float(__drcp_rn(dy) + __dsqrt_rz(fabs(dy)) + fmin(dx, dy) + fmax(dx, dy));
  out[n * k++ + i] = float(__double2float_rd(dx) + __double2int_rz(dy) + __ll2double_rn((long long)x));
  out[n * k++ + i] = float(__hiloint2double(__double2hiint(dx), __double2loint(dy)));
}
