#include "schedulers/fetch_scheduler.h"

#include <stdexcept>

namespace tlmgpu::schedulers {

FetchScheduler::Policy FetchScheduler::parse(const std::string& policy) {
  if (policy == "lrr") return Policy::Lrr;
  if (policy == "gtlrr") return Policy::Gtlrr;
  if (policy == "gtlo") return Policy::Gtlo;
  throw std::invalid_argument("fetch scheduler policy '" + policy + "' (allowed: lrr, gtlrr, gtlo)");
}

FetchScheduler::FetchScheduler(sc_core::sc_module_name name, const std::string& policy)
    : sc_core::sc_module(name), policy_(parse(policy)) {}

int FetchScheduler::select(uint64_t ready, const std::vector<uint64_t>& age) const {
  if (ready == 0) return -1;
  // Greedy: stay with the last warp while it is fetch-ready.
  if (policy_ != Policy::Lrr && last_ >= 0 && (ready >> last_ & 1)) return last_;
  if (policy_ == Policy::Gtlo) {
    int best = -1;
    for (uint64_t part = ready; part; part &= part - 1) {
      const int slot = __builtin_ctzll(part);
      if (best < 0 || age[size_t(slot)] < age[size_t(best)]) best = slot;
    }
    return best;
  }
  // Round robin: the first ready warp after the last one fetched, wrapping.
  const uint32_t start = last_ < 0 ? 0 : uint32_t(last_) + 1;
  const uint64_t at_or_after = start >= 64 ? 0 : ready & (~0ull << start);
  return __builtin_ctzll(at_or_after ? at_or_after : ready);
}

void FetchScheduler::fetched(uint32_t slot) {
  if (int(slot) == last_) ++greedy_fetches_;
  last_ = int(slot);
  ++fetches_;
}

void FetchScheduler::report_stats(core::StatReport& out) const {
  using core::Unit;
  out.add("fetches", fetches_, Unit::Count, "instruction fetches into the warps' instruction buffers");
  out.add("repeat_fetches", greedy_fetches_, Unit::Count,
          "fetches for the same warp as the fetch before (the greedy policies' aim)");
}

}  // namespace tlmgpu::schedulers
