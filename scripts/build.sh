#!/usr/bin/env bash
# Installs missing packages, then configures and builds into build/ (Release):
# every program, or only the targets given (and what they depend on).
#   bash scripts/build.sh [target...]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install_deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
targets=()
[ $# -gt 0 ] && targets=(--target "$@")
cmake --build build -j"$(nproc)" "${targets[@]}"
