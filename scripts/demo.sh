#!/usr/bin/env bash
# Install + build + the main job: every workload on the cycle-level GPU with the
# default preset (gtx480, lrr), small inputs, one results table.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
exec build/tlmgpu run --workload all --mode timing --size small
