#!/usr/bin/python3
"""Draws a `tlmgpu run --timeline` file as one PNG: launch spans, the CTA
spans of every SM, the issue slots of all warp schedulers by class and each
DRAM channel's queue depth, against GPU core cycles.

This is a stand-in for ui.perfetto.dev / chrome://tracing where neither can
be opened (no network, no display); it reads only what tlmgpu writes.

usage: timeline_plot.py TIMELINE.json OUT.png [--title TEXT] [--width INCHES]
Exit codes: 0 ok, 2 bad input (unreadable file, not a tlmgpu timeline).
"""
import argparse
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

SLOT_CLASSES = ["issued", "pipeline", "scoreboard", "idle"]  # stacked bottom-up
SLOT_COLOURS = {"issued": "#2a9d8f", "pipeline": "#e9c46a", "scoreboard": "#f4a261", "idle": "#d9d9d9"}
GPU_PID, DRAM_PID = 1, 2


def fail(message):
    print(f"timeline_plot.py: {message}", file=sys.stderr)
    sys.exit(2)


def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            trace = json.load(f)
    except (OSError, ValueError) as e:
        fail(f"cannot read '{path}': {e}")
    if not isinstance(trace, dict) or not isinstance(trace.get("traceEvents"), list):
        fail(f"'{path}' is not a trace event file (no traceEvents array)")
    if "interval_cycles" not in trace.get("otherData", {}):
        fail(f"'{path}' was not written by tlmgpu run --timeline (no otherData.interval_cycles)")
    return trace


def split(events):
    """Process names, launch spans, CTA spans by SM, slot and depth samples."""
    names, launches, ctas, slots, depths = {}, [], {}, {}, {}
    for e in events:
        ph, pid = e.get("ph"), e.get("pid")
        if ph == "M" and e.get("name") == "process_name":
            names[pid] = e["args"]["name"]
        elif ph == "X" and e.get("cat") == "launch":
            launches.append(e)
        elif ph == "X" and e.get("cat") == "cta":
            ctas.setdefault(pid, []).append(e)
        elif ph == "C" and pid == DRAM_PID:
            depths.setdefault(e["name"], []).append((e["ts"], e["args"]["max"]))
        elif ph == "C" and e.get("name", "").endswith("issue slots"):
            # All schedulers summed per sample time (they share the launch's sample grid).
            total = slots.setdefault(e["ts"], dict.fromkeys(SLOT_CLASSES, 0))
            for c in SLOT_CLASSES:
                total[c] += e["args"][c]
    return names, launches, ctas, slots, depths


def kernel_colours(launches):
    cmap = plt.get_cmap("tab10")
    colours = {}
    for l in sorted(launches, key=lambda e: e["ts"]):
        colours.setdefault(l["args"]["kernel"], cmap(len(colours) % 10))
    return colours


def draw(trace, out, title, width):
    names, launches, ctas, slots, depths = split(trace["traceEvents"])
    if not launches:
        fail("the timeline has no launches")
    colours = kernel_colours(launches)
    sm_pids = sorted(pid for pid in ctas)
    rows = {pid: max(e["tid"] for e in ctas[pid]) for pid in sm_pids}
    total_rows = sum(rows.values())

    fig, (ax_l, ax_c, ax_s, ax_d) = plt.subplots(
        4, 1, sharex=True, figsize=(width, 3.0 + 0.09 * total_rows + 4.0),
        gridspec_kw={"height_ratios": [0.5, max(2.0, 0.09 * total_rows), 1.6, 1.2]})

    for l in launches:
        ax_l.broken_barh([(l["ts"], l["dur"])], (0, 1), color=colours[l["args"]["kernel"]], edgecolor="black",
                         linewidth=0.3)
    ax_l.set_yticks([])
    ax_l.set_ylabel("launches", rotation=0, ha="right", va="center")

    # One band per SM, a row per CTA resident at the same time; SM 0 on top.
    base, ticks, labels = 0, [], []
    for pid in reversed(sm_pids):
        for e in ctas[pid]:
            ax_c.broken_barh([(e["ts"], e["dur"])], (base + e["tid"] - 1 + 0.1, 0.8),
                             color=colours[e["args"]["kernel"]], linewidth=0)
        ticks.append(base + rows[pid] / 2)
        labels.append(names.get(pid, f"pid {pid}"))
        base += rows[pid]
        ax_c.axhline(base, color="#888888", linewidth=0.3)
    ax_c.set_ylim(0, max(base, 1))
    ax_c.set_yticks(ticks)
    ax_c.set_yticklabels(labels, fontsize=7)
    ax_c.set_ylabel("CTAs")
    ax_c.legend(handles=[matplotlib.patches.Patch(color=c, label=k) for k, c in colours.items()], fontsize=7,
                loc="upper left", bbox_to_anchor=(1.0, 1.0))

    # Issue slots of all schedulers, as fractions of the slots in each interval.
    times = sorted(slots)
    bottom = [0.0] * len(times)
    for c in SLOT_CLASSES:
        top = []
        for i, t in enumerate(times):
            n = sum(slots[t].values())
            top.append(bottom[i] + (slots[t][c] / n if n else 0.0))
        ax_s.fill_between(times, bottom, top, step="post", color=SLOT_COLOURS[c], label=c, linewidth=0)
        bottom = top
    ax_s.set_ylim(0, 1)
    ax_s.set_ylabel("issue slots\n(all schedulers)")
    ax_s.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))

    for name in sorted(depths, key=lambda n: int(n.split()[1]) if n.split()[1].isdigit() else 0):
        samples = sorted(depths[name])
        ax_d.step([t for t, _ in samples], [d for _, d in samples], where="post", linewidth=0.8,
                  label=name.replace(" queue depth", ""))
    ax_d.set_ylabel("DRAM queue\n(max per interval)")
    ax_d.set_ylim(bottom=0)
    if depths:
        ax_d.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    ax_d.set_xlabel("GPU core cycle (trace time: 1 us = 1 cycle)")

    other = trace["otherData"]
    fig.suptitle(title or f"{other.get('preset', '')} {other.get('scheduler', '')}: {len(launches)} launch(es), "
                          f"samples every {other['interval_cycles']} cycles")
    fig.tight_layout()
    try:
        fig.savefig(out, dpi=110)
    except OSError as e:
        fail(f"cannot write '{out}': {e}")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("timeline")
    p.add_argument("out")
    p.add_argument("--title", default="")
    p.add_argument("--width", type=float, default=12.0, help="figure width in inches (default 12)")
    a = p.parse_args()
    draw(load(a.timeline), a.out, a.title, a.width)


if __name__ == "__main__":
    main()
