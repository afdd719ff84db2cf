#!/usr/bin/env bash
# Builds the test programs with AddressSanitizer + UndefinedBehaviorSanitizer
# and the debug checks (-DTLMGPU_SANITIZE=ON: -O1 -g1, LTO off, the scheduler
# view check) into build-sanitize/, then runs the whole test suite there.
# Any sanitizer report or failed debug check fails the test that caused it.
# .ci/run runs it after scripts/test.sh (docs/RELIABILITY.md has the times).
# Built: the test programs and what they run; not the benchmark program.
# -g1: line tables are all the reports' stack traces need, and full debug
# information makes the instrumented build a fifth to a third slower.
#   bash scripts/test_sanitizers.sh [--ci] [ctest options, e.g. -R Golden]
# --ci: CI's share, which keeps .ci/run under 45 minutes on two cores. It
# leaves out tests that spend their time outside the sanitized code or
# repeat what others run: the determinism soak (ten repetitions of runs the
# Golden tests make once), the Golden runs on two and four host threads
# (the same code as on one, but for the thread pool, which its own tests run), the Slurm tests (mostly waiting for slurmd and
# squeue; the Slurm launcher's own C++ is then sanitized only without
# --ci) and the report scripts and page renders (Python and Chromium; the
# programs' C++ side runs in the PaperComparison, ReportPapers and Sweep
# tests), and the default-size calibration (minutes of the same timing
# code the small-size calibration and the workload tests run sanitized),
# the LT accuracy comparison (every workload in both modes, which the
# workload tests run sanitized one by one) and the CLI's check that a device's
# timing does not depend on earlier devices (a dozen CLI runs of code the
# Golden and device-reset tests run sanitized): the two longest sanitized
# tests, 90 and 45 s; and the next two, a CUDA program's host loop under
# `tlmgpu exec` with a timeline (29 s: the timeline's and the runtime's
# code run sanitized in the Timeline and RuntimePrograms tests) and the
# occupancy limits' dozens of launches (17 s: the occupancy arithmetic runs
# in the Occupancy tests), and every workload on the three current-GPU
# presets (141 runs; those presets' own paths run sanitized in the
# LatencyChase, TensorPipe and Carveout tests). Without --ci all run.
# LeakSanitizer is off: its tracer crashes on SystemC's coroutine stacks
# ("Tracer caught signal 11"); the fuzzers check for leaks per input.
# Left out: GpuPeripheral.TimingModeDeviceFaultThenRecovery and
# Programs/FirmwareOnGpu.PassesItsCpuCheck/errors_timing. Each throws a
# device fault after SystemC's SC_THREADs (SoC memory ports, the CPU) have run on
# their own coroutine stacks, which Debian's SystemC does not announce to
# ASan (no __sanitizer_start_switch_fiber); ASan then has no stack bounds for
# the throw ("ignoring requested __asan_handle_no_return ... top:
# 0x000000000000") and reports a stack-buffer-overflow inside its own
# sigaltstack call (google/sanitizers#189). The same fault in LT mode, without
# coroutines in between, runs here
# (GpuPeripheral.ErrorDeviceFaultNamesAddressPcCtaAndThread). Also left out:
# Package.ConsumerBuildsAgainstInstalledPackage, whose consumer project links
# the installed (here: sanitized) libraries without the sanitizer runtime,
# and RuntimePrograms.DirectRunWithEnvironment / DirectRunPresetFromEnvironment,
# which start an uninstrumented CUDA program on the sanitized libcudart.so.13
# without `tlmgpu exec` (which preloads the ASan runtime; ASan refuses to run
# when it is not the first library). allocator_may_return_null: a test asks
# cudaMalloc for 2^50 bytes and expects cudaErrorMemoryAllocation, not a report.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install_deps.sh
# The CUDA test programs hold no simulator code: after scripts/test.sh (CI)
# the normal build's are run rather than compiled again.
reuse="-DTLMGPU_CUDA_PROGRAMS_FROM="
[ -d build/cuda_programs ] && [ -d build/cuda_fatbin ] && reuse="-DTLMGPU_CUDA_PROGRAMS_FROM=$PWD/build"
cmake -S . -B build-sanitize -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" \
      -DTLMGPU_LTO=OFF -DTLMGPU_NATIVE=OFF -DTLMGPU_SANITIZE=ON $reuse >/dev/null
cmake --build build-sanitize -j"$(nproc)" --target tlmgpu_tests
left_out='GpuPeripheral\.TimingModeDeviceFaultThenRecovery|Programs/FirmwareOnGpu\.PassesItsCpuCheck/errors_timing|Package\.ConsumerBuildsAgainstInstalledPackage|RuntimePrograms\.DirectRun(WithEnvironment|PresetFromEnvironment)'
if [ "${1:-}" = --ci ]; then
  shift
  left_out+='|GoldenThreads[24]\..*|Determinism\.TenRepetitionsOfFiveWorkloadsUnderThreeSchedulersAreBitIdentical|Slurm\..*|ReportScripts\..*|ReportBrowser\..*|ReportPapers\.ComparisonWritesThePageAndFigures|Workloads/CalibrationGtx480Default\..*|LtAccuracy\.WithinTheDocumentedErrorOfTimingModeOnEveryWorkload|Cli\.TimingResultsDoNotDependOnEarlierDevices|RuntimePrograms\.BfsHostLoopTimingWithTimeline|SmOccupancy\.ThreadsRegistersAndSharedMemoryLimitResidentCtas|Cli\.CurrentGpusRunEveryWorkloadToAVerifiedResultUnderIts'
fi
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1 ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1 UBSAN_OPTIONS=print_stacktrace=1
ctest --test-dir build-sanitize --output-on-failure -j"$(nproc)" --timeout 1800 -E "^($left_out)( |\$)" "$@"
