#!/usr/bin/env python3
"""sweep_report.py OUT/report.json: the figures and the HTML page of a
`tlmgpu_sweep` run.

report.json (schema tlmgpu-sweep-report/1, docs/EXPERIMENTS.md) holds the
grid and, per figure the user named, the points to draw, already aggregated
and normalised by tlmgpu_sweep: this script only draws them and renders
tables. OUT/sweep.csv (one row per run, columns by header name) gives each
number's command and configuration hash. Writes OUT/figures/NAME.svg and
NAME.png per figure and OUT/index.html.

Exit codes: 0 page written; 2 bad usage or a report.json / sweep.csv that
does not follow the schema (the message names the key).
"""

import json
import math
import os
import sys

import report_common as rc

SCHEMA = "tlmgpu-sweep-report/1"


class BadReport(Exception):
    pass


def need(obj, key, kind, where):
    if not isinstance(obj, dict) or key not in obj:
        raise BadReport(f"{where}: no key '{key}'")
    value = obj[key]
    if kind is not None and not isinstance(value, kind):
        raise BadReport(f"{where}.{key}: expected {kind.__name__ if isinstance(kind, type) else 'a value'}")
    return value


def load(report_path):
    try:
        with open(report_path, encoding="utf-8") as f:
            report = json.load(f)
    except OSError as e:
        raise BadReport(f"cannot read {report_path}: {e.strerror}")
    except ValueError as e:
        raise BadReport(f"{report_path} is not JSON: {e}")
    schema = need(report, "schema", str, "report")
    if schema != SCHEMA:
        raise BadReport(f"report.schema: '{schema}', expected '{SCHEMA}'")
    for i, fig in enumerate(need(report, "figures", list, "report")):
        where = f"figures[{i}]"
        for key, kind in (("name", str), ("metric", str), ("kind", str), ("x", str), ("x_values", list),
                          ("series_values", list), ("points", list)):
            need(fig, key, kind, where)
        if fig["kind"] not in ("bars", "lines"):
            raise BadReport(f"{where}.kind: '{fig['kind']}', expected bars or lines")
        if fig["kind"] == "lines" and not isinstance(fig.get("x_numeric"), list):
            raise BadReport(f"{where}.x_numeric: lines need the x values as numbers")
        if not fig["name"] or any(not (c.isalnum() or c in "_-.") for c in fig["name"]):
            raise BadReport(f"{where}.name: '{fig['name']}' is not a file name (letters, digits, _ - .)")
    csv_path = os.path.join(os.path.dirname(report_path) or ".", need(report, "csv", str, "report"))
    try:
        rows = rc.read_csv(csv_path)
    except OSError as e:
        raise BadReport(f"cannot read {csv_path} (report.csv): {e.strerror}")
    runs = {}
    for n, r in enumerate(rows, start=2):
        try:
            runs[int(r["run"])] = r
        except (KeyError, TypeError, ValueError):
            raise BadReport(f"{csv_path} line {n}: no run number in column 'run'")
    return report, runs


# ------------------------------------------------------------ figures


def point_grid(fig):
    """values[series][x index] from the points (series-major); None stays a gap."""
    xs = [str(x) for x in fig["x_values"]]
    series = [str(s) for s in fig["series_values"]]
    values = {s: [None] * len(xs) for s in series}
    for i, p in enumerate(fig["points"]):
        s, x = str(p.get("series", "")), str(p.get("x", ""))
        if s not in values or x not in xs:
            raise BadReport(f"figures.{fig['name']}.points[{i}]: series '{s}' / x '{x}' not in series_values / "
                            "x_values")
        v = p.get("value")
        values[s][xs.index(x)] = float(v) if isinstance(v, (int, float)) and math.isfinite(v) else None
    return xs, series, values


def draw(fig_spec, figures):
    xs, series, values = point_grid(fig_spec)
    normalised = bool(fig_spec.get("normalise_to"))
    labels = {s: (s if s else fig_spec["metric"]) for s in series}
    named = {labels[s]: values[s] for s in series}
    fig, axes = rc.new_figure(width=max(5.5, 0.7 * len(xs) * max(1, len(series)) ** 0.5 + 2))
    ax = axes[0][0]
    y_label = fig_spec.get("y_label") or fig_spec["metric"]
    if fig_spec["kind"] == "bars":
        rc.grouped_bars(ax, xs, [labels[s] for s in series], named, ylabel=y_label,
                        neutral=1.0 if normalised else None)
    else:
        xn = [float(v) for v in fig_spec["x_numeric"]]
        for i, s in enumerate(series):
            # NaN breaks the line: a point without a value is a gap, never 0.
            ys = [v if v is not None else float("nan") for v in values[s]]
            # Marker and dash differ per series: equal series would hide each other.
            ax.plot(xn, ys, marker="osD^v<>"[i % 7], markersize=4, linestyle=("-", "--", "-.", ":")[i % 4],
                    label=labels[s])
        if normalised:
            ax.axhline(1.0, color="grey", linewidth=0.8, linestyle=":")
        ax.set_xlabel(fig_spec["x"])
        ax.set_ylabel(y_label)
        ax.legend(fontsize=7, frameon=False)
    if fig_spec["kind"] == "bars":
        ax.set_xlabel(fig_spec["x"])
    title = fig_spec.get("title") or f"{fig_spec['metric']} by {fig_spec['x']}"
    ax.set_title(title, fontsize=10)
    where = fig_spec.get("where") or {}
    caption = title + f" ({fig_spec.get('aggregate', 'none')} over the runs of each point"
    if where:
        caption += "; " + ", ".join(f"{k}={v}" for k, v in where.items())
    if normalised:
        caption += "; normalised to " + ", ".join(f"{k}={v}" for k, v in fig_spec["normalise_to"].items())
    caption += ")."
    return figures.save(fig, fig_spec["name"], caption)


