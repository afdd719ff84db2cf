// Corpus: warp-level matrix multiply-accumulate (tensor cores, sm_70+).
#include <mma.h>
using namespace nvcuda;

extern "C" __global__ void wmma_f16_f32(const half* a, const half* b, const float* c, float* d) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
  wmma::load_matrix_sync(fa, a, 16);
  wmma::load_matrix_sync(fb, b, 16);
  wmma::load_matrix_sync(fc, c, 16, wmma::mem_row_major);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(d, fc, 16, wmma::mem_row_major);
}

extern "C" __global__ void wmma_f16_f16(const half* a, const half* b, half* d) {
  wmma::fragment<wmma::matrix_a, 32, 8, 16, half, wmma::col_major> fa;
  wmma::fragment<wmma::matrix_b, 32, 8, 16, half, wmma::row_major> fb;
  wmma::fragment<wmma::accumulator, 32, 8, 16, half> fc;
  wmma::fill_fragment(fc, __float2half(0.5f));
  wmma::load_matrix_sync(fa, a, 32);
  wmma::load_matrix_sync(fb, b, 8);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(d, fc, 32, wmma::mem_col_major);
}

extern "C" __global__ void wmma_s8_s32(const signed char* a, const signed char* b, int* d) {
  wmma::fragment<wmma::matrix_a, 8, 32, 16, signed char, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 8, 32, 16, signed char, wmma::row_major> fb;
  wmma::fragment<wmma::accumulator, 8, 32, 16, int> fc;
  wmma::fill_fragment(fc, 3);
  wmma::load_matrix_sync(fa, a, 16);
  wmma::load_matrix_sync(fb, b, 32);
  wmma::mma_sync(fc, fa, fb, fc);
  for (int e = 0; e < fc.num_elements; ++e) fc.x[e] += 1;
  wmma::store_matrix_sync(d, fc, 32, wmma::mem_row_major);
}
