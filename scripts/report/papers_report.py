#!/usr/bin/env python3
"""papers_report.py OUT_DIR: the figures and the HTML page of a
`tlmgpu_papers --out OUT_DIR` run.

Reads OUT_DIR/<paper>.csv (one per paper that was run; columns by header
name) and, for the figures that need more than the CSV (PRO's stall classes
and CTA timeline), the run statistics OUT_DIR/runs/*.json, found by their
top-level workload / scheduler / preset / size. Writes OUT_DIR/figures/
NAME.svg and NAME.png and OUT_DIR/index.html. A figure whose data is missing
is replaced by a note on the page; a paper without a CSV is not on the page.

Exit codes: 0 page written; 2 bad usage or OUT_DIR holds no paper CSV.
"""

import glob
import json
import os
import sys

import report_common as rc

# In the order tlmgpu_papers runs them; the claim is what the figures test.
PAPERS = [
    ("pro", "PRO: progress-aware warp scheduling (seed 000)",
     "Prioritising the warps and CTAs that have made the least progress finishes the slowest CTAs earlier "
     "and shortens the kernel: 1.12x over LRR, 1.13x over two-level and 1.02x over GTO (geomean, Fig. 4), "
     "with fewer idle stalls (Table III)."),
    ("spin_backoff", "Spin detection and back-off (seed 001)",
     "Detecting spinning warps (greedy history or a prediction table) and backing them off cuts the total "
     "cycles of lock-heavy kernels, by up to 50% on global_increment, with a back-off amount that has a "
     "sweet spot (Figs. 4-8)."),
    ("kaws", "KAWS: kernel-aware warp scheduling (seed 002)",
     "Scheduling the warps of CTAs that will finish last first (and sharing issue slots) gives 7.97% over "
     "LRR and 3.26% over GTO on average, and the last CTA finishes at 94.91% of GTO's time."),
    ("lfws", "LFWS: long-operation-first warp scheduling (seed 004)",
     "Issuing long-latency operations first gives 10.60% more IPC than LRR on average (Fig. 4); LPI and "
     "LLOS alone give about 5%; two-level gives no improvement over LRR."),
    ("swas", "SWaS: synchronized fetch and issue warp scheduling (seed 003)",
     "A fetch scheduler that disagrees with the issue scheduler makes scheduling errors (0.10% to 81.12% "
     "of the cycles, Fig. 5); SWaS has none, at about the same IPC (Table II, Figs. 6-8)."),
]

STALL_CLASSES = ("idle", "scoreboard", "pipeline")


class Skip(Exception):
    """A figure whose data this run did not produce: a note on the page."""


def subject(row):
    return row["scheduler"] + (" " + row["options"] if row.get("options") else "")


def is_aggregate(row):
    w = row.get("workload", "")
    return w.startswith("geomean(") or w.startswith("mean(") or row.get("scheduler", "").endswith("backoff=best")


def workloads_of(rows):
    seen = []
    for r in rows:
        if not is_aggregate(r) and r["workload"] not in seen:
            seen.append(r["workload"])
    return seen


def ours(row):
    return rc.to_float(row.get("ours")) if row.get("status") == "ok" else None


# ------------------------------------------------------------ run statistics


class RunIndex:
    """The statistics of the runs in OUT/runs, by (workload, scheduler,
    preset, size). A key shared by runs with different results (SWaS's fetch
    policy is not in the key) is ambiguous and left out: no figure picks a run
    by guess. The same run stored twice (the simulator is deterministic) is one."""

    def __init__(self, out_dir):
        self.paths = {}
        cycles = {}
        ambiguous = set()
        for path in sorted(glob.glob(os.path.join(out_dir, "runs", "*.json"))):
            try:
                with open(path, encoding="utf-8") as f:
                    stats = json.load(f)
            except (OSError, ValueError):
                continue  # a run that died while writing: its row says so
            if not isinstance(stats, dict) or "launches" not in stats or "modules" not in stats:
                continue  # not a statistics file (e.g. a run's meta data)
            key = (stats.get("workload"), stats.get("scheduler"), stats.get("preset"), stats.get("size"))
            if key in self.paths and cycles[key] != stats.get("sim_cycles"):
                ambiguous.add(key)
            self.paths[key] = path
            cycles[key] = stats.get("sim_cycles")
        for key in ambiguous:
            del self.paths[key]
        self.cache = {}

    def get(self, workload, scheduler, preset, size):
        path = self.paths.get((workload, scheduler, preset, size))
        if path is None:
            return None
        if path not in self.cache:
            with open(path, encoding="utf-8") as f:
                self.cache[path] = json.load(f)
        return self.cache[path]


