#!/usr/bin/env python3
"""Chart of `tools/bench/run.sh redis-cluster-mailbox --json FILE` rows from two builds run alternately.

  cluster-mailbox-chart.py OUT.png LABEL=JSON[,JSON...] [LABEL=JSON,...]
  e.g. cluster-mailbox-chart.py out.png main=new-1.json,new-2.json before=old-1.json,old-2.json

Prints a markdown table of medians per build and target and draws entries/s and apply → visible p50
per build × target, every round a point (needs matplotlib).
"""
import json
import statistics
import sys

import matplotlib

matplotlib.use('Agg')
import matplotlib.pyplot as plt  # noqa: E402


def main():
    out, builds = sys.argv[1], []
    for arg in sys.argv[2:]:
        label, files = arg.split('=', 1)
        rows = [r for f in files.split(',') for r in json.load(open(f, encoding='utf-8'))]
        builds.append((label, rows))
    targets = sorted({r['target'] for _, rows in builds for r in rows})
    keys = [('entriesPerSecond', 'entries/s', 0), ('p50', 'apply → visible p50 ms', 1), ('p99', 'p99 ms', 1),
            ('clientUsPerEntry', 'client CPU µs/entry', 1), ('clusterUsPerEntry', 'cluster CPU µs/entry', 1),
            ('waitsPerPage', 'WAITs/page', 1)]
    print('| build | target | rounds | ' + ' | '.join(k[1] + ' (median)' for k in keys) + ' |')
    print('|---|---|---|' + '---|' * len(keys))
    for label, rows in builds:
        for t in targets:
            sel = [r for r in rows if r['target'] == t]
            cells = [f"{statistics.median(r[k] for r in sel):.{d}f}" for k, _, d in keys]
            print(f'| {label} | {t} | {len(sel)} | ' + ' | '.join(cells) + ' |')
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    for ax, (key, title) in zip(axes, [('entriesPerSecond', 'entries/s inside applyPage (higher is better)'),
                                        ('p50', 'apply → visible p50 per page, ms (lower is better)')]):
        ticks = []
        for i, (label, rows) in enumerate(builds):
            for j, t in enumerate(targets):
                x = i * (len(targets) + 1) + j
                ys = [r[key] for r in rows if r['target'] == t]
                ax.scatter([x] * len(ys), ys, color=['#2b6cb0', '#dd6b20'][j % 2], alpha=0.7)
                ax.hlines(statistics.median(ys), x - 0.3, x + 0.3, color='black')
                ticks.append((x, f'{label}\n{t}'))
        ax.set_xticks([x for x, _ in ticks], [n for _, n in ticks])
        ax.set_title(title)
        ax.set_ylim(bottom=0)
        ax.grid(axis='y', alpha=0.3)
    fig.suptitle('Mailbox apply on the 3 + 3 Redis Cluster, pages of 500 × 3 recipients: replica acks 0 vs 1, two builds alternated')
    fig.tight_layout()
    fig.savefig(out, dpi=110)


if __name__ == '__main__':
    main()
