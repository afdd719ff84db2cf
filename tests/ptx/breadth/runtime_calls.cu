// Fixture for tests/test_ptx_runtime_calls.cpp: the CUDA device runtime calls
// (printf, assert, malloc/free) and function pointers (virtual functions,
// pointer tables) as nvcc emits them.
// Regenerate: nvcc -ptx -arch=sm_75 -O3 runtime_calls.cu -o runtime_calls.ptx
#include <cassert>
#include <cstdio>

extern "C" __global__ void printf_ints(const int *iv, const char *s) {
    int t = threadIdx.x + blockIdx.x * blockDim.x;
    int v = iv[t];
    printf("t=%d i=%i u=%u x=%x X=%X o=%o c=%c\n", t, v, (unsigned)v, v, v, v, 'A' + t);
    printf("[%-6d|%+d|%05d|% d|%#x|%#o|%8.3d] %s|%10s|%-4.2s| %ld %lld %hd %hhd %lu %llx %%\n", v, v, v, v, v, v, v,
           s, s, s, (long)v * 100000000000L, -(long long)v, (short)v, (char)v, (unsigned long)t, (unsigned long long)v << 33);
}

extern "C" __global__ void printf_floats(const double *dv, int *ret) {
    int t = threadIdx.x;
    double d = dv[t];
    int n = printf("f=%f F=%8.3F e=%e E=%.2E g=%g G=%G a=%a\n", d, d, d, d, d, d, d);
    int m = printf("float %f %.2f %+10.4e|%-12g|\n", (float)d, 1.5f, (float)d, d);
    ret[t] = n * 100 + m;
}

extern "C" __global__ void printf_order(int steps) {
    for (int k = 0; k < steps; ++k)
        printf("cta %d thread %d step %d\n", blockIdx.x, threadIdx.x, k);
}

extern "C" __global__ void assert_kernel(const int *v) {
    int t = threadIdx.x;
    assert(v[t] < 5);
}

extern "C" __global__ void malloc_kernel(unsigned long long *out, int bytes, int do_free) {
    int t = threadIdx.x;
    int *p = (int *)malloc(bytes);
    out[t] = (unsigned long long)p;
    if (p) {
        p[0] = t * 7;
        out[t + blockDim.x] = p[0];
        if (do_free) free(p);
    }
}

extern "C" __global__ void bad_free(int offset) {
    char *p = (char *)malloc(64);
    free(p + offset);
}

struct Shape {
    __device__ virtual int area(int x) const = 0;
};
struct Square : Shape {
    int k;
    __device__ explicit Square(int k) : k(k) {}
    __device__ int area(int x) const override { return x * x * k; }
};
struct Triangle : Shape {
    __device__ int area(int x) const override { return x * (x + 1) / 2; }
};

extern "C" __global__ void virtual_calls(int *out, int k) {
    int t = threadIdx.x;
    Square sq(k);
    Triangle tr;
    Shape *sh = (t % 3 == 0) ? (Shape *)&sq : (Shape *)&tr;
    out[t] = sh->area(t);
}

__device__ int op_add(int a, int b) { return a + b; }
__device__ int op_mul(int a, int b) { return a * b; }
__device__ int op_sub(int a, int b) { return a - b; }
__device__ int g_data[4] = {10, 20, 30, 40};
typedef int (*binop)(int, int);
__device__ binop op_table[3] = {op_add, op_mul, op_sub};
__device__ int *data_ptr = g_data;

extern "C" __global__ void pointer_table(int *out, const int *sel) {
    int t = threadIdx.x;
    out[t] = op_table[sel[t] % 3](t, data_ptr[t & 3]);
}

extern "C" __global__ void bad_pointer(int *out, unsigned long long fn) {
    binop f = (binop)fn;
    out[threadIdx.x] = f(1, 2);
}

__device__ __noinline__ void fail_hard(int code) {
    printf("fatal %d\n", code);
    __trap();
}

extern "C" __global__ void noreturn_tail(const int *v, int *out) {
    int t = threadIdx.x;
    if (v[t] < 0) fail_hard(v[t]);
    out[t] = v[t] * 2;
}

// Functions that end in a call of a .noreturn function (no ret after it).
__device__ __noinline__ void die(const int *v) {
    if (*v) __trap();
    assert(0);
    __builtin_unreachable();
}

extern "C" __global__ void noreturn_call(const int *v, int *out) {
    if (v[0] == 7) die(v);
    out[0] = 1;
}

extern "C" __global__ void trap_tail(const int *v, int *out) {
    int t = threadIdx.x;
    switch (v[t]) {
        case 0: out[t] = 1; break;
        case 1: out[t] = 5; break;
        default: __trap(); __builtin_unreachable();
    }
}
