// latency_chase: the load-to-use latency of an L1 hit, an L2 hit, a DRAM
// access and a shared-memory access, each from one thread following a chain
// of dependent loads (latency_chase.cu). The chain's stride and footprint
// decide which level serves it; the host checks where each chain ends.
#include "workloads/latency_chase/latency_chase.h"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <vector>

#include "workloads/common/workload_support.h"
#include "workloads/ptxas_registers.h"

namespace tlmgpu::workloads {
namespace {

struct GlobalChase {
  const char* level;
  uint64_t footprint;  ///< bytes allocated (and copied) for the chain
  uint64_t stride;     ///< bytes between consecutive nodes
  bool warm;           ///< one untimed pass over every node first
};

// Footprints that put each level in charge, from the GPU's cache sizes:
// - L1: 32 lines (4 KB), warmed, then revisited: hits.
// - L2: four times the L1D, at least 1024 lines (128 KB), warmed: every set
//   of the L1 sees four times its ways of lines per round, so LRU has
//   evicted each line from the L1 before it comes round again, while the L2
//   holds them all.
// - DRAM: nodes 32 KB + 384 B apart, not warmed: each timed load touches a
//   line nothing has touched and a row no earlier load opened. A copy that
//   leaves its data in the L2 (l2.fill_on_host_copy) leaves the last L2's
//   worth at most, so the chain covers the L2's size and the timed loads
//   (200 nodes at most, 6.6 MB) in 8 MB steps.
GlobalChase l1_chain() { return {"L1", 4 << 10, 128, true}; }
GlobalChase l2_chain(const core::GpuConfig& c) {
  return {"L2", std::max<uint64_t>(128 << 10, 4 * uint64_t(c.l1d.size_bytes)), 128, true};
}
constexpr uint64_t kDramStride = (32 << 10) + 384;
constexpr uint32_t kMaxTimedDramLoads = 200;
GlobalChase dram_chain(const core::GpuConfig& c) {
  const uint64_t needed = uint64_t(c.l2.size_bytes) * c.l2_slices + kMaxTimedDramLoads * kDramStride;
  const uint64_t step = 8 << 20;
  return {"DRAM", (needed + step - 1) / step * step, kDramStride, false};
}

constexpr uint32_t kSharedNodes = 64;

/// Runs one global chase; returns cycles per load, or a negative value after
/// writing what went wrong to `error`.
double chase_global(platform::GpuDevice& device, platform::ModuleHandle module, const GlobalChase& c,
                    unsigned steps, std::string& error) {
  const uint64_t nodes = c.footprint / c.stride;
  const uint64_t base = device.allocate(c.footprint, std::string("chain_") + c.level);
  std::vector<uint64_t> image(c.footprint / sizeof(uint64_t), 0);
  for (uint64_t i = 0; i < nodes; ++i)
    image[i * c.stride / sizeof(uint64_t)] = base + ((i + 1) % nodes) * c.stride;
  device.copy_to_device(base, image.data(), c.footprint);
  const uint64_t out = device.allocate(2 * sizeof(uint64_t), std::string("out_") + c.level);
  const unsigned warmup = c.warm ? unsigned(nodes) : 0;
  device.launch(module, "chase_global", {1, 1, 1}, {1, 1, 1}, 0,
                platform::KernelArgs().ptr(base).add<uint32_t>(warmup).add<uint32_t>(steps).ptr(out));
  const std::vector<uint64_t> got = device.download<uint64_t>(out, 2);
  const uint64_t end = base + ((warmup + steps) % nodes) * c.stride;
  if (got[1] != end) {
    error = std::string(c.level) + " chain ended at " + std::to_string(got[1]) + ", expected " + std::to_string(end);
    return -1;
  }
  // The clock read after the loop does not wait for the last load: the
  // interval holds steps - 1 latencies.
  return double(got[0]) / double(steps - 1);
}

}  // namespace

MemoryLatencies measure_memory_latencies(platform::GpuDevice& device, unsigned timed_steps) {
  MemoryLatencies m;
  const unsigned steps = std::max(timed_steps, 2u);
  auto module = load_workload_module(device, "latency_chase");
  std::string error;
  const core::GpuConfig& config = device.options().config;
  m.l1_hit = chase_global(device, module, l1_chain(), steps, error);
  if (error.empty()) m.l2_hit = chase_global(device, module, l2_chain(config), steps, error);
  // Every timed DRAM load must touch a line for the first time: the chain
  // has 253 nodes (8 MB) or more, of which at most 200 are timed.
  if (error.empty())
    m.dram = chase_global(device, module, dram_chain(config), std::min(steps, kMaxTimedDramLoads), error);
  if (!error.empty()) {
    m.detail = error;
    return m;
  }

  // Shared: the kernel links its nodes (node i -> i + 1, round) itself.
  const uint64_t out = device.allocate(2 * sizeof(uint64_t), "out_shared");
  device.launch(module, "chase_shared", {1, 1, 1}, {1, 1, 1}, kSharedNodes * sizeof(uint64_t),
                platform::KernelArgs().add<uint32_t>(kSharedNodes).add<uint32_t>(steps).ptr(out));
  const std::vector<uint64_t> got = device.download<uint64_t>(out, 2);
  if (got[1] != steps % kSharedNodes) {
    m.detail = "shared chain ended at node " + std::to_string(got[1]) + ", expected " +
               std::to_string(steps % kSharedNodes);
    return m;
  }
  m.shared = double(got[0]) / double(steps - 1);
  m.chains_verified = true;

  char text[160];
  std::snprintf(text, sizeof text, "load-to-use cycles: L1 hit %.1f, L2 hit %.1f, DRAM %.1f, shared %.1f", m.l1_hit,
                m.l2_hit, m.dram, m.shared);
  m.detail = text;
  return m;
}

namespace {

class LatencyChase : public Workload {
 public:
  WorkloadResult run(platform::GpuDevice& device, Size size, uint64_t /*seed*/) override {
    // The chains are fixed patterns (the result is a property of the
    // hardware, not of the inputs); the default size times more loads.
    const MemoryLatencies m = measure_memory_latencies(device, size == Size::Small ? 129 : 1025);
    return {m.chains_verified, m.detail};
  }
};

const bool registered = register_workload(
    {"latency_chase",
     "pointer chase, one thread: load-to-use cycles of an L1 hit, L2 hit, DRAM access and shared load",
     /*ipdom_safe=*/true, [] { return std::make_unique<LatencyChase>(); }});

}  // namespace
}  // namespace tlmgpu::workloads
