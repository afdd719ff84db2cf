#include "platform/soc/gpu_peripheral.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>

#include "model/ptx/ptx_parser.h"
#include "platform/gpu_top.h"

namespace tlmgpu::platform::soc {

namespace {

constexpr uint32_t kMaxPtxBytes = 16u << 20;
constexpr uint32_t kMaxNameBytes = 256;  // with the NUL
// PTX allows 4 KiB of kernel parameters (32764 bytes from sm_70 with CUDA 12.1).
constexpr uint32_t kMaxParamBytes = 32764;
constexpr uint32_t kPresetNameBytes = 16;

std::string hex(uint64_t v) {
  std::ostringstream os;
  os << "0x" << std::hex << v;
  return os.str();
}

uint32_t lo32(uint64_t v) { return uint32_t(v); }
uint32_t hi32(uint64_t v) { return uint32_t(v >> 32); }
uint64_t with_lo(uint64_t v, uint32_t lo) { return (v & ~0xffffffffull) | lo; }
uint64_t with_hi(uint64_t v, uint32_t hi) { return (v & 0xffffffffull) | (uint64_t(hi) << 32); }

}  // namespace

/// Timing-mode launches of the peripheral's GpuDevice run on its own GpuTop:
/// start, then the queue thread sleeps until the GPU says the launch ended.
class GpuPeripheral::TimingRunner : public TimingBackend {
 public:
  TimingRunner(GpuTop& top, const GpuPeripheral& owner) : top_(top), owner_(owner) {}
  TimingLaunchStats run_launch(const DeviceOptions& options, const exec::KernelContext& ctx,
                               std::shared_ptr<void>& module_cache, uint64_t, const std::vector<HostCopy>&,
                               uint32_t launch_regs_per_thread) override {
    // After a faulted (or aborted) launch the GPU starts afresh, as a GPU
    // context is recreated after a fault: what the launch left in flight
    // drains first.
    if (top_.last_launch_failed()) {
      if (top_.start_drain()) sc_core::wait(top_.finished_event());
      top_.reset_for_device();
      // Error answers to that traffic arrived while it drained: they belong
      // to the old launch, not to this one.
      if (memory::SocMemoryPort* port = top_.soc_memory_port()) port->clear_failure();
    }
    if (owner_.launch_aborted()) throw LaunchAborted("launch aborted by a reset before it started");
    const TimingLaunchSetup setup = prepare_timing_launch(options, ctx, module_cache, launch_regs_per_thread);
    top_.start(ctx, *setup.timing, setup.regs_per_thread, setup.regs_source,
               {options.watchdog_instructions, options.starvation_cycles});
    while (top_.busy()) sc_core::wait(top_.finished_event());
    return top_.finish();
  }

