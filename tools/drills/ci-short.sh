#!/usr/bin/env bash
# CI's drill pass: every drill in its short form (small load, one fault), one after another.
# Fails when any drill fails; prints each drill's time and the total. Starts what it needs through
# tools/infra; the 3-node cluster is stopped again afterwards unless it was already running
# (QIM_DRILLS_KEEP_CLUSTER=1 keeps it). QIM_DRILLS names the drills to run (default: every drill).
# Further arguments go to every drill (e.g. --no-build).
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
cluster_was_up=0
tools/infra/infra status cassandra3 > /dev/null 2>&1 && cluster_was_up=1
t0=$(date +%s)
failed=()
summary=()
for drill in ${QIM_DRILLS:-$(tools/drills/run list)}; do
  s=$(date +%s)
  if tools/drills/run "$drill" --short "$@"; then result=PASS; else result=FAIL; failed+=("$drill"); fi
  summary+=("$(printf '%-16s %s %4ds' "$drill" "$result" $(( $(date +%s) - s )))")
done
if (( cluster_was_up == 0 )) && [[ "${QIM_DRILLS_KEEP_CLUSTER:-0}" != 1 ]]; then
  tools/infra/infra down cassandra3 > /dev/null 2>&1 || true
fi
echo "== drill pass (short) =="
printf '%s\n' "${summary[@]}"
echo "total $(( $(date +%s) - t0 ))s"
if (( ${#failed[@]} > 0 )); then echo "FAIL: ${failed[*]}"; exit 1; fi
echo "PASS: all short drills"
