#!/usr/bin/env bash
# Installs the project built in BUILD_DIR into a temporary prefix, builds the
# consumer project against it and runs it. Usage: run.sh BUILD_DIR
set -euo pipefail
build_dir=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build_dir" --prefix "$work/prefix" >/dev/null
cmake -S "$here" -B "$work/build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/build" -j2 >/dev/null
SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1 "$work/build/soc_with_gpu"
