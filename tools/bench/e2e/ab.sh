#!/usr/bin/env bash
# An A/B sitting of the end-to-end benchmark: two builds of the services, alternated round by round
# on the same servers, the same benchmark client (this tree's) for both.
#
#   tools/bench/e2e/ab.sh OUT_DIR ROUNDS A=TREE B=TREE [-- e2e arguments]
#   NAME=TREE:ARGS gives one build's runs more e2e arguments (e.g. stream=.:--stream: the same
#   tree measured with its devices streaming)
#   e.g. git worktree add ../base <commit> && (cd ../base && npx nx run-many -t build -p writer mailbox)
#        npx nx run-many -t build -p writer mailbox
#        tools/bench/e2e/ab.sh /tmp/ab 3 base=../base new=. -- --sizes 3 --seconds 20
#
# Each tree must hold built services (dist/apps/{writer,mailbox}/main.js). Every run gets a fresh
# Redis namespace, Kafka client id and topics (nothing carried over between runs or builds), runs
# the services on the pinned Node 24 (as qim-local does) on ports 18680/18681, and writes
# OUT_DIR/<build>-<round>.json (and the machine's load before the run into OUT_DIR/runs.tsv).
# Servers come from tools/infra (redis, kafka); nothing else may listen on the two ports.
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
out=${1:?usage: ab.sh OUT_DIR ROUNDS A=TREE B=TREE [-- e2e args]}
rounds=${2:?rounds}
shift 2
builds=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do builds+=("$1"); shift; done
[ "${1:-}" = -- ] && shift
[ ${#builds[@]} -ge 2 ] || { echo "two or more NAME=TREE builds" >&2; exit 2; }
mkdir -p "$out"
cd "$root"
eval "$(tools/infra/infra env)"
tools/infra/infra up redis kafka > /dev/null
node24=${SERVICE_NODE:-$(tools/infra/infra service-node)}
token=local-dev-token-0123456789abcdef
pids=()
stop() {
  for p in "${pids[@]}"; do kill -TERM "$p" 2> /dev/null || true; done
  for p in "${pids[@]}"; do while kill -0 "$p" 2> /dev/null; do sleep 0.2; done; done
  pids=()
}
trap stop EXIT
wait_ready() {
  for _ in $(seq 1 120); do curl -fsS "http://127.0.0.1:$1/readyz" > /dev/null 2>&1 && return 0; sleep 0.5; done
  echo "service on :$1 not ready" >&2; return 1
}
printf 'run\tbuild\tcommit\tload1\tstarted\n' >> "$out/runs.tsv"
for round in $(seq 1 "$rounds"); do
  for spec in "${builds[@]}"; do
    name=${spec%%=*}
    rest=${spec#*=}
    extra=()
    if [[ $rest == *:* ]]; then read -r -a extra <<< "${rest#*:}"; rest=${rest%%:*}; fi
    tree=$(cd "$rest" && pwd)
    id="ab-$name-$round-$(date +%s)"
    (
      export QIM_ENV=development QIM_STORE_BACKEND=redis QIM_SERVICE_TOKEN=$token
      export QIM_REDIS_NAMESPACE=$id QIM_KAFKA_CLIENT_ID=$id QIM_TOPIC_MESSAGES=$id.messages QIM_TOPIC_DISPATCH=$id.mailbox.dispatch
      export QIM_MESSAGES_PARTITIONS=4 QIM_MAILBOX_SHARDS=2 QIM_MAILBOX_EPOCH=0
      cd "$tree"
      "$node24" dist/apps/mailbox/main.js create-topics > "$out/$name-$round.topics.log" 2>&1
    )
    for svc in writer:18680 mailbox:18681; do
      (
        export QIM_ENV=development QIM_STORE_BACKEND=redis QIM_SERVICE_TOKEN=$token
        export QIM_REDIS_NAMESPACE=$id QIM_KAFKA_CLIENT_ID=$id QIM_TOPIC_MESSAGES=$id.messages QIM_TOPIC_DISPATCH=$id.mailbox.dispatch
        export QIM_MESSAGES_PARTITIONS=4 QIM_MAILBOX_SHARDS=2 QIM_MAILBOX_EPOCH=0
        export QIM_HTTP_HOST=127.0.0.1 QIM_HTTP_PORT=${svc#*:}
        cd "$tree"
        # shellcheck disable=SC2086
        exec "$node24" --max-semi-space-size=32 ${SERVICE_NODE_ARGS:-} "dist/apps/${svc%%:*}/main.js" > "$out/$name-$round.${svc%%:*}.log" 2>&1
      ) &
      pids+=($!)
    done
    wait_ready 18680 && wait_ready 18681
    sleep 5 # the mailbox's shards assigned and checked
    printf '%s\t%s\t%s\t%s\t%s\n' "$round" "$name" "$(git -C "$tree" rev-parse --short HEAD)" \
      "$(cut -d' ' -f1 /proc/loadavg)" "$(date -u +%FT%TZ)" >> "$out/runs.tsv"
    WRITER_URL=http://127.0.0.1:18680 MAILBOX_URL=http://127.0.0.1:18681 QIM_SERVICE_TOKEN=$token \
      tools/bench/run.sh e2e --no-start --note "$name ($round)" --out "$out/$name-$round.json" "$@" "${extra[@]}" > "$out/$name-$round.txt" 2>&1 ||
      echo "run $name-$round failed (see $out/$name-$round.txt)" >&2
    stop
  done
done
echo "done: $out/runs.tsv" >&2
