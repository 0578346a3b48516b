#!/usr/bin/env bash
# Runs a TypeScript benchmark of tools/bench: bundles tools/bench/<name>.ts with esbuild (the
# workspace path aliases come from tsconfig.base.json; npm packages stay external) into a temp
# file and runs it with node. Usage: tools/bench/run.sh <name> [args...]   e.g.
#   eval "$(tools/infra/infra env)"; tools/bench/run.sh redis-commit
#   eval "$(tools/infra/infra env)"; tools/bench/run.sh redis-mailbox     # applyPage vs raw ZADD + ZADD GT
#   tools/bench/run.sh e2e --help      (tools/bench/e2e/README.md)
#   tools/bench/run.sh long-poll --ab main   # idle long polls: store reads/s and CPU, main vs this tree (long-poll.ts)
#   tools/bench/run.sh replicas 20 16 A   (WRITER_URLS/MAILBOX_URLS from tools/drills/run serve; docs/scaling.md)
# BENCH_NODE_ARGS (word-split) go to node, e.g. "--cpu-prof --cpu-prof-dir=DIR" to profile the benchmark itself.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
name=${1:?usage: tools/bench/run.sh <name> [args...]}
shift
src="$root/tools/bench/$name.ts"
[ -f "$src" ] || src="$root/tools/bench/$name/main.ts" # a benchmark with its own folder (e2e)
[ -f "$src" ] || { echo "no benchmark $src" >&2; exit 2; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$root/node_modules/.bin/esbuild" "$src" --bundle --platform=node --target=node20 --packages=external \
  --tsconfig="$root/tsconfig.base.json" --outfile="$out/$name.js" --log-level=warning
# shellcheck disable=SC2086
NODE_PATH="$root/node_modules" node ${BENCH_NODE_ARGS:-} "$out/$name.js" "$@"
