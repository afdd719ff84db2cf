// The device library of rt_rdc (built with -rdc=true): a __device__ function
// and a __device__ variable that rdc_main.cu uses across the translation
// unit boundary, plus a kernel that sets the variable.
__device__ int g_bias = 0;

__device__ int mix(int x, int y) { return x * 7 + y + g_bias; }

__global__ void set_bias_kernel(int bias) { g_bias = bias; }
