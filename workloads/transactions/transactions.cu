// Transactions (seed 001): bank transfers under per-account spin locks. Each
// transfer moves amount[t] from account src[t] to dst[t] (src != dst). A
// thread takes the lower-numbered account's lock first and then tries the
// other; if the second is busy it releases the first and retries. The fixed
// order rules out deadlock, and releasing on failure means no lane ever spins
// while holding a lock. Fewer accounts -> more contention.

extern "C" __global__ void transactions(int* locks, volatile int* balances, const int* src, const int* dst,
                                        const int* amount, int num_transfers)
{
  int stride = gridDim.x * blockDim.x;
  for (int t = blockIdx.x * blockDim.x + threadIdx.x; t < num_transfers; t += stride) {
    int s = src[t];
    int d = dst[t];
    int a = amount[t];
    int first = min(s, d);
    int second = max(s, d);
    bool done = false;
    while (!done) {
      if (atomicCAS(&locks[first], 0, 1) == 0) {
        if (atomicCAS(&locks[second], 0, 1) == 0) {
          __threadfence();
          balances[s] = balances[s] - a;
          balances[d] = balances[d] + a;
          __threadfence();
          done = true;
          atomicExch(&locks[second], 0);
        }
        atomicExch(&locks[first], 0);
      }
    }
  }
}
