// Fixture: device-side CUDA graph calls (a device graph launch and a
// conditional node's value), which the model rejects like dynamic parallelism.
// Regenerate: nvcc -ptx -arch=sm_75 -O3 -rdc=true device_graph.cu -o device_graph.ptx
#include <cuda_runtime.h>
extern "C" __global__ void launch_graph(cudaGraphExec_t graph, int *p) {
    if (threadIdx.x == 0) cudaGraphLaunch(graph, cudaStreamGraphFireAndForget);
    p[threadIdx.x] = 1;
}
extern "C" __global__ void set_condition(cudaGraphConditionalHandle handle, const int *p) {
    if (threadIdx.x == 0) cudaGraphSetConditional(handle, p[0] > 0);
}
