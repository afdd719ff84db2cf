#include "model/sm/load_store_unit.h"

#include "memory/coalescer.h"
#include "memory/sector_tags.h"

namespace tlmgpu::sm {

LoadStoreUnit::LoadStoreUnit(const core::GpuConfig& config)
    : line_bytes_(config.l1d.line_bytes),
      shared_banks_(config.sm.shared_banks),
      shared_latency_(config.sm.shared_latency),
      constant_latency_(config.sm.sp.latency),
      stores_allocate_(config.l1d.write_allocate) {}

void LoadStoreUnit::reset() {
  ops_.clear();
  free_ops_.clear();
  line_queue_.clear();
  tex_queue_.clear();
}

uint64_t LoadStoreUnit::start(const exec::MemAccess& a, bool texture, uint32_t slot, uint32_t pc, uint64_t now,
                              uint64_t latency, uint64_t& pipe_free_at) {
  switch (a.space) {
    case ptx::StateSpace::Shared: {
      const uint32_t cycles = memory::shared_bank_cycles(a, shared_banks_);
      ++shared_accesses_;
      shared_bank_cycles_ += cycles;
      pipe_free_at = now + cycles;
      return now + shared_latency_ + cycles - 1;
    }
    case ptx::StateSpace::Global:
    case ptx::StateSpace::Local: {
      std::vector<memory::LineAccess>& lines = coalesced_;
      lines.clear();
      // Masks in the memory interfaces' 32-byte units, whatever the L1's
      // sector: a cache widens them to its sectors; a store writes exactly these.
      memory::coalesce(a, line_bytes_, memory::kSectorUnitBytes, lines);
      if (lines.empty()) return now + latency;
      uint32_t op;
      if (free_ops_.empty()) {
        op = uint32_t(ops_.size());
        ops_.emplace_back();
      } else {
        op = free_ops_.back();
        free_ops_.pop_back();
      }
      ops_[op] = {slot, pc, uint32_t(lines.size()), 0, true};
      if (a.is_atomic) memory::count_same_address_atomics(a, line_bytes_, lines);
      // An allocating L1D makes valid only what a store writes whole.
      if (a.is_store && !a.is_atomic && stores_allocate_ && !texture)
        memory::mark_fully_written_units(a, line_bytes_, lines);
      for (memory::LineAccess& l : lines) {
        l.id = op;
        l.warp = slot;
        if (a.is_atomic) {
          l.kind = memory::AccessKind::Atomic;
          l.bypass_l1 = true;
        } else {
          l.kind = a.is_store ? memory::AccessKind::Store : memory::AccessKind::Load;
        }
        (texture ? tex_queue_ : line_queue_).lines.push_back(l);
      }
      return kQueued;
    }
    default:  // param and const: the constant cache, modelled as a hit
      return now + constant_latency_;
  }
}

bool LoadStoreUnit::waiting() const {
  if (line_queue_.pending() || tex_queue_.pending()) return true;
  for (const MemoryOp& op : ops_)
    if (op.valid) return true;
  return false;
}

std::string LoadStoreUnit::describe(const std::string& sm_name) const {
  uint32_t ops = 0;
  for (const MemoryOp& op : ops_) ops += op.valid;
  if (!ops && !line_queue_.pending()) return "";
  return "\n  " + sm_name + ": " + std::to_string(ops) + " memory instructions waiting for lines, " +
         std::to_string(line_queue_.size()) + " lines queued for the L1D";
}

}  // namespace tlmgpu::sm
