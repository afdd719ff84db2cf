#include "platform/functional_engine.h"

#include <algorithm>
#include <array>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
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
/// the SM's LD/ST unit would make of its addresses, with direct-mapped tag
/// arrays of the L1Ds' and the L2's sizes telling hits from misses.
class LtCounter {
 public:
  LtCounter(const ptx::Module& module, const core::GpuConfig& config, LtLaunchCounts& counts)
      : counts_(counts),
        line_bytes_(config.l1d.line_bytes),
        shared_banks_(config.sm.shared_banks),
        fill_on_host_copy_(config.l2_fill_on_host_copy),
        l1_lines_(std::max<uint64_t>(config.l1d.size_bytes / config.l1d.line_bytes, 1)),
        l2_lines_(std::max<uint64_t>(uint64_t(config.l2.size_bytes) * config.l2_slices / config.l1d.line_bytes, 1)),
        l1_tags_(size_t(l1_lines_) * config.num_sms, 0),
        l2_tags_(size_t(l2_lines_), 0) {
    pipes_.reserve(module.code.size());
    for (const ptx::Instruction& in : module.code) pipes_.push_back(uint8_t(sm::pipe_of(in)));
  }

  void count(exec::Warp& warp) {
    const exec::StepInfo& s = warp.last();
    const uint8_t pipe = pipes_[s.pc];
    ++counts_.warp_insts[pipe];
    if (pipe != uint8_t(sm::Pipe::Mem) || s.active_mask == 0) return;
    const ptx::Opcode op = s.inst->op;
    if (op != ptx::Opcode::Ld && op != ptx::Opcode::St && op != ptx::Opcode::Atom && op != ptx::Opcode::Red &&
        op != ptx::Opcode::Tex && op != ptx::Opcode::Tld4 && op != ptx::Opcode::Suld && op != ptx::Opcode::Sust &&
        op != ptx::Opcode::WmmaLoad && op != ptx::Opcode::WmmaStore)
      return;  // texture, surface and wmma fragment accesses count as loads and stores

    const exec::MemAccess& a = warp.last_access();
    switch (a.space) {
      case ptx::StateSpace::Global:
      case ptx::StateSpace::Local: {
        lines_.clear();
        const memory::CoalescerResult r = coalescer_.coalesce(a, line_bytes_, lines_);
        counts_.global_lines += r.lines;
        counts_.global_sectors += r.sectors;
        // A load or an atom returns data the warp waits for; st and red (is_store) do not.
        if (a.is_store) ++counts_.global_stores;
        else ++counts_.global_loads;
        caches(warp.cta().sm_id(), a);
        break;
      }
      case ptx::StateSpace::Shared:
        ++counts_.shared_accesses;
        counts_.shared_bank_cycles += bank_cycles(s.pc, a);
        break;
      default:
        break;  // param and const: the constant cache
    }
  }

 private:
  /// memory::shared_bank_cycles, remembered per PC: an access whose lanes
  /// keep the previous one's offsets from the first lane, moved by whole
  /// bank words, maps its words onto the banks the same way up to a rotation,
  /// so it has the same conflict degree (a tiled loop's shared loads do).
  uint32_t bank_cycles(uint32_t pc, const exec::MemAccess& a) {
    if (shared_memo_index_.empty()) shared_memo_index_.assign(pipes_.size(), -1);
    int32_t& index = shared_memo_index_[pc];
    if (index < 0) {
      index = int32_t(shared_memos_.size());
      shared_memos_.emplace_back();
    }
    SharedMemo& memo = shared_memos_[size_t(index)];
    const uint64_t first = a.addr[uint32_t(__builtin_ctz(a.mask))];
    if (memo.valid && memo.mask == a.mask && memo.bytes == a.bytes && ((first - memo.first) & 3) == 0) {
      uint64_t differ = 0;
      if (a.mask == 0xffffffffu) {
        for (uint32_t lane = 0; lane < 32; ++lane) differ |= (a.addr[lane] - first) ^ memo.offset[lane];
      } else {
        for (uint32_t m = a.mask; m; m &= m - 1) {
          const uint32_t lane = uint32_t(__builtin_ctz(m));
          differ |= (a.addr[lane] - first) ^ memo.offset[lane];
        }
      }
      if (differ == 0) {
        memo.first = first;
        return memo.cycles;
      }
    }
    memo.valid = true;
    memo.mask = a.mask;
    memo.bytes = a.bytes;
    memo.first = first;
    for (uint32_t m = a.mask; m; m &= m - 1) {
      const uint32_t lane = uint32_t(__builtin_ctz(m));
      memo.offset[lane] = a.addr[lane] - first;
    }
    memo.cycles = memory::shared_bank_cycles(a, shared_banks_);
    return memo.cycles;
  }

