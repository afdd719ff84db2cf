#!/usr/bin/env bash
# Rewrites the golden statistics (tests/golden/NAME.json) from the runs listed
# in tests/golden/runs.txt, with ${TLMGPU:-build/tlmgpu}. Host-side numbers
# (host seconds, evaluated cycles) are left out: the files hold what the
# model simulated. A commit that changes them must say why in its message.
#
#   scripts/update_golden.sh             # every run
#   scripts/update_golden.sh NAME...     # only these
set -euo pipefail
cd "$(dirname "$0")/.."
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
bin=${TLMGPU:-build/tlmgpu}
[ -x "$bin" ] || { echo "update_golden.sh: no tlmgpu binary at $bin (set TLMGPU)" >&2; exit 2; }
python=/usr/bin/python3
[ -x "$python" ] || python=python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
while read -r name args; do
  case "$name" in ''|'#'*) continue ;; esac
  if [ $# -gt 0 ] && ! printf '%s\n' "$@" | grep -qx "$name"; then continue; fi
  # shellcheck disable=SC2086  # the options are words
  if ! "$bin" run --mode timing --size small $args --stats "$tmp/stats.json" >"$tmp/out.txt" 2>&1; then
    echo "update_golden.sh: $name failed:" >&2
    cat "$tmp/out.txt" >&2
    status=1
    continue
  fi
  "$python" - "$tmp/stats.json" "tests/golden/$name.json" <<'PY'
import json, sys
stats = json.load(open(sys.argv[1]))
# What the host did, not what the model simulated (tests/test_golden.cpp leaves the same out).
for key in ("host_seconds", "warp_insts_per_host_second"):
    stats.pop(key, None)
stats["modules"] = {k: v for k, v in stats.get("modules", {}).items() if not k.endswith("evaluated_cycles")}
with open(sys.argv[2], "w") as f:
    json.dump(stats, f, indent=1, sort_keys=True)
    f.write("\n")
PY
  echo "$name"
done < tests/golden/runs.txt
exit $status
