"""Throughput and CPU of several tools/bench/e2e runs, one bar each (e.g. an A/B of one condition):
throughput.py <chart.png> <result.json>...   Each phase of each result is one row, labelled with its
--note (or file name). Runs whose notes agree up to " (" are one configuration: one colour.

Two panels: accepted msg/s (the send p50 / p99 written beside each bar); and each watched process's
CPU, % of one core over the phase (a process with its forked children, e.g. a Redis AOF rewrite),
stacked, with the whole machine's busy CPU marked (every process and the kernel).
"""
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from compare import cpu_panel  # noqa: E402  (the same directory)


def load(path):
    with open(path) as f:
        result = json.load(f)
    label = result["meta"].get("note") or os.path.basename(path)
    return [(f"{label}: {p['size']}m {p['mode']}", label.split(" (")[0], p) for p in result["phases"]]


def main(dst, sources):
    rows = [row for src in sources for row in load(src)]
    groups = list(dict.fromkeys(g for _, g, _ in rows))
    colour = {g: f"C{i % 10}" for i, g in enumerate(groups)}
    fig, (acc, cpu) = plt.subplots(1, 2, figsize=(16, max(5, 2.5 + 0.45 * len(rows))))
    ys = list(range(len(rows)))

    labelled = set()
    for y, (_, g, p) in zip(ys, rows):
        acc.barh(y, p["acceptedPerSecond"], height=0.6, color=colour[g], label=None if g in labelled else g)
        labelled.add(g)
        acc.annotate(f"{p['acceptedPerSecond']:.0f}/s, send p50 {p['send']['p50']:.0f} / p99 {p['send']['p99']:.0f} ms",
                     (p["acceptedPerSecond"], y), fontsize=8, xytext=(4, -3), textcoords="offset points")
    acc.set_yticks(ys)
    acc.set_yticklabels([n for n, _, _ in rows], fontsize=8)
    acc.invert_yaxis()
    acc.set_xlim(0, max(p["acceptedPerSecond"] for _, _, p in rows) * 1.6)
    acc.set_xlabel("accepted msg/s")
    acc.set_title("throughput per run", fontsize=10)
    acc.grid(True, axis="x", alpha=0.3)
    acc.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.1), ncol=3)

    cpu_panel(cpu, [n for n, _, _ in rows], [p for _, _, p in rows])
    fig.tight_layout()
    fig.savefig(dst, dpi=110)


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit("usage: throughput.py <chart.png> <result.json>...")
    main(sys.argv[1], sys.argv[2:])
