// The SM's CTA slots: which CTAs of the current launch are resident, the
// occupancy they hold (threads, warps, registers, shared memory, CTA
// slots), the placement of a new CTA's warps into the lowest free warp
// slots, and the retirement of warps and of a CTA whose last warp retired,
// which frees its occupancy and tells the CTA dispatcher.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "core/gpu_config.h"
#include "model/sm/warp_instruction_source.h"
#include "model/sm/warp_slot.h"

namespace tlmgpu::sm {

/// Everything an SM needs to run CTAs of one launch.
struct SmLaunch {
  const KernelInstructionSource* source = nullptr;
  const std::vector<InstructionTiming>* timing = nullptr;  ///< source->timing()
  uint32_t warps_per_cta = 0;
  uint32_t threads_per_cta = 0;
  uint32_t regs_per_cta = 0;
  uint32_t shared_per_cta = 0;
};

/// The CTA dispatcher's side: the SM reports a finished CTA.
class CtaCompletionIf {
 public:
  virtual ~CtaCompletionIf() = default;
  virtual void cta_finished(uint32_t sm, uint64_t cta_id, uint64_t cycle) = 0;
};

class CtaSlots {
 public:
  /// One resident CTA (or a free slot, `valid` false, whose storage the
  /// next CTA reuses).
  struct Slot {
    std::unique_ptr<CtaInstructionSource> cta;
    uint64_t cta_id = 0;
    /// The warp slot of each of its warps, in warp order. Not contiguous in
    /// general: a finished warp frees its slot before its CTA ends, and the
    /// next CTA's warps take the lowest free slots.
    std::vector<uint32_t> warp_slots;
    uint32_t warps_done = 0;
    /// What its retired warps issued (their slots may hold other CTAs' warps now).
    uint64_t retired_progress = 0, retired_insts = 0;
    uint64_t start_cycle = 0;
    bool valid = false;
  };

  /// The CTA slots of SM `sm` (sm.max_ctas of them, limits from `smc`).
  CtaSlots(uint32_t sm, const core::SmConfig& smc) : sm_(sm), smc_(smc), slots_(smc.max_ctas) {}

  /// A new GPU context: warp ages start again.
  void begin_device() { next_age_ = 0; }
  /// A new launch whose finished CTAs go to `dispatcher`: every slot free.
  void begin_launch(const SmLaunch& launch, CtaCompletionIf* dispatcher);
  /// Whether another CTA of the current launch fits (threads, warps, registers, shared memory, CTA slots).
  bool can_accept() const;
  /// Starts CTA `cta_id` (grid position `ctaid`) at `cycle` in the first free
  /// slot; its warps take the lowest free slots of `warps`, each then handed
  /// to `on_placed(slot, w)` for the pipeline's own state. Returns the CTA slot.
  template <class OnPlaced>
  uint32_t start(uint64_t cta_id, exec::Dim3 ctaid, uint64_t cycle, std::vector<WarpSlot>& warps,
                 OnPlaced&& on_placed);
  /// Warp `w` finished with nothing in flight: it leaves its slot, and when
  /// it was its CTA's last, the CTA frees its occupancy and the dispatcher
  /// hears of it at `now`. Returns whether the CTA finished.
  bool retire_warp(WarpSlot& w, uint64_t now);

  const SmLaunch& launch() const { return launch_; }
  /// Changes whenever a CTA starts or a warp retires (a cache of per-CTA
  /// views is stale when it differs).
  uint64_t generation() const { return generation_; }
  const Slot& slot(uint32_t cs) const { return slots_[cs]; }
  uint32_t size() const { return uint32_t(slots_.size()); }
  // References: the VCD traces them.
  const uint32_t& live_ctas() const { return live_ctas_; }
  /// Warp slots held by resident CTAs.
  const uint32_t& used_warps() const { return used_warps_; }
  uint64_t ctas_finished() const { return ctas_finished_; }
  /// The resident CTAs' forward progress plus the finished CTAs.
  uint64_t progress_events() const;

 private:
  uint32_t sm_;
  const core::SmConfig& smc_;
  SmLaunch launch_;
  CtaCompletionIf* dispatcher_ = nullptr;
  std::vector<Slot> slots_;
  uint32_t live_ctas_ = 0;
  uint32_t used_threads_ = 0, used_warps_ = 0, used_regs_ = 0, used_shared_ = 0;
  uint64_t next_age_ = 0;  // the next placed warp's age (schedulers order by it)
  uint64_t ctas_finished_ = 0;
  uint64_t generation_ = 0;
};

template <class OnPlaced>
uint32_t CtaSlots::start(uint64_t cta_id, exec::Dim3 ctaid, uint64_t cycle, std::vector<WarpSlot>& warps,
                         OnPlaced&& on_placed) {
  uint32_t cs = 0;
  while (slots_[cs].valid) ++cs;
  Slot& c = slots_[cs];
  ++generation_;
  if (c.cta) c.cta->restart(ctaid, sm_);
  else c.cta = launch_.source->make_cta(ctaid, sm_);
  c.cta_id = cta_id;
  c.valid = true;
  c.warps_done = 0;
  c.retired_progress = c.retired_insts = 0;
  c.warp_slots.clear();
  c.start_cycle = cycle;
  // Warps take the lowest free slots, contiguous when possible.
  const uint32_t n = launch_.warps_per_cta;
  const uint32_t num_ids = launch_.source->scoreboard_ids();
  uint32_t placed = 0;
  for (uint32_t s = 0; s < warps.size() && placed < n; ++s) {
    WarpSlot& w = warps[s];
    if (w.active) continue;
    c.warp_slots.push_back(s);
    w = WarpSlot{};
    w.warp = &c.cta->warp(placed);
    w.cta_slot = cs;
    w.cta_id = cta_id;
    w.active = true;
    w.age = next_age_++;
    w.fetch_pc = w.warp->pc();
    w.code_end = w.warp->end_pc();
    w.finished = w.warp->finished();
    w.scoreboard.reset(num_ids);
    on_placed(s, w);
    ++placed;
  }
  ++live_ctas_;
  used_threads_ += n * ptx::kWarpSize;
  used_warps_ += n;
  used_regs_ += launch_.regs_per_cta;
  used_shared_ += launch_.shared_per_cta;
  return cs;
}

}  // namespace tlmgpu::sm
