# shellcheck shell=bash
# Kafka 3.9 as a three-broker KRaft cluster ('kafka3'): three JVMs on loopback, each broker and
# controller (three voters), with their own ports and log dirs under .infra/kafka3/node<id>.
# Topics default to replication 3 with min.insync.replicas 2 (conf/kafka3/server.properties.in).

KAFKA3_ROOT="$INFRA_STATE/kafka3"
KAFKA3_NODES=(1 2 3)

kafka3_broker_port() { printf '%s' $((KAFKA3_BROKER_BASE + $1)); }
kafka3_controller_port() { printf '%s' $((KAFKA3_CONTROLLER_BASE + $1)); }
kafka3_brokers_csv() {
  local n out=()
  for n in "${KAFKA3_NODES[@]}"; do out+=("127.0.0.1:$(kafka3_broker_port "$n")"); done
  (IFS=,; printf '%s' "${out[*]}")
}

kafka3_check_id() {
  [[ "${1:-}" =~ ^[123]$ ]] || die "kafka3: '${1:-}' is not a broker id (expected 1, 2 or 3)"
}

kafka3_dir() { printf '%s/node%s' "$KAFKA3_ROOT" "$1"; }
kafka3_pidfile() { printf '%s/kafka.pid' "$(kafka3_dir "$1")"; }
# The trailing space ends the marker (node1 never matches a node10 of some other set-up).
kafka3_owned_pid() { owned_pid "$(kafka3_pidfile "$1")" "$(marker_for "kafka3-node$1") "; }

kafka3_render_config() {
  local n=$1 dir voters="" v
  dir="$(kafka3_dir "$n")"
  mkdir -p "$dir/data" "$dir/logs"
  for v in "${KAFKA3_NODES[@]}"; do voters+="${voters:+,}$v@127.0.0.1:$(kafka3_controller_port "$v")"; done
  sed -e "s|@NODE_ID@|$n|g" \
      -e "s|@VOTERS@|$voters|g" \
      -e "s|@BROKER_PORT@|$(kafka3_broker_port "$n")|g" \
      -e "s|@CONTROLLER_PORT@|$(kafka3_controller_port "$n")|g" \
      -e "s|@LOG_DIRS@|$dir/data|g" \
      "$INFRA_DIR/conf/kafka3/server.properties.in" > "$dir/server.properties"
}

# All three log dirs are formatted with one cluster id (kept in .infra/kafka3/cluster.id); a node
# whose dir already holds meta.properties keeps its data.
kafka3_format_once() {
  local n=$1 dir id
  dir="$(kafka3_dir "$n")"
  [[ -f "$dir/data/meta.properties" ]] && return 0
  if [[ ! -s "$KAFKA3_ROOT/cluster.id" ]]; then
    id="$("$JAVA_BIN" "${KAFKA_JVM_ARGS[@]}" kafka.tools.StorageTool random-uuid 2>>"$dir/logs/stdout.log" | tail -n1)"
    [[ -n "$id" ]] || { tail_logs "$dir/logs/stdout.log"; die "kafka3: StorageTool random-uuid failed"; }
    printf '%s\n' "$id" > "$KAFKA3_ROOT/cluster.id"
  fi
  log "kafka3-node$n: formatting a new KRaft log dir (cluster $(cat "$KAFKA3_ROOT/cluster.id"))"
  "$JAVA_BIN" "${KAFKA_JVM_ARGS[@]}" kafka.tools.StorageTool format -t "$(cat "$KAFKA3_ROOT/cluster.id")" \
    -c "$dir/server.properties" >> "$dir/logs/stdout.log" 2>&1 ||
    { tail_logs "$dir/logs/stdout.log"; die "kafka3-node$n: StorageTool format failed"; }
}

# Starts node $1 (no wait: a single voter cannot elect a controller, so the nodes start together).
kafka3_node_spawn() {
  local n=$1 cp=$2 dir pid
  dir="$(kafka3_dir "$n")"
  if pid="$(kafka3_owned_pid "$n")"; then
    log "kafka3-node$n: already running (pid $pid)"
    return 0
  fi
  require_port_free 127.0.0.1 "$(kafka3_broker_port "$n")" "kafka3-node$n"
  require_port_free 127.0.0.1 "$(kafka3_controller_port "$n")" "kafka3-node$n controller"
  kafka3_render_config "$n"
  kafka_jvm_args "$cp" "$dir/logs" "$KAFKA3_HEAP"
  kafka3_format_once "$n"
  log "kafka3-node$n: starting broker+controller on 127.0.0.1:$(kafka3_broker_port "$n") (controller :$(kafka3_controller_port "$n"), heap $KAFKA3_HEAP)"
  spawn "$dir/logs/stdout.log" "$(kafka3_pidfile "$n")" \
    "$JAVA_BIN" "$(marker_for "kafka3-node$n")" "${KAFKA_JVM_ARGS[@]}" kafka.Kafka "$dir/server.properties"
}

