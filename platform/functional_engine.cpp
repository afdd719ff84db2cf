#include "platform/functional_engine.h"

#include <memory>
#include <optional>
#include <sstream>
#include <vector>

#include "memory/coalescer.h"
#include "model/exec/cta.h"
#include "model/sm/instruction_timing.h"

namespace tlmgpu::platform {

namespace {

// Instructions a warp runs before the next warp gets a turn: long enough to
// keep the host's caches warm, short enough that spin-waiting warps let the
// lock holder in another warp move.
constexpr int kSliceInstructions = 64;

std::string warp_states(const std::vector<std::unique_ptr<exec::Cta>>& ctas) {
  std::ostringstream os;
  for (const auto& c : ctas) {
    for (uint32_t w = 0; w < c->num_warps(); ++w) {
      if (c->warp(w).finished()) continue;
      os << "\n  " << c->name() << " " << c->warp(w).describe();
    }
  }
  return os.str();
}

/// LT mode's counting after each executed warp instruction: its pipeline
/// from a per-PC table, and for a memory instruction with an active lane what
/// the SM's LD/ST unit would make of its addresses.
class LtCounter {
 public:
  LtCounter(const ptx::Module& module, const GpuConfig& config, LtLaunchCounts& counts)
      : counts_(counts), line_bytes_(config.l1d.line_bytes), shared_banks_(config.sm.shared_banks) {
    pipes_.reserve(module.code.size());
    for (const ptx::Instruction& in : module.code) pipes_.push_back(uint8_t(sm::pipe_of(in)));
  }

  void count(const exec::Warp& warp) {
    const exec::StepInfo& s = warp.last();
    const uint8_t pipe = pipes_[s.pc];
    ++counts_.warp_insts[pipe];
    if (pipe != uint8_t(sm::Pipe::Mem) || s.active_mask == 0) return;
    const ptx::Opcode op = s.inst->op;
    if (op != ptx::Opcode::Ld && op != ptx::Opcode::St && op != ptx::Opcode::Atom && op != ptx::Opcode::Red) return;
    const exec::MemAccess& a = warp.last_access();
    switch (a.space) {
      case ptx::StateSpace::Global:
      case ptx::StateSpace::Local: {
        lines_.clear();
        const memory::CoalescerResult r = memory::coalesce(a, line_bytes_, 32, lines_);
        counts_.global_lines += r.lines;
        counts_.global_sectors += r.sectors;
        // A load or an atom returns data the warp waits for; st and red (is_store) do not.
        if (a.is_store) ++counts_.global_stores;
        else ++counts_.global_loads;
        break;
      }
      case ptx::StateSpace::Shared:
        ++counts_.shared_accesses;
        counts_.shared_bank_cycles += memory::shared_bank_cycles(a, shared_banks_);
        break;
      default:
        break;  // param and const: the constant cache
    }
  }

 private:
  LtLaunchCounts& counts_;
  uint32_t line_bytes_, shared_banks_;
  std::vector<uint8_t> pipes_;
  std::vector<memory::LineAccess> lines_;
};

}  // namespace

FunctionalEngine::Totals FunctionalEngine::run() {
  if (lt_counts_ == nullptr) return run_ctas<false>();
  lt_counts_->ctas = ctx_.grid.count();
  lt_counts_->warps_per_cta = uint32_t((ctx_.block.count() + ptx::kWarpSize - 1) / ptx::kWarpSize);
  return run_ctas<true>();
}

template <bool kCount>
FunctionalEngine::Totals FunctionalEngine::run_ctas() {
  Totals totals;
  std::optional<LtCounter> counter;
  if constexpr (kCount) counter.emplace(*ctx_.module, options_.config, *lt_counts_);
  const uint64_t num_ctas = ctx_.grid.count();
  const uint32_t window = std::max<uint32_t>(options_.resident_ctas, 1);
  std::vector<std::unique_ptr<exec::Cta>> resident;
  std::vector<std::unique_ptr<exec::Cta>> spare;  // finished CTAs, reused for the next ones
  uint64_t next_cta = 0;
  uint64_t since_progress = 0;  // warp instructions since the last forward progress

  while (next_cta < num_ctas || !resident.empty()) {
    while (resident.size() < window && next_cta < num_ctas) {
      const uint64_t i = next_cta++;
      exec::Dim3 id{uint32_t(i % ctx_.grid.x), uint32_t(i / ctx_.grid.x % ctx_.grid.y),
                    uint32_t(i / (uint64_t(ctx_.grid.x) * ctx_.grid.y))};
      const uint32_t sm = uint32_t(i % ctx_.num_sms);
      if (spare.empty()) {
        resident.push_back(std::make_unique<exec::Cta>(ctx_, id, sm));
        if constexpr (kCount)
          for (uint32_t w = 0; w < resident.back()->num_warps(); ++w) resident.back()->warp(w).set_record_accesses(true);
      } else {
        spare.back()->restart(id, sm);
        resident.push_back(std::move(spare.back()));
        spare.pop_back();
      }
    }

    bool progressed = false;
    bool stepped = false;
    for (auto& cta : resident) {
      const uint64_t releases = cta->barrier_releases();
      for (uint32_t w = 0; w < cta->num_warps(); ++w) {
        exec::Warp& warp = cta->warp(w);
        if (warp.finished() || warp.at_barrier()) continue;
        const uint64_t insts_before = warp.instructions();
        const uint64_t progress_before = warp.progress_events();
        for (int k = 0; k < kSliceInstructions; ++k) {
          if (warp.step() != exec::StepStatus::Executed) break;
          if constexpr (kCount) counter->count(warp);
        }
        const uint64_t ran = warp.instructions() - insts_before;
        stepped |= ran != 0;
        since_progress += ran;
        progressed |= warp.progress_events() != progress_before;
      }
      progressed |= cta->barrier_releases() != releases;
    }

    // Retire finished CTAs, keeping launch order for the rest.
    size_t kept = 0;
    for (auto& cta : resident) {
      if (cta->finished()) {
        for (uint32_t w = 0; w < cta->num_warps(); ++w) {
          totals.warp_insts += cta->warp(w).instructions();
          totals.thread_insts += cta->warp(w).thread_instructions();
        }
        progressed = true;
        spare.push_back(std::move(cta));
      } else {
        resident[kept++] = std::move(cta);
      }
    }
    if (!stepped && kept == resident.size() && kept != 0) {
      resident.resize(kept);
      throw exec::DeviceFault(exec::FaultKind::Deadlock,
                              "deadlock in kernel " + ctx_.kernel->name +
                                  ": every remaining warp waits at a barrier that can never complete" +
                                  warp_states(resident));
    }
    resident.resize(kept);
    if (progressed) {
      since_progress = 0;
    } else if (since_progress > options_.watchdog_instructions) {
      throw exec::DeviceFault(exec::FaultKind::NoForwardProgress,
                              "watchdog: no forward progress in kernel " + ctx_.kernel->name + " for " +
                                  std::to_string(since_progress) +
                                  " warp instructions (no store or atomic changed memory, no thread exited, no "
                                  "barrier completed); a spin lock with contention inside a warp livelocks under "
                                  "--divergence ipdom. Warps:" +
                                  warp_states(resident));
    }
  }
  return totals;
}

}  // namespace tlmgpu::platform
