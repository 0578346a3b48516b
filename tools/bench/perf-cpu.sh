#!/usr/bin/env bash
# On-CPU profile of the e2e benchmark's saturation phase with Linux perf: which share of each
# process's CPU is the kernel, V8's garbage collector and compilers, JIT-compiled JavaScript, V8's
# builtins and runtime, node's C++, libc, or the native server (tools/bench/perf-cpu.py has the
# categories). A `--cpu-prof` profile samples wall time: a thread preempted inside a syscall
# charges the wait to that syscall. perf's cpu-clock samples only count time on a CPU.
#
# Usage: tools/bench/perf-cpu.sh OUT_DIR [e2e args…]   (one size: the first saturation phase is recorded)
#   e.g. tools/bench/perf-cpu.sh /tmp/prof --sizes 3 --seconds 20 --warmup-seconds 3 --stream
# Needs Redis and Kafka from tools/infra, and perf (Debian: linux-perf) with
# kernel.perf_event_paranoid ≤ 2 for `-a` as root. The services run with `--perf-basic-prof` (node
# writes /tmp/perf-<pid>.map for JIT symbols; removed at the end). Writes OUT_DIR/e2e.txt (the
# benchmark's report), OUT_DIR/perf-cpu.md (the table and each process's top symbols) and
# OUT_DIR/perf-cpu.png (µs per message by category).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:?usage: tools/bench/perf-cpu.sh OUT_DIR [e2e args…]}
shift
freq=${PERF_FREQ:-497}
command -v perf > /dev/null || { echo "perf-cpu: perf is not installed (apt-get install linux-perf)" >&2; exit 2; }
py=/usr/bin/python3
"$py" -c 'import matplotlib' 2> /dev/null || { echo "perf-cpu: $py has no matplotlib (apt-get install python3-matplotlib)" >&2; exit 2; }
mkdir -p "$out"
report="$out/e2e.txt"
: > "$report"
SERVICE_NODE_ARGS="--perf-basic-prof ${SERVICE_NODE_ARGS:-}" "$root/tools/bench/run.sh" e2e --phases saturation --baseline-seconds 0 "$@" > "$report" 2>&1 &
bench=$!
cleanup() { kill "$bench" 2> /dev/null || true; }
trap cleanup EXIT
# The saturation phase starts when the warm-up line is printed and ends with the phase's result line.
until grep -q 'warm-up:' "$report"; do
  kill -0 "$bench" 2> /dev/null || { tail -20 "$report" >&2; echo "perf-cpu: the benchmark ended before its warm-up" >&2; exit 1; }
  sleep 0.2
done
perf record -a -F "$freq" -o "$out/perf.data" 2> "$out/perf-record.log" &
recorder=$!
until grep -Eq 'saturation [0-9]+: ' "$report"; do
  kill -0 "$bench" 2> /dev/null || break
  sleep 0.2
done
kill -INT "$recorder"
wait "$recorder" || true
wait "$bench"
trap - EXIT
result=$(grep -o 'result: [^ ]*\.json' "$report" | tail -1 | cut -d' ' -f2)
[ -n "$result" ] || { echo "perf-cpu: no result file in $report" >&2; exit 1; }
names=$(grep -o 'watching CPU of .*' "$report" | head -1 | sed 's/watching CPU of //; s/ (\([0-9]*\))/=\1/g; s/, /,/g')
accepted=$("$py" -c 'import json,sys; print(json.load(open(sys.argv[1]))["phases"][0]["accepted"])' "$result")
perf script -i "$out/perf.data" -F comm,pid,tid,ip,sym,dso 2> /dev/null |
  "$py" "$root/tools/bench/perf-cpu.py" --names "$names" --freq "$freq" --messages "$accepted" \
    --md "$out/perf-cpu.md" --png "$out/perf-cpu.png" --title "on-CPU time per accepted message by category (perf, $accepted messages)"
for pid in $(echo "$names" | tr ',' '\n' | cut -d= -f2); do rm -f "/tmp/perf-$pid.map"; done
