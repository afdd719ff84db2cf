// Fixture: dynamic parallelism (a kernel launching a kernel), which the model
// rejects. Regenerate: nvcc -ptx -arch=sm_75 -O3 -rdc=true device_launch.cu -o device_launch.ptx
__global__ void child(int *p) { p[threadIdx.x] = 1; }
extern "C" __global__ void parent(int *p) {
    if (threadIdx.x == 0) child<<<1, 32>>>(p);
}