 private:
  GpuTop& top_;
  const GpuPeripheral& owner_;
};

GpuPeripheral::GpuPeripheral(sc_core::sc_module_name name, const core::GpuConfig& config, PeripheralMode mode)
    : GpuPeripheral(name, config, GpuPeripheralOptions{mode}) {}

GpuPeripheral::GpuPeripheral(sc_core::sc_module_name name, const core::GpuConfig& config,
                             const GpuPeripheralOptions& options)
    : sc_core::sc_module(name),
      mmio("mmio"),
      mem("mem"),
      irq("irq"),
      clk("clk"),
      rst("rst"),
      config_(config),
      options_(options),
      global_(mem),
      cycle_(sc_core::sc_time(1e6 / config.core_clock_mhz, sc_core::SC_PS)) {
  mmio.register_b_transport(this, &GpuPeripheral::b_transport);
  mmio.register_transport_dbg(this, &GpuPeripheral::transport_dbg);
  mem.register_invalidate_direct_mem_ptr(this, &GpuPeripheral::invalidate_direct_mem_ptr);

  DeviceOptions device;
  device.mode = options_.mode == PeripheralMode::Timing ? SimulationMode::Timing : SimulationMode::Lt;
  device.config = config_;
  device.divergence = options_.divergence;
  device.watchdog_instructions = options_.watchdog_instructions;
  device_ = std::make_unique<GpuDevice>(device, global_);
  if (options_.mode == PeripheralMode::Lt) device_->set_launch_pacer(this);

  if (options_.mode == PeripheralMode::Timing) {
    top_ = std::make_unique<GpuTop>("core", config_);
    // Never pause the SoC's simulation: the queue thread waits for the
    // GPU's event instead.
    top_->set_pause_when_done(false);
    if (options_.clock == ClockSource::Own) {
      own_clock_ = std::make_unique<sc_core::sc_clock>("core_clock", top_->period());
      top_->clk(*own_clock_);
    } else {
      // The SoC binds `clk`; the GPU's port follows it.
      top_->clk.sc_core::sc_port_b<sc_core::sc_signal_in_if<bool>>::bind(clk);
    }
    runner_ = std::make_unique<TimingRunner>(*top_, *this);
    device_->set_timing_backend(runner_.get());
    if (memory::SocMemoryPort* port = top_->soc_memory_port()) port->connect(this);
  }

  SC_HAS_PROCESS(GpuPeripheral);
  SC_THREAD(queue_thread);
  SC_THREAD(reset_thread);
  SC_METHOD(update_irq);
  sensitive << irq_event_;
}

GpuPeripheral::~GpuPeripheral() = default;

void GpuPeripheral::before_end_of_elaboration() {
  if (options_.mode == PeripheralMode::Timing && options_.clock == ClockSource::Soc && clk.bind_count() == 0)
    SC_REPORT_ERROR(name(), "clock source 'soc' needs the SoC to bind the peripheral's clk port");
}

void GpuPeripheral::start_of_simulation() {
  if (options_.mode != PeripheralMode::Timing || options_.clock != ClockSource::Soc) return;
  // The GPU counts cycles as time / period: the SoC clock must be the
  // configuration's core clock, with an edge at time zero.
  if (const auto* c = dynamic_cast<const sc_core::sc_clock*>(clk.get_interface())) {
    const bool aligned = c->start_time() == sc_core::SC_ZERO_TIME ||
                         std::fmod(c->start_time().to_seconds(), c->period().to_seconds()) == 0.0;
    if (c->period() != cycle_ || !aligned || !c->posedge_first())
      SC_REPORT_ERROR(name(), ("the SoC clock '" + std::string(c->name()) + "' has period " +
                               c->period().to_string() + "; the GPU configuration's core clock needs " +
                               cycle_.to_string() + " with a rising edge at time 0")
                                  .c_str());
  }
}

// ------------------------------------------------------------------ registers

void GpuPeripheral::b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) {
  delay_ = delay;
  trans.set_response_status(access(trans));
}

unsigned GpuPeripheral::transport_dbg(tlm::tlm_generic_payload& trans) {
  // Debug reads see the registers without side effects (reads have none);
  // debug writes are not accepted.
  if (trans.get_command() != tlm::TLM_READ_COMMAND) return 0;
  const uint64_t addr = trans.get_address();
  const unsigned len = trans.get_data_length();
  unsigned done = 0;
  for (; done < len; ++done) {
    const uint64_t a = addr + done;
    uint32_t value = 0;
    if (a >= TLMGPU_MMIO_BYTES || !read_register(uint32_t(a & ~3ull), value)) break;
    trans.get_data_ptr()[done] = uint8_t(value >> (8 * (a & 3)));
  }
  trans.set_response_status(tlm::TLM_OK_RESPONSE);
  return done;
}

