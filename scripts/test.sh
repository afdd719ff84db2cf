#!/usr/bin/env bash
# Install + build + the whole test suite (each GoogleTest case is its own ctest process).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
ctest --test-dir build --output-on-failure -j"$(nproc)" --timeout 600
