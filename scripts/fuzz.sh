#!/usr/bin/env bash
# A libFuzzer session on one target (docs/RELIABILITY.md):
#
#   bash scripts/fuzz.sh TARGET SECONDS [LIBFUZZER_OPTION...]
#
# TARGET: ptx, launch_file, config, mmio or fatbin (fuzz_ptx ... also accepted).
# Configures and builds the fuzz build (clang, ASan + UBSan + libFuzzer) in
# build-fuzz/ (FUZZ_BUILD_DIR overrides), then fuzzes for SECONDS from the
# seeds (generated from the source tree), the hand-made seeds in
# fuzz/corpus/TARGET and the committed findings in tests/fuzz_regressions/TARGET.
# New interesting inputs go to FUZZ_BUILD_DIR/fuzz_corpus/TARGET (kept between
# sessions); a finding is written to FUZZ_BUILD_DIR/fuzz_findings/TARGET/.
# Exit status: 0 no finding, 1 a finding (crash, over 1 s on one input, leak,
# sanitizer report, out of memory), 2 bad usage or the build failed.
set -uo pipefail

usage() { echo "usage: bash scripts/fuzz.sh TARGET SECONDS [LIBFUZZER_OPTION...]  (TARGET: ptx, launch_file, config, mmio, fatbin)" >&2; exit 2; }
[ $# -ge 2 ] || usage
given=$1
target=${given#fuzz_}
seconds=$2
shift 2
case "$target" in ptx|launch_file|config|mmio|fatbin) ;; *) echo "fuzz.sh: unknown target '$given'" >&2; usage ;; esac
[[ "$seconds" =~ ^[1-9][0-9]*$ ]] || { echo "fuzz.sh: SECONDS must be a positive whole number, not '$seconds'" >&2; exit 2; }

src=$(cd "$(dirname "$0")/.." && pwd)
build=${FUZZ_BUILD_DIR:-$src/build-fuzz}
for tool in clang clang++ cmake; do
  command -v $tool >/dev/null || { echo "fuzz.sh: $tool is missing: run scripts/install_deps.sh" >&2; exit 2; }
done

mkdir -p "$build" || exit 2
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
if ! CC=clang CXX=clang++ cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTLMGPU_FUZZ=ON \
       -DTLMGPU_LTO=OFF -DTLMGPU_VP=OFF "${launcher[@]}" >"$build/fuzz_configure.log" 2>&1; then
  cat "$build/fuzz_configure.log" >&2
  echo "fuzz.sh: configuring $build failed" >&2
  exit 2
fi
if ! cmake --build "$build" -j"$(nproc)" --target "fuzz_$target" >"$build/fuzz_build.log" 2>&1; then
  tail -40 "$build/fuzz_build.log" >&2
  echo "fuzz.sh: building fuzz_$target failed (log: $build/fuzz_build.log)" >&2
  exit 2
fi

corpus=$build/fuzz_corpus/$target
findings=$build/fuzz_findings/$target
mkdir -p "$corpus" "$findings"
dirs=("$corpus" "$build/fuzz_seeds/$target")
for d in "$src/fuzz/corpus/$target" "$src/tests/fuzz_regressions/$target"; do
  [ -d "$d" ] && dirs+=("$d")
done

export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
# Leaks are findings (detect_leaks); UBSan stops at the first report.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# Inputs up to 2 KB: the seeds reach 56 KB, and mutating those runs ~10
# inputs a second under the sanitizers instead of hundreds. Options given
# after SECONDS come later and win (-max_len=65536 ...).
"$build/fuzz/fuzz_$target" -max_total_time="$seconds" -timeout=1 -rss_limit_mb=2048 -max_len=2048 \
  -artifact_prefix="$findings/" -print_final_stats=1 "$@" "${dirs[@]}"
status=$?
if [ $status -ne 0 ]; then
  echo "fuzz.sh: fuzz_$target found a problem (exit $status); the input is in $findings/" >&2
  exit 1
fi
echo "fuzz.sh: fuzz_$target: no finding in $seconds s"