tlm::tlm_response_status GpuPeripheral::access(tlm::tlm_generic_payload& trans) {
  const tlm::tlm_command cmd = trans.get_command();
  if (cmd == tlm::TLM_IGNORE_COMMAND) return tlm::TLM_OK_RESPONSE;
  if (cmd != tlm::TLM_READ_COMMAND && cmd != tlm::TLM_WRITE_COMMAND) return tlm::TLM_COMMAND_ERROR_RESPONSE;
  const uint64_t addr = trans.get_address();
  // Every register is one 32-bit word: anything else is not a register access.
  if (trans.get_data_length() != 4 || trans.get_streaming_width() < 4) return tlm::TLM_BURST_ERROR_RESPONSE;
  if (const unsigned char* be = trans.get_byte_enable_ptr()) {
    const unsigned be_len = trans.get_byte_enable_length();
    if (be_len == 0) return tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE;
    for (unsigned i = 0; i < 4; ++i)
      if (be[i % be_len] != TLM_BYTE_ENABLED) return tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE;
  }
  if (addr >= TLMGPU_MMIO_BYTES || (addr & 3) != 0) return tlm::TLM_ADDRESS_ERROR_RESPONSE;
  const uint32_t offset = uint32_t(addr);
  unsigned char* data = trans.get_data_ptr();
  if (cmd == tlm::TLM_READ_COMMAND) {
    uint32_t value = 0;
    if (!read_register(offset, value)) return tlm::TLM_ADDRESS_ERROR_RESPONSE;
    for (unsigned i = 0; i < 4; ++i) data[i] = uint8_t(value >> (8 * i));
    return tlm::TLM_OK_RESPONSE;
  }
  uint32_t value = 0;
  for (unsigned i = 0; i < 4; ++i) value |= uint32_t(data[i]) << (8 * i);
  return write_register(offset, value);
}

bool GpuPeripheral::read_register(uint32_t offset, uint32_t& value) const {
  if (offset >= TLMGPU_REG_ERROR_MESSAGE && offset < TLMGPU_REG_ERROR_MESSAGE + TLMGPU_ERROR_MESSAGE_BYTES) {
    // NUL-terminated within the window: at most 255 characters.
    value = 0;
    for (uint32_t i = 0; i < 4; ++i) {
      const size_t k = offset - TLMGPU_REG_ERROR_MESSAGE + i;
      if (k < error_message_.size() && k + 1 < TLMGPU_ERROR_MESSAGE_BYTES)
        value |= uint32_t(uint8_t(error_message_[k])) << (8 * i);
    }
    return true;
  }
  if (offset >= TLMGPU_REG_PRESET_NAME && offset < TLMGPU_REG_PRESET_NAME + kPresetNameBytes) {
    value = 0;
    for (uint32_t i = 0; i < 4; ++i) {
      const size_t k = offset - TLMGPU_REG_PRESET_NAME + i;
      if (k < config_.preset.size() && k + 1 < kPresetNameBytes)
        value |= uint32_t(uint8_t(config_.preset[k])) << (8 * i);
    }
    return true;
  }
  switch (offset) {
    case TLMGPU_REG_ID: value = TLMGPU_ID_VALUE; return true;
    case TLMGPU_REG_VERSION: value = TLMGPU_VERSION_VALUE; return true;
    case TLMGPU_REG_CAP_SMS: value = config_.num_sms; return true;
    case TLMGPU_REG_CAP_WARP_SIZE: value = ptx::kWarpSize; return true;
    case TLMGPU_REG_CAP_MAX_THREADS: value = std::min<uint32_t>(1024, config_.sm.max_threads); return true;
    case TLMGPU_REG_CAP_SHARED_BYTES: value = max_shared_bytes_per_cta(config_); return true;
    case TLMGPU_REG_CAP_MODE:
      value = options_.mode == PeripheralMode::Timing ? TLMGPU_MODE_TIMING : TLMGPU_MODE_LT;
      return true;
    case TLMGPU_REG_CAP_CLOCK_KHZ: value = uint32_t(std::lround(config_.core_clock_mhz * 1000)); return true;
    case TLMGPU_REG_HEAP_BASE_LO: value = lo32(heap_base_); return true;
    case TLMGPU_REG_HEAP_BASE_HI: value = hi32(heap_base_); return true;
    case TLMGPU_REG_HEAP_SIZE: value = heap_size_; return true;
    case TLMGPU_REG_QUEUE_BASE_LO: value = lo32(queue_base_); return true;
    case TLMGPU_REG_QUEUE_BASE_HI: value = hi32(queue_base_); return true;
    case TLMGPU_REG_QUEUE_SIZE: value = queue_size_; return true;
    case TLMGPU_REG_QUEUE_HEAD: value = queue_head_; return true;
    case TLMGPU_REG_QUEUE_TAIL: value = queue_tail_; return true;
    case TLMGPU_REG_DOORBELL: value = 0; return true;
    case TLMGPU_REG_STATUS: value = status_; return true;
    case TLMGPU_REG_ERROR_CODE: value = error_.code; return true;
    case TLMGPU_REG_ERROR_ADDRESS_LO: value = lo32(error_.address); return true;
    case TLMGPU_REG_ERROR_ADDRESS_HI: value = hi32(error_.address); return true;
    case TLMGPU_REG_ERROR_INFO: value = error_.info; return true;
    case TLMGPU_REG_ERROR_DESCRIPTOR: value = error_descriptor_; return true;
    case TLMGPU_REG_ERROR_PC: value = error_.pc; return true;
    case TLMGPU_REG_ERROR_CTA: value = error_.cta; return true;
    case TLMGPU_REG_ERROR_THREAD: value = error_.thread; return true;
    case TLMGPU_REG_IRQ_ENABLE: value = irq_enable_; return true;
    case TLMGPU_REG_IRQ_STATUS: value = irq_status_; return true;
    case TLMGPU_REG_RESET: value = 0; return true;
    case TLMGPU_REG_CYCLES_LO: value = lo32(cycles_); return true;
    case TLMGPU_REG_CYCLES_HI: value = hi32(cycles_); return true;
    case TLMGPU_REG_WARP_INSTS_LO: value = lo32(warp_insts_); return true;
    case TLMGPU_REG_WARP_INSTS_HI: value = hi32(warp_insts_); return true;
    case TLMGPU_REG_LAUNCHES_DONE: value = launches_done_; return true;
    default: return false;
  }
}

