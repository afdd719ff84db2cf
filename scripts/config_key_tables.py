#!/usr/bin/env python3
"""Rewrites the key tables of docs/CONFIGURATION.md ("## Keys" up to the next
"## " heading, after its introduction) from the built binary's --dump-config
of each preset: one table per section with meaning, unit, allowed values and
each preset's value (bold where it differs from gtx480).
Usage: python3 scripts/config_key_tables.py [build/tlmgpu]"""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "tlmgpu")
PRESETS = ["gtx480", "titanx_pascal", "vortex_1sm", "qv100", "rtx2060", "rtx3070"]
DOC = os.path.join(ROOT, "docs", "CONFIGURATION.md")


def dump(preset):
    env = dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")
    text = subprocess.run([BIN, "run", "--preset", preset, "--dump-config"], env=env, check=True,
                          capture_output=True, text=True).stdout
    keys, section, comment = [], None, None
    for line in text.splitlines():
        if line.startswith("["):
            section = line.strip("[]")
        elif line.startswith("# ") and section:
            comment = line[2:]
        elif "=" in line and section:
            name, value = (s.strip() for s in line.split("=", 1))
            # "meaning (unit; allowed)" or "meaning (allowed)"
            m = re.match(r"(.*) \(([^()]*(?:\([^()]*\)[^()]*)*)\)$", comment)
            meaning, tail = (m.group(1), m.group(2)) if m else (comment, "")
            unit, allowed = ("", tail)
            if "; " in tail and tail.split("; ", 1)[0] in ("cycles", "DRAM cycles", "bytes", "MHz"):
                unit, allowed = tail.split("; ", 1)
            keys.append((section, f"{section}.{name}", meaning, unit, allowed, value))
    return keys


def main():
    dumps = {p: dump(p) for p in PRESETS}
    values = {p: {k[1]: k[5] for k in dumps[p]} for p in PRESETS}
    out, section = [], None
    for sec, key, meaning, unit, allowed, _ in dumps["gtx480"]:
        if sec != section:
            section = sec
            out += ["", f"### [{sec}]", "", "| key | meaning | unit | allowed | " + " | ".join(PRESETS) + " |",
                    "|---|---|---|---|" + "---|" * len(PRESETS)]
        cells = []
        for p in PRESETS:
            v = values[p][key]
            cells.append(v if p == "gtx480" or v == values["gtx480"][key] else f"**{v}**")
        out.append(f"| `{key}` | {meaning} | {unit} | {allowed} | " + " | ".join(cells) + " |")
    doc = open(DOC).read()
    start = doc.index("## Keys")
    first_table = doc.index("\n### [", start)
    end = doc.index("\n## ", first_table)
    doc = doc[:first_table] + "\n".join(out[1:] if out[0] == "" else out).join(["\n", "\n"]) + doc[end:]
    open(DOC, "w").write(doc)


if __name__ == "__main__":
    main()
