# Chart of tools/bench/run.sh redis-cluster-commit --json FILE: python3 tools/bench/redis-cluster-commit-chart.py FILE OUT.png
import json, sys
import matplotlib
matplotlib.use('Agg')
import matplotlib.pyplot as plt
rows = json.load(open(sys.argv[1]))
targets = ['standalone', 'cluster', 'cluster+WAIT 1']
rounds = sorted({r['round'] for r in rows})
fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
w = 0.8 / len(rounds)
for i, rd in enumerate(rounds):
    vals = [next(r for r in rows if r['round'] == rd and r['target'] == t) for t in targets]
    xs = [j + (i - (len(rounds) - 1) / 2) * w for j in range(len(targets))]
    axes[0].bar(xs, [v['commits'] for v in vals], w, label=f'round {rd}')
    axes[1].bar(xs, [v['commits'] / v['raw'] for v in vals], w, label=f'round {rd}')
for ax, title in zip(axes, ['commits/s (16 in flight)', 'commit ÷ raw EVALSHA on the same client']):
    ax.set_xticks(range(len(targets)))
    ax.set_xticklabels(targets)
    ax.set_title(title)
    ax.grid(axis='y', alpha=0.3)
axes[0].legend(fontsize=8)
fig.suptitle('Redis commit: standalone vs Redis Cluster (3+3) vs cluster with WAIT 1 — 2 shared cores, load ~50', fontsize=10)
fig.tight_layout()
fig.savefig(sys.argv[2], dpi=110)
