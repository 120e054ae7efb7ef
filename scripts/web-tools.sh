#!/usr/bin/env bash
# Installs what the web inspector's browser tests (internal/cli/web/browser_test.go) need:
# headless Chromium, from Debian's packages.
#
#   bash scripts/web-tools.sh      # from anywhere
#
# Idempotent: when chromium is on PATH nothing is done. Otherwise it runs `apt-get update`
# and `apt-get install chromium` (as root, or through sudo when there is one). Progress
# goes to stderr. Then run the tests so that a missing browser fails them instead of
# skipping them:
#
#   MCPI_WEB_BROWSER=1 go test ./internal/cli/web/...
set -euo pipefail

log() { printf 'web-tools: %s\n' "$*" >&2; }

if command -v chromium >/dev/null 2>&1; then
  log "chromium is installed ($(chromium --version 2>/dev/null || echo 'version unknown'))"
  exit 0
fi

SUDO=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    SUDO=(sudo)
  else
    log "chromium is missing and installing it needs root (or sudo)"
    exit 2
  fi
fi
command -v apt-get >/dev/null 2>&1 || { log "chromium is missing and there is no apt-get to install it"; exit 2; }

log "installing chromium"
export DEBIAN_FRONTEND=noninteractive
"${SUDO[@]}" apt-get update -qq >&2
"${SUDO[@]}" apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >&2
command -v chromium >/dev/null 2>&1 || { log "chromium is still not on PATH after installing it"; exit 2; }
log "chromium installed ($(chromium --version 2>/dev/null))"