def scheduler_class_sum(stats, cls):
    """gpu.smN.schedM.CLASS summed over every scheduler of every SM."""
    total, found = 0.0, False
    for key, value in stats.get("modules", {}).items():
        parts = key.split(".")
        if len(parts) == 4 and parts[0] == "gpu" and parts[1].startswith("sm") and parts[2].startswith("sched") \
                and parts[3] == cls and isinstance(value, (int, float)):
            total += value
            found = True
    return total if found else None


# ------------------------------------------------------------ PRO


PRO_BASELINES = [("lrr", "LRR"), ("two_level", "TL"), ("gto", "GTO")]


def per_workload_and_geomean(rows, metric_of_series, series_keys, groups):
    """values[s][g] and paper[s][g] for grouped bars: the per-workload rows
    then the aggregate row (the last group). The papers give averages, which
    the CSV repeats on each workload's row: drawn once, on the aggregate."""
    values = {s: [None] * len(groups) for s in series_keys}
    paper = {s: [None] * len(groups) for s in series_keys}
    for r in rows:
        s = metric_of_series(r)
        if s not in values:
            continue
        g = len(groups) - 1 if is_aggregate(r) else groups.index(r["workload"]) if r["workload"] in groups else None
        if g is None:
            continue
        values[s][g] = ours(r)
        if is_aggregate(r):
            paper[s][g] = rc.to_float(r.get("paper"))
    return values, paper


def pro_figures(rows, ctx):
    figs = []
    size, preset = rows[0]["size"], rows[0]["preset"]
    workloads = workloads_of(rows)
    groups = workloads + ["geomean"]

    def speedup_series(r):
        for spec, name in PRO_BASELINES:
            if r["metric"] == "speedup_over_" + spec:
                return "over " + name
        return None

    series = ["over " + n for _, n in PRO_BASELINES]
    values, paper = per_workload_and_geomean(rows, speedup_series, series, groups)
    fig, ax = rc.new_figure(width=max(5.0, 0.6 * len(groups) + 2))
    rc.grouped_bars(ax[0][0], groups, series, values, paper, ylabel="PRO speedup",
                    neutral=1.0)
    figs.append(ctx.figures.save(fig, "pro_speedup",
                                 "PRO's speedup over LRR, two-level (TL) and GTO per workload and their geomean "
                                 "(seed 000 Fig. 4); diamonds: the paper's geomean speedups."))

    # Table III: baseline stalls / PRO stalls per class, the geomean rows.
    classes = list(STALL_CLASSES) + ["total"]
    ratio_values = {n: [None] * len(classes) for _, n in PRO_BASELINES}
    ratio_paper = {n: [None] * len(classes) for _, n in PRO_BASELINES}
    for r in rows:
        if not is_aggregate(r):
            continue
        for spec, name in PRO_BASELINES:
            for i, c in enumerate(classes):
                if r["metric"] == f"{c}_stall_ratio_over_{spec}":
                    ratio_values[name][i] = ours(r)
                    ratio_paper[name][i] = rc.to_float(r.get("paper"))
    fig, ax = rc.new_figure(width=6.0)
    rc.grouped_bars(ax[0][0], classes, [n for _, n in PRO_BASELINES], ratio_values, ratio_paper,
                    ylabel="baseline stalls / PRO stalls (geomean)", neutral=1.0)
    figs.append(ctx.figures.save(fig, "pro_stall_ratios",
                                 "Stall cycles of each baseline divided by PRO's, per stall class, geomean over "
                                 "the workloads (seed 000 Table III); diamonds: the paper's Table III."))

    # These need the runs' statistics files; each is skipped on its own.
    for draw in (pro_stall_classes, pro_cta_timeline):
        try:
            figs.append(draw(ctx, workloads, preset, size))
        except Skip as s:
            figs.append(s)
    return figs


