// transactions_2k as a CUDA program: transactions' host steps with
// 2048 accounts at the default size (128 at small).
#define TRANSACTIONS_ACCOUNTS 2048
#define TRANSACTIONS_NAME "transactions_2k"
#include "tests/cuda/workloads/transactions.cu"
