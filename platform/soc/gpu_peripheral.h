// The GPU as a TLM-2.0 peripheral of a SoC: registers on `mmio`, an
// interrupt line, a reset input, and every global-memory access on the `mem`
// initiator socket. The register map is platform/soc/gpu_registers.h; docs/SOC.md
// describes it and shows how to instantiate the peripheral.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <tlm_utils/tlm_quantumkeeper.h>

#include "memory/soc_memory_port.h"
#include "model/exec/kernel_context.h"
#include "platform/config_keys.h"
#include "platform/gpu_device.h"
#include "platform/soc/gpu_registers.h"
#include "platform/soc/tlm_global_memory.h"
#include "platform/timing_gpu.h"

namespace tlmgpu::platform {
class GpuTop;
}

namespace tlmgpu::platform::soc {

/// How kernels run (the peripheral's `mode` parameter).
enum class PeripheralMode : uint8_t {
  Lt,      ///< functional execution; each launch's time annotated from a cost model (quantum keeper)
  Timing,  ///< the cycle-level GPU, clocked inside the SoC's simulation
};

/// Timing mode: what clocks the GPU.
enum class ClockSource : uint8_t {
  Own,  ///< the peripheral's own sc_clock at the configuration's core clock
  Soc,  ///< the `clk` port, bound by the SoC (its period must be the configuration's core clock)
};

struct GpuPeripheralOptions {
  PeripheralMode mode = PeripheralMode::Lt;
  ClockSource clock = ClockSource::Own;
  exec::DivergenceMode divergence = exec::DivergenceMode::Ipdom;
  /// Warp instructions without forward progress before a launch ends with
  /// TLMGPU_ERROR_WATCHDOG.
  uint64_t watchdog_instructions = 20'000'000;
};

class GpuPeripheral : public sc_core::sc_module, private memory::SocMemoryIf, private LaunchPacer {
 public:
  /// Registers (TLMGPU_REG_*): 4-byte aligned 4-byte accesses at offsets
  /// below TLMGPU_MMIO_BYTES. b_transport and transport_dbg; nb_transport_fw
  /// through the simple socket's conversion.
  tlm_utils::simple_target_socket<GpuPeripheral> mmio;
  /// Every access of the GPU to SoC memory (descriptors, PTX images,
  /// parameters, the kernels' global memory): DMI when granted, else debug transport.
  tlm_utils::simple_initiator_socket<GpuPeripheral> mem;
  /// High while (IRQ_STATUS & IRQ_ENABLE) != 0.
  sc_core::sc_out<bool> irq;
  /// ClockSource::Soc only: the GPU's clock (leave unbound otherwise).
  sc_core::sc_port<sc_core::sc_signal_in_if<bool>, 1, sc_core::SC_ZERO_OR_MORE_BOUND> clk;
  /// Reset input, active high (a SoC's reset controller drives it); unbound:
  /// never reset. Its rising edge aborts the running launch, empties the
  /// queue and sets every register to its power-on value, raising no
  /// interrupt; while it is high, register writes have no effect.
  sc_core::sc_port<sc_core::sc_signal_in_if<bool>, 1, sc_core::SC_ZERO_OR_MORE_BOUND> rst;

  GpuPeripheral(sc_core::sc_module_name name, const core::GpuConfig& config, const GpuPeripheralOptions& options = {});
  GpuPeripheral(sc_core::sc_module_name name, const core::GpuConfig& config, PeripheralMode mode);
  ~GpuPeripheral() override;

  const core::GpuConfig& config() const { return config_; }
  PeripheralMode mode() const { return options_.mode; }
  /// PTX images parsed so far (each distinct image once, while it stays loaded).
  uint64_t ptx_parses() const { return ptx_parses_; }
  /// The functional memory path, for its statistics (DMI regions, debug transactions).
  const TlmGlobalMemory& global_memory() const { return global_; }
  /// The last error as text (what ERROR_MESSAGE holds, untruncated).
  const std::string& error_message() const { return error_message_; }
  /// The reset input holds the GPU in reset.
  bool in_reset() const { return in_reset_; }
  /// Launches the reset input aborted.
  uint64_t aborted_launches() const { return aborted_launches_; }

 private:
  class TimingRunner;
  struct QueueError {
    uint32_t code = TLMGPU_ERROR_NONE;
    std::string message;
    uint64_t address = 0;
    uint32_t info = 0, pc = 0, cta = 0, thread = 0;
  };
  struct LoadedImage {
    ModuleHandle handle;
    bool has_globals = false;
  };

