// Corpus: control flow (branches, switch tables, calls, recursion, local
// arrays), special registers and the miscellaneous instructions.
__device__ __noinline__ int collatz_steps(int x) {
  int steps = 0;
  while (x != 1 && steps < 1000) {
    x = (x & 1) ? 3 * x + 1 : x / 2;
    ++steps;
  }
  return steps;
}

__device__ __noinline__ int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

extern "C" __global__ void control_ops(const int* in, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int x = in[i];
  int r;
  switch (x & 15) {
    case 0: r = x * 3; break;
    case 1: r = x + 17; break;
    case 2: r = x ^ 0x55; break;
    case 3: r = -x; break;
    case 4: r = x << 2; break;
    case 5: r = x >> 1; break;
    case 6: r = x * x; break;
    case 7: r = x - 100; break;
    case 9: r = 12345; break;
    default: r = 0;
  }
  int local[24];
  for (int k = 0; k < 24; ++k) local[k] = x * k + r;
  r += local[(x & 0x7fffffff) % 24];
  r += collatz_steps((x & 1023) + 1);
  r += fib(x & 7);
  unsigned sm, warp, nsm, nwarp, lt, le, gt, ge;
  asm("mov.u32 %0, %%smid;" : "=r"(sm));
  asm("mov.u32 %0, %%warpid;" : "=r"(warp));
  asm("mov.u32 %0, %%nsmid;" : "=r"(nsm));
  asm("mov.u32 %0, %%nwarpid;" : "=r"(nwarp));
  asm("mov.u32 %0, %%lanemask_lt;" : "=r"(lt));
  asm("mov.u32 %0, %%lanemask_le;" : "=r"(le));
  asm("mov.u32 %0, %%lanemask_gt;" : "=r"(gt));
  asm("mov.u32 %0, %%lanemask_ge;" : "=r"(ge));
  unsigned long long gtime;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(gtime));
  out[i] = r + int((sm < nsm) + (warp < nwarp)) + int(__popc(lt ^ le ^ gt ^ ge)) + int(gtime != 0) +
           int(gridDim.x + gridDim.y + gridDim.z + blockDim.y + blockDim.z + blockIdx.y + threadIdx.z);
  if (x == -7) __trap();
  if (x == -8) __brkpt();
  if (x == -9) __prof_trigger(3);
}
