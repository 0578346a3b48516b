#!/usr/bin/env python3
"""Per-run chart and table of an A/B sitting of the e2e benchmark (tools/bench/e2e/ab.sh).

  ab-runs-chart.py OUT.png LABEL=run.txt ...   (LABEL: the build, e.g. base, new, stream)

Reads each run's saved stdout: the saturation row's accepted/s and devices' sync answers 503 (the
read budget's refusals, ADR-0043), the fixed phase's visible p99, and the "CPU µs per accepted
message" saturation row (above idle) of writer, mailbox, redis, kafka and the benchmark client.
Prints a markdown table (one row per run, then the median per build) and draws three panels: CPU µs
per message above idle per process (one group per run), accepted/s, and sync 503s per run.
Needs matplotlib (Debian: python3-matplotlib for /usr/bin/python3).
"""
import re
import statistics
import sys

SHOWN = ['writer', 'mailbox', 'redis', 'kafka', 'bench-client']


def parse(text):
    sat = re.search(r'^3m saturation \d+\s+(\d+)\s.*$', text, re.M)
    refused = re.search(r'sync 503 UNAVAILABLE×(\d+)', sat[0]) if sat else None
    fixed = re.search(r'^3m fixed \S+\s+\d+\s+\d+\s+\d+\s+[\d.]+ / ([\d.]+) / [\d.]+\s+[\d.]+ / ([\d.]+) /', text, re.M)
    i = text.find('CPU µs per accepted message')
    if i < 0 or not sat:
        return None
    lines = text[i:].splitlines()
    header = next((l for l in lines if l.startswith('phase')), '').split()[1:]
    row = next((l for l in lines if l.startswith('3m saturation')), '')
    pairs = re.findall(r'(-?\d+) / (-?\d+) \(', row)
    if len(pairs) != len(header) or not set(SHOWN) <= set(header):
        return None
    cpu = {p: int(b) for p, (_, b) in zip(header, pairs)}
    return {
        'accepted': int(sat[1]),
        'sync_503': int(refused[1]) if refused else 0,
        'send_p99_500': float(fixed[1]) if fixed else None,
        'visible_p99_500': float(fixed[2]) if fixed else None,
        **cpu,
    }


def main():
    out = sys.argv[1]
    runs = []
    for arg in sys.argv[2:]:
        label, path = arg.split('=', 1)
        r = parse(open(path, encoding='utf8').read())
        if r is None:
            print(f'(no result in {path})', file=sys.stderr)
            continue
        runs.append((label, r))
    cols = ['accepted', *SHOWN, 'visible_p99_500', 'sync_503']
    print('| run | accepted/s | ' + ' | '.join(f'{c} µs/msg' for c in SHOWN) + ' | fixed 500/s visible p99 ms | sync 503s |')
    print('|---' * (len(cols) + 1) + '|')
    for label, r in runs:
        print(f'| {label} | ' + ' | '.join('—' if r[c] is None else f'{r[c]:g}' for c in cols) + ' |')
    for label in dict.fromkeys(l for l, _ in runs):
        mine = [r for l, r in runs if l == label]
        med = [statistics.median(r[c] for r in mine if r[c] is not None) if any(r[c] is not None for r in mine) else None for c in cols]
        print(f'| **{label} median** | ' + ' | '.join('—' if m is None else f'{m:g}' for m in med) + ' |')

    import matplotlib

    matplotlib.use('Agg')
    import matplotlib.pyplot as plt

    labels = list(dict.fromkeys(l for l, _ in runs))
    palette = ['#888888', '#1b9e77', '#d95f02', '#7570b3']
    colour = {l: palette[i % len(palette)] for i, l in enumerate(labels)}
    fig, (ax, bx, cx) = plt.subplots(1, 3, figsize=(16, 4.8), gridspec_kw={'width_ratios': [3, 1, 1]})
    w = 0.8 / len(runs)
    for i, (label, r) in enumerate(runs):
        xs = [j + (i - (len(runs) - 1) / 2) * w for j in range(len(SHOWN))]
        first = label not in [l for l, _ in runs[:i]]
        ax.bar(xs, [r[p] for p in SHOWN], w, color=colour[label], edgecolor='black', linewidth=0.3, label=label if first else None)
    ax.set_xticks(range(len(SHOWN)))
    ax.set_xticklabels(SHOWN)
    ax.set_ylabel('CPU µs per accepted message, above idle')
    ax.set_title('3 members, 64 in flight: one bar per run, runs in sitting order', fontsize=9)
    ax.legend(fontsize=8)
    bx.bar(range(len(runs)), [r['accepted'] for _, r in runs], color=[colour[l] for l, _ in runs], edgecolor='black', linewidth=0.3)
    bx.set_xticks(range(len(runs)))
    bx.set_xticklabels([l for l, _ in runs], rotation=60, fontsize=7)
    bx.set_ylabel('accepted msg/s at saturation')
    cx.bar(range(len(runs)), [r['sync_503'] for _, r in runs], color=[colour[l] for l, _ in runs], edgecolor='black', linewidth=0.3)
    cx.set_xticks(range(len(runs)))
    cx.set_xticklabels([l for l, _ in runs], rotation=60, fontsize=7)
    cx.set_ylabel('device syncs answered 503 at saturation')
    fig.tight_layout()
    fig.savefig(out, dpi=110)


if __name__ == '__main__':
    main()
