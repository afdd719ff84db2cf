#!/usr/bin/env bash
# Rewrites configs/<preset>.ini from the built preset (${TLMGPU:-build/tlmgpu}
# --dump-config), keeping each file's header comment (the lines before the
# first section). Run after adding a key or changing a preset.
set -euo pipefail
cd "$(dirname "$0")/.."
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
for ini in configs/*.ini; do
  preset=$(basename "$ini" .ini)
  header=$(sed -n '1,/^\[/p' "$ini" | sed '$d')
  { printf '%s\n\n' "$header"; "${TLMGPU:-build/tlmgpu}" run --preset "$preset" --dump-config | sed -n '/^\[/,$p'; } > "$ini.new"
  mv "$ini.new" "$ini"
done
