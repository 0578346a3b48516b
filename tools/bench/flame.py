#!/usr/bin/env python3
"""Flame graph (PNG) and top self-time costs of a V8 .cpuprofile (node --cpu-prof).

  flame.py PROFILE.cpuprofile OUT.png [--title T] [--from S] [--to S] [--top N] [--min-pct P]

--from/--to keep only the samples taken S seconds after the profile's start (e.g. a benchmark's
saturation phase). Prints the top N functions by self time (package or file, function, line) and
the top N by total time, as percentages of the kept samples; draws the flame graph (root at the
bottom, width = share of samples, frames under --min-pct of the samples left out). Needs matplotlib
(Debian: apt-get install python3-matplotlib, for /usr/bin/python3).
"""
import argparse
import json
import re
from collections import defaultdict


def frame_label(cf):
    name = cf.get('functionName') or '(anonymous)'
    url = cf.get('url') or ''
    m = re.search(r'node_modules/((?:@[^/]+/)?[^/]+)', url)
    where = m.group(1) if m else (url if url.startswith('node:') else url.rsplit('/', 1)[-1] if url else '')
    return f'{name} {where}:{cf.get("lineNumber", -1) + 1}' if where else name


def owner_of(label):
    """The package (node_modules) or the app function (bundle main.js) a frame belongs to, else None."""
    m = re.match(r'^(.*) (\S+):(\d+)$', label)
    if not m:
        return None
    name, where, line = m.groups()
    if where == 'main.js':
        return f'app: {name} (main.js:{line})'
    if where and '.' not in where and not where.startswith('node:'):
        return where
    return None


def load(path, t_from, t_to):
    prof = json.load(open(path))
    nodes = {n['id']: n for n in prof['nodes']}
    parent = {}
    for n in prof['nodes']:
        for c in n.get('children', []):
            parent[c] = n['id']
    hits = defaultdict(int)
    t = 0
    for sid, dt in zip(prof['samples'], prof['timeDeltas']):
        t += dt
        s = t / 1e6
        if (t_from is None or s >= t_from) and (t_to is None or s < t_to):
            hits[sid] += 1
    return nodes, parent, hits, (prof['endTime'] - prof['startTime']) / 1e6


def stacks(nodes, parent, hits):
    """(tuple of labels root→leaf, samples) per sampled node, idle/program/GC kept as leaves."""
    out = []
    for nid, h in hits.items():
        path = []
        cur = nid
        while cur is not None:
            cf = nodes[cur]['callFrame']
            if cf.get('functionName') != '(root)':
                path.append(frame_label(cf))
            cur = parent.get(cur)
        out.append((tuple(reversed(path)), h))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('profile')
    ap.add_argument('out')
    ap.add_argument('--title', default='')
    ap.add_argument('--from', dest='t_from', type=float)
    ap.add_argument('--to', dest='t_to', type=float)
    ap.add_argument('--top', type=int, default=15)
    ap.add_argument('--min-pct', type=float, default=0.4)
    a = ap.parse_args()
    nodes, parent, hits, span = load(a.profile, a.t_from, a.t_to)
    st = stacks(nodes, parent, hits)
    total = sum(h for _, h in st)
    idle = sum(h for s, h in st if s and s[-1].startswith('(idle)'))
    busy = total - idle
    self_t = defaultdict(int)
    total_t = defaultdict(int)
    for s, h in st:
        if not s or s[-1].startswith('(idle)'):
            continue
        self_t[s[-1]] += h
        for f in set(s):
            total_t[f] += h
    print(f'# {a.profile}: {total} samples kept of {span:.0f} s; busy (not idle) {busy} = 100 %')
    print('## self time, % of busy samples')
    for f, h in sorted(self_t.items(), key=lambda x: -x[1])[: a.top]:
        print(f'{100 * h / busy:5.1f} %  {f}')
    owner = defaultdict(int)
    for s, h in st:
        if not s or s[-1].startswith('(idle)'):
            continue
        owner[next((owner_of(f) for f in reversed(s) if owner_of(f)), s[-1])] += h
    print('## self time by owner (a node-internal frame counts for the nearest package or app function calling it)')
    for f, h in sorted(owner.items(), key=lambda x: -x[1])[: a.top]:
        print(f'{100 * h / busy:5.1f} %  {f}')
    print('## total time (self + callees), % of busy samples')
    for f, h in sorted(total_t.items(), key=lambda x: -x[1])[: a.top]:
        print(f'{100 * h / busy:5.1f} %  {f}')
    draw(st, busy, a)


def draw(st, busy, a):
    import matplotlib

    matplotlib.use('Agg')
    import matplotlib.pyplot as plt

    tree = {}
    for s, h in st:
        if not s or s[-1].startswith('(idle)'):
            continue
        node = tree
        for f in s:
            e = node.setdefault(f, [0, {}])
            e[0] += h
            node = e[1]
    min_w = busy * a.min_pct / 100
    rects = []

    def walk(node, x, depth):
        for f, (h, kids) in sorted(node.items(), key=lambda kv: -kv[1][0]):
            if h >= min_w:
                rects.append((x, depth, h, f))
                walk(kids, x, depth + 1)
            x += h

    walk(tree, 0, 0)
    depth = max((r[1] for r in rects), default=0) + 1
    fig, ax = plt.subplots(figsize=(18, max(4, 0.24 * depth + 1)))
    cmap = plt.get_cmap('YlOrRd')
    for x, d, w, f in rects:
        ax.add_patch(plt.Rectangle((x / busy, d), w / busy, 0.95, facecolor=cmap(0.25 + 0.5 * ((hash(f) % 97) / 97)), edgecolor='white', linewidth=0.3))
        if w / busy > 0.03:
            ax.text(x / busy + 0.002, d + 0.45, f'{f} ({100 * w / busy:.1f}%)'[: int(180 * w / busy)], fontsize=6, va='center')
    ax.set_xlim(0, 1)
    ax.set_ylim(0, depth)
    ax.set_yticks([])
    ax.set_xlabel('share of busy (non-idle) samples')
    ax.set_title(a.title or a.profile, fontsize=9)
    fig.tight_layout()
    fig.savefig(a.out, dpi=110)


if __name__ == '__main__':
    main()
