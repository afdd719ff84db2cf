// transactions_8k as a CUDA program: transactions' host steps with
// 8192 accounts at the default size (512 at small).
#define TRANSACTIONS_ACCOUNTS 8192
#define TRANSACTIONS_NAME "transactions_8k"
#include "tests/cuda/workloads/transactions.cu"
