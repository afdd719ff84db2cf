// The operand collectors of an SM's schedulers and the register-file banks
// they read: per scheduler, collectors of four classes (SP, SFU, DP, MEM).
// Issue claims a free collector of its instruction's class and names the
// banks of its source registers ((register + warp slot) mod banks); each
// cycle every busy collector asks its banks for its unread operands (one
// read per bank per cycle), and one with all its operands is handed to the
// SM's dispatch, which frees it when the pipeline takes the instruction.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/bit_ops.h"
#include "core/gpu_config.h"
#include "model/exec/warp.h"
#include "model/sm/execution_pipes.h"
#include "model/sm/instruction_timing.h"
#include "model/sm/register_file_bank.h"

namespace tlmgpu::sm {

enum CollectorClass : uint8_t { kSpCollector, kSfuCollector, kDpCollector, kMemCollector, kCollectorClasses };

/// The collector class that gathers the operands of an instruction for `pipe`.
inline CollectorClass collector_class(Pipe pipe) {
  switch (pipe) {
    case Pipe::Sfu: case Pipe::FpDivSqrt: return kSfuCollector;
    case Pipe::Dp: return kDpCollector;
    case Pipe::Mem: return kMemCollector;
    default: return kSpCollector;
  }
}

/// One collector's instruction, while it is busy.
struct OperandCollector {
  uint32_t slot = 0;
  uint32_t pc = 0;
  uint8_t reads_left = 0;
  std::array<uint32_t, InstructionTiming::kMaxSrc> banks{};  // bank of each unread operand
  bool has_access = false;
  exec::MemAccess access;
};

class OperandCollectors {
 public:
  /// `smc`'s collectors per class for each of its schedulers, and
  /// smc.register_banks banks per scheduler: RegisterFileBank modules named
  /// bank0 ... under the module being constructed.
  explicit OperandCollectors(const core::SmConfig& smc);

  /// Every collector free.
  void reset();
  bool any_busy() const { return busy_pairs_ != 0; }
  bool busy(uint32_t scheduler, CollectorClass cls) const { return busy_[scheduler][cls] != 0; }
  /// The first free collector of a class (-1: none).
  int free_collector(uint32_t scheduler, CollectorClass cls) const {
    const uint64_t free = ~busy_[scheduler][cls] & all_[cls];
    return free ? __builtin_ctzll(free) : -1;
  }
  /// Whether every collector of `cls` is busy.
  bool all_busy(uint32_t scheduler, uint32_t cls) const { return (busy_[scheduler][cls] & all_[cls]) == all_[cls]; }
  /// Per collector class: has `scheduler` a free collector of it.
  std::array<bool, kCollectorClasses> free_classes(uint32_t scheduler) const {
    std::array<bool, kCollectorClasses> free{};
    for (uint32_t cls = 0; cls < kCollectorClasses; ++cls) free[cls] = !all_busy(scheduler, cls);
    return free;
  }
  /// Takes free collector `index` of `cls` for warp `slot`'s instruction at
  /// `pc`; add_operand names its operands.
  OperandCollector& claim(uint32_t scheduler, CollectorClass cls, uint32_t index, uint32_t slot, uint32_t pc) {
    OperandCollector& c = collectors_[scheduler][cls][index];
    busy_[scheduler][cls] |= uint64_t(1) << index;
    busy_pairs_ |= pair_bit(scheduler, cls);
    c.slot = slot;
    c.pc = pc;
    c.reads_left = 0;
    return c;
  }
  /// Register `reg` of the warp in `c.slot` is to be read from its bank.
  void add_operand(OperandCollector& c, uint32_t reg) const {
    c.banks[c.reads_left++] = bank_div_.mod(reg + c.slot);
  }
  /// The pipeline took collector `index`'s instruction.
  void release(uint32_t scheduler, uint32_t cls, uint32_t index) {
    busy_[scheduler][cls] &= ~(uint64_t(1) << index);
    if (busy_[scheduler][cls] == 0) busy_pairs_ &= ~pair_bit(scheduler, cls);
  }

  /// One cycle of operand reads. The (scheduler, class) pairs with a busy
  /// collector ask the banks in a rotating order (from the pair `rotation`
  /// names, so no collector starves), each busy collector its unread
  /// operands; `dispatch(collector, scheduler, class, index)` is called for
  /// each one that has them all (it may release that collector only).
  template <class Dispatch>
  void read_operands(uint64_t now, uint32_t rotation, Dispatch&& dispatch) {
    const uint32_t pairs = nsched_ * kCollectorClasses;
    // Pairs in the order cls * nsched + s.
    const uint32_t first = nsched_div_.div(rotation) % kCollectorClasses * nsched_ + nsched_div_.mod(rotation);
    const uint64_t busy = busy_pairs_;  // a dispatch frees collectors of its own pair only
    const uint64_t rotated = (busy >> first | busy << (pairs - first)) & ((uint64_t(1) << pairs) - 1);
    for (uint64_t r = rotated; r; r &= r - 1) {
      uint32_t p = first + uint32_t(__builtin_ctzll(r));
      if (p >= pairs) p -= pairs;
      const uint32_t s = nsched_div_.mod(p), cls = nsched_div_.div(p);
      for (uint64_t m = busy_[s][cls]; m; m &= m - 1) {
        const uint32_t index = uint32_t(__builtin_ctzll(m));
        OperandCollector& c = collectors_[s][cls][index];
        for (uint8_t i = 0; i < c.reads_left;) {
          if (bank_ports_[c.banks[i]].try_read(now)) {
            c.banks[i] = c.banks[--c.reads_left];
          } else {
            ++i;
          }
        }
        if (c.reads_left == 0) dispatch(c, s, cls, index);
      }
    }
  }

  uint32_t num_banks() const { return uint32_t(bank_ports_.size()); }
  const RegisterBankPort& bank_port(uint32_t bank) const { return bank_ports_[bank]; }

 private:
  uint32_t pair_bit(uint32_t scheduler, uint32_t cls) const { return uint32_t(1) << (cls * nsched_ + scheduler); }

  uint32_t nsched_;
  core::FixedDivisor nsched_div_;  // pair -> (scheduler, class)
  core::FixedDivisor bank_div_;    // register -> bank
  // Bit cls * nsched + s: scheduler s has a busy collector of class cls.
  uint32_t busy_pairs_ = 0;
  std::array<std::array<uint64_t, kCollectorClasses>, kMaxSchedulersPerSm> busy_{};  // bit per collector
  std::array<uint64_t, kCollectorClasses> all_{};  // bit per collector of a class
  std::vector<std::array<std::vector<OperandCollector>, kCollectorClasses>> collectors_;
  std::vector<RegisterBankPort> bank_ports_;  // not resized after construction: the banks refer to them
  std::vector<std::unique_ptr<RegisterFileBank>> banks_;
};

}  // namespace tlmgpu::sm
