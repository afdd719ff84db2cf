// The test runner: libsystemc owns main(), so GoogleTest starts from sc_main.
#include <gtest/gtest.h>

#include <cstdlib>

#include <systemc>

namespace {
// libsystemc's main() prints its banner before it calls sc_main: set the
// variable from a static initialiser, so that the test discovery the build
// runs (outside ctest's environment) prints no banner either.
const bool banner_disabled = setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0) == 0;
}  // namespace

int sc_main(int argc, char* argv[]) {
  (void)banner_disabled;
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
