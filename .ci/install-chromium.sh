#!/usr/bin/env bash
# Installs Debian's chromium where it is missing: tests/report_browser.rs opens the HTML
# reports in it (headless). Needs root or sudo, and the network.
set -euo pipefail
if command -v chromium >/dev/null 2>&1; then
  exit 0
fi
run() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
export DEBIAN_FRONTEND=noninteractive
run apt-get update -qq
run apt-get install -y -qq chromium >/dev/null
command -v chromium
