#!/usr/bin/env python3
"""paper_mechanisms.py OUT_DIR [--paper P] [--workloads A,B] [--differences]:
the evidence behind a `tlmgpu_papers --out OUT_DIR` comparison, as Markdown
on stdout. With --differences, the rows that need it instead: aggregates
whose direction disagrees with the paper's, and benchmarks whose own paper
number differs from ours in direction or by more than a factor of two in
the gain.

For every workload of a paper's CSV it reads the statistics of every policy
run on it (OUT_DIR/runs/*.json, found through the runs' meta files by
preset, workload and size) and prints what decides whether a scheduler can
matter:

- per kernel: CTAs, CTAs per SM and the resource that limits them
  (registers, shared memory, threads or the CTA slots), and waves = CTAs /
  (SMs x CTAs per SM);
- per policy: cycles; the share of scheduler-cycles that issued or stalled
  as idle (no warp with a valid instruction), scoreboard (waiting for an
  operand) or pipeline (a ready warp lost to another or its unit was busy),
  seed 000's classes; L1D and L2 hit rates; the DRAM data bus's mean
  utilisation; SM busy = the share of SM-cycles with a resident CTA (below
  100 % the SMs run out of CTAs: a tail or an imbalance); the last CTA's
  execution time.

Every number is computed from the run's statistics; nothing is estimated.
Exit codes: 0 written; 2 bad usage, or OUT_DIR holds no paper CSV.
"""

import glob
import json
import os
import re
import sys

from papers_markdown import PAPERS as MARKDOWN_PAPERS, is_aggregate, read_csv  # the script beside this one

PAPERS = tuple(name for name, _ in MARKDOWN_PAPERS)


def option_value(words, name):
    return words[words.index(name) + 1] if name in words[:-1] else ""


def run_index(out_dir):
    """(preset, workload, size) -> [(policy, statistics file)] of every
    finished run in OUT_DIR/runs, from the meta files tlmgpu_papers writes
    (its key is preset|workload|size|scheduler|options)."""
    index = {}
    for meta_path in sorted(glob.glob(os.path.join(out_dir, "runs", "*.meta.json"))):
        with open(meta_path, encoding="utf-8") as f:
            meta = json.load(f)
        stats = meta_path[: -len(".meta.json")] + ".json"
        if meta.get("status") != "ok" or not os.path.exists(stats):
            continue
        key = meta.get("key", "").split("|")
        if len(key) == 5:
            preset, workload, size, scheduler, options = key
        else:  # no key: the command's options
            words = meta.get("command", "").split()
            preset, workload = option_value(words, "--preset"), option_value(words, "--workload")
            size, scheduler, options = option_value(words, "--size"), option_value(words, "--scheduler"), ""
        policy = (scheduler + " " + options).strip()
        index.setdefault((preset, workload, size), []).append((policy, stats))
    for runs in index.values():
        runs.sort()
    return index


def ratio(num, den):
    return num / den if den else None


def sm_busy(launches, num_sms):
    """SM-cycles with at least one resident CTA over all SM-cycles, summed
    over the launches (each launch's CTA times are from its own start)."""
    busy = total = 0
    for launch in launches:
        per_sm = {}
        for cta in launch.get("ctas", []):
            per_sm.setdefault(cta["sm"], []).append((cta["start"], cta["end"]))
        for intervals in per_sm.values():
            intervals.sort()
            end = None
            for s, e in intervals:
                if end is None or s > end:
                    busy += e - s
                    end = e
                elif e > end:
                    busy += e - end
                    end = e
        total += launch["cycles"] * num_sms
    return ratio(busy, total)


def evidence(stats):
    m = stats["modules"]
    num_sms = len({k.split(".")[1] for k in m if re.match(r"gpu\.sm\d+\.", k)})
    issued = sum(v for k, v in m.items() if ".sched" in k and k.endswith(".issued"))
    classes = {c: sum(v for k, v in m.items() if ".sched" in k and k.endswith("." + c))
               for c in ("idle", "scoreboard", "pipeline")}
    sched_cycles = issued + sum(classes.values())
    l1_hits = sum(v for k, v in m.items() if ".l1d." in k and k.endswith(".hits"))
    l1_misses = sum(v for k, v in m.items() if ".l1d." in k and k.endswith(".misses"))
    l2_hits = sum(v for k, v in m.items() if k.startswith("gpu.l2_") and k.endswith(".hits"))
    l2_misses = sum(v for k, v in m.items() if k.startswith("gpu.l2_") and k.endswith(".misses"))
    dram = [v for k, v in m.items() if k.startswith("gpu.dram") and k.endswith(".bus_utilization")]
    return {
        "cycles": stats.get("sim_cycles"),
        "issue": ratio(issued, sched_cycles),
        "idle": ratio(classes["idle"], sched_cycles),
        "scoreboard": ratio(classes["scoreboard"], sched_cycles),
        "pipeline": ratio(classes["pipeline"], sched_cycles),
        "l1d_hit": ratio(l1_hits, l1_hits + l1_misses),
        "l2_hit": ratio(l2_hits, l2_hits + l2_misses),
        "dram_bus": ratio(sum(dram), len(dram)),
        "sm_busy": sm_busy(stats.get("launches", []), num_sms),
        "last_cta": m.get("gpu.dispatcher.last_cta_execution_time"),
        "num_sms": num_sms,
    }


def pct(v):
    return "" if v is None else f"{100 * v:.1f}"


