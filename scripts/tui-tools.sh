#!/usr/bin/env bash
# Installs what the terminal UI's real-terminal test (internal/tui/tmux_test.go) needs: tmux,
# from Debian's packages.
#
#   bash scripts/tui-tools.sh      # from anywhere
#
# Idempotent: when tmux is on PATH nothing is done. Otherwise it runs `apt-get update`
# and `apt-get install tmux` (as root, or through sudo when there is one). Progress goes
# to stderr. Then run the test so that a missing tmux fails it instead of skipping it:
#
#   MCPI_TUI_TMUX=1 go test ./internal/tui/...
set -euo pipefail

log() { printf 'tui-tools: %s\n' "$*" >&2; }

if command -v tmux >/dev/null 2>&1; then
  log "tmux is installed ($(tmux -V))"
  exit 0
fi

SUDO=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    SUDO=(sudo)
  else
    log "tmux is missing and installing it needs root (or sudo)"
    exit 2
  fi
fi
command -v apt-get >/dev/null 2>&1 || { log "tmux is missing and there is no apt-get to install it"; exit 2; }

log "installing tmux"
export DEBIAN_FRONTEND=noninteractive
"${SUDO[@]}" apt-get update -qq >&2
"${SUDO[@]}" apt-get install -y -qq --no-install-recommends tmux >&2
command -v tmux >/dev/null 2>&1 || { log "tmux is still not on PATH after installing it"; exit 2; }
log "tmux installed ($(tmux -V))"
