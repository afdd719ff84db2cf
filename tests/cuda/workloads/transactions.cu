// transactions as a CUDA program: the host steps of
// workloads/transactions/transactions.cpp (transfers under per-account spin
// locks; final balances checked against a sequential CPU replay).
// TRANSACTIONS_ACCOUNTS sets the default size's account count
// (transactions_2k.cu and transactions_8k.cu define it); small uses 1/16.
#include <numeric>

#include "tests/cuda/workloads/program_support.h"
#include "workloads/transactions/transactions.cu"

#ifndef TRANSACTIONS_ACCOUNTS
#define TRANSACTIONS_ACCOUNTS 4096
#define TRANSACTIONS_NAME "transactions"
#endif

int main(int argc, char** argv) {
  const program::Options opt = program::parse_options(argc, argv);
  const bool small = opt.size == program::Size::Small;
  const unsigned block = small ? 128 : 256;
  const unsigned grid = small ? 8 : 90;
  const int accounts = small ? TRANSACTIONS_ACCOUNTS / 16 : TRANSACTIONS_ACCOUNTS;
  const int transfers = small ? 2048 : 122880;
  const int32_t opening_balance = 1000;

  program::InputRng rng(opt.seed);
  std::vector<int32_t> src(static_cast<size_t>(transfers)), dst(static_cast<size_t>(transfers)), amount(static_cast<size_t>(transfers));
  for (size_t t = 0; t < size_t(transfers); ++t) {
    src[t] = int32_t(rng.below(uint32_t(accounts)));
    // Any other account: draw from accounts - 1 and skip over src.
    const int32_t d = int32_t(rng.below(uint32_t(accounts - 1)));
    dst[t] = d >= src[t] ? d + 1 : d;
    amount[t] = 1 + int32_t(rng.below(100));
  }
  std::vector<int32_t> balances(size_t(accounts), opening_balance);

  // The locks start at zero: the program relies on cudaMalloc's fresh,
  // zeroed memory as the workload does (no cudaMemset there to mirror).
  int* d_locks = program::device_alloc<int>(static_cast<size_t>(accounts));
  int* d_balances = program::upload(balances);
  int* d_src = program::upload(src);
  int* d_dst = program::upload(dst);
  int* d_amount = program::upload(amount);
  transactions<<<grid, block>>>(d_locks, d_balances, d_src, d_dst, d_amount, transfers);
  CUDA_CHECK_LAUNCH();
  const std::vector<int> got = program::download(d_balances, size_t(accounts));
  const std::vector<int> locks = program::download(d_locks, size_t(accounts));

  for (size_t t = 0; t < size_t(transfers); ++t) {
    balances[size_t(src[t])] -= amount[t];
    balances[size_t(dst[t])] += amount[t];
  }
  const int64_t total = std::accumulate(got.begin(), got.end(), int64_t(0));
  if (total != int64_t(accounts) * opening_balance)
    return program::report(TRANSACTIONS_NAME, {false, "sum of balances " + std::to_string(total) + ", expected " +
                                                          std::to_string(int64_t(accounts) * opening_balance)});
  program::Result r = program::compare_exact(locks, std::vector<int>(size_t(accounts), 0), "lock");
  if (r.verified) r = program::compare_exact(got, balances, "balance");
  if (r.verified)
    r.detail = std::to_string(transfers) + " transfers over " + std::to_string(accounts) +
               " accounts: balances match the CPU replay";
  return program::report(TRANSACTIONS_NAME, r);
}
