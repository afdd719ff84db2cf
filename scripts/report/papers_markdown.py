#!/usr/bin/env python3
"""papers_markdown.py OUT_DIR: the tables of docs/SCHEDULERS.md ("Our
results") from a `tlmgpu_papers --out OUT_DIR` run, as Markdown on stdout.

Reads OUT_DIR/<paper>.csv (columns by header name; a paper without a CSV is
left out) and prints, per paper, our numbers per workload, the aggregate the
paper reports (geomean or mean), the paper's number and whether our direction
agrees; where the paper gives a number for one benchmark, it follows ours in
brackets. Every number, aggregates included, is the CSV's as tlmgpu_papers
wrote it, rounded to three decimals (error rates to two): the script only
arranges them.

Exit codes: 0 written; 2 bad usage or OUT_DIR holds no paper CSV.
"""

import csv
import math
import os
import sys


# SWaS's runs turn the oracles on (they observe, the schedule is the same):
# the tables name the policies without that option.
ORACLES = "--set sm.oracle_schedulers=true"


def read_csv(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    for r in rows:
        for key in ("options", "baseline"):
            if r.get(key):
                r[key] = " ".join(r[key].replace(ORACLES, " ").split())
    return rows


def is_aggregate(row):
    w = row["workload"]
    return w.startswith("geomean(") or w.startswith("mean(")


def num(text, digits=3):
    try:
        v = float(text)
    except (TypeError, ValueError):
        return text if text else ""
    return f"{v:.{digits}f}"


def workloads(rows):
    seen = []
    for r in rows:
        if not is_aggregate(r) and not r["scheduler"].endswith("backoff=best") and r["workload"] not in seen:
            seen.append(r["workload"])
    return seen


def table(header, body):
    out = ["| " + " | ".join(header) + " |", "|" + "|".join(["---"] + ["---:"] * (len(header) - 1)) + "|"]
    out += ["| " + " | ".join(cells) + " |" for cells in body]
    return "\n".join(out)


def pivot(rows, columns):
    """columns: [(label, predicate)]; rows per workload, then the aggregate,
    the paper's number and the agreement of the aggregate."""
    names = workloads([r for r in rows if any(p(r) for _, p in columns)])
    body = []
    for w in names:
        cells = [w]
        for _, pred in columns:
            match = [r for r in rows if r["workload"] == w and pred(r)]
            cells.append(cell_with_own_paper_number(match[0], aggregate_of(rows, pred)) if match else "")
        body.append(cells)
    agg, paper, agrees = [], ["paper"], ["agrees"]
    label = "aggregate"
    for _, pred in columns:
        match = [r for r in rows if is_aggregate(r) and pred(r)]
        if match:
            label = match[0]["workload"]
            agg.append("**" + num(match[0]["ours"]) + "**")
            paper.append(match[0]["paper"])
            agrees.append(match[0]["agrees"])
        else:
            agg.append("")
            paper.append("")
            agrees.append("")
    body.append(["**" + label.replace("(", " (") + "**"] + agg)
    body.append(paper)
    body.append(agrees)
    return table(["workload"] + [c for c, _ in columns], body)


def aggregate_of(rows, pred):
    match = [r for r in rows if is_aggregate(r) and pred(r)]
    return match[0] if match else None


def cell_with_own_paper_number(row, aggregate):
    """Ours, and in brackets the paper's number for this benchmark where the
    paper gives one (it differs from the aggregate's)."""
    if row["status"] != "ok":
        return row["status"]
    cell = num(row["ours"])
    if row["paper"] and (aggregate is None or row["paper"] != aggregate["paper"]):
        cell += f" ({num(row['paper'])})"
    return cell


def metric_is(metric, scheduler=None, baseline=None):
    def pred(r):
        return (r["metric"] == metric and (scheduler is None or r["scheduler"] == scheduler)
                and (baseline is None or r["baseline"] == baseline))
    return pred


def pro(rows):
    print("**PRO** (preset %s; speedup of `pro`, > 1 favours PRO):\n" % rows[0]["preset"])
    print(pivot(rows, [("vs LRR", metric_is("speedup_over_lrr")), ("vs TL", metric_is("speedup_over_two_level")),
                       ("vs GTO", metric_is("speedup_over_gto"))]))
    print("\nStall ratios of PRO (baseline's stalls / PRO's, geomean over the workloads; seed 000 Table III):\n")
    body = []
    for base, name in (("lrr", "LRR"), ("two_level", "TL"), ("gto", "GTO")):
        cells = [name]
        for cls in ("idle", "scoreboard", "pipeline", "total"):
            m = [r for r in rows if is_aggregate(r) and r["metric"] == f"{cls}_stall_ratio_over_{base}"]
            cells.append(f"{num(m[0]['ours'])} ({m[0]['paper']}, {m[0]['agrees']})" if m else "")
        body.append(cells)
    print(table(["baseline", "idle (paper, agrees)", "scoreboard", "pipeline", "total"], body))
    total = [(name, metric_is(f"total_stall_ratio_over_{base}"))
             for base, name in (("lrr", "LRR"), ("two_level", "TL"), ("gto", "GTO"))]
    if any(r["paper"] != aggregate_of(rows, pred)["paper"] for _, pred in total for r in rows
           if pred(r) and not is_aggregate(r) and aggregate_of(rows, pred)):
        print("\nTotal stalls of the baseline over PRO's per benchmark, Table III's value in brackets:\n")
        print(pivot(rows, total))


def kaws(rows):
    print("**KAWS** (preset %s; `kaws:base=gto`, with and without warp sharing):\n" % rows[0]["preset"])
    cols = []
    for sharing in ("on", "off"):
        sched = f"kaws:base=gto,sharing={sharing}"
        cols += [(f"{sharing}: vs LRR", metric_is("speedup_over_lrr", sched)),
                 (f"{sharing}: vs GTO", metric_is("speedup_over_gto", sched)),
                 (f"{sharing}: last-CTA / GTO", metric_is("last_cta_time_vs_gto", sched))]
    print(pivot(rows, cols))


def spin_backoff(rows):
    print("**Spin back-off** (preset %s; best cycle reduction over `gto`, the best back-off amount in "
          "brackets):\n" % rows[0]["preset"])
    detectors = []
    for r in rows:
        if r["scheduler"].endswith("backoff=best") and r["scheduler"] not in detectors:
            detectors.append(r["scheduler"])
    body = []
    for w in workloads(rows):
        cells = [w]
        paper = ""
        for d in detectors:
            m = [r for r in rows if r["workload"] == w and r["scheduler"] == d]
            if not m or m[0]["status"] != "ok":
                cells.append(m[0]["status"] if m else "")
                continue
            amount = ""
            for part in m[0]["details"].split(";"):
                if part.startswith("best backoff="):
                    amount = part[len("best backoff="):]
            cells.append(f"{num(m[0]['ours'])} ({amount})")
            paper = paper or m[0]["paper"]
        body.append(cells + [paper])
    names = [d.split("detector=")[1].replace(",backoff=best", "") for d in detectors]
    print(table(["workload"] + names + ["paper"], body))


def lfws(rows):
    print("**LFWS** (preset %s; normalized IPC = IPC / LRR's):\n" % rows[0]["preset"])
    policies = []
    for r in rows:
        if r["metric"] == "normalized_ipc" and r["scheduler"] not in policies:
            policies.append(r["scheduler"])
    print(pivot(rows, [(p, metric_is("normalized_ipc", p)) for p in policies]))
    print("\nLFWS against each policy (IPC of lfws / IPC of the policy, geomean), and two_level_opt over two_level:\n")
    body = []
    for r in rows:
        if is_aggregate(r) and r["metric"] in ("ipc_lfws_over", "ipc_over_two_level"):
            body.append([f"{r['scheduler']} / {r['baseline']}", num(r["ours"]), r["paper"] or "", r["agrees"]])
    print(table(["ratio", "ours", "paper", "agrees"], body))
    over_lrr = metric_is("ipc_lfws_over", "lfws", "lrr")
    agg = aggregate_of(rows, over_lrr)
    if agg and any(over_lrr(r) and not is_aggregate(r) and r["paper"] != agg["paper"] for r in rows):
        print("\nLFWS over LRR on the benchmarks section 3.2 names, the paper's statement in brackets:\n")
        body = [[r["workload"], cell_with_own_paper_number(r, agg)] for r in rows
                if over_lrr(r) and not is_aggregate(r) and r["paper"] != agg["paper"]]
        print(table(["workload", "IPC lfws / lrr"], body))


def swas(rows):
    print("**SWaS** (preset %s; error rate = cycles with a scheduling error, %% of cycles, mean over the "
          "workloads; IPC ratio = swas / the baseline with the same issue policy, geomean):\n" % rows[0]["preset"])
    body = []
    for r in rows:
        if is_aggregate(r) and r["metric"] == "error_rate_pct":
            body.append([f"{r['scheduler']} {r['options']}".strip(), num(r["ours"], 2), r["paper"], r["agrees"]])
    print(table(["issue policy, fetch policy", "error rate (%)", "paper", "agrees"], body))
    print()
    body = []
    for r in rows:
        if is_aggregate(r) and r["metric"] == "ipc_ratio_swas_over_baseline":
            body.append([r["scheduler"], r["baseline"], num(r["ours"]), r["paper"], r["agrees"]])
    print(table(["swas", "baseline (issue --fetch-scheduler fetch)", "IPC ratio", "paper", "agrees"], body))
    pair = metric_is("ipc_ratio_swas_over_baseline", "swas:policy=gtlrr", "gtlrr --fetch-scheduler lrr")
    if any(pair(r) and not is_aggregate(r) for r in rows):
        print("\nPer benchmark, Table II's pair (SWaS GTLRR over fetch LRR, issue GTLRR), the paper's value in "
              "brackets:\n")
        print(pivot(rows, [("IPC ratio", pair)]))


PAPERS = [("pro", pro), ("spin_backoff", spin_backoff), ("kaws", kaws), ("lfws", lfws), ("swas", swas)]


def main(argv):
    if len(argv) != 2 or argv[1].startswith("-"):
        print("usage: papers_markdown.py OUT_DIR (a tlmgpu_papers --out directory)", file=sys.stderr)
        return 2
    found = False
    for name, render in PAPERS:
        path = os.path.join(argv[1], name + ".csv")
        if not os.path.exists(path):
            continue
        rows = read_csv(path)
        if not rows:
            continue
        found = True
        render(rows)
        print()
    if not found:
        print(f"papers_markdown.py: no paper CSV in {argv[1]}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
