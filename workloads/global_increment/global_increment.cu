// Global Increment (seed 001, Listing 1): every thread adds 1 to one counter
// under a per-counter spin lock, `iters` times. Contention is set by the
// thread -> counter mapping:
//   lane l of warp w uses counter (w % warp_groups) * slots_per_warp + l % slots_per_warp
// so 32 / slots_per_warp lanes of one warp collide (intra-warp contention) and
// warps w, w + warp_groups, w + 2 * warp_groups, ... share the same counters
// (inter-warp contention).

__device__ __forceinline__ int counter_index(int slots_per_warp, int warp_groups)
{
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  return ((tid >> 5) % warp_groups) * slots_per_warp + (tid & 31) % slots_per_warp;
}

// The paper's shape: the critical section sits inside the if-body and the loop
// test follows it, so under an IPDOM stack the winner runs the critical
// section and every lane reconverges before the back edge. nvcc 13 -O3 keeps
// this shape (cas; setp; @p bra SKIP; critical; SKIP: @!done bra LOOP).
extern "C" __global__ void global_increment(int* locks, volatile int* counters, int slots_per_warp,
                                            int warp_groups, int iters)
{
  int id = counter_index(slots_per_warp, warp_groups);
  for (int k = 0; k < iters; ++k) {
    bool done = false;
    while (!done) {
      if (atomicCAS(&locks[id], 0, 1) == 0) {
        __threadfence();
        counters[id] = counters[id] + 1;
        __threadfence();
        done = true;
        atomicExch(&locks[id], 0);
      }
    }
  }
}

// The same algorithm with the loop test pinned behind an opaque asm move, so
// no compiler version can jump-thread the failed-CAS path straight back to the
// CAS (which would make a self-loop that livelocks under IPDOM).
extern "C" __global__ void global_increment_ipdom(int* locks, volatile int* counters, int slots_per_warp,
                                                  int warp_groups, int iters)
{
  int id = counter_index(slots_per_warp, warp_groups);
  for (int k = 0; k < iters; ++k) {
    int done = 0;
    while (!done) {
      if (atomicCAS(&locks[id], 0, 1) == 0) {
        __threadfence();
        counters[id] = counters[id] + 1;
        __threadfence();
        done = 1;
        atomicExch(&locks[id], 0);
      }
      asm volatile("mov.u32 %0, %0;" : "+r"(done));
    }
  }
}

// Deliberately livelocking under IPDOM: the CAS spins in a self-loop and the
// critical section follows the loop, i.e. at the loop's reconvergence point.
// When lanes of one warp contend, the lock holder waits there for the
// spinning lanes, which wait for the lock: no forward progress. Under
// independent thread scheduling the holder runs on and *counter ends at the
// number of threads. Used by the tests, not registered as a workload.
extern "C" __global__ void spin_self_loop(int* lock, int* counter)
{
  while (atomicCAS(lock, 0, 1) != 0) {
  }
  __threadfence();
  *(volatile int*)counter = *(volatile int*)counter + 1;
  __threadfence();
  atomicExch(lock, 0);
}
