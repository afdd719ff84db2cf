// The SM's operand collectors and register banks on their own: claiming
// collectors, bank conflicts, the rotating order in which collectors ask the
// banks, and a collector the pipeline does not take staying busy.
#include <gtest/gtest.h>

#include <vector>

#include "model/sm/operand_collectors.h"

namespace tlmgpu::sm {
namespace {

core::SmConfig two_schedulers() {
  core::SmConfig smc;
  smc.num_schedulers = 2;
  smc.register_banks = 4;  // 8 banks in all: bank = (reg + slot) mod 8
  smc.collectors_sp = 2;
  smc.collectors_sfu = 1;
  smc.collectors_dp = 1;
  smc.collectors_mem = 1;
  return smc;
}

struct Dispatched {
  uint32_t slot, scheduler, cls;
  uint64_t cycle;
};

TEST(SmOperandCollectors, ClaimTakesTheLowestFreeCollectorOfItsClass) {
  OperandCollectors oc(two_schedulers());
  EXPECT_EQ(oc.num_banks(), 8u);
  EXPECT_FALSE(oc.any_busy());
  EXPECT_EQ(oc.free_collector(0, kSpCollector), 0);
  oc.claim(0, kSpCollector, 0, 4, 10);
  EXPECT_TRUE(oc.any_busy());
  EXPECT_TRUE(oc.busy(0, kSpCollector));
  EXPECT_FALSE(oc.busy(1, kSpCollector));
  EXPECT_EQ(oc.free_collector(0, kSpCollector), 1);
  EXPECT_FALSE(oc.all_busy(0, kSpCollector));
  oc.claim(0, kSpCollector, 1, 6, 11);
  EXPECT_EQ(oc.free_collector(0, kSpCollector), -1);
  EXPECT_TRUE(oc.all_busy(0, kSpCollector));
  const auto free = oc.free_classes(0);
  EXPECT_FALSE(free[kSpCollector]);
  EXPECT_TRUE(free[kSfuCollector] && free[kDpCollector] && free[kMemCollector]);
  oc.release(0, kSpCollector, 0);
  EXPECT_EQ(oc.free_collector(0, kSpCollector), 0);
  oc.reset();
  EXPECT_FALSE(oc.any_busy());
  EXPECT_EQ(oc.free_collector(0, kSpCollector), 0);
  EXPECT_EQ(collector_class(Pipe::FpDivSqrt), kSfuCollector);
  EXPECT_EQ(collector_class(Pipe::IntDiv), kSpCollector);
  EXPECT_EQ(collector_class(Pipe::Mem), kMemCollector);
}

TEST(SmOperandCollectors, OperandsInOneBankAreReadInSuccessiveCycles) {
  OperandCollectors oc(two_schedulers());
  OperandCollector& c = oc.claim(0, kSpCollector, 0, 1, 7);
  oc.add_operand(c, 2);   // bank 3
  oc.add_operand(c, 10);  // bank 3 too: a conflict
  oc.add_operand(c, 3);   // bank 4
  std::vector<Dispatched> out;
  auto dispatch = [&](OperandCollector& col, uint32_t s, uint32_t cls, uint32_t index) {
    out.push_back({col.slot, s, cls, 0});
    oc.release(s, cls, index);
  };
  oc.read_operands(100, 0, dispatch);
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(c.reads_left, 1);
  EXPECT_EQ(oc.bank_port(3).reads, 1u);
  EXPECT_EQ(oc.bank_port(3).conflicts, 1u);
  EXPECT_EQ(oc.bank_port(4).reads, 1u);
  oc.read_operands(101, 1, dispatch);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].slot, 1u);
  EXPECT_EQ(oc.bank_port(3).reads, 2u);
  EXPECT_FALSE(oc.any_busy());
}

TEST(SmOperandCollectors, TheRotationDecidesWhichCollectorReadsAContendedBankFirst) {
  for (uint32_t rotation : {0u, 1u}) {
    OperandCollectors oc(two_schedulers());
    // Scheduler 0's warp 0 and scheduler 1's warp 1 both read bank 5.
    oc.add_operand(oc.claim(0, kSpCollector, 0, 0, 1), 5);
    oc.add_operand(oc.claim(1, kSpCollector, 0, 1, 1), 4);
    std::vector<uint32_t> order;
    auto dispatch = [&](OperandCollector&, uint32_t s, uint32_t cls, uint32_t index) {
      order.push_back(s);
      oc.release(s, cls, index);
    };
    oc.read_operands(50, rotation, dispatch);
    ASSERT_EQ(order.size(), 1u) << "rotation " << rotation;
    EXPECT_EQ(order[0], rotation) << "the pair the rotation names asks first";
    EXPECT_EQ(oc.bank_port(5).conflicts, 1u);
    oc.read_operands(51, rotation + 1, dispatch);
    ASSERT_EQ(order.size(), 2u);
    EXPECT_EQ(order[1], 1 - rotation);
  }
}

TEST(SmOperandCollectors, ACollectorThePipelineRefusesIsOfferedAgain) {
  OperandCollectors oc(two_schedulers());
  oc.claim(1, kMemCollector, 0, 3, 9);  // no register operands: ready at once
  int offers = 0;
  oc.read_operands(10, 0, [&](OperandCollector&, uint32_t, uint32_t, uint32_t) { ++offers; });
  EXPECT_EQ(offers, 1);
  EXPECT_TRUE(oc.busy(1, kMemCollector));
  oc.read_operands(11, 1, [&](OperandCollector& c, uint32_t s, uint32_t cls, uint32_t index) {
    ++offers;
    EXPECT_EQ(c.pc, 9u);
    EXPECT_EQ(s, 1u);
    EXPECT_EQ(cls, uint32_t(kMemCollector));
    oc.release(s, cls, index);
  });
  EXPECT_EQ(offers, 2);
  EXPECT_FALSE(oc.any_busy());
}

}  // namespace
}  // namespace tlmgpu::sm