tlm::tlm_response_status GpuPeripheral::write_register(uint32_t offset, uint32_t value) {
  constexpr uint32_t kIrqBits = TLMGPU_IRQ_LAUNCH_DONE | TLMGPU_IRQ_QUEUE_EMPTY | TLMGPU_IRQ_ERROR;
  const bool busy = status_ == TLMGPU_STATUS_BUSY;
  if (in_reset_) {
    // Held in reset: the access is answered as at any other time, but
    // changes nothing (the registers keep their power-on values).
    switch (offset) {
      case TLMGPU_REG_HEAP_BASE_LO: case TLMGPU_REG_HEAP_BASE_HI: case TLMGPU_REG_HEAP_SIZE:
      case TLMGPU_REG_QUEUE_BASE_LO: case TLMGPU_REG_QUEUE_BASE_HI: case TLMGPU_REG_QUEUE_SIZE:
      case TLMGPU_REG_QUEUE_TAIL: case TLMGPU_REG_DOORBELL: case TLMGPU_REG_IRQ_ENABLE:
      case TLMGPU_REG_IRQ_STATUS: case TLMGPU_REG_RESET:
        return tlm::TLM_OK_RESPONSE;
      default: {
        uint32_t ignored = 0;
        return read_register(offset, ignored) ? tlm::TLM_COMMAND_ERROR_RESPONSE : tlm::TLM_ADDRESS_ERROR_RESPONSE;
      }
    }
  }
  switch (offset) {
    case TLMGPU_REG_HEAP_BASE_LO: heap_base_ = with_lo(heap_base_, value); return tlm::TLM_OK_RESPONSE;
    case TLMGPU_REG_HEAP_BASE_HI: heap_base_ = with_hi(heap_base_, value); return tlm::TLM_OK_RESPONSE;
    case TLMGPU_REG_HEAP_SIZE: heap_size_ = value; return tlm::TLM_OK_RESPONSE;
    // The queue's place may not move under a running queue (ignored while busy).
    case TLMGPU_REG_QUEUE_BASE_LO:
      if (!busy) queue_base_ = with_lo(queue_base_, value);
      return tlm::TLM_OK_RESPONSE;
    case TLMGPU_REG_QUEUE_BASE_HI:
      if (!busy) queue_base_ = with_hi(queue_base_, value);
      return tlm::TLM_OK_RESPONSE;
    case TLMGPU_REG_QUEUE_SIZE:
      if (!busy) queue_size_ = value;
      return tlm::TLM_OK_RESPONSE;
    case TLMGPU_REG_QUEUE_TAIL: queue_tail_ = value; return tlm::TLM_OK_RESPONSE;
    case TLMGPU_REG_DOORBELL:
      doorbell_ = true;
      // At the writer's annotated time, as a loosely-timed CPU sees it.
      doorbell_event_.notify(delay_);
      return tlm::TLM_OK_RESPONSE;
    case TLMGPU_REG_IRQ_ENABLE:
      irq_enable_ = value & kIrqBits;
      irq_event_.notify(delay_);
      return tlm::TLM_OK_RESPONSE;
    case TLMGPU_REG_IRQ_STATUS:
      irq_status_ &= ~value;
      irq_event_.notify(delay_);
      return tlm::TLM_OK_RESPONSE;
    case TLMGPU_REG_RESET:
      if (value == TLMGPU_RESET_MAGIC) soft_reset();
      return tlm::TLM_OK_RESPONSE;
    default: {
      uint32_t ignored = 0;
      // A register that exists but is read-only: the command is wrong, not the address.
      return read_register(offset, ignored) ? tlm::TLM_COMMAND_ERROR_RESPONSE : tlm::TLM_ADDRESS_ERROR_RESPONSE;
    }
  }
}

