// Preliminary consumer: checks that the installed package compiles and links.
#include <cstdio>
#include <vector>
#include <systemc>
#include "platform/gpu_device.h"

int sc_main(int, char*[]) {
  using namespace tlmgpu::platform;
  GpuDevice gpu;
  auto m = gpu.load_module_file(std::string(TLMGPU_PTX_DIR) + "/vector_add.ptx");
  const uint32_t n = 1000;
  std::vector<float> a(n), b(n);
  for (uint32_t i = 0; i < n; ++i) { a[i] = float(i); b[i] = 2.0f * float(i); }
  uint64_t da = gpu.upload(a), db = gpu.upload(b), dc = gpu.allocate(n * 4);
  gpu.launch(m, "vector_add", {(n + 255) / 256, 1, 1}, {256, 1, 1}, 0, KernelArgs().ptr(da).ptr(db).ptr(dc).add(n));
  auto c = gpu.download<float>(dc, n);
  for (uint32_t i = 0; i < n; ++i)
    if (c[i] != a[i] + b[i]) { std::printf("FAIL at %u\n", i); return 1; }
  std::printf("PASS\n");
  return 0;
}
