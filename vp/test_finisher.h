// Ends the simulation when firmware writes its exit code: a 32-bit write to
// offset 0 records the value and calls sc_stop(). The VP's process exits
// with the low 8 bits of the value.
#ifndef TLMGPU_VP_TEST_FINISHER_H
#define TLMGPU_VP_TEST_FINISHER_H

#include <cstdint>
#include <optional>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

namespace tlmgpu::vp {

class TestFinisher : public sc_core::sc_module {
public:
  static constexpr uint64_t kExitCode = 0;
  static constexpr uint64_t kRegisterBytes = 4;

  tlm_utils::simple_target_socket<TestFinisher> socket{"socket"};

  explicit TestFinisher(sc_core::sc_module_name name);

  // Set once firmware has written its exit code.
  std::optional<uint32_t> exit_code() const { return exit_code_; }

private:
  void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);

  std::optional<uint32_t> exit_code_;
};

} // namespace tlmgpu::vp

#endif