void GpuPeripheral::soft_reset() {
  status_ = TLMGPU_STATUS_IDLE;
  error_ = QueueError{};
  error_descriptor_ = 0;
  error_message_.clear();
  irq_status_ = 0;
  queue_head_ = 0;
  queue_tail_ = 0;
  doorbell_ = false;
  ++reset_epoch_;  // a launch still running (timing mode) is forgotten when it ends
  global_.invalidate_all();
  irq_event_.notify(delay_);
}

void GpuPeripheral::reset_thread() {
  if (rst.bind_count() == 0) return;  // nothing drives a reset
  for (;;) {
    const bool high = rst->read();
    if (high && !in_reset_) power_on_reset();
    in_reset_ = high;
    sc_core::wait(rst->value_changed_event());
  }
}

void GpuPeripheral::power_on_reset() {
  in_reset_ = true;
  ++power_on_resets_;  // the running launch (LT, or timing before it starts) sees it and stops
  delay_ = sc_core::SC_ZERO_TIME;  // not a register access: now
  soft_reset();        // queue, status, errors, IRQ_STATUS; the queue thread forgets its launch
  heap_base_ = 0;
  heap_size_ = 0;
  queue_base_ = 0;
  queue_size_ = 0;
  irq_enable_ = 0;
  cycles_ = 0;
  warp_insts_ = 0;
  launches_done_ = 0;
  // Timing mode: the GPU stops at this cycle. Its transactions still in
  // flight in the SoC cannot be recalled: their answers drain inside the GPU
  // before its next launch, which starts on a fresh device context.
  if (top_) top_->abort_launch();
}

bool GpuPeripheral::keep_running(uint64_t warp_insts) {
  // The instructions so far at the GPU's peak issue rate: a lower bound of
  // the cost model's cycles for the whole launch (whose rest is added when
  // it ends), so the SoC runs on, in quanta, while a long launch runs.
  const core::SmConfig& sm = config_.sm;
  const uint64_t issue_per_cycle =
      std::max<uint64_t>(uint64_t(config_.num_sms) * sm.num_schedulers * sm.issue_width, 1);
  const uint64_t cycles = warp_insts / issue_per_cycle;
  if (cycles > paced_cycles_) {
    quantum_.inc(cycle_ * double(cycles - paced_cycles_));
    paced_cycles_ = cycles;
  }
  if (quantum_.need_sync()) quantum_.sync();
  return !launch_aborted();
}

void GpuPeripheral::invalidate_direct_mem_ptr(sc_dt::uint64 start, sc_dt::uint64 end) {
  global_.invalidate_direct_mem_ptr(start, end);
}

// -------------------------------------------------------------------- interrupt

void GpuPeripheral::raise_irq(uint32_t bits) {
  irq_status_ |= bits;
  irq_event_.notify(sc_core::SC_ZERO_TIME);
}

void GpuPeripheral::update_irq() {
  const bool level = (irq_status_ & irq_enable_) != 0;
  if (irq.read() != level) irq.write(level);
}

