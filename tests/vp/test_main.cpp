// The VP test runner: libsystemc owns main(), so GoogleTest starts from sc_main.
#include <gtest/gtest.h>

#include <systemc>

#include "platform/systemc_banner.h"

int sc_main(int argc, char* argv[]) {
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
