"""Latency chart of one tools/bench/e2e result: plot.py <result.json> <chart.png>.

Three panels, each a latency-by-percentile spectrum (x: percentile on a log scale of 1/(1-p),
y: ms on a log scale): HTTP send latency and send -> visible in every recipient per phase, and the
raw kafkajs produce -> consume baseline per payload size and mode. A fourth panel says where the
delivery time goes: per phase, the p50 (bar) and p99 (mark) of the mailbox's stage histograms from
created_at (routed, page to the store, visible) beside the device's send -> visible.
"""
import json
import math
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

TICKS = [0, 50, 90, 99, 99.9, 100]


def xpos(p):
    return math.log10(1 / (1 - min(p, 99.99) / 100))


def spectrum(ax, label, summary):
    pts = [(xpos(p), max(ms, 0.1)) for p, ms in summary.get("spectrum", [])]
    if pts:
        ax.plot([x for x, _ in pts], [y for _, y in pts], marker=".", label=label)


def panel(ax, title):
    ax.set_title(title, fontsize=10)
    ax.set_yscale("log")
    ax.set_xticks([xpos(p) for p in TICKS])
    ax.set_xticklabels(["min", "p50", "p90", "p99", "p99.9", "max"])
    ax.set_ylabel("ms")
    ax.grid(True, which="both", alpha=0.3)


STAGES = [("routed", "routed (Kafka acked)"), ("applying", "page to the store"), ("visible", "visible (frontier)")]


def stages_panel(ax, phases):
    """Grouped horizontal bars: per phase, p50 of each stage from created_at and of the device's view."""
    rows = [p for p in phases if p.get("stages")]
    height = 0.8 / (len(STAGES) + 1)
    for i, (key, label) in enumerate(STAGES + [("device", "device sees it (from send start)")]):
        ys, p50s, p99s = [], [], []
        for r, p in enumerate(rows):
            s = p["visible"] if key == "device" else p["stages"][key]
            if s.get("p50") is None:
                continue
            ys.append(r + i * height)
            p50s.append(s["p50"])
            # beyond the last bucket (> 300 s) a quantile is stored as null: drawn at 300 s
            p99s.append(s["p99"] if s.get("p99") is not None else 300_000)
        ax.barh(ys, p50s, height=height, label=f"{label}: p50 bar, p99 mark")
        ax.plot(p99s, ys, linestyle="none", marker="|", markersize=9, color="black")
    ax.set_yticks([r + 0.4 - height / 2 for r in range(len(rows))])
    ax.set_yticklabels([f"{p['size']}m {p['mode']}" for p in rows], fontsize=8)
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.set_xlabel("ms (log)")
    ax.set_title("where delivery time goes (from created_at; device from send start)", fontsize=10)
    ax.grid(True, which="both", axis="x", alpha=0.3)
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.1), ncol=2)


def main(src, dst):
    with open(src) as f:
        result = json.load(f)
    meta, phases, baselines = result["meta"], result["phases"], result["baselines"]
    fig = plt.figure(figsize=(24, 6))
    axes = [fig.add_subplot(1, 4, 1)]
    axes += [fig.add_subplot(1, 4, i, sharey=axes[0]) for i in (2, 3)]
    stages_panel(fig.add_subplot(1, 4, 4), phases)
    for p in phases:
        name = f"{p['size']}m {p['mode']} ({p['acceptedPerSecond']:.0f}/s)"
        spectrum(axes[0], name, p["send"])
        spectrum(axes[1], f"{name}, unseen {p['notVisibleAfterDrain']}", p["visible"])
    for b in baselines:
        spectrum(axes[2], f"{b['payloadBytes']} B {b['mode']} ({b['producedPerSecond']:.0f}/s)", b["endToEnd"])
    sync = meta.get("sync") or {}
    mode = f"long-poll wait_ms={sync.get('waitMs')}" if sync.get("kind") == "long-poll" else f"short poll every {sync.get('intervalMs')} ms"
    panel(axes[0], "HTTP send (POST /v1/messages)")
    panel(axes[1], f"send -> visible in every recipient ({mode})")
    panel(axes[2], "raw kafkajs produce -> consume, same broker")
    for ax in axes:
        if ax.lines:
            ax.legend(fontsize=7, loc="lower right")
    note = f" - {meta['note']}" if meta.get("note") else ""
    fig.suptitle(
        f"QIM end to end{note}, {meta['backend']} backend, {meta['cores']} cores, "
        f"commit {meta['commit']}{' +changes' if meta.get('uncommittedChanges') else ''}, {meta['date'][:19]}Z",
        fontsize=11,
    )
    fig.tight_layout()
    fig.savefig(dst, dpi=110)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: plot.py <result.json> <chart.png>")
    main(sys.argv[1], sys.argv[2])