// ------------------------------------------------------------------- the queue

void GpuPeripheral::queue_thread() {
  quantum_.reset();
  for (;;) {
    while (!doorbell_) sc_core::wait(doorbell_event_);
    doorbell_ = false;
    delay_ = sc_core::SC_ZERO_TIME;
    if (status_ == TLMGPU_STATUS_ERROR) continue;  // stopped until a soft reset
    const uint64_t epoch = reset_epoch_;
    run_queue();
    // A reset made the GPU forget the launch: the time it had not synchronised yet goes with it.
    if (reset_epoch_ != epoch) quantum_.reset();
  }
}

void GpuPeripheral::run_queue() {
  const uint64_t epoch = reset_epoch_;
  auto queue_problem = [&]() -> std::string {
    if (queue_size_ == 0 || queue_size_ > TLMGPU_QUEUE_MAX_ENTRIES)
      return "doorbell with QUEUE_SIZE " + std::to_string(queue_size_) + " (1 .. " +
             std::to_string(TLMGPU_QUEUE_MAX_ENTRIES) + " entries)";
    if (queue_base_ & 7) return "QUEUE_BASE " + hex(queue_base_) + " is not 8-byte aligned";
    if (queue_tail_ >= queue_size_)
      return "QUEUE_TAIL " + std::to_string(queue_tail_) + " is not below QUEUE_SIZE " + std::to_string(queue_size_);
    if (queue_head_ >= queue_size_)
      return "QUEUE_HEAD " + std::to_string(queue_head_) + " is not below QUEUE_SIZE " + std::to_string(queue_size_) +
             " (the ring shrank; a soft reset restarts it at 0)";
    return {};
  };
  if (std::string problem = queue_problem(); !problem.empty()) {
    QueueError e;
    e.code = TLMGPU_ERROR_BAD_QUEUE;
    e.message = "bad queue: " + problem;
    set_error(e, queue_head_);
    return;
  }
  status_ = TLMGPU_STATUS_BUSY;
  while (queue_head_ != queue_tail_) {
    const uint32_t index = queue_head_;
    QueueError e;
    bool irq_on_done = false;
    const bool ok = run_descriptor(index, e, irq_on_done);
    if (reset_epoch_ != epoch) return;  // reset while the launch ran: forget it
    if (!ok) {
      quantum_.sync();
      if (reset_epoch_ != epoch) return;
      set_error(e, index);
      return;
    }
    // Completion is seen at the launch's end time: synchronise before it
    // shows in an interrupt, or when the quantum is used up.
    if (irq_on_done || quantum_.need_sync()) quantum_.sync();
    if (reset_epoch_ != epoch) return;
    queue_head_ = (index + 1) % queue_size_;
    ++launches_done_;
    if (irq_on_done) raise_irq(TLMGPU_IRQ_LAUNCH_DONE);
    if (std::string problem = queue_problem(); !problem.empty()) {
      e.code = TLMGPU_ERROR_BAD_QUEUE;
      e.message = "bad queue: " + problem;
      set_error(e, queue_head_);
      return;
    }
  }
  quantum_.sync();
  if (reset_epoch_ != epoch) return;
  status_ = TLMGPU_STATUS_IDLE;
  raise_irq(TLMGPU_IRQ_QUEUE_EMPTY);
}

void GpuPeripheral::set_error(const QueueError& error, uint32_t descriptor) {
  error_ = error;
  error_descriptor_ = descriptor;
  error_message_ = error.message;
  status_ = TLMGPU_STATUS_ERROR;
  raise_irq(TLMGPU_IRQ_ERROR);
}

bool GpuPeripheral::read_soc(uint64_t addr, void* dst, uint64_t bytes, QueueError& error, const char* what) {
  if (global_.read(addr, dst, bytes)) return true;
  error.code = TLMGPU_ERROR_MEMORY;
  error.address = global_.last_error().valid ? global_.last_error().address : addr;
  error.message = std::string("memory error reading the ") + what + " (" + std::to_string(bytes) + " bytes at " +
                  hex(addr) + "): " + global_.describe(error.address);
  return false;
}