kafka3_tail_all() {
  local n
  for n in "${KAFKA3_NODES[@]}"; do tail_logs "$(kafka3_dir "$n")/logs/stdout.log" "$(kafka3_dir "$n")/logs/server.log"; done
}

# Ready = every broker port open, the cluster lists three brokers, every partition of every topic
# has all its replicas in sync, and a record produced with acks=all to a replication-3 topic is
# consumed back through a consumer group (scripts/kafka-ready.mjs --replication 3).
kafka3_wait_ready() {
  local t0=$1 n pid deadline=$(( $(date +%s) + START_TIMEOUT ))
  for n in "${KAFKA3_NODES[@]}"; do
    until port_open 127.0.0.1 "$(kafka3_broker_port "$n")"; do
      if ! pid="$(kafka3_owned_pid "$n")"; then
        kafka3_tail_all
        die "kafka3-node$n is not running (exited during start-up?; logs above, full logs in ${KAFKA3_ROOT#"$REPO_ROOT"/}/node$n/logs)"
      fi
      if (( $(date +%s) > deadline )); then
        kafka3_tail_all
        die "kafka3-node$n did not open 127.0.0.1:$(kafka3_broker_port "$n") within ${START_TIMEOUT}s"
      fi
      sleep 0.5
    done
  done
  local left=$(( deadline - $(date +%s) ))
  (( left < 30 )) && left=30
  if ! node "$INFRA_DIR/scripts/kafka-ready.mjs" "$(kafka3_brokers_csv)" "$left" --replication 3 >&2; then
    kafka3_tail_all
    die "kafka3: readiness check failed"
  fi
  log "kafka3: ready (3 brokers, all partitions fully in sync, acks=all record consumed back, $(elapsed "$t0"))"
}

kafka3_up() {
  local n t0 cp
  require_node_modules kafkajs
  require_java17
  cp="$(classpath_file kafka)" || exit 1
  t0=$(now_ms)
  for n in "${KAFKA3_NODES[@]}"; do kafka3_node_spawn "$n" "$cp"; done
  kafka3_wait_ready "$t0"
}

# All nodes at once: a controlled shutdown of one after another would move every leader twice.
kafka3_down() {
  local n pid
  for n in "${KAFKA3_NODES[@]}"; do
    if pid="$(kafka3_owned_pid "$n")"; then
      stop_pid "$pid" "kafka3-node$n" "$(kafka3_pidfile "$n")" &
    else
      rm -f "$(kafka3_pidfile "$n")"
      log "kafka3-node$n: not running (nothing of ours to stop)"
    fi
  done
  wait
}

kafka3_status() {
  local n pid rc=0
  for n in "${KAFKA3_NODES[@]}"; do
    if pid="$(kafka3_owned_pid "$n")"; then
      printf 'kafka3-node%s      running  pid %s  127.0.0.1:%s (controller :%s)\n' "$n" "$pid" "$(kafka3_broker_port "$n")" "$(kafka3_controller_port "$n")"
    else
      printf 'kafka3-node%s      stopped  127.0.0.1:%s\n' "$n" "$(kafka3_broker_port "$n")"
      rc=1
    fi
  done
  return $rc
}

# kill -9 of broker $1 (a crash: what reached the OS stays in its log dir, the rest is lost).
kafka3_kill() {
  local n=$1 pid waited=0
  kafka3_check_id "$n"
  pid="$(kafka3_owned_pid "$n")" || die "kafka3-node$n: no broker of ours is running"
  kill -KILL "$pid"
  while kill -0 "$pid" 2>/dev/null && (( waited < 100 )); do sleep 0.1; waited=$((waited + 1)); done
  rm -f "$(kafka3_pidfile "$n")"
  log "kafka3-node$n: killed (SIGKILL pid $pid)"
}

# Starts broker $1 again on its log dir; waits until the whole cluster is ready (it rejoined the
# quorum and every partition is back in sync).
kafka3_start() {
  local n=$1 t0 cp
  kafka3_check_id "$n"
  require_java17
  cp="$(classpath_file kafka)" || exit 1
  t0=$(now_ms)
  kafka3_node_spawn "$n" "$cp"
  kafka3_wait_ready "$t0"
}
