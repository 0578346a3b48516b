# shellcheck shell=bash
# Shared helpers for tools/infra/infra. Sourced, never executed.
#
# Conventions:
# - Everything a service writes (config, data, logs, pid files) lives under $INFRA_STATE
#   (<repo>/.infra, git-ignored), so `rm -rf .infra` after `infra down` is a full reset.
# - A pid file is written only for a process this script started. `down` signals only such a
#   pid, and only after checking that /proc/<pid>/cmdline still carries our marker, so a
#   recycled pid or a server somebody else started is never touched.

# ---- paths ------------------------------------------------------------------------------
INFRA_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
REPO_ROOT="$(cd "$INFRA_DIR/../.." && pwd)"
INFRA_STATE="${QIM_INFRA_STATE_DIR:-$REPO_ROOT/.infra}"

# ---- ports and sizes (override through the environment) ----------------------------------
REDIS_PORT="${QIM_INFRA_REDIS_PORT:-16379}"
# everysec matches Cassandra's periodic commitlog: a kill -9 of the server loses nothing
# (the AOF is write()n before replies go out); only an OS crash can lose the last second.
REDIS_APPENDFSYNC="${QIM_INFRA_REDIS_APPENDFSYNC:-everysec}"

KAFKA_PORT="${QIM_INFRA_KAFKA_PORT:-19092}"
KAFKA_CONTROLLER_PORT="${QIM_INFRA_KAFKA_CONTROLLER_PORT:-19093}"
KAFKA_HEAP="${QIM_INFRA_KAFKA_HEAP:-512m}"

# The Redis Cluster (redis-cluster): nodes on BASE+1 … BASE+6, cluster bus on port + 10000.
REDIS_CLUSTER_BASE="${QIM_INFRA_REDIS_CLUSTER_BASE:-17000}"
REDIS_CLUSTER_NODE_TIMEOUT="${QIM_INFRA_REDIS_CLUSTER_NODE_TIMEOUT:-3000}"

# The three-broker Kafka (kafka3): broker i on BROKER_BASE+i, its controller on CONTROLLER_BASE+i.
KAFKA3_BROKER_BASE="${QIM_INFRA_KAFKA3_BROKER_BASE:-19300}"
KAFKA3_CONTROLLER_BASE="${QIM_INFRA_KAFKA3_CONTROLLER_BASE:-19310}"
KAFKA3_HEAP="${QIM_INFRA_KAFKA3_HEAP:-384m}"

CASSANDRA_CQL_PORT="${QIM_INFRA_CASSANDRA_CQL_PORT:-9042}"
CASSANDRA_STORAGE_PORT="${QIM_INFRA_CASSANDRA_STORAGE_PORT:-7000}"
CASSANDRA_JMX_PORT="${QIM_INFRA_CASSANDRA_JMX_PORT:-7199}"
CASSANDRA_HEAP="${QIM_INFRA_CASSANDRA_HEAP:-1G}"

# The 3-node cluster has its own CQL/storage ports so it can run beside the single node.
CASSANDRA3_CQL_PORT="${QIM_INFRA_CASSANDRA3_CQL_PORT:-9043}"
CASSANDRA3_STORAGE_PORT="${QIM_INFRA_CASSANDRA3_STORAGE_PORT:-7001}"
CASSANDRA3_JMX_BASE="${QIM_INFRA_CASSANDRA3_JMX_BASE:-7200}" # node i uses BASE+i
CASSANDRA3_HEAP="${QIM_INFRA_CASSANDRA3_HEAP:-768M}"

# Seconds to wait for a service to become ready before failing with its log tail.
# The defaults are generous because cold JVMs on a 2-core machine shared with builds are slow.
START_TIMEOUT="${QIM_INFRA_START_TIMEOUT:-300}"
STOP_TIMEOUT="${QIM_INFRA_STOP_TIMEOUT:-60}"

# ---- output -------------------------------------------------------------------------------
# Progress goes to stderr so that stdout carries only the `export …` lines (eval-able).
log() { printf '[infra] %s\n' "$*" >&2; }
die() { printf '[infra] ERROR: %s\n' "$*" >&2; exit 1; }

# Print the last lines of each existing file, for "failed to come up" errors.
tail_logs() {
  local f
  for f in "$@"; do
    [[ -s "$f" ]] || continue
    printf '[infra] ---- last 30 lines of %s (long lines cut) ----\n' "$f" >&2
    tail -n 30 "$f" | cut -c1-300 >&2
  done
}

# Seconds since the epoch with millisecond precision, for timing messages.
now_ms() { date +%s%3N; }
elapsed() { local start=$1; printf '%d.%01ds' $(( ($(now_ms) - start) / 1000 )) $(( ($(now_ms) - start) % 1000 / 100 )); }