def pro_stall_classes(ctx, workloads, preset, size):
    policies = ["lrr", "two_level", "gto", "pro"]
    sums = {p: {c: 0.0 for c in STALL_CLASSES} for p in policies}
    used = []
    for w in workloads:
        runs = {p: ctx.runs.get(w, p, preset, size) for p in policies}
        if any(s is None for s in runs.values()):
            continue
        classes = {p: {c: scheduler_class_sum(runs[p], c) for c in STALL_CLASSES} for p in policies}
        if any(v is None for p in policies for v in classes[p].values()):
            continue
        used.append(w)
        for p in policies:
            for c in STALL_CLASSES:
                sums[p][c] += classes[p][c]
    lrr_total = sum(sums["lrr"].values())
    if not used or lrr_total <= 0:
        raise Skip("PRO stall classes: no workload has the statistics files of all four policies in runs/.")
    fig, axes = rc.new_figure(width=5.5)
    ax = axes[0][0]
    bottom = [0.0] * len(policies)
    for c in STALL_CLASSES:
        heights = [sums[p][c] / lrr_total for p in policies]
        ax.bar(policies, heights, bottom=bottom, label=c)
        bottom = [b + h for b, h in zip(bottom, heights)]
    ax.set_ylabel("stall cycles / LRR's stall cycles")
    ax.legend(fontsize=7, frameon=False)
    return ctx.figures.save(fig, "pro_stall_classes",
                            "Scheduler stall cycles by class (idle, scoreboard, pipeline; gpu.smN.schedM summed over "
                            "SMs, schedulers and the workloads " + ", ".join(used) + "), normalised to LRR's total "
                            "(seed 000 Table III's classes).")


def cta_lanes(ctas):
    """Each CTA gets the lowest lane of its SM free at its start, so that the
    CTAs resident together on an SM are drawn one above the other."""
    lanes_end = {}  # sm -> end cycle of each lane
    placed = []
    for cta in sorted(ctas, key=lambda c: (c["sm"], c["start"], c["end"])):
        ends = lanes_end.setdefault(cta["sm"], [])
        for lane, end in enumerate(ends):
            if end <= cta["start"]:
                ends[lane] = cta["end"]
                break
        else:
            lane = len(ends)
            ends.append(cta["end"])
        placed.append((cta, lane))
    return placed, max((len(v) for v in lanes_end.values()), default=1)


def pro_cta_timeline(ctx, workloads, preset, size):
    for w in workloads:
        runs = [(p, ctx.runs.get(w, p, preset, size)) for p in ("lrr", "pro")]
        if all(s is not None and s.get("launches") for _, s in runs):
            break
    else:
        raise Skip("PRO CTA timeline: no workload has the statistics files of both LRR and PRO in runs/.")
    fig, axes = rc.new_figure(width=7.0, height=5.0, nrows=2, sharex=True)
    colours = rc.plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for ax, (policy, stats) in zip((axes[0][0], axes[1][0]), runs):
        offset = 0
        ctas = []
        for k, launch in enumerate(stats["launches"]):
            # CTA times count from their launch; launches run one after another.
            for c in launch.get("ctas", []):
                ctas.append({"sm": c["sm"], "start": offset + c["start"], "end": offset + c["end"], "launch": k})
            offset += launch.get("cycles", 0)
            ax.axvline(offset, color="grey", linewidth=0.6, linestyle="--")
        placed, lanes = cta_lanes(ctas)
        h = 0.9 / lanes
        for cta, lane in placed:
            ax.broken_barh([(cta["start"], max(1, cta["end"] - cta["start"]))], (cta["sm"] - 0.45 + lane * h, h * 0.9),
                           facecolors=colours[cta["launch"] % len(colours)])
        sms = sorted({c["sm"] for c in ctas})
        ax.set_yticks(sms)
        ax.set_yticklabels([f"SM{s}" for s in sms], fontsize=6)
        ax.invert_yaxis()
        ax.set_title(f"{w} under {policy.upper()}: {stats.get('sim_cycles', offset)} cycles", fontsize=9)
    axes[1][0].set_xlabel("cycle (dashed: end of a kernel launch; colour: launch)")
    return ctx.figures.save(fig, "pro_cta_timeline",
                            f"Per-SM CTA timeline of {w} under LRR and under PRO (seed 000 Fig. 2's view): one bar "
                            "per CTA from its start to its end cycle, CTAs resident together stacked within their SM.")