def occupancy_lines(stats, num_sms):
    """One line per distinct kernel (the first launch of each)."""
    seen, lines = set(), []
    for launch in stats.get("launches", []):
        kernel = launch.get("kernel", "?")
        if kernel in seen:
            continue
        seen.add(kernel)
        occ = launch.get("occupancy")
        ctas = len(launch.get("ctas", []))
        launches = sum(1 for x in stats.get("launches", []) if x.get("kernel") == kernel)
        line = f"`{kernel}` x {launches}: {ctas} CTAs"
        if occ and occ.get("ctas_per_sm") and num_sms:
            per_sm = occ["ctas_per_sm"]
            line += (f", {per_sm} per SM ({occ.get('warps_per_sm')} warps, limited by {occ.get('limited_by')}), "
                     f"{ctas / (num_sms * per_sm):.2f} waves")
        else:
            line += ", occupancy not recorded"
        lines.append(line)
    return lines


def paper_tables(paper, rows, index, only):
    lines = []
    seen = []
    for r in rows:
        if is_aggregate(r) or (only and r["workload"] not in only):
            continue
        key = (r["preset"], r["workload"], r["size"])
        if key not in seen:
            seen.append(key)
    for key in seen:
        runs = index.get(key)
        if not runs:
            continue
        loaded = []
        for policy, path in runs:
            with open(path, encoding="utf-8") as f:
                loaded.append((policy, json.load(f)))
        first = loaded[0][1]
        num_sms = evidence(first)["num_sms"]
        lines.append(f"**{key[1]}** ({key[0]}, {num_sms} SMs): " + "; ".join(occupancy_lines(first, num_sms)))
        lines.append("")
        lines.append("| policy | cycles | issue % | idle % | scoreboard % | pipeline % | L1D hit % | L2 hit % "
                     "| DRAM bus % | SM busy % | last CTA |")
        lines.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for policy, stats in loaded:
            e = evidence(stats)
            lines.append(f"| {policy} | {e['cycles']} | {pct(e['issue'])} | {pct(e['idle'])} | "
                         f"{pct(e['scoreboard'])} | {pct(e['pipeline'])} | {pct(e['l1d_hit'])} | "
                         f"{pct(e['l2_hit'])} | {pct(e['dram_bus'])} | {pct(e['sm_busy'])} | "
                         f"{'' if e['last_cta'] is None else int(e['last_cta'])} |")
        lines.append("")
    if lines:
        print(f"### {paper}\n")
        print("\n".join(lines))


def to_float(text):
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


def differences(paper, rows):
    """The rows to explain: aggregates whose direction disagrees with the
    paper's, and benchmarks whose own paper number differs from ours in
    direction or by more than a factor of two in the gain (value - 1, or the
    value itself for a metric whose neutral point is 0)."""
    aggregates = {(r["scheduler"], r["options"], r["metric"], r["baseline"]): r for r in rows if is_aggregate(r)}
    out = []
    for r in rows:
        if r["status"] != "ok":
            continue
        if is_aggregate(r):
            if r["agrees"] == "no":
                out.append((r, "direction"))
            continue
        agg = aggregates.get((r["scheduler"], r["options"], r["metric"], r["baseline"]))
        if not r["paper"] or (agg is not None and r["paper"] == agg["paper"]):
            continue  # no number of the paper's own for this benchmark
        ours, theirs = to_float(r["ours"]), to_float(r["paper"])
        if ours is None or theirs is None:  # a direction or a range: the CSV's verdict
            if r["agrees"] == "no":
                out.append((r, "direction"))
            continue
        neutral = 0.0 if r["metric"] in ("cycle_reduction", "best_cycle_reduction", "error_rate_pct") else 1.0
        g_ours, g_paper = ours - neutral, theirs - neutral
        if abs(g_paper) < 0.01:  # the paper: no change
            if abs(g_ours) >= 0.02:
                out.append((r, "paper: no change"))
        elif g_ours * g_paper < 0 and abs(g_ours) >= 0.01:
            out.append((r, "direction"))
        elif min(abs(g_ours), abs(g_paper)) * 2 < max(abs(g_ours), abs(g_paper)):
            out.append((r, "factor > 2"))
    if not out:
        return
    print(f"### {paper}: rows to explain\n")
    print("| workload | policy | metric | baseline | ours | paper | why listed |")
    print("|---|---|---|---|---:|---:|---|")
    for r, why in out:
        policy = (r["scheduler"] + " " + r["options"]).strip()
        print(f"| {r['workload']} | {policy} | {r['metric']} | {r['baseline']} | {to_float(r['ours']):.3f} | "
              f"{r['paper']} | {why} |")
    print()


def main(argv):
    args = argv[1:]
    out_dir, paper, only, list_differences = None, None, set(), False
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--differences":
            list_differences = True
            i += 1
            continue
        if a in ("--paper", "--workloads") and i + 1 < len(args):
            if a == "--paper":
                paper = args[i + 1]
            else:
                only = set(x for x in args[i + 1].split(",") if x)
            i += 2
        elif not a.startswith("-") and out_dir is None:
            out_dir = a
            i += 1
        else:
            out_dir = None
            break
    if out_dir is None or (paper is not None and paper not in PAPERS):
        print("usage: paper_mechanisms.py OUT_DIR [--paper pro|spin_backoff|kaws|lfws|swas] [--workloads A,B] "
              "[--differences]",
              file=sys.stderr)
        return 2
    index = run_index(out_dir)
    found = False
    for name in PAPERS:
        if paper is not None and name != paper:
            continue
        path = os.path.join(out_dir, name + ".csv")
        if os.path.exists(path):
            found = True
            if list_differences:
                differences(name, read_csv(path))
            else:
                paper_tables(name, read_csv(path), index, only)
    if not found:
        print(f"paper_mechanisms.py: no paper CSV in {out_dir}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
