#!/usr/bin/env bash
# Bundles tools/bench/scylla-mailbox.ts with esbuild (workspace path aliases from tsconfig.base.json)
# and runs it against the gate's cluster. Needs QIM_TEST_SCYLLA_* (eval "$(tools/infra/infra env)").
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$root/node_modules/.bin/esbuild" "$root/tools/bench/scylla-mailbox.ts" --bundle --platform=node --packages=external \
  --tsconfig="$root/tsconfig.base.json" --outfile="$out/scylla-mailbox.js" --log-level=warning
NODE_PATH="$root/node_modules" node "$out/scylla-mailbox.js" "$@"