# ------------------------------------------------------------ spin back-off


def spin_detector(scheduler):
    if "detector=history" in scheduler:
        return "greedy"
    if "confidence=2" in scheduler:
        return "pt2"
    if "confidence=4" in scheduler:
        return "pt4"
    return None


def spin_backoff_amount(scheduler):
    for part in scheduler.split(":", 1)[-1].split(","):
        if part.startswith("backoff="):
            try:
                return int(part[len("backoff="):])
            except ValueError:
                return None
    return None


def spin_figures(rows, ctx):
    workloads = workloads_of(rows)
    if not workloads:
        raise Skip("spin back-off: the CSV has no per-workload rows.")
    ncols = min(3, len(workloads))
    nrows = (len(workloads) + ncols - 1) // ncols
    fig, axes = rc.new_figure(width=3.4 * ncols, height=2.8 * nrows, ncols=ncols, nrows=nrows)
    colours = rc.plt.rcParams["axes.prop_cycle"].by_key()["color"]
    detectors = ["greedy", "pt2", "pt4"]
    for i, w in enumerate(workloads):
        ax = axes[i // ncols][i % ncols]
        base = None
        for d_i, d in enumerate(detectors):
            pts = []
            for r in rows:
                if r["workload"] != w or r["metric"] != "cycle_reduction" or spin_detector(r["scheduler"]) != d:
                    continue
                bo, cyc = spin_backoff_amount(r["scheduler"]), rc.to_float(r.get("sim_cycles"))
                base = base or rc.to_float(r.get("base_sim_cycles"))
                if bo is not None and cyc is not None and r.get("status") == "ok":
                    pts.append((bo, cyc))
            pts.sort()
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", markersize=3, label=d,
                        color=colours[d_i])
        if base:
            ax.axhline(base, color="grey", linestyle=":", linewidth=1, label="GTO, no back-off")
            # The paper's best reduction per detector family, as the cycles it implies.
            drawn = set()
            for r in rows:
                if r["workload"] == w and r["metric"] == "best_cycle_reduction":
                    p = rc.to_float(r.get("paper"))
                    d = spin_detector(r["scheduler"])
                    family = "greedy" if d == "greedy" else "table"
                    if p is None or family in drawn:
                        continue
                    drawn.add(family)
                    ax.axhline(base * (1 - p), color=colours[detectors.index(d)], linestyle="--", linewidth=1,
                               label=f"paper best ({family}): -{p * 100:.1f}%")
        ax.set_title(w, fontsize=9)
        ax.set_xlabel("back-off amount (cycles)")
        ax.set_ylabel("total cycles")
        ax.legend(fontsize=6, frameon=False, loc="best")
    for j in range(len(workloads), nrows * ncols):
        axes[j // ncols][j % ncols].set_visible(False)
    return [ctx.figures.save(fig, "spin_backoff_cycles",
                             "Total cycles against the back-off amount, one line per detector (greedy history, "
                             "prediction table with confidence 2 and 4), one panel per workload (seed 001 Figs. 4-8); "
                             "dotted: GTO without back-off; dashed: the cycles the paper's best reduction implies.")]


# ------------------------------------------------------------ KAWS


def kaws_figures(rows, ctx):
    workloads = workloads_of(rows)
    groups = workloads + ["geomean"]
    subjects = []
    for r in rows:
        if subject(r) not in subjects:
            subjects.append(subject(r))
    figs = []
    fig, axes = rc.new_figure(width=max(7.0, 1.0 * len(groups) + 2), height=5.6, nrows=2)
    for ax, (metric, name) in zip((axes[0][0], axes[1][0]),
                                  (("speedup_over_lrr", "LRR"), ("speedup_over_gto", "GTO"))):
        picked = [r for r in rows if r["metric"] == metric]
        values, paper = per_workload_and_geomean(picked, subject, subjects, groups)
        rc.grouped_bars(ax, groups, subjects, values, paper, ylabel=f"speedup over {name}", neutral=1.0)
        pv = next((rc.to_float(r.get("paper")) for r in picked if rc.to_float(r.get("paper")) is not None), None)
        if pv is not None:
            ax.axhline(pv, color=rc.PAPER_COLOUR, linestyle="--", linewidth=0.8)
    figs.append(ctx.figures.save(fig, "kaws_speedup",
                                 "KAWS's speedup (baseline cycles / KAWS cycles) over LRR and over GTO per workload "
                                 "and the geomean, with and without warp sharing (seed 002 Performance); dashed line "
                                 "and diamonds: the paper's averages."))
    picked = [r for r in rows if r["metric"] == "last_cta_time_vs_gto"]
    values, paper = per_workload_and_geomean(picked, subject, subjects, groups)
    fig, ax = rc.new_figure(width=max(6.0, 0.8 * len(groups) + 2))
    rc.grouped_bars(ax[0][0], groups, subjects, values, paper, ylabel="last-CTA time / GTO's", neutral=1.0)
    pv = next((rc.to_float(r.get("paper")) for r in picked if rc.to_float(r.get("paper")) is not None), None)
    if pv is not None:
        ax[0][0].axhline(pv, color=rc.PAPER_COLOUR, linestyle="--", linewidth=0.8)
    figs.append(ctx.figures.save(fig, "kaws_last_cta",
                                 "The last CTA's execution time under KAWS normalised to GTO's, per workload and the "
                                 "geomean (seed 002 Resource Utilisation table); dashed: the paper's 94.91%."))
    return figs


# ------------------------------------------------------------ LFWS


def lfws_figures(rows, ctx):
    workloads = workloads_of(rows)
    groups = workloads + ["geomean"]
    picked = [r for r in rows if r["metric"] == "normalized_ipc"]
    policies = []
    for r in picked:
        if r["scheduler"] not in policies:
            policies.append(r["scheduler"])
    if not picked:
        raise Skip("LFWS: the CSV has no normalized_ipc rows.")
    values, paper = per_workload_and_geomean(picked, lambda r: r["scheduler"], policies, groups)
    fig, ax = rc.new_figure(width=max(7.0, 0.9 * len(groups) + 2))
    rc.grouped_bars(ax[0][0], groups, policies, values, paper, ylabel="IPC / LRR's IPC", neutral=1.0)
    return [ctx.figures.save(fig, "lfws_normalized_ipc",
                             "IPC of GTO, two-level, two-level opt, LPI, LLOS and LFWS normalised to LRR (the dotted "
                             "line, the seventh policy) per workload and the geomean (seed 004 Fig. 4); diamonds: "
                             "the paper's averages.")]


# ------------------------------------------------------------ SWaS


def swas_config(r):
    opts = r.get("options", "")
    if opts.startswith("--fetch-scheduler "):
        return "fetch " + opts.split()[1] + " / issue " + r["scheduler"]
    return r["scheduler"].replace("swas:policy=", "SWaS ")


def swas_figures(rows, ctx):
    workloads = workloads_of(rows)
    figs = []
    err = [r for r in rows if r["metric"] == "error_rate_pct" and not is_aggregate(r)]
    if err:
        configs = []
        for r in err:
            if swas_config(r) not in configs:
                configs.append(swas_config(r))
        values = {w: [None] * len(configs) for w in workloads}
        paper = {w: [None] * len(configs) for w in workloads}
        for r in err:
            values[r["workload"]][configs.index(swas_config(r))] = ours(r)
            paper[r["workload"]][configs.index(swas_config(r))] = rc.to_float(r.get("paper"))
        fig, ax = rc.new_figure(width=max(7.0, 0.7 * len(configs) + 2), height=3.6)
        # The paper gives the baselines' rate as a range over its benchmarks.
        ax[0][0].axhspan(0.10, 81.12, color="0.92", label="paper: baselines 0.10..81.12%")
        rc.grouped_bars(ax[0][0], configs, workloads, values, paper, ylabel="scheduling errors (% of cycles)")
        figs.append(ctx.figures.save(fig, "swas_error_rate",
                                     "Scheduling error rate (osched2 errors per scheduler cycle) for the nine fetch x "
                                     "issue combinations and for SWaS per workload (seed 003 Fig. 5); grey band: the "
                                     "paper's range for the baselines; diamonds: the paper's 0 for SWaS."))
    else:
        figs.append(Skip("SWaS error rate: the CSV has no error_rate_pct rows."))
    ratio = [r for r in rows if r["metric"] == "ipc_ratio_swas_over_baseline"]
    if ratio:
        pairs = []
        for r in ratio:
            label = r["scheduler"].replace("swas:policy=", "SWaS ") + " vs " + r["baseline"].replace(
                " --fetch-scheduler ", " fetch ")
            r["_pair"] = label
            if label not in pairs:
                pairs.append(label)
        series = workloads + ["geomean"]
        values = {s: [None] * len(pairs) for s in series}
        paper = {s: [None] * len(pairs) for s in series}
        for r in ratio:
            s = "geomean" if is_aggregate(r) else r["workload"]
            values[s][pairs.index(r["_pair"])] = ours(r)
            paper[s][pairs.index(r["_pair"])] = rc.to_float(r.get("paper"))
        fig, ax = rc.new_figure(width=max(7.0, 0.8 * len(pairs) + 2), height=3.6)
        rc.grouped_bars(ax[0][0], pairs, series, values, paper, ylabel="IPC of SWaS / IPC of the baseline",
                        neutral=1.0)
        figs.append(ctx.figures.save(fig, "swas_ipc_ratio",
                                     "IPC of SWaS over the baseline with the same issue policy, for each fetch policy, "
                                     "per workload and the geomean (seed 003 Table II, Figs. 6-8); diamonds: Table "
                                     "II's per-benchmark values where our workload is in it."))
    else:
        figs.append(Skip("SWaS IPC ratio: the CSV has no ipc_ratio_swas_over_baseline rows."))
    return figs


FIGURES = {"pro": pro_figures, "spin_backoff": spin_figures, "kaws": kaws_figures, "lfws": lfws_figures,
           "swas": swas_figures}


# ------------------------------------------------------------ page


class Context:
    def __init__(self, out_dir):
        self.figures = rc.Figures(out_dir)
        self.runs = RunIndex(out_dir)


def reproduce_command(paper, rows):
    size = rows[0]["size"] if rows else "small"
    return f"tlmgpu_papers --paper {paper} --size {size} --workloads {','.join(workloads_of(rows))} --out OUT"


def rows_table(rows, paper_command):
    header = ["workload", "metric", "subject", "baseline", "ours", "paper", "agrees", "status", "paper source",
              "command", "config hash"]
    cells = []
    for r in rows:
        command = r.get("command") or ""
        if not command and is_aggregate(r):
            # An aggregate has no single run: the comparison reproduces it.
            command = paper_command
        cells.append([rc.esc(r["workload"]), rc.esc(r["metric"]), rc.esc(subject(r)), rc.esc(r.get("baseline")),
                      rc.esc(rc.fmt(rc.to_float(r.get("ours")))), rc.esc(r.get("paper")), rc.esc(r.get("agrees")),
                      rc.esc(r.get("status")), rc.esc(r.get("paper_source")), rc.code_or_not_recorded(command),
                      rc.code_or_not_recorded(r.get("config_hash") or "")])
    agrees_col = header.index("agrees")
    return rc.table(header, cells, numeric=("ours",),
                    classes=lambda c: {"agrees": c[agrees_col]} if c[agrees_col] in ("yes", "no") else {})


def paper_section(name, title, claim, rows, ctx):
    parts = [f'<h2 id="{name}">{rc.esc(title)}</h2>', f'<p class="claim">{rc.esc(claim)}</p>']
    command = reproduce_command(name, rows)
    parts.append(f"<p>Reproduce: <code>{rc.esc(command)}</code> (preset {rc.esc(rows[0]['preset'])}, "
                 f"size {rc.esc(rows[0]['size'])}).</p>")
    headline = [r for r in rows if is_aggregate(r) and r.get("paper")]
    yes = sum(1 for r in headline if r.get("agrees") == "yes")
    no = sum(1 for r in headline if r.get("agrees") == "no")
    parts.append(f"<h3>Our numbers beside the paper's</h3><p>{yes} agree in direction, {no} disagree, "
                 f"{len(headline) - yes - no} not comparable.</p>")
    parts.append(rows_table(headline, command))
    parts.append("<h3>Figures</h3>")
    try:
        figs = FIGURES[name](rows, ctx)
    except Skip as s:
        figs = [s]
    for f in figs:
        parts.append(rc.note_html(str(f)) if isinstance(f, Skip) else rc.figure_html(f))
    parts.append(f"<details><summary>Every row of {rc.esc(name)}.csv ({len(rows)})</summary>")
    parts.append(rows_table(rows, command))
    parts.append("</details>")
    return parts


def main(argv):
    if len(argv) != 2 or argv[1] in ("-h", "--help"):
        print("usage: papers_report.py OUT_DIR   (the --out directory of tlmgpu_papers)", file=sys.stderr)
        return 2
    out_dir = argv[1]
    if not os.path.isdir(out_dir):
        print(f"papers_report.py: {out_dir} is not a directory", file=sys.stderr)
        return 2
    present = [(n, t, c) for n, t, c in PAPERS if os.path.isfile(os.path.join(out_dir, n + ".csv"))]
    if not present:
        print(f"papers_report.py: {out_dir} holds none of " + ", ".join(n + ".csv" for n, _, _ in PAPERS),
              file=sys.stderr)
        return 2
    ctx = Context(out_dir)
    data = {}
    for name, _, _ in present:
        path = os.path.join(out_dir, name + ".csv")
        rows = rc.read_csv(path)
        missing = [c for c in ("workload", "scheduler", "metric", "ours", "paper", "status") if rows and c not in rows[0]]
        if missing:
            print(f"papers_report.py: {path}: no column {', '.join(missing)}", file=sys.stderr)
            return 2
        data[name] = rows
    sizes = sorted({r["size"] for rows in data.values() for r in rows})
    header = ["<p>Each seed paper's comparison run on this model with <code>tlmgpu_papers</code>; size "
              f"<b>{rc.esc(', '.join(sizes) or 'unknown')}</b>.</p>", "<table><tr><th>paper</th><th>preset</th>"
              "<th>workloads</th><th>rows</th></tr>"]
    for name, title, _ in present:
        rows = data[name]
        preset = rows[0]["preset"] if rows else ""
        header.append(f'<tr><td><a href="#{name}">{rc.esc(title)}</a></td><td>{rc.esc(preset)}</td>'
                      f"<td>{rc.esc(', '.join(workloads_of(rows)))}</td><td>{len(rows)}</td></tr>")
    header.append("</table><p>'agrees' compares the direction of our number with the paper's (better, worse or "
                  "no change); the commands reproduce each number (add <code>--stats FILE</code> for the "
                  "statistics); the configuration hash identifies the effective configuration "
                  "(<code>--dump-config</code>).</p>")
    body = []
    for name, title, claim in present:
        if data[name]:
            body.extend(paper_section(name, title, claim, data[name], ctx))
        else:
            body.append(f"<h2 id=\"{name}\">{rc.esc(title)}</h2>" + rc.note_html(f"{name}.csv has no rows."))
    # tlmgpu_papers prints the page's path; stdout stays free for it.
    rc.write_page(out_dir, "tlmgpu: the seed papers reproduced", "\n".join(header), body)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
