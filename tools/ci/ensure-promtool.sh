#!/usr/bin/env bash
# The alert rules (docker/monitoring) are tested with promtool, which comes with Debian's
# `prometheus` package. A fresh machine may not have it: install it when we can (root with
# apt-get), else fail here, before anything else runs, with the reason.
set -uo pipefail
command -v promtool > /dev/null && exit 0
if [[ $(id -u) -eq 0 ]] && command -v apt-get > /dev/null; then
  echo "[ci] promtool is not installed: installing Debian's prometheus package (apt-get)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -q --no-install-recommends prometheus > /dev/null 2>&1 ||
    { apt-get update -q > /dev/null 2>&1 && apt-get install -y -q --no-install-recommends prometheus > /dev/null 2>&1; }
  command -v promtool > /dev/null && { echo "[ci] promtool installed"; exit 0; }
fi
echo "[ci] FAIL: the alert-rule tests need promtool and it could not be installed here (apt-get install prometheus)" >&2
exit 1
