"""Side-by-side chart of several tools/bench/e2e results (e.g. an A/B of one setting):
compare.py <chart.png> <result.json>...   Each result is one run; its label is its --note (or file
name). Runs whose notes agree up to " (" (e.g. "hold 0 (round 1)", "hold 0 (round 2)") are one
configuration: one colour in the latency panel.

Three panels: send -> visible in every recipient with a device, latency by percentile per run and
phase; the mailbox's own created_at -> visible (frontier) p50 and p99 with the device sync requests
per second; and each process's CPU, % of one core, over the phase, with the machine's busy CPU marked.
"""
import json
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

TICKS = [0, 50, 90, 99, 99.9, 100]


def xpos(p):
    return math.log10(1 / (1 - min(p, 99.99) / 100))


def load(path):
    with open(path) as f:
        result = json.load(f)
    label = result["meta"].get("note") or os.path.basename(path)
    return [(f"{label}: {p['size']}m {p['mode']}", p) for p in result["phases"]]


def cpu_panel(ax, labels, phases):
    """Each phase's CPU per watched process (with its forked children), % of one core, stacked, one
    row per phase; the whole machine's busy CPU marked where the result has it."""
    ys = list(range(len(phases)))
    names = sorted({n for p in phases for n, c in p["cpu"].items() if c})
    left = [0.0] * len(phases)
    for n in names:
        vals = [(p["cpu"].get(n) or {}).get("corePercent", 0) for p in phases]
        ax.barh(ys, vals, left=left, height=0.6, label=n)
        left = [a + b for a, b in zip(left, vals)]
    machine = [p.get("machineCorePercent") for p in phases]
    if any(m is not None for m in machine):
        ax.plot([m or 0 for m in machine], ys, linestyle="none", marker="|", markersize=16, color="black", label="machine (all)")
    ax.set_yticks(ys)
    ax.set_yticklabels(labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("% of one core over the phase (stacked; with forked children)")
    ax.set_title("CPU per process", fontsize=10)
    ax.grid(True, axis="x", alpha=0.3)
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.1), ncol=4)


def main(dst, sources):
    rows = [row for src in sources for row in load(src)]
    fig, (lat, stage, cpu) = plt.subplots(1, 3, figsize=(21, max(7, 2.5 + 0.3 * len(rows))))
    groups = list(dict.fromkeys(name.split(" (")[0] for name, _ in rows))
    colour = {g: f"C{i % 10}" for i, g in enumerate(groups)}
    labelled = set()
    for name, p in rows:
        pts = [(xpos(q), max(ms, 0.1)) for q, ms in p["visible"].get("spectrum", [])]
        group = name.split(" (")[0]
        if pts:
            lat.plot([x for x, _ in pts], [y for _, y in pts], marker=".", color=colour[group], alpha=0.8, label=None if group in labelled else group)
            labelled.add(group)
    lat.set_title("send -> visible in every recipient with a device", fontsize=10)
    lat.set_yscale("log")
    lat.set_xticks([xpos(q) for q in TICKS])
    lat.set_xticklabels(["min", "p50", "p90", "p99", "p99.9", "max"])
    lat.set_ylabel("ms (log)")
    lat.grid(True, which="both", alpha=0.3)
    lat.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.08))

    ys = list(range(len(rows)))
    vis = [p["stages"]["visible"] for _, p in rows]
    stage.barh(ys, [v["p50"] or 0 for v in vis], height=0.6, label="mailbox created_at -> visible p50 (bar)")
    stage.plot([v["p99"] or 0 for v in vis], ys, linestyle="none", marker="|", markersize=14, color="black", label="p99 (mark)")
    for y, (_, p) in zip(ys, rows):
        stage.annotate(
            f"{p['syncRequestsPerSecond']:.0f} sync req/s",
            (max(v["p99"] or 0 for v in vis), y),
            fontsize=8,
            xytext=(6, -3),
            textcoords="offset points",
        )
    stage.set_yticks(ys)
    stage.set_yticklabels([n for n, _ in rows], fontsize=8)
    stage.invert_yaxis()
    stage.set_xlabel("ms")
    stage.set_xlim(0, max(v["p99"] or 0 for v in vis) * 1.5 + 1)
    stage.set_title("the mailbox's own delivery time, and the devices' sync load", fontsize=10)
    stage.grid(True, axis="x", alpha=0.3)
    stage.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.08), ncol=2)

    cpu_panel(cpu, [n for n, _ in rows], [p for _, p in rows])
    fig.tight_layout()
    fig.savefig(dst, dpi=110)


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit("usage: compare.py <chart.png> <result.json>...")
    main(sys.argv[1], sys.argv[2:])
