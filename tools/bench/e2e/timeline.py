"""Send -> visible over the seconds of a phase, one panel per run of tools/bench/e2e:
timeline.py <chart.png> <result.json>...   Each phase of each result is one panel (labelled with the
run's --note or file name): per second of send start, the p50 and the slowest message, with the
Redis background saves (AOF rewrite or RDB save, forked children) that ran meanwhile shaded — to
tell a tail that comes from the pipeline from one that comes from a save sharing the cores.
"""
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def load(path):
    with open(path) as f:
        result = json.load(f)
    label = result["meta"].get("note") or os.path.basename(path)
    out = []
    for p in result["phases"]:
        if "visibleBySecond" not in p:
            sys.exit(f"{path}: no per-second send -> visible in this result (written before the timeline existed)")
        out.append((f"{label}: {p['size']}m {p['mode']}", p))
    return out


def fmt(v):
    return "–" if v is None else f"{v:.0f}"


def main(dst, sources):
    panels = [row for src in sources for row in load(src)]
    fig, axes = plt.subplots(len(panels), 1, figsize=(12, 2.6 * len(panels) + 0.6), sharex=True, squeeze=False)
    for ax, (label, p) in zip(axes[:, 0], panels):
        secs = p["visibleBySecond"]
        xs = [s["second"] + 0.5 for s in secs]
        ax.plot(xs, [s["max"] for s in secs], marker="o", ms=3, color="C3", label="slowest message of the second")
        ax.plot(xs, [s["p50"] for s in secs], marker="o", ms=3, color="C0", label="p50 of the second")
        for i, (a, b) in enumerate(p.get("redisForkWindowsMs") or []):
            ax.axvspan(a / 1000, b / 1000, color="C1", alpha=0.25, label="Redis background save" if i == 0 else None)
        ax.axhline(100, color="grey", lw=0.8, ls="--", label="100 ms")
        ax.set_yscale("log")
        ax.set_ylabel("ms")
        clear = p.get("visibleOutsideRedisForks")
        extra = f"; clear of saves {fmt(clear['p50'])} / {fmt(clear['p99'])} ms ({clear['count']} of {p['visible']['count']})" if clear else ""
        ax.set_title(
            f"{label} — send→visible p50 / p99 {fmt(p['visible']['p50'])} / {fmt(p['visible']['p99'])} ms{extra}, "
            f"machine {p['machineCorePercent']:.0f} %",
            fontsize=9,
        )
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7, loc="upper left")
    axes[-1, 0].set_xlabel("second of the phase (send start)")
    fig.tight_layout()
    fig.savefig(dst, dpi=110)


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit("usage: timeline.py <chart.png> <result.json>...")
    main(sys.argv[1], sys.argv[2:])
