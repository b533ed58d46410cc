#!/usr/bin/env bash
# `make run-prod` and its test put Debian's nginx in front of the daphne processes; never a
# build of our own. On a machine with systemd, Debian also starts its own nginx service (port 80,
# its default site) on install; run-prod does not use it (`systemctl disable --now nginx`).
set -euo pipefail
if command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ]; then exit 0; fi
echo "installing Debian's nginx (nginx-light) for the production topology"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq nginx-light >/dev/null 2>&1 || apt-get install -y -qq nginx >/dev/null