void GpuPeripheral::apply_heap() {
  if (heap_base_ == applied_heap_base_ && heap_size_ == applied_heap_size_) return;
  // A new heap: images whose variables sat in the old one are loaded again
  // (into the new one) at their next use.
  device_->set_global_heap(heap_base_, heap_size_);
  applied_heap_base_ = heap_base_;
  applied_heap_size_ = heap_size_;
  for (auto it = images_.begin(); it != images_.end();) {
    if (it->second.has_globals)
      it = images_.erase(it);
    else
      ++it;
  }
}

bool GpuPeripheral::load_image(const std::string& text, LoadedImage& image, QueueError& error) {
  if (auto it = images_.find(text); it != images_.end()) {
    image = it->second;
    return true;
  }
  ptx::Module parsed;
  ++ptx_parses_;
  try {
    parsed = ptx::parse_ptx(text, "ptx image");
  } catch (const ptx::PtxError& e) {
    error.code = TLMGPU_ERROR_PTX;
    error.info = e.diagnostics().empty() ? 0 : e.diagnostics().front().line;
    error.message = e.diagnostics().empty() ? e.what() : e.diagnostics().front().format();
    return false;
  }
  const bool has_globals = !parsed.globals.empty();
  try {
    image.handle = device_->load_parsed_module(std::move(parsed));
  } catch (const std::exception& e) {
    // No heap for the module's .global variables, or SoC memory refused their initial values.
    error.code = global_.last_error().valid ? TLMGPU_ERROR_MEMORY : TLMGPU_ERROR_BAD_LAUNCH;
    error.address = global_.last_error().address;
    error.message = e.what();
    return false;
  }
  image.has_globals = has_globals;
  images_.emplace(text, image);
  return true;
}

