#!/usr/bin/env python3
"""A/B summary of issue 31's runs: CPU per message (e2e) and Redis commit ÷ raw EVALSHA (redis-commit).

  ab-cpu-chart.py OUT.png LABEL=e2e-or-redis-commit-log ...

Each argument names a build (`base` or another label, before the first '-') and a saved stdout of
`tools/bench/run.sh e2e` (its "CPU µs per accepted message" table, saturation row) or of
`tools/bench/run.sh redis-commit` (its 64-in-flight row). Prints one markdown table per kind and
draws both as grouped bars per run, in the order given (needs matplotlib).
"""
import re
import sys

CPU_COLS = ['writer', 'mailbox', 'kafka', 'redis', 'cassandra', 'bench-client']


def parse_e2e(text):
    acc = re.search(r'^\S*\s*3m saturation \d+\s+([\d.]+)\s', text, re.M)
    i = text.find('CPU µs per accepted message')
    if i < 0:
        return None
    row = next((l for l in text[i:].splitlines() if 'saturation' in l), None)
    pairs = re.findall(r'(-?\d+) / (-?\d+) \(', row or '')
    if len(pairs) < 6:
        return None
    return {'accepted': float(acc.group(1)) if acc else None, **{c: (int(a), int(b)) for c, (a, b) in zip(CPU_COLS, pairs)}}


def parse_rc(text):
    m = re.search(r'^64 \| (\d+) \| [\d.]+ \| [\d.]+ \| (\d+) / (\d+) \| (\d+) / (\d+) \| [\d.]+ \| [\d.]+ \| ([\d.]+); ([\d.]+)', text, re.M)
    if not m:
        return None
    load = re.search(r'load ([\d.]+)', text)
    return {
        'commits': int(m[1]),
        'client': int(m[2]),
        'server': int(m[3]),
        'raw': max(int(m[4]), int(m[5])),
        'ratio': float(m[6]),
        'ratio_ioredis': float(m[7]),
        'load': load[1] if load else '?',
    }


def main():
    out = sys.argv[1]
    e2e, rc = [], []
    for arg in sys.argv[2:]:
        label, path = arg.split('=', 1)
        text = open(path, encoding='utf8').read()
        if 'redis-server' in text and '| commits/s |' in text:
            r = parse_rc(text)
            if r:
                rc.append((label, r))
        else:
            r = parse_e2e(text)
            if r:
                e2e.append((label, r))
    print('| run | accepted/s | writer µs/msg (all / above idle) | mailbox | redis | kafka | writer+mailbox+redis (all) |')
    print('|---|---|---|---|---|---|---|')
    for label, r in e2e:
        s = r['writer'][0] + r['mailbox'][0] + r['redis'][0]
        print(
            f"| {label} | {r['accepted']} | {r['writer'][0]} / {r['writer'][1]} | {r['mailbox'][0]} / {r['mailbox'][1]} "
            f"| {r['redis'][0]} / {r['redis'][1]} | {r['kafka'][0]} / {r['kafka'][1]} | {s} |"
        )
    print()
    print('| run | load (1 min) | commits/s at 64 | client / redis-server CPU µs per commit | raw EVALSHA/s (best) | commit ÷ raw (best; ioredis) |')
    print('|---|---|---|---|---|---|')
    for label, r in rc:
        print(f"| {label} | {r['load']} | {r['commits']} | {r['client']} / {r['server']} | {r['raw']} | {r['ratio']:.3f}; {r['ratio_ioredis']:.3f} |")
    import matplotlib

    matplotlib.use('Agg')
    import matplotlib.pyplot as plt

    panels = [k for k, runs in (('e2e', e2e), ('rc', rc)) if runs]
    fig, axes = plt.subplots(1, len(panels), figsize=(6.5 * len(panels), 4.5), squeeze=False)
    axes = dict(zip(panels, axes[0]))
    colour = lambda label: '#888888' if label.startswith('base') else '#d95f02'
    if 'e2e' in axes:
        ax = axes['e2e']
        w = 0.27
        for i, (label, r) in enumerate(e2e):
            for j, c in enumerate(['writer', 'mailbox', 'redis']):
                ax.bar(i + (j - 1) * w, r[c][0], w, color=colour(label), alpha=[1, 0.7, 0.45][j], edgecolor='black', linewidth=0.4)
        ax.set_xticks(range(len(e2e)))
        ax.set_xticklabels([l for l, _ in e2e], fontsize=8)
        ax.set_ylabel('CPU µs per accepted message (in all)')
        ax.set_title('e2e, 3 members, saturation: writer | mailbox | redis bars per run', fontsize=9)
    if 'rc' in axes:
        ax = axes['rc']
        ax.bar(range(len(rc)), [r['ratio_ioredis'] for _, r in rc], color=[colour(l) for l, _ in rc], edgecolor='black', linewidth=0.4)
        ax.axhline(0.12, color='red', linestyle='--', linewidth=0.8)
        ax.text(0, 0.123, 'target 0.12', color='red', fontsize=8)
        ax.set_xticks(range(len(rc)))
        ax.set_xticklabels([l for l, _ in rc], fontsize=8)
        ax.set_ylabel('commit ÷ ioredis raw EVALSHA at 64 in flight')
        ax.set_title('redis-commit, runs in the order of the sitting (grey: base, orange: the other build)', fontsize=9)
    fig.tight_layout()
    fig.savefig(out, dpi=110)


if __name__ == '__main__':
    main()
