#!/usr/bin/env python3
"""Chart of `tools/bench/run.sh e2e --batch N` runs: accepted msg/s and CPU µs per accepted message
(writer, mailbox, bench client; in all) per batch size, one marker per round.
Usage: batch-plot.py OUT.png LABEL=result.json ...   (LABEL: the batch size, 0 = single sends)"""
import json
import sys

import matplotlib

matplotlib.use('Agg')
import matplotlib.pyplot as plt  # noqa: E402

out, runs = sys.argv[1], sys.argv[2:]
by_batch = {}
for arg in runs:
    label, path = arg.split('=', 1)
    phase = json.load(open(path))['phases'][0]
    by_batch.setdefault(int(label), []).append(phase)
batches = sorted(by_batch)
names = ['single' if b == 0 else f'batch {b}' for b in batches]
fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4.5))
for i, b in enumerate(batches):
    for r, p in enumerate(by_batch[b]):
        ax1.scatter(i, p['acceptedPerSecond'], color='C0', marker='o^sD'[r % 4], label=f'round {r + 1}' if i == 0 else None)
ax1.set_xticks(range(len(batches)), names)
ax1.set_ylabel('accepted msg/s (3 members, saturation 64)')
ax1.set_title('throughput')
ax1.legend()
procs = ['writer', 'mailbox', 'bench-client']
width = 0.8 / len(procs)
for k, proc in enumerate(procs):
    for i, b in enumerate(batches):
        vals = [(p['cpuPerMessageUs'].get(proc) or {}).get('total') for p in by_batch[b]]
        vals = [v for v in vals if v is not None]
        if not vals:
            continue
        x = i - 0.4 + width * (k + 0.5)
        ax2.bar(x, sum(vals) / len(vals), width, color=f'C{k + 1}', label=proc if i == 0 else None)
        ax2.scatter([x] * len(vals), vals, color='black', s=8, zorder=3)
ax2.set_xticks(range(len(batches)), names)
ax2.set_ylabel('CPU µs per accepted message (in all)')
ax2.set_title('CPU per message (bar: mean of rounds, dots: each round)')
ax2.legend()
fig.suptitle('POST /v1/messages vs /v1/messages/batch — 2-core VM shared with other work (see the text)')
fig.tight_layout()
fig.savefig(out, dpi=110)
print(out)
