#!/usr/bin/env bash
# Install + build + the main job: every workload at its default size, one table.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
exec build/tlmgpu run --workload all --size default
