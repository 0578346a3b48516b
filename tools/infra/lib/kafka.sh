# shellcheck shell=bash
# Kafka 3.9 in KRaft combined mode (one JVM is both broker and controller), from Maven jars.

KAFKA_DIR="$INFRA_STATE/kafka"
KAFKA_PIDFILE="$KAFKA_DIR/kafka.pid"
KAFKA_OUT="$KAFKA_DIR/logs/stdout.log"
KAFKA_SERVER_LOG="$KAFKA_DIR/logs/server.log"

# The trailing space ends the marker, so a broker of a nested state dir (kafka-fault) never matches.
kafka_owned_pid() { owned_pid "$KAFKA_PIDFILE" "$(marker_for kafka) "; }

# JVM arguments shared by the broker and StorageTool; sets KAFKA_JVM_ARGS from classpath file $1
# (optional: $2 the logs dir, $3 the maximum heap; kafka3 passes its nodes' own).
kafka_jvm_args() {
  KAFKA_JVM_ARGS=(
    -Xms128m -Xmx"${3:-$KAFKA_HEAP}"
    -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:InitiatingHeapOccupancyPercent=35
    -XX:+ExplicitGCInvokesConcurrent -XX:+ExitOnOutOfMemoryError
    -Djava.awt.headless=true
    -Dkafka.logs.dir="${2:-$KAFKA_DIR/logs}"
    -Dlog4j.configuration="file:$INFRA_DIR/conf/kafka/log4j.properties"
    -cp "$(cat "$1")"
  )
}

kafka_render_config() {
  mkdir -p "$KAFKA_DIR/data" "$KAFKA_DIR/logs"
  sed -e "s|@BROKER_PORT@|$KAFKA_PORT|g" \
      -e "s|@CONTROLLER_PORT@|$KAFKA_CONTROLLER_PORT|g" \
      -e "s|@LOG_DIRS@|$KAFKA_DIR/data|g" \
      "$INFRA_DIR/conf/kafka/server.properties.in" > "$KAFKA_DIR/server.properties"
}

# KRaft refuses to start on an unformatted log dir ("No readable meta.properties files found"),
# so the first start formats it with a fresh cluster id. Later starts keep the data.
kafka_format_once() {
  local id
  [[ -f "$KAFKA_DIR/data/meta.properties" ]] && return 0
  log "kafka: formatting a new KRaft log dir"
  id="$("$JAVA_BIN" "${KAFKA_JVM_ARGS[@]}" kafka.tools.StorageTool random-uuid 2>>"$KAFKA_OUT" | tail -n1)"
  [[ -n "$id" ]] || { tail_logs "$KAFKA_OUT"; die "kafka: StorageTool random-uuid failed"; }
  "$JAVA_BIN" "${KAFKA_JVM_ARGS[@]}" kafka.tools.StorageTool format -t "$id" -c "$KAFKA_DIR/server.properties" \
    >> "$KAFKA_OUT" 2>&1 || { tail_logs "$KAFKA_OUT"; die "kafka: StorageTool format failed"; }
}

kafka_up() {
  local pid t0 cp
  require_node_modules kafkajs
  if pid="$(kafka_owned_pid)"; then
    log "kafka: already running (pid $pid); checking readiness"
    kafka_wait_ready "$pid" "$(now_ms)"
    return 0
  fi
  require_port_free 127.0.0.1 "$KAFKA_PORT" kafka
  require_port_free 127.0.0.1 "$KAFKA_CONTROLLER_PORT" "kafka controller"
  require_java17
  cp="$(classpath_file kafka)" || exit 1
  t0=$(now_ms)
  kafka_render_config
  kafka_jvm_args "$cp"
  kafka_format_once
  log "kafka: starting broker+controller on 127.0.0.1:$KAFKA_PORT (controller :$KAFKA_CONTROLLER_PORT, heap $KAFKA_HEAP)"
  spawn "$KAFKA_OUT" "$KAFKA_PIDFILE" \
    "$JAVA_BIN" "$(marker_for kafka)" "${KAFKA_JVM_ARGS[@]}" kafka.Kafka "$KAFKA_DIR/server.properties"
  kafka_wait_ready "$(cat "$KAFKA_PIDFILE")" "$t0"
}