  void before_end_of_elaboration() override;
  void start_of_simulation() override;
  void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
  unsigned transport_dbg(tlm::tlm_generic_payload& trans);
  void invalidate_direct_mem_ptr(sc_dt::uint64 start, sc_dt::uint64 end);
  /// Checks and performs one register access; the TLM response status.
  tlm::tlm_response_status access(tlm::tlm_generic_payload& trans);
  /// Reads register `offset`; false when there is none.
  bool read_register(uint32_t offset, uint32_t& value) const;
  /// Writes register `offset`; the response (address error: none; command error: read-only).
  tlm::tlm_response_status write_register(uint32_t offset, uint32_t value);
  void soft_reset();
  /// The reset input: follows `rst` (when bound).
  void reset_thread();
  /// Its rising edge: stop what runs, every register to its power-on value.
  void power_on_reset();
  /// The running launch was started before the last rising edge of `rst`.
  bool launch_aborted() const { return launch_resets_ != power_on_resets_; }
  // LT mode: a launch's instructions become SoC time while it runs, and a
  // reset stops it (LaunchPacer).
  bool keep_running(uint64_t warp_insts) override;
  // soc.memory = soc (timing mode): the GPU's L2 misses and write-backs as
  // timed transactions on `mem` (memory::SocMemoryPort).
  void soc_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) override;
  bool soc_contents(uint64_t address, uint8_t* out, uint32_t bytes) override;

  void queue_thread();
  /// Runs the descriptors from HEAD to TAIL; stops at the first error.
  void run_queue();
  /// One descriptor; fills `error` and returns false on failure.
  bool run_descriptor(uint32_t index, QueueError& error, bool& irq_on_done);
  /// Reads SoC memory for the GPU's own use (descriptor, name, image, parameters).
  bool read_soc(uint64_t addr, void* dst, uint64_t bytes, QueueError& error, const char* what);
  /// The loaded module for a PTX image (parsed at its first use).
  bool load_image(const std::string& text, LoadedImage& image, QueueError& error);
  void apply_heap();
  void set_error(const QueueError& error, uint32_t descriptor);
  void raise_irq(uint32_t bits);
  void update_irq();

  core::GpuConfig config_;
  GpuPeripheralOptions options_;
  TlmGlobalMemory global_;
  std::unique_ptr<GpuDevice> device_;
  std::unique_ptr<sc_core::sc_clock> own_clock_;
  std::unique_ptr<GpuTop> top_;
  std::unique_ptr<TimingRunner> runner_;
  tlm_utils::tlm_quantumkeeper quantum_;
  sc_core::sc_time cycle_;

  // Registers.
  uint64_t heap_base_ = 0;
  uint32_t heap_size_ = 0;
  uint64_t applied_heap_base_ = 0;
  uint32_t applied_heap_size_ = 0;
  uint64_t queue_base_ = 0;
  uint32_t queue_size_ = 0, queue_head_ = 0, queue_tail_ = 0;
  uint32_t status_ = TLMGPU_STATUS_IDLE;
  QueueError error_;
  uint32_t error_descriptor_ = 0;
  std::string error_message_;
  uint32_t irq_enable_ = 0, irq_status_ = 0;
  uint64_t cycles_ = 0, warp_insts_ = 0;
  uint32_t launches_done_ = 0;

  sc_core::sc_time delay_;     // the current register access's annotated delay
  bool doorbell_ = false;      // rung since the queue thread last looked
  uint64_t reset_epoch_ = 0;   // soft resets so far: a launch that outlives one is forgotten
  bool in_reset_ = false;      // `rst` is high
  uint64_t power_on_resets_ = 0;  // rising edges of `rst` so far
  uint64_t launch_resets_ = 0;    // power_on_resets_ when the running launch started
  uint64_t aborted_launches_ = 0;
  uint64_t paced_cycles_ = 0;     // LT: cycles of the running launch already added to the quantum keeper
  sc_core::sc_event doorbell_event_, irq_event_;

  std::map<std::string, LoadedImage> images_;  // by PTX text
  uint64_t ptx_parses_ = 0;
};

}  // namespace tlmgpu::platform::soc

namespace tlmgpu {
/// The names a SoC uses: `tlmgpu::GpuPeripheral gpu{"gpu", tlmgpu::preset("gtx480")};`
using GpuPeripheral = platform::soc::GpuPeripheral;
using GpuPeripheralOptions = platform::soc::GpuPeripheralOptions;
using GpuPeripheralMode = platform::soc::PeripheralMode;
inline core::GpuConfig preset(const std::string& name) { return platform::preset_config(name); }
}  // namespace tlmgpu
