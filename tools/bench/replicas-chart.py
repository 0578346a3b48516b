#!/usr/bin/env python3
"""Chart of `tools/bench/run.sh replicas` lines (docs/scaling.md): accepted msg/s and CPU µs per
message (writers, mailboxes, redis, kafka) per run, grouped by the run label's letters.

  replicas-chart.py OUT.png LOG [LOG ...]    (LOG: saved stdout lines of tools/bench/run.sh replicas)
  e.g. labels C1 D1 A1 … : the letters name the deployment, the digit the round.

Prints a markdown table of every run and draws two panels (needs matplotlib).
"""
import re
import sys

import matplotlib

matplotlib.use('Agg')
import matplotlib.pyplot as plt  # noqa: E402

LINE = re.compile(
    r'^(\S+) \| instances (\d+)\+(\d+) \| accepted (\d+)/s \| applied (\d+)/s.*?\| acked (\d+) \| errors (.*?) \| '
    r'CPU µs/msg writers (\d+) mailboxes (\d+) redis (\d+) kafka (\d+) client (\d+) \| machine (\d+) %'
)


def main():
    out, logs = sys.argv[1], sys.argv[2:]
    runs = []
    for log in logs:
        for line in open(log, encoding='utf-8'):
            m = LINE.match(line.strip())
            if m:
                runs.append(m.groups())
    if not runs:
        sys.exit('no replicas lines found')
    print('| run | instances | accepted/s | applied/s | errors | writers | mailboxes | redis | kafka | client | machine |')
    print('|---|---|---|---|---|---|---|---|---|---|---|')
    for r in runs:
        print(f'| {r[0]} | {r[1]}+{r[2]} | {r[3]} | {r[4]} | {r[6]} | {r[7]} | {r[8]} | {r[9]} | {r[10]} | {r[11]} | {r[12]} % |')
    kinds = sorted({re.sub(r'\d+$', '', r[0]) for r in runs})
    colours = dict(zip(kinds, ['#2b6cb0', '#dd6b20', '#38a169', '#805ad5', '#718096']))
    fig, axes = plt.subplots(1, 2, figsize=(14, 5))
    x = range(len(runs))
    axes[0].bar(x, [int(r[3]) for r in runs], color=[colours[re.sub(r'\d+$', '', r[0])] for r in runs], edgecolor='black', linewidth=0.4)
    axes[0].set_ylabel('accepted msg/s (64 in flight, 3 members)')
    axes[0].set_xticks(list(x))
    axes[0].set_xticklabels([f'{r[0]}\n{r[1]}+{r[2]}' for r in runs], fontsize=8)
    axes[0].set_title('throughput per run', fontsize=9)
    width = 0.2
    for i, (name, col) in enumerate([('writers', 7), ('mailboxes', 8), ('redis', 9), ('kafka', 10)]):
        axes[1].bar([j + (i - 1.5) * width for j in x], [int(r[col]) for r in runs], width, label=name)
    axes[1].set_ylabel('CPU µs per message (all instances, in all)')
    axes[1].set_xticks(list(x))
    axes[1].set_xticklabels([r[0] for r in runs], fontsize=8)
    axes[1].legend(fontsize=8)
    axes[1].set_title('CPU per message by process kind', fontsize=9)
    fig.tight_layout()
    fig.savefig(out, dpi=110)


if __name__ == '__main__':
    main()
