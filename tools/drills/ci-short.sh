#!/usr/bin/env bash
# CI's drill pass: every drill in its short form (small load, one fault), one after another.
# Fails when any drill fails; prints each drill's time and the total. Starts what it needs through
# tools/infra: when a selected drill needs the 3-node cluster, the cluster is started once before
# the drills (at most twice: a failed start is reported, the cluster stopped and started again; a
# second failure fails those drills without running them — never a hang), and stopped again
# afterwards unless it was already running (QIM_DRILLS_KEEP_CLUSTER=1 keeps it). kafka-leader-kill
# starts and stops a three-broker Kafka of its own (never the shared kafka3), and redis-failover /
# redis-failover-frontier a 3 + 3 Redis Cluster of their own (never the shared redis-cluster), so they need nothing here.
# QIM_DRILLS names the drills to run (default: every drill). Each drill is bounded by
# QIM_DRILL_TIMEOUT_S (default 900 s; the runner kills its service processes on SIGTERM).
# Further arguments go to every drill (e.g. --no-build).
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
cluster_was_up=0
tools/infra/infra status cassandra3 > /dev/null 2>&1 && cluster_was_up=1
t0=$(date +%s)
# Each drill's output is also kept in .infra/reports/drills/<drill>.log; a failed drill's verdict
# lines are printed again after the summary, where a CI log's tail shows them.
logs=.infra/reports/drills
mkdir -p "$logs"
failed=()
summary=()
drills=${QIM_DRILLS:-$(tools/drills/run list)}
needs_cluster=$(tools/drills/run list scylla3)
cluster=skip
for drill in $drills; do
  if grep -qx -- "$drill" <<< "$needs_cluster"; then cluster=needed; fi
done
if [[ $cluster == needed ]]; then
  for attempt in 1 2; do
    s=$(date +%s)
    if tools/infra/infra up cassandra3 > /dev/null; then
      cluster=up
      summary+=("$(printf '%-16s %s %4ds' "cluster-start" "up (attempt $attempt)" $(( $(date +%s) - s )))")
      break
    fi
    echo "[ci-short] 3-node cluster start failed (attempt $attempt, $(( $(date +%s) - s ))s); stopping it" >&2
    tools/infra/infra down cassandra3 > /dev/null 2>&1 || true
  done
  [[ $cluster == up ]] || summary+=("cluster-start    FAILED twice: the drills that need it fail without running")
fi
for drill in $drills; do
  s=$(date +%s)
  if grep -qx -- "$drill" <<< "$needs_cluster" && [[ $cluster != up ]]; then
    result=FAIL; failed+=("$drill")
  elif timeout --kill-after=60 "${QIM_DRILL_TIMEOUT_S:-900}" tools/drills/run "$drill" --short "$@" 2>&1 | tee "$logs/$drill.log"; then
    result=PASS
  else
    result=FAIL; failed+=("$drill")
  fi
  summary+=("$(printf '%-16s %s %4ds' "$drill" "$result" $(( $(date +%s) - s )))")
done
if [[ $cluster != skip ]] && (( cluster_was_up == 0 )) && [[ "${QIM_DRILLS_KEEP_CLUSTER:-0}" != 1 ]]; then
  s=$(date +%s)
  tools/infra/infra down cassandra3 > /dev/null 2>&1 || true
  summary+=("$(printf '%-16s %s %4ds' "cluster-stop" "done" $(( $(date +%s) - s )))")
fi
echo "== drill pass (short) =="
printf '%s\n' "${summary[@]}"
echo "total $(( $(date +%s) - t0 ))s"
if (( ${#failed[@]} > 0 )); then
  for drill in "${failed[@]}"; do
    [[ -f "$logs/$drill.log" ]] || continue
    echo "== $drill: its last lines ($logs/$drill.log) =="
    tail -n 15 "$logs/$drill.log" | cut -c1-400
  done
  echo "FAIL: ${failed[*]}"
  exit 1
fi
echo "PASS: all short drills"
