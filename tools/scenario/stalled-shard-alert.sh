#!/usr/bin/env bash
# Shows once, against a real Prometheus with the shipped rules (docker/monitoring/qim-alerts.yml),
# that the stalled-shard alert fires when a shard stalls the way the source-hole drill makes it stall
# (the store loses its last frontier writes under the running mailbox), and clears once the
# documented resolution (`reset-mailbox-offsets --shard N`) has let the shard pass the hole.
#
#   tools/scenario/stalled-shard-alert.sh      (needs: Debian's prometheus package, redis-cli)
#
# Starts its own qim-local deployment (redis backend, names of its own), Prometheus on 127.0.0.1:19090
# scraping both services every 5 s, and stops all of it at the end. Takes about three minutes.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
log() { printf '[alert-demo] %s\n' "$*" >&2; }
command -v prometheus > /dev/null || { log "needs prometheus (apt-get install prometheus)"; exit 1; }
id=alertdemo-$(openssl rand -hex 3)
export QIM_REDIS_NAMESPACE=$id QIM_KAFKA_CLIENT_ID=$id QIM_TOPIC_MESSAGES=$id.messages QIM_TOPIC_DISPATCH=$id.mailbox.dispatch
export QIM_SERVICE_TOKEN=${QIM_SERVICE_TOKEN:-local-dev-token-0123456789abcdef}
state=.infra/alert-demo
rm -rf "$state" && mkdir -p "$state/data"
prom_pid=
cleanup() {
  [ -n "$prom_pid" ] && kill "$prom_pid" 2> /dev/null || true
  tools/scenario/qim-local down || true
  tools/scenario/qim-local reset > /dev/null 2>&1 || true
}
trap cleanup EXIT

tools/scenario/qim-local up
tools/scenario/qim-local scenario > "$state/scenario.log"
eval "$(tools/infra/infra env)"

sed -e 's/scrape_interval: 10s/scrape_interval: 5s/' -e 's/evaluation_interval: 10s/evaluation_interval: 5s/' \
  -e "s#- qim-alerts.yml#- $root/docker/monitoring/qim-alerts.yml#" -e "s#'writer:8080'#'127.0.0.1:18080'#" -e "s#'mailbox:8081'#'127.0.0.1:18081'#" \
  docker/monitoring/prometheus.yml > "$state/prometheus.yml"
prometheus --config.file="$state/prometheus.yml" --storage.tsdb.path="$state/data" --web.listen-address=127.0.0.1:19090 > "$state/prometheus.log" 2>&1 &
prom_pid=$!
alerts_js='let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{'
alerts_js+='const a=JSON.parse(s).data.alerts.filter(x=>x.labels.alertname==="QimShardStalled");'
alerts_js+='console.log(a.map(x=>`${x.state} shard=${x.labels.shard}`).join(" ")||"none")})'
alerts() { curl -s http://127.0.0.1:19090/api/v1/alerts | node -e "$alerts_js"; }

shard=0
key=$(redis-cli -u "$QIM_REDIS_URL" --scan --pattern "$id:{sf:$shard}:mbd-frontier:0" | head -1)
[ -n "$key" ] || { log "no frontier key for shard $shard"; exit 1; }
before=$(redis-cli -u "$QIM_REDIS_URL" get "$key")
log "shard $shard frontier $before; the store loses its frontier writes (set back to 0)"
redis-cli -u "$QIM_REDIS_URL" set "$key" 0000000000000000 > /dev/null
tools/scenario/qim-local scenario > "$state/scenario2.log" 2>&1 || true   # more dispatches to shard 0: a page above F + 1 → stall
start=$(date +%s)   # the stall began during the second scenario run, before this
while :; do
  state_now=$(alerts)
  log "$(( $(date +%s) - start )) s: QimShardStalled: $state_now"
  case "$state_now" in *"firing shard=$shard"*) break ;; esac
  (( $(date +%s) - start < 180 )) || { log "FAIL: the alert did not fire within 180 s"; exit 1; }
  sleep 10
done
fired=$(( $(date +%s) - start ))
log "the stalled-shard alert fired ${fired} s after the second scenario run ended (rule: for 1m; the stall began during that run)"

log "resolution: stop the mailbox, reset-mailbox-offsets --shard $shard, start it again"
kill -TERM "$(cat .infra/scenario/mailbox.pid)"; while kill -0 "$(cat .infra/scenario/mailbox.pid)" 2> /dev/null; do sleep 0.2; done
( export QIM_ENV=development QIM_STORE_BACKEND=redis QIM_MAILBOX_SHARDS=2 QIM_MAILBOX_EPOCH=0
  unset QIM_TEST_SCYLLA_ADDR QIM_TEST_SCYLLA_KEYSPACE QIM_TEST_SCYLLA_DC QIM_TEST_SCYLLA_RF QIM_TEST_SCYLLA3_ADDRS QIM_TEST_SCYLLA3_DC QIM_TEST_SCYLLA3_RF
  node dist/apps/admin/main.js reset-mailbox-offsets --shard "$shard" )
rm -f .infra/scenario/mailbox.pid
tools/scenario/qim-local up > /dev/null
frontier_js='let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const j=JSON.parse(s);console.log(`${j.frontier} stalled=${j.stalled!==null}`)})'
frontier() {
  printf 'authorization: Bearer %s\n' "$QIM_SERVICE_TOKEN" | curl -s -H @- "http://127.0.0.1:18081/v1/shards/$shard/status" | node -e "$frontier_js"
}
log "shard $shard after the resolution: frontier $(frontier) (before the hole: $((16#$before)))"
start=$(date +%s)
while :; do
  state_now=$(alerts)
  log "$(( $(date +%s) - start )) s after the resolution: QimShardStalled: $state_now"
  [ "$state_now" = none ] && break
  (( $(date +%s) - start < 120 )) || { log "FAIL: the alert did not clear within 120 s"; exit 1; }
  sleep 5
done
log "shard $shard now: frontier $(frontier)"
log "PASS: fired ${fired} s after the second scenario run, cleared $(( $(date +%s) - start )) s after the resolution"
