// main() of the fuzz targets that link the simulator. libsystemc owns
// main() and calls sc_main, so they link libFuzzer without its main() and
// start its driver from sc_main: SystemC is then set up as in any SystemC
// program (the MMIO target elaborates and simulates a SoC).
#include <cstddef>
#include <cstdint>

#include <systemc>

#include "platform/systemc_banner.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
extern "C" int LLVMFuzzerRunDriver(int* argc, char*** argv, int (*callback)(const uint8_t* data, size_t size));

int sc_main(int argc, char* argv[]) { return LLVMFuzzerRunDriver(&argc, &argv, LLVMFuzzerTestOneInput); }

// libFuzzer exits from inside its driver, under sc_main; LeakSanitizer's
// check at exit then reports the driver's and sc_elab_and_sim's start-up
// objects (argument copies, corpus file lists) as leaked. Leaks of the model
// are still found: libFuzzer checks for them after every input that
// allocated more than it freed (-detect_leaks=1, its default).
extern "C" const char* __asan_default_options() { return "leak_check_at_exit=0"; }
