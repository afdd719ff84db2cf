// The GPU's modules are linked as the design card says: one sc_clock bound
// to every clocked module and read by the clock domain that runs them, the
// schedulers reading the CTA dispatcher's signals through ports, the SMs
// reaching their L1s through exports.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "engine/clock_domain.h"
#include "memory/l1_cache.h"
#include "platform/gpu_top.h"
#include "platform/presets.h"
#include "schedulers/warp_scheduler.h"

namespace tlmgpu {
namespace {

void for_each_object(const sc_core::sc_object* obj, const std::function<void(const sc_core::sc_object*)>& f) {
  f(obj);
  for (const sc_core::sc_object* child : obj->get_child_objects()) for_each_object(child, f);
}

core::GpuConfig small_gpu() {
  core::GpuConfig c = platform::preset_config("gtx480");
  c.num_sms = 2;
  return c;
}

TEST(DesignLinks, EveryClockedModuleSeesTheOneClock) {
  platform::GpuTop top("gpu", small_gpu());
  sc_core::sc_clock clock("clk", top.period());
  top.clk(clock);
  sc_core::sc_start(top.period());
  int clock_ports = 0;
  for_each_object(&top, [&](const sc_core::sc_object* o) {
    if (std::string(o->basename()) != "clk" || o == &top.clk) return;
    const auto* port = dynamic_cast<const sc_core::sc_port_b<sc_core::sc_signal_in_if<bool>>*>(o);
    ASSERT_NE(port, nullptr) << o->name();
    EXPECT_EQ(port->get_interface(), static_cast<sc_core::sc_interface*>(&clock)) << o->name();
    ++clock_ports;
  });
  // 2 SMs with 2 L1s and a texture cache each, the crossbar, 12 L2 slices,
  // 6 DRAM channels, the CTA dispatcher, the clock domain.
  EXPECT_EQ(clock_ports, 2 * 4 + 1 + 12 + 6 + 1 + 1);
}

// A clock port means something: every clocked module's is read by the clock
// domain that runs it, in the stage order memory, the CTA dispatcher, the SMs,
// the top. (The L1s' clk ports name their clock; they have no state that
// changes on their own: their SM's evaluation and the crossbar's answers run them.)
TEST(DesignLinks, TheClockDomainRunsEveryClockedModule) {
  platform::GpuTop top("gpu", small_gpu());
  sc_core::sc_clock clock("clk", top.period());
  top.clk(clock);
  sc_core::sc_start(top.period());
  const engine::ClockDomain& domain = top.clock_domain();
  std::vector<std::string> run;
  for (const engine::ClockedModule* m : domain.modules()) run.push_back(m->name());
  std::vector<std::string> expected{"gpu.icnt"};
  for (int s = 0; s < 12; ++s) expected.push_back("gpu.l2_" + std::to_string(s));
  for (int c = 0; c < 6; ++c) expected.push_back("gpu.dram" + std::to_string(c));
  for (const char* m : {"gpu.dispatcher", "gpu.sm0", "gpu.sm1", "gpu"}) expected.push_back(m);
  EXPECT_EQ(run, expected);
  int clocked = 0;
  for_each_object(&top, [&](const sc_core::sc_object* o) {
    if (const auto* m = dynamic_cast<const engine::ClockedModule*>(o)) {
      EXPECT_EQ(m->domain(), &domain) << o->name();
      ++clocked;
    }
  });
  EXPECT_EQ(clocked, int(expected.size()));
}

// Nothing in the GPU runs on its own: the clock domain's method is its only
// process (a module with a process of its own would ignore its clock). The
// simple target sockets' b_transport adapters are threads too, but they
// run only when someone calls b_transport, which nothing inside the GPU does.
TEST(DesignLinks, TheClockDomainIsTheGpusOnlyProcess) {
  platform::GpuTop top("gpu", small_gpu());
  sc_core::sc_clock clock("clk", top.period());
  top.clk(clock);
  sc_core::sc_start(top.period());
  std::vector<std::string> processes;
  for_each_object(&top, [&](const sc_core::sc_object* o) {
    if (dynamic_cast<const sc_core::sc_process_b*>(o) && std::string(o->basename()).find("b2nb_thread") != 0)
      processes.push_back(o->name());
  });
  EXPECT_EQ(processes, std::vector<std::string>{"gpu.clock_domain.tick"});
}

TEST(DesignLinks, SchedulersReadTheDispatchersSignalsThroughPorts) {
  platform::GpuTop top("gpu", small_gpu());
  sc_core::sc_clock clock("clk", top.period());
  top.clk(clock);
  sc_core::sc_start(top.period());
  int schedulers = 0;
  for (const auto& sm : top.sms())
    for (const auto& sched : sm->schedulers()) {
      EXPECT_EQ(sched->ctas_waiting.get_interface(),
                static_cast<sc_core::sc_interface*>(&top.dispatcher().ctas_waiting));
      EXPECT_EQ(sched->last_cta_dispatched.get_interface(),
                static_cast<sc_core::sc_interface*>(&top.dispatcher().last_cta_dispatched));
      ++schedulers;
    }
  EXPECT_EQ(schedulers, 4);
  // The SMs' cache ports lead to their own L1s' exports.
  for (const auto& sm : top.sms()) {
    int cache_ports = 0;
    for (const sc_core::sc_object* o : sm->get_child_objects()) {
      const auto* port = dynamic_cast<const sc_core::sc_port<memory::CacheAccessIf>*>(o);
      if (!port) continue;
      const std::string n = o->basename();
      const memory::L1Cache& l1 = n == "l1d_access" ? sm->l1d() : n == "tex_access" ? sm->tex_cache() : sm->l1i();
      EXPECT_EQ(port->get_interface(), static_cast<const sc_core::sc_interface*>(&l1)) << o->name();
      ++cache_ports;
    }
    EXPECT_EQ(cache_ports, 3);
  }
}

TEST(DesignLinks, AClockOfAnotherPeriodIsRefused) {
  platform::GpuTop top("gpu", small_gpu());  // 700 MHz
  sc_core::sc_clock clock("clk", sc_core::sc_time(1, sc_core::SC_NS));
  top.clk(clock);
  try {
    sc_core::sc_start(sc_core::sc_time(1, sc_core::SC_NS));
    FAIL() << "expected an elaboration error";
  } catch (const sc_core::sc_report& r) {
    EXPECT_NE(std::string(r.what()).find("gpu.core_clock_mhz"), std::string::npos) << r.what();
  }
}

}  // namespace
}  // namespace tlmgpu
