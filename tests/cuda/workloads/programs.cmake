# Every workload as a complete CUDA program (tests/cuda/workloads/NAME.cu ->
# build/cuda_programs/workload_NAME), run under `tlmgpu exec` by
# tests/test_cuda_workload_programs.cpp and compared with `tlmgpu run`.
# -O3: the host reference checks of the default sizes are slow unoptimised.
set(tlmgpu_workload_programs
  aes asian_option backprop bfs bfs_1m blackscholes btree_search conv3d conv_separable cp estimate_pi
  global_increment global_increment_ipdom hashtable histogram histogram256 histogram64 hotspot hotspot_32x32
  imbalanced_blocks kmeans laplace3d latency_chase libor long_short_mix matmul_chain monte_carlo mri_q mummer
  nearest_neighbor needleman_wunsch nn nqueens pathfinder psort quasirandom ray resnet scalar_prod sgemm
  stencil3d sto streamcluster transactions transactions_2k transactions_8k vector_add)
foreach(name ${tlmgpu_workload_programs})
  tlmgpu_cuda_program(workload_${name} SOURCES tests/cuda/workloads/${name}.cu
    FLAGS -O3 -std=c++17 -Xcompiler=-Wall,-Wextra)
endforeach()
