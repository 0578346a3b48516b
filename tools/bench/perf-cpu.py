#!/usr/bin/env python3
"""Where the CPU of each process goes, from Linux perf samples (tools/bench/perf-cpu.sh).

Reads `perf script -F comm,pid,tid,ip,sym,dso` on stdin. perf's cpu-clock samples count on-CPU time
only; a V8 `--cpu-prof` profile samples wall time, so a thread preempted inside a write syscall
charges that wait to the write. Each sample goes to one category by its shared object and symbol:

  kernel      the kernel on the process's behalf (syscalls, TCP, page faults)
  gc          V8's garbage collector (scavenger, marking, sweeping), any thread
  compiler    V8's optimising compilers (TurboFan, Maglev), any thread
  jit         JIT-compiled code: JavaScript in node, Java in Kafka's JVM ([JIT] / perf map symbols)
  v8-runtime  V8 builtins, ICs and runtime functions outside the two above (interpreter included)
  node-native node's C++ (http parser, streams, crypto, libuv) and OpenSSL
  libc        libc / jemalloc (malloc, memcpy, futex)
  native      a native binary's own code (redis-server, the JVM's libjvm)
  other       unresolved addresses

Usage: perf script ... | perf-cpu.py --names writer=PID,mailbox=PID,... --freq F --messages N
       [--md OUT.md] [--png OUT.png --title T] [--top K]
Prints, per named process, µs per message (samples / frequency / messages), each category's share
and its top symbols.
"""
import argparse
import collections
import re
import sys

CATEGORIES = ['kernel', 'gc', 'compiler', 'jit', 'v8-runtime', 'node-native', 'libc', 'native', 'other']

GC = re.compile(
    r'Scavenge|MarkCompact|Marking|Sweep|Evacuat|RememberedSet|IteratePointers|Heap::|MemoryChunk|'
    r'MemoryAllocator|PagedSpace|NewSpace|ArrayBufferSweeper|MinorMS|GCTracer|Compactor|HeapObject::SizeFromMap|'
    r'IncrementalMarking|ConcurrentMarking|EphemeronRememberedSet|MarkingBarrier|RecordWrite'
)
COMPILER = re.compile(r'v8::internal::compiler::|turboshaft|maglev|Maglev|OptimizedCompilationJob|Pipeline|Turbofan|CompileTask')


def category(dso, sym):
    if dso.startswith('[kernel') or dso in ('[vdso]', '[vsyscall]'):
        return 'kernel'
    if GC.search(sym):
        return 'gc'
    if COMPILER.search(sym):
        return 'compiler'
    if dso.startswith('[JIT]') or dso.startswith('perf-') or sym.startswith('JS:') or sym.startswith('LazyCompile:'):
        return 'jit'
    if dso == 'node' or dso.endswith('/node'):
        if sym.startswith('Builtins_') or sym.startswith('v8::') or sym.startswith('Builtin:'):
            return 'v8-runtime'
        if sym.startswith('[unknown]') or re.match(r'^0x[0-9a-f]+$', sym):
            return 'other'
        return 'node-native'
    if 'libc' in dso or 'jemalloc' in dso or 'libm' in dso or 'libpthread' in dso or 'ld-linux' in dso:
        return 'libc'
    if 'libcrypto' in dso or 'libssl' in dso or 'libuv' in dso or 'libnode' in dso:
        return 'node-native'
    if dso.startswith('[unknown]') or dso == '':
        return 'other'
    return 'native'


LINE = re.compile(r'^\s*(?P<comm>.+?)\s+(?P<pid>\d+)/(?P<tid>\d+)\s+(?P<rest>.*)$')


def parse(stream):
    """Yields (pid, dso, sym) per sample; each line is `COMM PID/TID ADDR SYM (DSO)`."""
    for line in stream:
        m = LINE.match(line.rstrip('\n'))
        if not m:
            continue
        rest = m.group('rest').strip()
        dso = ''
        dm = re.search(r'\(([^()]*)\)\s*$', rest)
        if dm:
            dso = dm.group(1).split('/')[-1] if not dm.group(1).startswith('[') else dm.group(1)
            rest = rest[: dm.start()].strip()
        sym = re.sub(r'^[0-9a-f]+\s+', '', rest)
        yield int(m.group('pid')), dso, sym


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--names', required=True, help='label=PID,…')
    ap.add_argument('--freq', type=float, required=True, help='perf record -F')
    ap.add_argument('--messages', type=float, required=True, help='messages accepted while perf recorded')
    ap.add_argument('--md')
    ap.add_argument('--png')
    ap.add_argument('--title', default='')
    ap.add_argument('--top', type=int, default=12)
    a = ap.parse_args()
    names = {}
    for pair in a.names.split(','):
        label, pid = pair.split('=')
        names[int(pid)] = label
    counts = {label: collections.Counter() for label in names.values()}
    syms = {label: collections.Counter() for label in names.values()}
    for pid, dso, sym in parse(sys.stdin):
        label = names.get(pid)
        if label is None:
            continue
        counts[label][category(dso, sym)] += 1
        syms[label][f'{sym} ({dso})'] += 1

    rows = []
    header = '| process | CPU µs / message | ' + ' | '.join(CATEGORIES) + ' |'
    rows.append(header)
    rows.append('|' + '---|' * (len(CATEGORIES) + 2))
    per_msg = {}
    for label in names.values():
        total = sum(counts[label].values())
        us = total / a.freq / a.messages * 1e6 if a.messages > 0 else 0.0
        per_msg[label] = us
        shares = [f'{100 * counts[label][c] / total:.1f} %' if total else '–' for c in CATEGORIES]
        rows.append(f'| {label} | {us:.0f} | ' + ' | '.join(shares) + ' |')
    table = '\n'.join(rows)
    print(table)
    tops = []
    for label in names.values():
        total = sum(syms[label].values()) or 1
        tops.append(f'\n{label}: top symbols (share of its samples)')
        for s, n in syms[label].most_common(a.top):
            tops.append(f'  {100 * n / total:5.1f} %  {s[:150]}')
    print('\n'.join(tops))
    if a.md:
        with open(a.md, 'w') as f:
            f.write(table + '\n\n```\n' + '\n'.join(tops).strip() + '\n```\n')
    if a.png:
        import matplotlib

        matplotlib.use('Agg')
        import matplotlib.pyplot as plt

        labels = list(names.values())
        fig, ax = plt.subplots(figsize=(10, 5))
        left = [0.0] * len(labels)
        colors = plt.get_cmap('tab10').colors
        for i, c in enumerate(CATEGORIES):
            widths = []
            for label in labels:
                total = sum(counts[label].values()) or 1
                widths.append(per_msg[label] * counts[label][c] / total)
            ax.barh(labels, widths, left=left, label=c, color=colors[i % len(colors)])
            left = [x + w for x, w in zip(left, widths)]
        ax.invert_yaxis()
        ax.set_xlabel('CPU µs per accepted message (perf cpu-clock samples, all threads of the process)')
        ax.set_title(a.title)
        ax.legend(ncol=9, fontsize=8, loc='upper center', bbox_to_anchor=(0.5, -0.16))
        fig.tight_layout()
        fig.savefig(a.png, dpi=110)


if __name__ == '__main__':
    main()
