"""Storage chart of a soak: plot.py <soak.json> <chart.png>.

One panel per backend: rows / keys of each structure (y, log scale) against simulated days (x).
Structures that grow by design (history of default-retention messages) are dashed.
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

GROWS = {
    "memory": lambda n: n in ("message_record", "history_index"),
    "scylla": lambda n: n in ("message_record", "history_index", "history_by_seq"),
    "redis": lambda n: n.startswith("{cv}:rec ") or n.startswith("{cv}:index "),
}


def main(src, dst):
    with open(src) as f:
        results = json.load(f)
    fig, axes = plt.subplots(1, len(results), figsize=(max(10, 7 * len(results)), 7), squeeze=False)
    colors = plt.get_cmap("tab20").colors
    for ax, r in zip(axes[0], results):
        samples = [s for s in r["samples"] if s["day"] > 0]
        days = [s["day"] for s in samples]
        names = sorted({n for s in samples for n in s["counts"]})
        grows = GROWS.get(r["backend"], lambda n: False)
        for i, n in enumerate(names):
            ys = [max(s["counts"].get(n, 0), 0.5) for s in samples]
            ax.plot(days, ys, linestyle="--" if grows(n) else "-", marker=".", color=colors[i % len(colors)], label=n)
        plan = r["plan"]
        steady = plan["dedupeDays"] + 2
        ax.axvline(steady, color="grey", alpha=0.4)
        ax.set_yscale("log")
        ax.set_xlabel("simulated day")
        ax.set_ylabel("rows / keys")
        verdict = "PASS" if not r["violations"] else f"FAIL ({len(r['violations'])})"
        ax.set_title(f"{r['backend']}: retention {plan['retentionDays']} d, dedupe {plan['dedupeDays']} d - {verdict}", fontsize=10)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=6, loc="upper left")
    fig.suptitle("QIM soak: rows/keys per structure by simulated day (dashed: grows by design; flatness judged right of the grey line)", fontsize=10)
    fig.tight_layout()
    fig.savefig(dst, dpi=100)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
