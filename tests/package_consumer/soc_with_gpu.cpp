// A SoC of its own around the installed GPU package: a memory, a stub CPU
// that programs the GPU through MMIO, and the GPU peripheral. The stub
// launches the package's vector_add PTX, sleeps until the interrupt and
// checks the result in the SoC's memory. Exit code 0 when it matches.
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include "platform/soc/gpu_peripheral.h"
#include "platform/soc/gpu_registers.h"

namespace {

/// 4 MiB of RAM at address 0 that grants DMI.
struct Ram : sc_core::sc_module {
  tlm_utils::simple_target_socket<Ram> socket{"socket"};
  std::vector<unsigned char> bytes = std::vector<unsigned char>(4 << 20);
  explicit Ram(sc_core::sc_module_name n) : sc_core::sc_module(n) {
    socket.register_b_transport(this, &Ram::b_transport);
    socket.register_transport_dbg(this, &Ram::transport_dbg);
    socket.register_get_direct_mem_ptr(this, &Ram::get_direct_mem_ptr);
  }
  bool in_range(const tlm::tlm_generic_payload& t) const {
    return t.get_address() + t.get_data_length() <= bytes.size();
  }
  void b_transport(tlm::tlm_generic_payload& t, sc_core::sc_time& delay) {
    transport_dbg(t);
    delay += sc_core::sc_time(10, sc_core::SC_NS);
  }
  unsigned transport_dbg(tlm::tlm_generic_payload& t) {
    if (!in_range(t)) {
      t.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
      return 0;
    }
    unsigned char* p = bytes.data() + t.get_address();
    if (t.is_read()) std::memcpy(t.get_data_ptr(), p, t.get_data_length());
    if (t.is_write()) std::memcpy(p, t.get_data_ptr(), t.get_data_length());
    t.set_response_status(tlm::TLM_OK_RESPONSE);
    return t.get_data_length();
  }
  bool get_direct_mem_ptr(tlm::tlm_generic_payload&, tlm::tlm_dmi& dmi) {
    dmi.set_dmi_ptr(bytes.data());
    dmi.set_start_address(0);
    dmi.set_end_address(bytes.size() - 1);
    dmi.allow_read_write();
    return true;
  }
};

/// The driver: places the data, PTX and a descriptor in RAM, rings the
/// doorbell, waits for the interrupt, checks c = a + b.
struct StubCpu : sc_core::sc_module {
  tlm_utils::simple_initiator_socket<StubCpu> mmio{"mmio"};
  sc_core::sc_in<bool> irq{"irq"};
  Ram& ram;
  std::string ptx;
  int result = 1;

  SC_HAS_PROCESS(StubCpu);
  StubCpu(sc_core::sc_module_name n, Ram& r, std::string image) : sc_core::sc_module(n), ram(r), ptx(std::move(image)) {
    SC_THREAD(run);
  }
  void write(uint32_t offset, uint32_t value) { access(tlm::TLM_WRITE_COMMAND, offset, value); }
  uint32_t read(uint32_t offset) {
    uint32_t v = 0;
    access(tlm::TLM_READ_COMMAND, offset, v);
    return v;
  }
  void access(tlm::tlm_command cmd, uint32_t offset, uint32_t& value) {
    tlm::tlm_generic_payload t;
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    t.set_command(cmd);
    t.set_address(offset);
    t.set_data_ptr(reinterpret_cast<unsigned char*>(&value));
    t.set_data_length(4);
    t.set_streaming_width(4);
    mmio->b_transport(t, delay);
    if (!t.is_response_ok()) std::printf("MMIO error at 0x%x\n", offset);
    wait(delay);
  }
  template <typename T>
  void put(uint64_t at, const T* data, size_t n) { std::memcpy(ram.bytes.data() + at, data, n * sizeof(T)); }

