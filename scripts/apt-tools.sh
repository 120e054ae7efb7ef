#!/usr/bin/env bash
# Installs Debian packages a test needs, once: apt-tools.sh NAME COMMAND PACKAGE...
# installs the packages unless COMMAND is already on PATH (then nothing is done). It runs
# `apt-get update` and `apt-get install` as root, or through sudo when there is one.
# Progress goes to stderr, prefixed with NAME. scripts/tui-tools.sh and
# scripts/web-tools.sh call it.
set -euo pipefail

name="$1" want="$2"
shift 2
log() { printf '%s: %s\n' "$name" "$*" >&2; }

if command -v "$want" >/dev/null 2>&1; then
  log "$want is installed"
  exit 0
fi

SUDO=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    SUDO=(sudo)
  else
    log "$want is missing and installing it needs root (or sudo)"
    exit 2
  fi
fi
command -v apt-get >/dev/null 2>&1 || { log "$want is missing and there is no apt-get to install it"; exit 2; }

log "installing $*"
export DEBIAN_FRONTEND=noninteractive
"${SUDO[@]}" apt-get update -qq >&2
"${SUDO[@]}" apt-get install -y -qq --no-install-recommends "$@" >&2
command -v "$want" >/dev/null 2>&1 || { log "$want is still not on PATH after installing $*"; exit 2; }
log "$want installed"
