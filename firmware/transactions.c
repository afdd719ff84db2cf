/* transactions on the GPU (workloads/transactions): bank transfers under two
 * per-account spin locks taken with atomicCAS. The final balances do not
 * depend on the order, so the CPU applies the same transfers and compares;
 * the sum of all balances must also be unchanged. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "firmware/check.h"
#include "firmware/ptx_images.h"

#define ACCOUNTS 128u
#define TRANSFERS 1024u

int main(void) {
  start_gpu("transactions");
  gpu_module module;
  gpu_load_ptx(&module, ptx_transactions_start, PTX_BYTES(transactions));
  int32_t* locks = gpu_alloc(ACCOUNTS * sizeof(int32_t));
  int32_t* balances = gpu_alloc(ACCOUNTS * sizeof(int32_t));
  int32_t* src = gpu_alloc(TRANSFERS * sizeof(int32_t));
  int32_t* dst = gpu_alloc(TRANSFERS * sizeof(int32_t));
  int32_t* amount = gpu_alloc(TRANSFERS * sizeof(int32_t));
  static int32_t expected[ACCOUNTS];
  memset(locks, 0, ACCOUNTS * sizeof(int32_t));
  for (uint32_t i = 0; i < ACCOUNTS; ++i) balances[i] = expected[i] = 1000;
  uint64_t seed = 11;
  for (uint32_t t = 0; t < TRANSFERS; ++t) {
    src[t] = (int32_t)(test_random(&seed) % ACCOUNTS);
    /* Any other account: a transfer to itself would wait for its own lock. */
    const int32_t d = (int32_t)(test_random(&seed) % (ACCOUNTS - 1));
    dst[t] = d >= src[t] ? d + 1 : d;
    amount[t] = (int32_t)(test_random(&seed) % 50u) + 1;
    expected[src[t]] -= amount[t];
    expected[dst[t]] += amount[t];
  }
  gpu_params p;
  gpu_params_init(&p);
  gpu_param_ptr(&p, locks);
  gpu_param_ptr(&p, balances);
  gpu_param_ptr(&p, src);
  gpu_param_ptr(&p, dst);
  gpu_param_ptr(&p, amount);
  gpu_param_u32(&p, TRANSFERS);
  if (gpu_launch(&module, "transactions", (gpu_dim3){4, 1, 1}, (gpu_dim3){128, 1, 1}, 0, &p) != 0) {
    printf("transactions: FAIL: launch refused\n");
    return EXIT_FAIL;
  }
  wait_ok("transactions");
  unsigned mismatches = 0;
  int64_t total = 0;
  for (uint32_t i = 0; i < ACCOUNTS; ++i) {
    total += balances[i];
    if (balances[i] != expected[i] || locks[i] != 0) {
      if (mismatches < 5) {
        printf("transactions: account %u balance %d lock %d, expected %d lock 0\n", (unsigned)i, (int)balances[i],
               (int)locks[i], (int)expected[i]);
      }
      ++mismatches;
    }
  }
  if (total != (int64_t)ACCOUNTS * 1000) {
    printf("transactions: money was created or lost: total %lld\n", (long long)total);
    ++mismatches;
  }
  return finish("transactions", mismatches);
}
