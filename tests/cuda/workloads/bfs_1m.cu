// bfs_1m as a CUDA program: bfs's host steps with a 1 M-node graph at the
// paper size (small and default as bfs).
#define BFS_PAPER_NODES (1 << 20)
#define BFS_NAME "bfs_1m"
#include "tests/cuda/workloads/bfs.cu"