# Ready = a record produced to a topic (created through the admin API) is consumed back by a
# consumer group, which also proves that the group coordinator (__consumer_offsets) works.
kafka_wait_ready() {
  local pid=$1 t0=$2 deadline=$(( $(date +%s) + START_TIMEOUT ))
  until port_open 127.0.0.1 "$KAFKA_PORT"; do
    if ! kill -0 "$pid" 2>/dev/null; then
      tail_logs "$KAFKA_OUT" "$KAFKA_SERVER_LOG"
      rm -f "$KAFKA_PIDFILE"
      die "kafka exited during start-up (logs above; full logs in ${KAFKA_DIR#"$REPO_ROOT"/}/logs)"
    fi
    if (( $(date +%s) > deadline )); then
      tail_logs "$KAFKA_OUT" "$KAFKA_SERVER_LOG"
      die "kafka did not open 127.0.0.1:$KAFKA_PORT within ${START_TIMEOUT}s"
    fi
    sleep 0.5
  done
  local left=$(( deadline - $(date +%s) ))
  (( left < 30 )) && left=30
  if ! node "$INFRA_DIR/scripts/kafka-ready.mjs" "127.0.0.1:$KAFKA_PORT" "$left" >&2; then
    tail_logs "$KAFKA_OUT" "$KAFKA_SERVER_LOG"
    die "kafka: produce/consume readiness check failed"
  fi
  log "kafka: ready (record produced and consumed back through a consumer group, $(elapsed "$t0"))"
}

kafka_down() {
  local pid
  if pid="$(kafka_owned_pid)"; then
    stop_pid "$pid" kafka "$KAFKA_PIDFILE"
  else
    rm -f "$KAFKA_PIDFILE"
    log "kafka: not running (nothing of ours to stop)"
  fi
}

kafka_status() {
  local pid
  if pid="$(kafka_owned_pid)"; then
    echo "kafka             running  pid $pid  127.0.0.1:$KAFKA_PORT (controller :$KAFKA_CONTROLLER_PORT)"
  else
    echo "kafka             stopped  127.0.0.1:$KAFKA_PORT"
    return 1
  fi
}

# ---- fault injection (issue 11): act only on the broker this state dir started --------------
# SIGSTOP keeps the TCP connections open (the kernel still accepts bytes), so in-flight produce
# requests neither fail nor get answered until the client's request timeout: the ambiguous case.

kafka_require_owned() {
  kafka_owned_pid || die "kafka: no broker started from ${INFRA_STATE#"$REPO_ROOT"/} is running (nothing of ours to act on)"
}

kafka_pause() {
  local pid
  pid="$(kafka_require_owned)"
  kill -STOP "$pid"
  log "kafka: paused (SIGSTOP pid $pid)"
}

kafka_resume() {
  local pid
  pid="$(kafka_require_owned)"
  kill -CONT "$pid"
  log "kafka: resumed (SIGCONT pid $pid)"
}

# SIGKILL (a crash, not a shutdown): the log keeps what reached the OS, unflushed state is lost.
kafka_kill() {
  local pid waited=0
  pid="$(kafka_require_owned)"
  kill -KILL "$pid"
  while kill -0 "$pid" 2>/dev/null && (( waited < 100 )); do sleep 0.1; waited=$((waited + 1)); done
  rm -f "$KAFKA_PIDFILE"
  log "kafka: killed (SIGKILL pid $pid)"
}

# Kill -9 (if running) and start again on the same data; waits for real readiness.
kafka_restart() {
  kafka_owned_pid > /dev/null && kafka_kill
  kafka_up
}
