# Every workload as a complete CUDA program (tests/cuda/workloads/NAME.cu ->
# build/cuda_programs/workload_NAME), run under `tlmgpu exec` by
# tests/test_cuda_workload_programs.cpp and compared with `tlmgpu run`.
# -O3: the host reference checks of the default sizes are slow unoptimised.
set(tlmgpu_workload_programs
  backprop bfs bfs_1m blackscholes btree_search conv3d global_increment global_increment_ipdom hashtable histogram
  hotspot imbalanced_blocks kmeans latency_chase long_short_mix matmul_chain pathfinder scalar_prod sgemm
  stencil3d streamcluster transactions transactions_2k transactions_8k vector_add)
foreach(name ${tlmgpu_workload_programs})
  tlmgpu_cuda_program(workload_${name} SOURCES tests/cuda/workloads/${name}.cu
    FLAGS -O3 -std=c++17 -Xcompiler=-Wall,-Wextra)
endforeach()
