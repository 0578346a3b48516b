#!/usr/bin/env python3
"""Chart of `tools/bench/run.sh long-poll --ab <ref>` output (JSON lines on stdin or a file):
store reads per second and CPU per second of the mailbox process, each round, before and after.
Usage: python3 tools/bench/long-poll-plot.py ab.txt out.png"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{") and '"round"' in l]
rounds = sorted({r["round"] for r in rows})
side = lambda s: [next(r for r in rows if r["round"] == n and r["build"].startswith(s)) for n in rounds]  # noqa: E731
before, after = side("before"), side("after")
fig, axes = plt.subplots(1, 3, figsize=(13, 4.2))
panels = [
    ("store reads/s: frontier", "frontierReadsPerS"),
    ("store reads/s: range scans", "rangeReadsPerS"),
    ("mailbox process CPU (ms per s)", "cpuMsPerS"),
]
w = 0.38
for ax, (title, key) in zip(axes, panels):
    xs = range(len(rounds))
    b = ax.bar([x - w / 2 for x in xs], [r[key] for r in before], w, label=before[0]["build"], color="#c44e52")
    a = ax.bar([x + w / 2 for x in xs], [r[key] for r in after], w, label=after[0]["build"], color="#4c72b0")
    ax.bar_label(b, fontsize=8)
    ax.bar_label(a, fontsize=8)
    ax.set_xticks(list(xs), [f"round {n}" for n in rounds])
    ax.set_title(title, fontsize=10)
axes[0].legend(fontsize=8)
polls = rows[0]["polls"]
fig.suptitle(f"{polls:,} idle long polls (half on shards applied elsewhere), private Redis; A/B alternated, shared 2-core VM", fontsize=10)
fig.tight_layout()
fig.savefig(sys.argv[2], dpi=110)
