#!/usr/bin/env bash
# Compares the timing-mode speed of two tlmgpu_bench binaries. This machine's
# own speed drifts by several per cent within minutes, so the binaries run
# alternately, round after round, and the medians are compared.
#
#   scripts/bench_ab.sh OLD_BENCH NEW_BENCH [ROUNDS] [WORKLOAD...]
#
# ROUNDS defaults to 5, the workloads to vector_add transactions sgemm.
# OLD_ARGS / NEW_ARGS (environment) are extra options for each side, e.g.
#   OLD_ARGS="--threads 1" NEW_ARGS="--threads 2" scripts/bench_ab.sh B B 5 sgemm
# compares one binary's speed on one and on two host threads.
# Prints, per workload, each binary's range and median of warp instructions
# per host second and the new binary's median change.
set -eu
if [ $# -lt 2 ]; then
  echo "usage: $0 OLD_BENCH NEW_BENCH [ROUNDS] [WORKLOAD...]" >&2
  exit 2
fi
old=$1
new=$2
rounds=${3:-5}
shift $(($# < 3 ? $# : 3))
workloads=${*:-vector_add transactions sgemm}
for bin in "$old" "$new"; do
  [ -x "$bin" ] || { echo "$0: not an executable: $bin" >&2; exit 2; }
done
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
results=$(mktemp)
trap 'rm -f "$results"' EXIT
for r in $(seq "$rounds"); do
  for side in old new; do
    bin=$old
    args=${OLD_ARGS:-}
    [ $side = new ] && bin=$new && args=${NEW_ARGS:-}
    # Table rows: | workload | divergence | warp insts | cycles | host s | M/s |
    # shellcheck disable=SC2086
    "$bin" --mode timing --repeat 1 $args $workloads | awk -F'|' -v side=$side \
      '$2 ~ /^ [a-z_0-9]+ $/ && $7 ~ /M/ { gsub(/ /, "", $2); split($7, v, " "); print side, $2, v[1] }' >>"$results"
  done
  echo "round $r of $rounds done" >&2
done
median() { sort -g | awk '{ x[NR] = $1 } END { print (NR % 2) ? x[(NR + 1) / 2] : (x[NR / 2] + x[NR / 2 + 1]) / 2 }'; }
printf '| workload | old (M/s) | new (M/s) | median change |\n|---|---:|---:|---:|\n'
for w in $workloads; do
  o=$(awk -v w="$w" '$1 == "old" && $2 == w { print $3 }' "$results")
  n=$(awk -v w="$w" '$1 == "new" && $2 == w { print $3 }' "$results")
  [ -n "$o" ] && [ -n "$n" ] || { echo "$0: no result for $w" >&2; exit 1; }
  om=$(echo "$o" | median)
  nm=$(echo "$n" | median)
  orange=$(echo "$o" | sort -g | sed -n '1p;$p' | paste -sd-)
  nrange=$(echo "$n" | sort -g | sed -n '1p;$p' | paste -sd-)
  awk -v w="$w" -v or="$orange" -v nr="$nrange" -v om="$om" -v nm="$nm" \
    'BEGIN { printf "| %s | %s (median %.3f) | %s (median %.3f) | %+.1f %% |\n", w, or, om, nr, nm, 100 * (nm / om - 1) }'
done
