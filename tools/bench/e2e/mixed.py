"""Chart of tools/bench/e2e --mixed results: mixed.py <chart.png> <result.json> [<result.json> ...].

Top row, one bar group per run (labelled by its --note): the light sender's sends accepted and
refused (503/429), its send latency p50/p99 beside the flooder's, and send -> visible p99 of both.
Below, one timeline per run: per second of send start the light sender's accepted and refused
sends and the flooder's accepted ones, the writer's admission gate shaded where it was closed,
and the delivery lag the gate read (right axis).
"""
import json
import math
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def load(path):
    with open(path) as f:
        d = json.load(f)
    if "mixed" not in d:
        sys.exit(f"{path}: not a --mixed result")
    return d["meta"].get("note") or path, d["mixed"]


def ms(v):
    return float("nan") if v is None else v


def bars(ax, labels, series, title, ylabel, log=False):
    n = len(series)
    width = 0.8 / n
    for i, (name, values) in enumerate(series):
        xs = [x + (i - (n - 1) / 2) * width for x in range(len(labels))]
        ax.bar(xs, values, width, label=name)
    ax.set_xticks(range(len(labels)))
    ax.set_xticklabels(labels, fontsize=7, rotation=30)
    ax.set_title(title, fontsize=10)
    ax.set_ylabel(ylabel)
    if log:
        ax.set_yscale("log")
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(fontsize=7)


def timeline(ax, label, m):
    light = m["light"]["outcomesBySecond"]
    heavy = m["heavy"]["outcomesBySecond"]
    ax.plot([s["second"] for s in light], [s["accepted"] for s in light], color="tab:green", label="light accepted/s")
    ax.plot([s["second"] for s in light], [s["refused"] for s in light], color="tab:red", label="light refused/s")
    ax.plot([s["second"] for s in heavy], [s["accepted"] for s in heavy], color="tab:blue", label="flooder accepted/s")
    closed = [g for g in m["gate"] if g["closed"] == 1]
    for g in closed:
        ax.axvspan(g["t"] / 1000 - 0.125, g["t"] / 1000 + 0.125, color="grey", alpha=0.25, lw=0)
    ax.set_xlim(0, max(m["seconds"], 1) + 2)
    ax.set_xlabel("s since phase start (grey: gate closed)")
    ax.set_ylabel("sends / s")
    ax.set_title(label, fontsize=9)
    ax.grid(True, alpha=0.3)
    lag = [(g["t"] / 1000, g["lagSeconds"]) for g in m["gate"] if g["lagSeconds"] is not None]
    if lag:
        ax2 = ax.twinx()
        ax2.plot([t for t, _ in lag], [v for _, v in lag], color="black", lw=0.8, ls=":", label="delivery lag (s)")
        ax2.set_ylabel("delivery lag s (dotted)")
    ax.legend(fontsize=6, loc="upper left")


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    runs = [load(p) for p in sys.argv[2:]]
    # A note "before (main abc) r1" is labelled "1: before r1": the text up to " (" and its last word.
    labels = [f"{i + 1}: {n.split(' (')[0]}" + (f" {n.split()[-1]}" if " (" in n else "") for i, (n, _) in enumerate(runs)]
    rows = 1 + math.ceil(len(runs) / 2)
    fig = plt.figure(figsize=(15, 4 * rows))
    a = fig.add_subplot(rows, 3, 1)
    bars(
        a,
        labels,
        [
            ("light accepted", [m["light"]["accepted"] for _, m in runs]),
            ("light refused 503/429", [m["light"]["refused"] for _, m in runs]),
            ("light other failures", [m["light"]["attempted"] - m["light"]["accepted"] - m["light"]["refused"] for _, m in runs]),
        ],
        "light sender: sends",
        "sends",
    )
    b = fig.add_subplot(rows, 3, 2)
    bars(
        b,
        labels,
        [
            ("light p50", [ms(m["light"]["send"]["p50"]) for _, m in runs]),
            ("light p99", [ms(m["light"]["send"]["p99"]) for _, m in runs]),
            ("flooder p99", [ms(m["heavy"]["send"]["p99"]) for _, m in runs]),
        ],
        "send latency (accepted sends)",
        "ms",
        log=True,
    )
    c = fig.add_subplot(rows, 3, 3)
    bars(
        c,
        labels,
        [
            ("light p50", [ms(m["light"]["visible"]["p50"]) for _, m in runs]),
            ("light p99", [ms(m["light"]["visible"]["p99"]) for _, m in runs]),
            ("flooder p99", [ms(m["heavy"]["visible"]["p99"]) for _, m in runs]),
        ],
        "send -> visible",
        "ms",
        log=True,
    )
    for i, (label, m) in enumerate(runs):
        ax = fig.add_subplot(rows, 2, 3 + i)
        timeline(ax, labels[i], m)
    fig.suptitle("tools/bench/e2e --mixed: a light sender beside a flooder of huge conversations", fontsize=11)
    fig.subplots_adjust(hspace=0.45, wspace=0.3, top=0.93)
    fig.savefig(sys.argv[1], dpi=90)


main()
