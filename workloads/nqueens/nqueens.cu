// Counts the solutions of the N-queens problem. Reproduces ISPASS 2009's NQU
// (Ping-Che Chen's CUDA N-queens, kernel solve_nqueen_cuda_kernel): the host
// places the first rows' queens and hands each partial board to one thread,
// which finishes it with an iterative bit-board backtracking search whose
// stack lives in shared memory (per row: occupied columns, the two diagonal
// masks and the columns already tried). The CTA adds its threads' counts in
// a shared-memory tree. Most threads of the fixed-size grid get no board.

#define NQ_THREADS 96
#define NQ_DEPTH 10

extern "C" __global__ void solve_nqueen_cuda_kernel(int n, int rows_left, const unsigned* __restrict__ start_cols,
                                                    const unsigned* __restrict__ start_left,
                                                    const unsigned* __restrict__ start_right,
                                                    unsigned* __restrict__ block_counts, int num_boards)
{
  __shared__ unsigned cols[NQ_THREADS][NQ_DEPTH];
  __shared__ unsigned left[NQ_THREADS][NQ_DEPTH];   // attacked along down-left diagonals
  __shared__ unsigned right[NQ_THREADS][NQ_DEPTH];  // attacked along down-right diagonals
  __shared__ unsigned tried[NQ_THREADS][NQ_DEPTH];  // blocked or already explored
  __shared__ unsigned counts[NQ_THREADS];

  const int t = threadIdx.x;
  const int board = blockIdx.x * NQ_THREADS + t;
  const unsigned full = (1u << n) - 1;
  unsigned found = 0;

  if (board < num_boards) {
    int level = 0;
    cols[t][0] = start_cols[board];
    left[t][0] = start_left[board];
    right[t][0] = start_right[board];
    tried[t][0] = cols[t][0] | left[t][0] | right[t][0];
    while (level >= 0) {
      const unsigned blocked = tried[t][level];
      if ((blocked & full) == full) {  // every column of this row explored
        --level;
        continue;
      }
      const unsigned bit = (blocked + 1) & ~blocked;  // lowest free column
      tried[t][level] = blocked | bit;
      if ((bit & full) == 0) {
        --level;
      } else if (level + 1 == rows_left) {  // the last queen: one free column at most
        ++found;
        --level;
      } else {
        const unsigned c = cols[t][level] | bit;
        const unsigned l = (left[t][level] | bit) << 1;
        const unsigned r = (right[t][level] | bit) >> 1;
        ++level;
        cols[t][level] = c;
        left[t][level] = l;
        right[t][level] = r;
        tried[t][level] = c | l | r;
      }
    }
  }
  counts[t] = found;
  __syncthreads();

  // 96 counts: fold the top 32 onto the first 32, then halve.
  if (t < NQ_THREADS - 64) counts[t] += counts[t + 64];
  __syncthreads();
  for (int half = 32; half > 0; half >>= 1) {
    if (t < half) counts[t] += counts[t + half];
    __syncthreads();
  }
  if (t == 0) block_counts[blockIdx.x] = counts[0];
}