# ---- processes ----------------------------------------------------------------------------
# Every JVM we start carries -Dqim.infra.id=<id>; `owned_pid` checks that marker.
marker_for() { printf -- '-Dqim.infra.id=%s@%s' "$1" "$INFRA_STATE"; }

# Prints the pid from a pid file if that process is alive and still the one we started
# (its command line contains $2). Returns 1 otherwise.
owned_pid() {
  local pidfile=$1 needle=$2 pid
  [[ -f "$pidfile" ]] || return 1
  pid="$(tr -dc '0-9' < "$pidfile")"
  [[ -n "$pid" && -r "/proc/$pid/cmdline" ]] || return 1
  tr '\0' ' ' < "/proc/$pid/cmdline" | grep -qF -- "$needle" || return 1
  printf '%s' "$pid"
}

# Sends SIGTERM, waits up to STOP_TIMEOUT, then SIGKILL. Removes the pid file.
stop_pid() {
  local pid=$1 name=$2 pidfile=$3 waited=0
  log "stopping $name (pid $pid)"
  kill -TERM "$pid" 2>/dev/null || true
  while kill -0 "$pid" 2>/dev/null; do
    if (( waited >= STOP_TIMEOUT * 10 )); then
      log "$name did not stop within ${STOP_TIMEOUT}s; sending SIGKILL"
      kill -KILL "$pid" 2>/dev/null || true
      sleep 0.5
      break
    fi
    sleep 0.1
    waited=$((waited + 1))
  done
  rm -f "$pidfile"
}

# Starts "$@" detached (own session, so it outlives the calling shell and its job control),
# stdout/stderr appended to $1, and writes its pid to $2.
spawn() {
  local out=$1 pidfile=$2
  shift 2
  mkdir -p "$(dirname "$out")" "$(dirname "$pidfile")"
  printf '\n==== %s starting: %s\n' "$(date -u +%FT%TZ)" "$*" >> "$out"
  # In a non-interactive script the background child is not a process-group leader, so
  # setsid execs in place and $! is the pid of the service itself.
  # fd 9 is the lock taken by `infra up`; a long-lived child must not inherit (and hold) it.
  setsid "$@" >> "$out" 2>&1 < /dev/null 9>&- &
  printf '%s\n' "$!" > "$pidfile"
}

# True when something accepts TCP connections on host:port.
port_open() { (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null; }

# Fails if host:port is already taken by a process we did not start.
require_port_free() {
  local host=$1 port=$2 what=$3
  if port_open "$host" "$port"; then
    local hint="Free it or set the port through the environment (see tools/infra/README.md)."
    die "$what: $host:$port is already in use by another process (ss -ltnp | grep :$port). $hint"
  fi
}

# ---- Java -----------------------------------------------------------------------------------
# Cassandra 5.0 runs on Java 11 or 17 only (24+ removed the SecurityManager it installs), so we
# pick a Java 17 explicitly instead of trusting `java` on the PATH. Kafka 3.9 uses the same one.
java_major() { "$1" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p' | head -n1; }

find_java17() {
  local cand
  for cand in \
    "${QIM_INFRA_JAVA:-}" \
    "${JAVA17_HOME:+$JAVA17_HOME/bin/java}" \
    "${JAVA_HOME:+$JAVA_HOME/bin/java}" \
    /usr/lib/jvm/java-17-openjdk-*/bin/java \
    /usr/lib/jvm/*-17*/bin/java \
    /usr/lib/jvm/*17*/bin/java \
    "$(command -v java 2>/dev/null || true)"; do
    [[ -n "$cand" && -x "$cand" ]] || continue
    if [[ "$(java_major "$cand")" == "17" ]]; then
      printf '%s' "$cand"
      return 0
    fi
  done
  return 1
}

JAVA_BIN=""
require_java17() {
  [[ -n "$JAVA_BIN" ]] && return 0
  JAVA_BIN="$(find_java17)" ||
    die "no Java 17 found (Cassandra 5.0 needs 11 or 17). Install openjdk-17-jre-headless or set QIM_INFRA_JAVA=/path/to/java17/bin/java."
}

# ---- node helpers (readiness probes use the drivers from the repo's node_modules) ----------
require_node_modules() {
  local m
  command -v node >/dev/null || die "node is not on the PATH"
  for m in "$@"; do
    [[ -d "$REPO_ROOT/node_modules/$m" ]] || die "node module '$m' is missing: run 'npm ci' at the repo root first (readiness probes use it)."
  done
}
