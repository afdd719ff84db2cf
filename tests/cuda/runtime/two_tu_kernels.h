// Kernels of rt_two_tu, one defined in each translation unit.
#pragma once

__global__ void square_kernel(const int* in, int* out, int n);     // two_tu_main.cu
__global__ void add_scaled_kernel(const int* a, const int* b, int* out, int scale, int n);  // two_tu_other.cu