# ------------------------------------------------------------ tables


def commands_cell(run_ids, runs, column):
    parts = []
    for i in run_ids or []:
        r = runs.get(i)
        text = (r or {}).get(column) or ""
        parts.append(f"{i}: " + (f"<code>{rc.esc(text)}</code>" if text else f"<i>{rc.NOT_RECORDED}</i>"))
    return "<br>".join(parts) if parts else f"<i>{rc.NOT_RECORDED}</i>"


def points_table(fig_spec, runs):
    header = ["series", "x", "value", "raw mean", "n", "runs: command", "runs: config hash",
              "baseline runs: command"]
    cells = []
    for p in fig_spec["points"]:
        cells.append([rc.esc(p.get("series")), rc.esc(p.get("x")), rc.esc(rc.fmt(p.get("value"))),
                      rc.esc(rc.fmt(p.get("raw"))), rc.esc(p.get("n")),
                      commands_cell(p.get("runs"), runs, "command"),
                      commands_cell(p.get("runs"), runs, "config_hash"),
                      commands_cell(p.get("baseline_runs"), runs, "command") if p.get("baseline_runs") else ""])
    return rc.table(header, cells, numeric=("value", "raw mean", "n"))


def runs_table(report, runs):
    coords = report.get("columns", {}).get("coordinates", [])
    stats = [c for c in ("sim_cycles", "ipc") if c in report.get("columns", {}).get("statistics", [])]
    header = ["run"] + coords + ["status", "note"] + stats + ["command", "config hash"]
    cells = []
    for i in sorted(runs):
        r = runs[i]
        cells.append([rc.esc(i)] + [rc.esc(r.get(c)) for c in coords] + [rc.esc(r.get("status")), rc.esc(r.get("note"))]
                     + [rc.esc(r.get(c)) for c in stats]
                     + [rc.code_or_not_recorded(r.get("command") or ""),
                        rc.code_or_not_recorded(r.get("config_hash") or "")])
    return rc.table(header, cells, numeric=tuple(stats))


def main(argv):
    if len(argv) != 2 or argv[1] in ("-h", "--help"):
        print("usage: sweep_report.py OUT/report.json   (written by tlmgpu_sweep)", file=sys.stderr)
        return 2
    report_path = argv[1]
    out_dir = os.path.dirname(report_path) or "."
    try:
        report, runs = load(report_path)
        figures = rc.Figures(out_dir)
        drawn = [(f, draw(f, figures)) for f in report["figures"]]
    except BadReport as e:
        print(f"sweep_report.py: {e}", file=sys.stderr)
        return 2
    totals = report.get("runs", {})
    header = [f"<p>Sweep <code>{rc.esc(report.get('spec', ''))}</code>: size <b>{rc.esc(report.get('size', ''))}</b>, "
              f"mode {rc.esc(report.get('mode', ''))}; {rc.esc(totals.get('total', len(runs)))} runs, "
              f"{rc.esc(totals.get('ok', ''))} ok, {rc.esc(totals.get('failed', ''))} not ok. Reproduce: "
              f"<code>tlmgpu_sweep {rc.esc(report.get('spec', 'SPEC'))}</code>; each number's runs are listed "
              "with the command that reproduces them (add <code>--stats FILE</code> for the statistics) and the "
              "hash of their effective configuration.</p>"]
    dims = [[rc.esc(d.get("name")), rc.esc(", ".join(str(v) for v in d.get("values", [])))]
            for d in report.get("dimensions", [])]
    header.append(rc.table(["dimension", "values"], dims))
    if report.get("baseline"):
        header.append("<p>Baseline: " + rc.esc(", ".join(f"{k}={v}" for k, v in report["baseline"].items()))
                      + "</p>")
    body = []
    failed = [i for i in sorted(runs) if runs[i].get("status") not in ("ok", None)]
    if failed:
        body.append(rc.note_html(f"{len(failed)} run(s) did not succeed: their points are gaps; see the runs table."))
    if not drawn:
        body.append(rc.note_html("The spec names no figure: the CSV and the runs table below are the results."))
    for spec, fig in drawn:
        body.append(f'<h2 id="{rc.esc(spec["name"])}">{rc.esc(spec.get("title") or spec["name"])}</h2>')
        body.append(rc.figure_html(fig))
        body.append(f"<details><summary>The numbers of {rc.esc(spec['name'])}, their runs and commands</summary>")
        body.append(points_table(spec, runs))
        body.append("</details>")
    body.append(f"<h2>Runs</h2><details><summary>Every run of {rc.esc(report.get('csv', 'sweep.csv'))} "
                f"({len(runs)})</summary>")
    body.append(runs_table(report, runs))
    body.append("</details>")
    rc.write_page(out_dir, report.get("title") or "tlmgpu sweep", "\n".join(header), body)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
