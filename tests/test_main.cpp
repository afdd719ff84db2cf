// The test runner: libsystemc owns main(), so GoogleTest starts from sc_main.
#include <gtest/gtest.h>

#include <systemc>

// Also for the test discovery the build runs, outside ctest's environment.
#include "platform/systemc_banner.h"

int sc_main(int argc, char* argv[]) {
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
