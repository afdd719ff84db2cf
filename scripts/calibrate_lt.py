#!/usr/bin/env python3
"""Calibrates LT mode's cost model (platform/lt_cost_model.h) against timing mode.

For each preset and size, runs every workload in timing mode (their cycle
counts) and in LT mode (each launch's waves and unscaled issue, latency,
bandwidth and contention bounds, which do not depend on the lt.* keys), fits the six lt.*
coefficients of the preset, and prints the docs/SOC.md tables (LT mode: calibration and error): timing
cycles, LT cycles with the fitted and with the preset's current coefficients,
and the error per workload, with the geometric mean and the worst.

The model of one launch is
    launch_cycles + wave_cycles * waves
      + max(issue_scale * issue, latency_scale * latency, bandwidth_scale * bandwidth,
            contention_scale * contention)
and a workload's cycles are the sum over its launches. The fit minimises the
sum over workloads (every size given) of ln(LT / timing)^2, i.e. relative
error in either direction, plus 0.01 ln(scale)^2 per scale (a bound that never
binds keeps its physical scale of 1), by a deterministic pattern search from a
few starting points (numpy is not assumed). One set of coefficients per preset.

Usage: python3 scripts/calibrate_lt.py [BUILD/tlmgpu] [--preset P]... [--size small|default]...
"""
import json
import math
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KEYS = ["lt.launch_cycles", "lt.wave_cycles", "lt.issue_scale", "lt.latency_scale", "lt.bandwidth_scale",
        "lt.contention_scale"]


def parse_args(argv):
    binary = os.path.join(ROOT, "build", "tlmgpu")
    presets, sizes = [], []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in ("--preset", "--size"):
            if i + 1 == len(argv):
                sys.exit(f"calibrate_lt.py: {a} needs a value")
            (presets if a == "--preset" else sizes).append(argv[i + 1])
            i += 2
        elif a.startswith("--"):
            sys.exit(f"calibrate_lt.py: unknown option {a}")
        else:
            binary = a
            i += 1
    return binary, presets or ["gtx480", "titanx_pascal", "vortex_1sm"], sizes or ["small", "default"]


ENV = dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")


def run_stats(binary, args):
    with tempfile.NamedTemporaryFile(suffix=".json") as f:
        subprocess.run([binary, "run"] + args + ["--stats", f.name], env=ENV, check=True,
                       stdout=subprocess.DEVNULL)
        return json.load(open(f.name))


def preset_coefficients(binary, preset):
    out = subprocess.run([binary, "run", "--preset", preset, "--dump-config"], env=ENV, check=True,
                         capture_output=True, text=True).stdout
    values, section = {}, ""
    for line in out.splitlines():
        line = line.strip()
        if line.startswith("["):
            section = line.strip("[]")
        elif "=" in line and not line.startswith("#"):
            k, v = (s.strip() for s in line.split("=", 1))
            values[section + "." + k] = v
    return [float(values[k]) for k in KEYS]


def measure(binary, preset, size):
    """[(workload, timing cycles, [(waves, issue, latency, bandwidth, contention) per launch])]"""
    timing = run_stats(binary, ["--workload", "all", "--mode", "timing", "--preset", preset, "--size", size])
    cycles = {r["workload"]: r["sim_cycles"] for r in timing["runs"] if r["verified"]}
    rows = []
    for name in sorted(cycles):
        lt = run_stats(binary, ["--workload", name, "--mode", "lt", "--preset", preset, "--size", size])
        launches = [(l["waves"], l["issue_bound"], l["latency_bound"], l["bandwidth_bound"], l["contention_bound"])
                    for l in lt["launches"]]
        rows.append((name, cycles[name], launches))
    return rows


def model(theta, launches):
    c0, cw, si, sl, sb, sc = theta
    return sum(c0 + cw * w + max(si * i, sl * l, sb * b, sc * c) for w, i, l, b, c in launches)


# A slight pull of each scale toward 1 (its physical value), so that a bound
# that never binds on these workloads keeps it instead of drifting.
PULL = 0.01


def model_cycles(theta, launches):
    """As tlmgpu reports them: each launch rounded (half away from zero), at least 1."""
    return sum(max(1, math.floor(model(theta, [l]) + 0.5)) for l in launches)


def loss(theta, rows):
    total = sum(PULL * math.log(v) ** 2 for v in theta[2:])
    for _, t, launches in rows:
        m = model(theta, launches)
        total += math.log(max(m, 1.0) / t) ** 2
    return total


def fit(rows):
    best_theta, best = None, float("inf")
    # Starting points: each bound alone, and all of them, at their own scale.
    for start in ([0, 0, 1, 1, 1, 1], [0, 0, 1, 0.1, 0.1, 0.1], [0, 0, 0.1, 1, 0.1, 0.1],
                  [0, 0, 0.1, 0.1, 1, 0.1], [0, 0, 0.1, 0.1, 0.1, 1], [500, 200, 1, 0.3, 1, 1]):
        theta = [float(v) for v in start]
        cur = loss(theta, rows)
        step = 0.5
        while step > 1e-4:
            improved = False
            for k in range(len(theta)):
                for direction in (1, -1):
                    trial = list(theta)
                    if k < 2:  # additive cycles: steps relative to the mean timing count
                        scale = max(theta[k], 50.0)
                        trial[k] = max(0.0, theta[k] + direction * step * scale)
                    else:
                        trial[k] = theta[k] * (1 + step) ** direction
                    value = loss(trial, rows)
                    if value < cur - 1e-12:
                        theta, cur, improved = trial, value, True
            if not improved:
                step /= 2
        if cur < best:
            best_theta, best = theta, cur
    return best_theta


def rounded(theta):
    # Values as the presets will hold them: whole cycles, three significant digits for the scales.
    return [round(theta[0]), round(theta[1])] + [float(f"{v:.3g}") for v in theta[2:]]


def report(title, rows, theta):
    print(f"\n{title}\n")
    print("| workload | size | timing cycles | LT cycles | LT / timing |")
    print("|---|---|---:|---:|---:|")
    logs = []
    for name, size, t, launches in rows:
        m = model_cycles(theta, launches)
        ratio = max(m, 1) / t
        logs.append(abs(math.log(ratio)))
        print(f"| {name} | {size} | {t} | {m} | {ratio:.2f} |")
    geo = math.exp(sum(logs) / len(logs))
    worst = max(range(len(rows)), key=lambda i: logs[i])
    print(f"\nGeometric mean of the error factor max(LT/timing, timing/LT): {geo:.2f}x "
          f"({(geo - 1) * 100:.0f} %); worst: {rows[worst][0]} ({rows[worst][1]}) at {math.exp(logs[worst]):.2f}x.")


def main():
    binary, presets, sizes = parse_args(sys.argv[1:])
    for preset in presets:
        rows = []
        for size in sizes:
            rows += [(n, size, t, l) for n, t, l in measure(binary, preset, size)]
        theta = rounded(fit([(n, t, l) for n, _, t, l in rows]))
        print(f"## {preset}\n\nFitted: " + ", ".join(f"{k} = {v:g}" for k, v in zip(KEYS, theta)))
        report(f"With the fitted coefficients ({preset}):", rows, theta)
        current = preset_coefficients(binary, preset)
        if current != theta:
            report(f"With the preset's current coefficients (" + ", ".join(f"{v:g}" for v in current) + "):",
                   rows, current)
        print()


if __name__ == "__main__":
    main()