  void run() {
    const uint32_t n = 5000;
    const uint64_t a = 0x100000, b = 0x120000, c = 0x140000, params = 0x1000, name = 0x1100,
                   queue = 0x2000, image = 0x10000;
    std::vector<float> va(n), vb(n);
    for (uint32_t i = 0; i < n; ++i) {
      va[i] = float(i) * 0.5f;
      vb[i] = 3.0f - float(i);
    }
    put(a, va.data(), n);
    put(b, vb.data(), n);
    put(image, ptx.data(), ptx.size());
    put(name, "vector_add", 11);
    const uint64_t args[3] = {a, b, c};
    put(params, args, 3);
    put(params + 24, &n, 1);
    tlmgpu_launch_descriptor d{};
    d.ptx_address = image;
    d.ptx_bytes = uint32_t(ptx.size());
    d.kernel_name_address = name;
    d.grid[0] = (n + 255) / 256;
    d.block[0] = 256;
    d.grid[1] = d.grid[2] = d.block[1] = d.block[2] = 1;
    d.params_address = params;
    d.params_bytes = 28;
    d.flags = TLMGPU_DESC_IRQ_ON_DONE;
    put(queue, &d, 1);

    if (read(TLMGPU_REG_ID) != TLMGPU_ID_VALUE) {
      std::printf("FAIL: no GPU at the MMIO base\n");
      sc_core::sc_stop();
      return;
    }
    write(TLMGPU_REG_QUEUE_BASE_LO, uint32_t(queue));
    write(TLMGPU_REG_QUEUE_BASE_HI, 0);
    write(TLMGPU_REG_QUEUE_SIZE, 4);
    write(TLMGPU_REG_IRQ_ENABLE, TLMGPU_IRQ_LAUNCH_DONE | TLMGPU_IRQ_ERROR);
    write(TLMGPU_REG_QUEUE_TAIL, 1);
    write(TLMGPU_REG_DOORBELL, 1);
    wait(irq.posedge_event());
    const uint32_t status = read(TLMGPU_REG_STATUS);
    write(TLMGPU_REG_IRQ_STATUS, read(TLMGPU_REG_IRQ_STATUS));
    if (status != TLMGPU_STATUS_IDLE) {
      std::printf("FAIL: status %u, error %u\n", status, read(TLMGPU_REG_ERROR_CODE));
      sc_core::sc_stop();
      return;
    }
    std::vector<float> vc(n);
    std::memcpy(vc.data(), ram.bytes.data() + c, n * sizeof(float));
    for (uint32_t i = 0; i < n; ++i)
      if (vc[i] != va[i] + vb[i]) {
        std::printf("FAIL: c[%u] = %g, want %g\n", i, double(vc[i]), double(va[i] + vb[i]));
        sc_core::sc_stop();
        return;
      }
    std::printf("PASS: vector_add of %u elements, %u warp instructions, at %s\n", n,
                read(TLMGPU_REG_WARP_INSTS_LO), sc_core::sc_time_stamp().to_string().c_str());
    result = 0;
    sc_core::sc_stop();
  }
};

}  // namespace

int sc_main(int, char*[]) {
  std::ifstream f(std::string(TLMGPU_PTX_DIR) + "/vector_add.ptx");
  std::stringstream text;
  text << f.rdbuf();
  if (text.str().empty()) {
    std::printf("FAIL: cannot read %s/vector_add.ptx\n", TLMGPU_PTX_DIR);
    return 1;
  }
  Ram ram("ram");
  tlmgpu::GpuPeripheral gpu("gpu", tlmgpu::preset("gtx480"), tlmgpu::GpuPeripheralMode::Lt);
  StubCpu cpu("cpu", ram, text.str());
  sc_core::sc_signal<bool> irq("irq");
  cpu.mmio.bind(gpu.mmio);
  gpu.mem.bind(ram.socket);
  gpu.irq(irq);
  cpu.irq(irq);
  sc_core::sc_start(sc_core::sc_time(1, sc_core::SC_SEC));
  return cpu.result;
}