bool GpuPeripheral::run_descriptor(uint32_t index, QueueError& error, bool& irq_on_done) {
  global_.clear_error();
  if (memory::SocMemoryPort* port = top_ ? top_->soc_memory_port() : nullptr) port->clear_failure();
  const uint64_t at = queue_base_ + uint64_t(index) * TLMGPU_DESCRIPTOR_BYTES;
  tlmgpu_launch_descriptor d;
  if (!read_soc(at, &d, sizeof d, error, "launch descriptor")) return false;
  irq_on_done = (d.flags & TLMGPU_DESC_IRQ_ON_DONE) != 0;
  auto bad = [&](const std::string& what) {
    error.code = TLMGPU_ERROR_BAD_DESCRIPTOR;
    error.message = "bad launch descriptor " + std::to_string(index) + " at " + hex(at) + ": " + what;
    return false;
  };
  if (d.flags & ~TLMGPU_DESC_IRQ_ON_DONE) return bad("reserved flag bits " + hex(d.flags & ~TLMGPU_DESC_IRQ_ON_DONE) + " set");
  if (d.ptx_bytes == 0 || d.ptx_bytes > kMaxPtxBytes)
    return bad("ptx_bytes " + std::to_string(d.ptx_bytes) + " is outside 1 .. " + std::to_string(kMaxPtxBytes));
  if (d.params_bytes > kMaxParamBytes)
    return bad("params_bytes " + std::to_string(d.params_bytes) + " exceeds " + std::to_string(kMaxParamBytes));

  // The kernel's name: read in small aligned pieces up to its NUL, so that
  // nothing past it is touched.
  std::string name;
  bool terminated = false;
  for (uint64_t a = d.kernel_name_address; !terminated && name.size() < kMaxNameBytes;) {
    char piece[16];
    const uint64_t n = std::min<uint64_t>(16 - (a & 15), kMaxNameBytes - name.size());
    if (!read_soc(a, piece, n, error, "kernel name")) return false;
    for (uint64_t i = 0; i < n && !terminated; ++i) {
      if (piece[i] == '\0')
        terminated = true;
      else
        name.push_back(piece[i]);
    }
    a += n;
  }
  if (!terminated) return bad("the kernel name at " + hex(d.kernel_name_address) + " has no NUL within 256 bytes");
  if (name.empty()) return bad("the kernel name at " + hex(d.kernel_name_address) + " is empty");

  std::string text(d.ptx_bytes, '\0');
  if (!read_soc(d.ptx_address, text.data(), d.ptx_bytes, error, "PTX image")) return false;
  if (const size_t nul = text.find('\0'); nul != std::string::npos) text.resize(nul);  // may be NUL-terminated
  std::vector<uint8_t> params(d.params_bytes);
  if (!read_soc(d.params_address, params.data(), params.size(), error, "kernel parameters")) return false;

  apply_heap();
  LoadedImage image;
  if (!load_image(text, image, error)) return false;
  const ptx::Module& module = device_->module(image.handle);
  auto fn = module.function_index.find(name);
  if (fn == module.function_index.end() || !module.functions[fn->second].is_entry) {
    std::string names;
    for (const ptx::Function& f : module.functions)
      if (f.is_entry) names += (names.empty() ? "" : ", ") + f.name;
    error.code = TLMGPU_ERROR_UNKNOWN_KERNEL;
    error.message = "the PTX image has no kernel '" + name + "' (kernels: " + names + ")";
    return false;
  }

  if (memory::SocMemoryPort* port = top_ ? top_->soc_memory_port() : nullptr)
    port->set_code_image(d.ptx_address, text.size());
  const DeviceStats before = device_->stats();
  launch_resets_ = power_on_resets_;
  paced_cycles_ = 0;
  try {
    device_->launch_with_param_buffer(image.handle, name, {d.grid[0], d.grid[1], d.grid[2]},
                                      {d.block[0], d.block[1], d.block[2]}, d.dynamic_shared_bytes, params);
  } catch (const exec::DeviceFault& f) {
    const exec::FaultSite& site = f.site();
    error.code = f.kind() == exec::FaultKind::NoForwardProgress ? TLMGPU_ERROR_WATCHDOG : TLMGPU_ERROR_DEVICE_FAULT;
    if (site.known) {
      if (global_.error_covers(site.address)) error.code = TLMGPU_ERROR_MEMORY;
      error.address = site.address;
      error.pc = site.pc;
      error.cta = uint32_t(site.cta);
      error.thread = site.thread;
    }
    error.message = f.what();
    return false;
  } catch (const LaunchAborted& e) {
    // The reset input stopped it; the reset already cleared the registers.
    ++aborted_launches_;
    error.message = e.what();
    return false;
  } catch (const LaunchError& e) {
    error.code = TLMGPU_ERROR_BAD_LAUNCH;
    error.message = e.what();
    return false;
  } catch (const std::exception& e) {
    // Anything else the launch ran into is the device's fault, never the simulation's end.
    error.code = global_.last_error().valid ? TLMGPU_ERROR_MEMORY : TLMGPU_ERROR_DEVICE_FAULT;
    error.address = global_.last_error().address;
    error.message = e.what();
    return false;
  }
  if (memory::SocMemoryPort* port = top_ ? top_->soc_memory_port() : nullptr; port && port->failed()) {
    // A timed transaction of the launch was refused: the data the kernel
    // used came through the functional path, but the SoC says the GPU may
    // not have it.
    error.code = TLMGPU_ERROR_MEMORY;
    error.address = port->failed_address();
    error.message = "SoC memory answered " + port->failed_response() + " to the GPU's L2 traffic at " +
                    hex(port->failed_address()) + " (kernel " + name + ")";
    port->clear_failure();
    return false;
  }
  const DeviceStats& after = device_->stats();
  warp_insts_ += after.warp_insts - before.warp_insts;
  const uint64_t cycles = device_->last_launch_cycles();
  // LT: the cost model's cycles become the launch's SoC time, less those
  // that passed while it ran (keep_running); timing mode spent them on the
  // GPU's clock already.
  if (options_.mode == PeripheralMode::Lt) quantum_.inc(cycle_ * double(cycles - std::min(cycles, paced_cycles_)));
  cycles_ += cycles;
  return true;
}

// ------------------------------------------------- soc.memory = soc traffic

void GpuPeripheral::soc_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
  mem->b_transport(payload, delay);
}

bool GpuPeripheral::soc_contents(uint64_t address, uint8_t* out, uint32_t bytes) {
  return global_.read(address, out, bytes);
}

}  // namespace tlmgpu::platform::soc
