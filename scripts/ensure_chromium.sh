#!/usr/bin/env bash
# Browser tests drive Debian's chromium through Playwright; never a browser download.
set -euo pipefail
if command -v chromium >/dev/null 2>&1; then exit 0; fi
echo "installing Debian's chromium for the browser tests"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq chromium >/dev/null
