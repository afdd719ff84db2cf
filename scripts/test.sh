#!/usr/bin/env bash
# Install + build what the tests run + the whole test suite (each GoogleTest
# case is its own ctest process). `bash scripts/build.sh` builds everything,
# the benchmark program too.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh tlmgpu_tests
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
ctest --test-dir build --output-on-failure -j"$(nproc)" --timeout 600
