# The CUDA program tests/test_sweep.cpp sweeps over (cmake/cuda_programs.cmake).
tlmgpu_cuda_program(sweep_saxpy SOURCES tests/cuda/sweep/sweep_saxpy.cu)
