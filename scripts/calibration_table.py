#!/usr/bin/env python3
"""Runs every workload and scheduler of tests/calibration/gpgpusim_gtx480_SIZE.csv
on the gtx480 preset and prints the docs/CALIBRATION.md table: both cycle
counts, the ratio, the miss rates of both simulators and what bounds the run
in ours (DRAM bus utilisation, scheduler stall shares), plus the geometric
mean; at the default size also GPGPU-Sim's DRAM bus utilisation and the DRAM
bandwidth ours reaches.
Usage: python3 scripts/calibration_table.py [build/tlmgpu] [--size small|default] [--set k=v ...]"""
import csv
import json
import math
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
args = sys.argv[1:]
BIN = args.pop(0) if args and not args[0].startswith("--") else os.path.join(ROOT, "build", "tlmgpu")
SIZE = "small"
if len(args) >= 2 and args[0] == "--size":
    SIZE = args[1]
    args = args[2:]
EXTRA = args


def ours(workload, scheduler):
    policy = "two_level:group=6" if scheduler == "two_level" else scheduler
    with tempfile.NamedTemporaryFile(suffix=".json") as f:
        subprocess.run([BIN, "run", "--workload", workload, "--mode", "timing", "--size", SIZE, "--preset",
                        "gtx480", "--scheduler", policy, "--stats", f.name] + EXTRA,
                       env=dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1"), check=True,
                       stdout=subprocess.DEVNULL)
        j = json.load(open(f.name))
    m = j["modules"]

    def total(suffix):
        return sum(v for k, v in m.items() if k.endswith(suffix))

    l1_acc = total(".l1d.hits") + total(".l1d.misses") + total(".l1d.mshr_merges")
    l2_hits = sum(v for k, v in m.items() if k.startswith("gpu.l2_") and k.endswith(".hits"))
    l2_miss = sum(v for k, v in m.items() if k.startswith("gpu.l2_") and k.endswith(".misses"))
    dram_util = [v for k, v in m.items() if k.startswith("gpu.dram") and k.endswith(".bus_utilization")]
    stalls = {c: total("." + c) for c in ("issued", "idle", "scoreboard", "pipeline")}
    sched_cycles = sum(stalls.values()) or 1
    return {
        "cycles": j["sim_cycles"],
        "warp_insts": j["warp_insts"],
        "l1_miss": total(".l1d.misses") / l1_acc if l1_acc else 0.0,
        "l2_miss": l2_miss / (l2_hits + l2_miss) if l2_hits + l2_miss else 0.0,
        "dram_util": sum(dram_util) / len(dram_util) if dram_util else 0.0,
        "issued": stalls["issued"] / sched_cycles,
        "scoreboard": stalls["scoreboard"] / sched_cycles,
        "gbps": total(".bandwidth_gbps"),
    }


def main():
    rows = []
    with open(os.path.join(ROOT, "tests", "calibration", f"gpgpusim_gtx480_{SIZE}.csv")) as f:
        for r in csv.DictReader(line for line in f if not line.startswith("#")):
            rows.append(r)
    wide = SIZE != "small"
    print("| workload | scheduler | GPGPU-Sim cycles | tlmgpu cycles | ratio | L1D miss rate (GPGPU-Sim / ours) "
          "| L2 miss rate (GPGPU-Sim / ours) | DRAM bus busy" + (" (GPGPU-Sim / ours) | DRAM GB/s (ours)" if wide else "")
          + " | issue slots used | scoreboard stalls |")
    print("|---|---|---:|---:|---:|---|---|---:|" + ("---:|" if wide else "") + "---:|---:|")
    logs = []
    for r in rows:
        o = ours(r["workload"], r["scheduler"])
        ratio = o["cycles"] / float(r["gpgpusim_cycles"])
        logs.append(math.log(ratio))
        print(f"| {r['workload']} | {r['scheduler']} | {r['gpgpusim_cycles']} | {o['cycles']} | {ratio:.2f} "
              f"| {float(r['l1d_miss_rate']):.2f} / {o['l1_miss']:.2f} | {float(r['l2_miss_rate']):.2f} / "
              f"{o['l2_miss']:.2f} | "
              + (f"{float(r['dram_util']):.0%} / {o['dram_util']:.0%} | {o['gbps']:.0f}" if wide else f"{o['dram_util']:.0%}")
              + f" | {o['issued']:.0%} | {o['scoreboard']:.0%} |")
    print(f"\ngeometric mean of the ratios: {math.exp(sum(logs) / len(logs)):.3f}")


if __name__ == "__main__":
    main()
