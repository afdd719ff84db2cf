#!/usr/bin/env bash
# Speed work must not change what is simulated. Runs a matrix of timing-mode
# simulations (every workload under lrr and gto at small size, every policy on
# hotspot and transactions, SWaS on vortex_1sm, titanx_pascal, four default-size
# runs) with one tlmgpu binary and writes each run's --stats JSON to OUTDIR.
# Compare two such folders with --compare: everything but host time must match.
#
#   scripts/stats_matrix.sh build/tlmgpu /tmp/before      # (old binary)
#   scripts/stats_matrix.sh build/tlmgpu /tmp/after       # (new binary)
#   scripts/stats_matrix.sh --compare /tmp/before /tmp/after
set -u
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1

if [ "${1:-}" = "--compare" ]; then
  [ $# -eq 3 ] || { echo "usage: $0 --compare DIR_A DIR_B" >&2; exit 2; }
  fail=0
  for f in "$2"/*.json; do
    b="$3/$(basename "$f")"
    if [ ! -f "$b" ] || ! diff <(grep -v 'host_second\|evaluated_cycles' "$f") <(grep -v 'host_second\|evaluated_cycles' "$b") >/dev/null; then
      echo "differs: $(basename "$f")"
      fail=1
    fi
  done
  diff <(sort "$2/exit_codes.txt") <(sort "$3/exit_codes.txt") || fail=1
  [ $fail = 0 ] && echo "identical ($(ls "$2"/*.json | wc -l) runs)"
  exit $fail
fi

[ $# -eq 2 ] || { echo "usage: $0 TLMGPU_BINARY OUTDIR | --compare DIR_A DIR_B" >&2; exit 2; }
bin=$1
out=$2
mkdir -p "$out"
rm -f "$out/exit_codes.txt"
run() {
  local tag=$1
  shift
  "$bin" run --mode timing "$@" --stats "$out/$tag.json" >"$out/$tag.out" 2>&1
  echo "$tag $?" >>"$out/exit_codes.txt"
}
for w in $("$bin" list workloads | awk '{print $1}'); do
  for s in lrr gto; do run "$w.$s" --workload "$w" --scheduler "$s" --size small & done
  wait
done
for s in srr oldest two_level gtlrr gty pro spin_backoff kaws lfws kaws:sharing=off; do
  run "hotspot.$s" --workload hotspot --scheduler "$s" --size small &
  run "transactions.$s" --workload transactions --scheduler "$s" --size small &
  wait
done
run vortex.swas --workload hotspot --preset vortex_1sm --scheduler swas:policy=gtlrr --size small &
run titan.gto --workload sgemm --preset titanx_pascal --scheduler gto --size small &
wait
# A decode longer than a cycle: instructions can reach the buffer's head undecoded.
run hotspot.decode8 --workload hotspot --set sm.decode_latency=8 --size small &
run transactions.decode3 --workload transactions --set sm.decode_latency=3 --scheduler gto --size small &
wait
run vector_add.default.lrr --workload vector_add --scheduler lrr &
run hotspot.default.gto --workload hotspot --scheduler gto &
wait
run transactions.default.kaws --workload transactions --scheduler kaws &
run bfs.default.pro --workload bfs --scheduler pro &
wait
echo "$(ls "$out"/*.json | wc -l) runs in $out"