  /// Looks the coalesced lines up: loads allocate in the L1D and the L2,
  /// stores evict from the L1D (write-through, no allocate, as Fermi's) and
  /// allocate in the L2 (write-back), atomics go to the L2.
  void caches(uint32_t sm, const exec::MemAccess& a) {
    uint64_t* l1 = &l1_tags_[size_t(sm) * l1_lines_];
    bool all_l1 = !a.is_atomic && !a.is_store, all_l2 = true;
    for (const memory::LineAccess& line : lines_) {
      const uint64_t tag = line.line_addr / line_bytes_ + 1;  // 0: empty
      uint64_t& e1 = l1[(tag - 1) % l1_lines_];
      if (a.is_store || a.is_atomic) {
        if (e1 == tag) e1 = 0;
      } else {
        all_l1 &= e1 == tag;
        e1 = tag;
      }
      uint64_t& e2 = l2_tags_[(tag - 1) % l2_lines_];
      // A line never seen was left in the L2 by the host's copies (when they fill it).
      const bool l2_hit = e2 == tag || (e2 == 0 && fill_on_host_copy_);
      if (!l2_hit && !a.is_store) {
        all_l2 = false;
        counts_.dram_sectors += uint64_t(__builtin_popcount(line.sector_mask));
      }
      e2 = tag;
    }
    if (a.is_atomic) {
      // Requests per line, in a direct-mapped table (lines that share an
      // entry add up: a slight overestimate, never an underestimate).
      for (const memory::LineAccess& line : lines_) {
        uint64_t& n = atomic_requests_[size_t((line.line_addr / line_bytes_ * 0x9E3779B97F4A7C15ull) >> 52)];
        counts_.hottest_line_atomics = std::max(counts_.hottest_line_atomics, ++n);
      }
    }
    if (a.is_store) return;
    if (all_l1) ++counts_.loads_l1_hit;
    else if (all_l2) ++counts_.loads_l2_hit;
  }

  LtLaunchCounts& counts_;
  uint32_t line_bytes_, shared_banks_;
  bool fill_on_host_copy_;
  uint64_t l1_lines_, l2_lines_;
  std::vector<uint64_t> l1_tags_, l2_tags_;
  std::vector<uint8_t> pipes_;
  std::vector<memory::LineAccess> lines_;
  memory::UnorderedCoalescer coalescer_;
  std::vector<uint64_t> atomic_requests_ = std::vector<uint64_t>(4096, 0);
  struct SharedMemo {
    bool valid = false;
    uint8_t bytes = 0;
    uint32_t mask = 0, cycles = 0;
    uint64_t first = 0;
    std::array<uint64_t, ptx::kWarpSize> offset{};
  };
  std::vector<int32_t> shared_memo_index_;  // per PC: its entry in shared_memos_, or -1
  std::vector<SharedMemo> shared_memos_;
};

}  // namespace

FunctionalEngine::Totals FunctionalEngine::run() {
  if (lt_counts_ == nullptr) return run_ctas<false>();
  lt_counts_->ctas = ctx_.grid.count();
  lt_counts_->warps_per_cta = uint32_t((ctx_.block.count() + ptx::kWarpSize - 1) / ptx::kWarpSize);
  lt_counts_->cta_warp_insts.assign(lt_counts_->ctas, 0);
  lt_counts_->cta_longest_warp.assign(lt_counts_->ctas, 0);
  return run_ctas<true>();
}

