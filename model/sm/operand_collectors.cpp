#include "model/sm/operand_collectors.h"

#include <stdexcept>
#include <string>

namespace tlmgpu::sm {

OperandCollectors::OperandCollectors(const core::SmConfig& smc) : nsched_(smc.num_schedulers) {
  if (nsched_ > kMaxSchedulersPerSm) throw std::invalid_argument("sm.num_schedulers above 8 is not supported");
  bank_ports_.resize(smc.register_banks * nsched_);
  for (uint32_t b = 0; b < bank_ports_.size(); ++b)
    banks_.push_back(std::make_unique<RegisterFileBank>(("bank" + std::to_string(b)).c_str(), bank_ports_[b]));
  nsched_div_ = core::FixedDivisor(nsched_);
  bank_div_ = core::FixedDivisor(uint32_t(banks_.size()));
  collectors_.resize(nsched_);
  for (auto& classes : collectors_) {
    classes[kSpCollector].resize(smc.collectors_sp);
    classes[kSfuCollector].resize(smc.collectors_sfu);
    classes[kDpCollector].resize(smc.collectors_dp);
    classes[kMemCollector].resize(smc.collectors_mem);
  }
  for (uint32_t cls = 0; cls < kCollectorClasses; ++cls) {
    const size_t n = collectors_.empty() ? 0 : collectors_[0][cls].size();
    if (n > 64) throw std::invalid_argument("sm.collectors_*: at most 64 per class");
    all_[cls] = n == 64 ? ~uint64_t(0) : (uint64_t(1) << n) - 1;
  }
}

void OperandCollectors::reset() {
  for (auto& busy : busy_) busy.fill(0);
  busy_pairs_ = 0;
}

}  // namespace tlmgpu::sm
