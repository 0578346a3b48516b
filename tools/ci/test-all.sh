#!/usr/bin/env bash
# The test command (README): brings up the real servers the tests need through the project's own
# infrastructure entry point, then runs lint, typecheck and every Jest project (unit, contract suites
# on Memory/Redis/Cassandra, services end to end), and prints one closing count.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
export NX_DAEMON=false NX_NO_CLOUD=true NX_TUI=false
export QIM_ENV=${QIM_ENV:-test}

# The servers are stopped quietly (their log in .infra/reports/infra-down.log) so that the tail of a
# CI log ends with the verdicts, not with a page of stop lines.
stop_infra() {
  [ "${QIM_KEEP_INFRA:-}" = 1 ] && return 0
  mkdir -p .infra/reports
  { tools/infra/infra kafka-fault down; tools/infra/infra down; } > .infra/reports/infra-down.log 2>&1 || true
  echo "[ci] servers stopped ($(grep -c 'stopping' .infra/reports/infra-down.log) processes; .infra/reports/infra-down.log)"
}
trap stop_infra EXIT

step() { printf '\n=== %s (%s)\n' "$1" "$(date -u +%H:%M:%S)"; }

step "chart tooling (matplotlib for the soak chart) and promtool (alert-rule tests)"
tools/ci/ensure-plotting.sh
tools/ci/ensure-promtool.sh

step "infrastructure up"
tools/infra/infra up
# The Redis Cluster (3 primaries + 3 replicas) of the store-redis cluster target (jest.redis-cluster.config.js).
tools/infra/infra up redis-cluster
eval "$(tools/infra/infra env)"

# The services (e2e specs, drills) run on the Docker images' Node 24, fetched once from the npm
# registry and checked against its pinned integrity; Jest and the tools stay on this machine's node.
step "services' runtime"
export SERVICE_NODE=${SERVICE_NODE:-$(tools/infra/infra service-node)}
echo "services run on node $("$SERVICE_NODE" --version); tools on node $(node --version)"

step "format (prettier --check), lint + typecheck"
npx prettier --check . > /dev/null \
  || { npx prettier --list-different .; echo "format: the files above differ from prettier's format (npm run format)"; exit 1; }
npx nx run-many -t lint typecheck --output-style=static --skip-nx-cache

step "store-core line coverage (threshold 90%)"
npx jest -c libs/store-core/jest.config.js --coverage --coverageReporters=text-summary --silent

mkdir -p .infra/reports
rm -f .infra/reports/*.json
# Each pass writes its counts through our reporter (Jest's --json loses the report on a bigint).
reporters="--reporters=default --reporters=$root/tools/ci/jest-summary-reporter.cjs"
set +e
step "all test projects but e2e (2 workers)"
JEST_SUMMARY_FILE=.infra/reports/projects.json npx jest -c jest.config.js --ignoreProjects e2e --maxWorkers=2 $reporters
step "end-to-end services (serial: each spec starts its own service stack)"
JEST_SUMMARY_FILE=.infra/reports/e2e.json npx jest -c apps/e2e/jest.config.js --runInBand $reporters
# The short soak: 10 simulated days per backend (Memory, Redis, Cassandra) of the real store and
# worker code on a fast-forwarded clock; exits non-zero on any lost/duplicated/silently-skipped
# message, unbounded storage or a loop that keeps failing (tools/soak/README.md).
step "soak, short (10 simulated days × memory redis scylla)"
tools/soak/run --backend all --short
soak_rc=$?
# Short fault drills over the HTTP API (consistency checker, one fault each): every drill, the
# redis-mode ones and the scylla-mode ones on the 3-node Cassandra cluster that ci-short.sh starts
# (once, with a retry) and stops again (README, "Reliability"; ≈ 15 min of the run).
step "fault drills, short (${QIM_CI_DRILLS:-every drill: $(tools/drills/run list | tr '\n' ' ')})"
QIM_DRILLS="${QIM_CI_DRILLS:-}" tools/drills/ci-short.sh
drills_rc=$?
set -e
summary_rc=0
node tools/ci/summarize-jest.mjs .infra/reports/projects.json .infra/reports/e2e.json || summary_rc=$?
if (( soak_rc != 0 )); then echo "soak: FAILED (see the soak pass above)"; fi
if (( drills_rc != 0 )); then echo "drills: FAILED (see the drill pass above)"; fi
if (( soak_rc != 0 || drills_rc != 0 )); then exit 1; fi
exit "$summary_rc"