template <bool kCount>
FunctionalEngine::Totals FunctionalEngine::run_ctas() {
  Totals totals;
  std::optional<LtCounter> counter;
  if constexpr (kCount) counter.emplace(*ctx_.module, options_.config, *lt_counts_);
  const uint64_t num_ctas = ctx_.grid.count();
  // A cooperative launch (grid barrier) has every CTA resident, so that
  // CTAs waiting at the barrier interleave with those that have not reached it.
  const uint64_t window = ctx_.cooperative ? std::max<uint64_t>(num_ctas, 1)
                                           : std::max<uint32_t>(options_.resident_ctas, 1);
  std::vector<std::unique_ptr<exec::Cta>> resident;
  std::vector<std::unique_ptr<exec::Cta>> spare;  // finished CTAs, reused for the next ones
  uint64_t next_cta = 0;
  uint64_t since_progress = 0;  // warp instructions since the last forward progress
  uint64_t launch_insts = 0;    // warp instructions of the launch so far (the pacer's measure)

  try {
    while (next_cta < num_ctas || !resident.empty()) {
      while (resident.size() < window && next_cta < num_ctas) {
        const uint64_t i = next_cta++;
        exec::Dim3 id{uint32_t(i % ctx_.grid.x), uint32_t(i / ctx_.grid.x % ctx_.grid.y),
                      uint32_t(i / (uint64_t(ctx_.grid.x) * ctx_.grid.y))};
        const uint32_t sm = uint32_t(i % ctx_.num_sms);
        if (spare.empty()) {
          resident.push_back(std::make_unique<exec::Cta>(ctx_, id, sm));
          if constexpr (kCount)
            for (uint32_t w = 0; w < resident.back()->num_warps(); ++w)
              resident.back()->warp(w).set_record_accesses(true);
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
            if constexpr (kCount) {
              // A bar or an exit ends the slice after it ran; a blocked ITS group ran nothing.
              const uint64_t before = warp.instructions();
              const exec::StepStatus status = warp.step();
              if (warp.instructions() != before) counter->count(warp);
              if (status != exec::StepStatus::Executed) break;
            } else {
              if (warp.step() != exec::StepStatus::Executed) break;
            }
          }
          const uint64_t ran = warp.instructions() - insts_before;
          stepped |= ran != 0;
          since_progress += ran;
          launch_insts += ran;
          progressed |= warp.progress_events() != progress_before;
        }
        progressed |= cta->barrier_releases() != releases;
      }

      // Retire finished CTAs, keeping launch order for the rest.
      size_t kept = 0;
      for (auto& cta : resident) {
        if (cta->finished()) {
          uint64_t cta_insts = 0, longest = 0;
          for (uint32_t w = 0; w < cta->num_warps(); ++w) {
            cta_insts += cta->warp(w).instructions();
            longest = std::max(longest, cta->warp(w).instructions());
            totals.thread_insts += cta->warp(w).thread_instructions();
          }
          totals.warp_insts += cta_insts;
          if constexpr (kCount) {
            const exec::Dim3 id = cta->ctaid();
            const uint64_t index = id.x + uint64_t(ctx_.grid.x) * (id.y + uint64_t(ctx_.grid.y) * id.z);
            lt_counts_->cta_warp_insts[index] = cta_insts;
            lt_counts_->cta_longest_warp[index] = longest;
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
      // Between rounds no warp is inside an instruction: the launch may stop
      // here (its memory writes so far stay) and its owner may let time pass.
      if (pacer_ && !pacer_->keep_running(launch_insts))
        throw LaunchAborted("launch of kernel " + ctx_.kernel->name + " aborted after " + std::to_string(launch_insts) +
                            " warp instructions");
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
  } catch (exec::DeviceFault& fault) {
    // The finished CTAs' instructions and those of the CTAs still resident.
    Totals executed = totals;
    for (const auto& cta : resident)
      for (uint32_t w = 0; w < cta->num_warps(); ++w) {
        executed.warp_insts += cta->warp(w).instructions();
        executed.thread_insts += cta->warp(w).thread_instructions();
      }
    fault.set_executed(executed.warp_insts, executed.thread_insts);
    throw;
  }
  return totals;
}

}  // namespace tlmgpu::platform
