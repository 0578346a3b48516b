#!/usr/bin/env bash
# The soak draws its chart with matplotlib under /usr/bin/python3 (tools/soak/plot.py), and a soak
# without its chart fails. A fresh machine may not have it: install the Debian package when we can
# (root with apt-get), else fail here, before anything else runs, with the reason.
set -uo pipefail
importable() { [[ -x /usr/bin/python3 ]] && /usr/bin/python3 -c 'import matplotlib' 2> /dev/null; }
importable && exit 0
if [[ $(id -u) -eq 0 ]] && command -v apt-get > /dev/null; then
  echo "[ci] matplotlib is not importable by /usr/bin/python3: installing python3-matplotlib (apt-get)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -q python3-matplotlib > /dev/null 2>&1 \
    || { apt-get update -q > /dev/null 2>&1 && apt-get install -y -q python3-matplotlib > /dev/null 2>&1; }
  importable && { echo "[ci] matplotlib installed"; exit 0; }
fi
echo "[ci] FAIL: the soak chart needs matplotlib for /usr/bin/python3 and it could not be installed here (apt-get install python3-matplotlib)" >&2
exit 1
