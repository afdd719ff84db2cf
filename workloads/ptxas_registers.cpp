#include "workloads/ptxas_registers.h"

#include <algorithm>

#include "workloads/workload.h"

namespace tlmgpu::workloads {

const std::map<std::string, uint32_t>& ptxas_registers() {
  // A new workload adds its kernels here (tests/test_register_allocation.cpp
  // fails for a workload kernel without a count); a kernel name two
  // workloads share is written WORKLOAD/KERNEL.
  static const std::map<std::string, uint32_t> counts = {
      {"GPU_laplace3d", 19},
      {"MonteCarloOneBlockPerOption", 16},
      {"Pathcalc_Portfolio_KernelGPU", 62},
      {"Pathcalc_Portfolio_KernelGPU2", 63},
      {"aesEncrypt128", 22},
      {"ComputePhiMag_GPU", 12},
      {"ComputeQ_GPU", 30},
      {"add_relu", 18},
      {"avgpool_fc", 21},
      {"bfs_advance", 7},
      {"bfs_expand", 22},
      {"black_scholes", 23},
      {"bp_adjust_weights", 16},
      {"bp_layer_forward", 12},
      {"btree_find", 46},
      {"btree_range", 40},
      {"cenergy", 16},
      {"calculate_temp", 24},
      {"chase_global", 10},
      {"chase_shared", 18},
      {"conv1x1_bn", 54},
      {"conv1x1_bn_relu", 54},
      {"conv3d_3x3x3", 64},
      {"convolutionColumnsKernel", 48},
      {"convolutionRowsKernel", 48},
      {"epp_computeValue", 21},
      {"epp_initRNG", 26},
      {"euclid", 12},
      {"executeFirstLayer", 63},
      {"executeFourthLayer", 37},
      {"executeSecondLayer", 34},
      {"executeThirdLayer", 37},
      {"conv3x3_bn_relu", 26},
      {"convolution3D_kernel", 64},
      {"findK", 15},
      {"findRangeK", 22},
      {"global_increment", 16},
      {"global_increment_ipdom", 16},
      {"hashtable_insert", 12},
      {"histogram256Kernel", 30},
      {"histogram64Kernel", 19},
      {"histogram_merge", 17},
      {"histogram_partial", 13},
      {"hotspot_step", 22},
      {"imbalanced_blocks", 21},
      {"monte_carlo/inverseCNDKernel", 18},
      {"quasirandom/inverseCNDKernel", 15},
      {"jacobi7_sweep", 52},
      {"kmeans_assign", 53},
      {"kmeans_partial_sums", 43},
      {"long_short_mix", 41},
      {"matmul_naive", 52},
      {"mergeHistogram256Kernel", 16},
      {"mergeHistogram64Kernel", 16},
      {"mummergpuKernel", 28},
      {"needle_cuda_shared_1", 64},
      {"needle_cuda_shared_2", 64},
      {"pathfinder_band", 24},
      {"render", 59},
      {"psort", 21},
      {"quasirandomGeneratorKernel", 18},
      {"saop_computeValue", 50},
      {"saop_generatePaths", 30},
      {"saop_initRNG", 26},
      {"scalar_prod", 17},
      {"sgemm_tiled", 39},
      {"sha1_overlap", 34},
      {"solve_nqueen_cuda_kernel", 20},
      {"spin_self_loop", 8},
      {"streamcluster_gain", 62},
      {"transactions", 18},
      {"vector_add", 30},
  };
  return counts;
}

platform::ModuleHandle load_workload_module(platform::GpuDevice& device, const std::string& name) {
  const platform::ModuleHandle module = device.load_module(workload_ptx(name), name);
  const uint32_t limit = device.options().config.sm.max_regs_per_thread;
  for (const auto& [kernel, index] : device.module(module).function_index)
    if (const auto regs = ptxas_registers_of(name, kernel))
      device.set_kernel_registers(module, kernel, std::min(*regs, limit));
  return module;
}

std::optional<uint32_t> ptxas_registers_of(const std::string& workload, const std::string& kernel) {
  const auto& counts = ptxas_registers();
  auto it = counts.find(workload + "/" + kernel);
  if (it == counts.end()) it = counts.find(kernel);
  if (it == counts.end()) return std::nullopt;
  return it->second;
}

}  // namespace tlmgpu::workloads
