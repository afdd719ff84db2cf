#!/usr/bin/env bash
# Installs the Debian packages tlmgpu needs, only those missing. Idempotent.
set -euo pipefail
packages=(build-essential cmake pkg-config libsystemc-dev libboost-dev
          libboost-program-options-dev nlohmann-json3-dev googletest libgtest-dev
          # The RISC-V virtual platform (tlmgpu_vp) and its firmware:
          libunicorn-dev gcc-riscv64-unknown-elf picolibc-riscv64-unknown-elf
          # The experiment programs' figures and HTML pages (scripts/report/),
          # the page test in headless Chromium, and the one-node Slurm the
          # cluster-launcher test starts on localhost:
          python3-matplotlib chromium slurm-wlm munge
          # The libFuzzer targets (scripts/fuzz.sh): clang and its sanitizer
          # and libFuzzer runtimes.
          clang libclang-rt-14-dev
          # The CUDA runtime library (cudart/): the PTX inside fat binaries is
          # compressed with zstd (CUDA 13) or LZ4 (CUDA 11 and 12).
          libzstd-dev liblz4-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
echo "installing: ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"
