#!/usr/bin/env bash
# Installs the TypeScript SDK peers of the interop tests (internal/interop/*_test.go):
# @modelcontextprotocol/sdk, pinned exactly in internal/interop/ts/package.json and locked, with
# its whole dependency tree, in internal/interop/ts/package-lock.json.
#
#   bash scripts/interop-tools.sh      # from anywhere; installs into internal/interop/ts/node_modules
#
# Idempotent: when node_modules was installed from the current package.json and lock (a
# checksum stamp inside node_modules says so) and the SDK is there, nothing is done.
# Otherwise it runs `npm ci`, which installs exactly the lock. Only the npm registry is
# needed. Progress goes to stderr.
#
# The tests run `node` from PATH (Node 20 or newer). Then run them with:
#
#   MCPI_INTEROP=1 go test ./internal/interop/...
#
# (MCPI_INTEROP=1 makes a missing node or SDK a test failure rather than a skip.)
#
# To move to another SDK version: change the version in internal/interop/ts/package.json, run
# `npm install --no-audit --no-fund` in internal/interop/ts, commit both files, and re-check
# docs/ts-sdk-interop.md against the tests' output.
#
# Suggested .gitignore line:  /interop/ts/node_modules/
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
TS_DIR="$(cd "$SCRIPT_DIR/../internal/interop/ts" && pwd)"
MODULES="$TS_DIR/node_modules"
STAMP="$MODULES/.mcpi-interop-lock.sha256"
SDK_PKG="$MODULES/@modelcontextprotocol/sdk/package.json"

log() { printf 'interop-tools: %s\n' "$*" >&2; }

command -v npm >/dev/null 2>&1 || { log "npm not found (install Node.js 20 or newer)"; exit 2; }
command -v node >/dev/null 2>&1 || { log "node not found (install Node.js 20 or newer)"; exit 2; }

# "version" field of a package.json, without needing node.
pkg_version() {
  [ -f "$1" ] || return 0
  sed -n 's/^[[:space:]]*"version":[[:space:]]*"\([^"]*\)".*/\1/p' "$1" | head -1
}

# The SDK version package.json pins (an exact version, no range).
want_sdk="$(sed -n 's/^[[:space:]]*"@modelcontextprotocol\/sdk":[[:space:]]*"\([^"]*\)".*/\1/p' "$TS_DIR/package.json" | head -1)"
case "$want_sdk" in
  [0-9]*.[0-9]*.[0-9]*) ;;
  *) log "internal/interop/ts/package.json must pin @modelcontextprotocol/sdk to an exact version, found '${want_sdk}'"; exit 1 ;;
esac
[ -f "$TS_DIR/package-lock.json" ] || { log "internal/interop/ts/package-lock.json is missing"; exit 1; }

want_sum="$(cat "$TS_DIR/package.json" "$TS_DIR/package-lock.json" | sha256sum | cut -d' ' -f1)"
have_sum="$(cat "$STAMP" 2>/dev/null || true)"
have_sdk="$(pkg_version "$SDK_PKG")"

if [ "$have_sum" = "$want_sum" ] && [ "$have_sdk" = "$want_sdk" ]; then
  log "@modelcontextprotocol/sdk $have_sdk already installed in internal/interop/ts/node_modules"
else
  log "installing @modelcontextprotocol/sdk $want_sdk into internal/interop/ts/node_modules (found: ${have_sdk:-none})"
  (cd "$TS_DIR" && npm ci --no-audit --no-fund --no-update-notifier --loglevel=error >&2)
  have_sdk="$(pkg_version "$SDK_PKG")"
  if [ "$have_sdk" != "$want_sdk" ]; then
    log "expected @modelcontextprotocol/sdk $want_sdk, got '${have_sdk:-nothing}' (stale lock?)"
    exit 1
  fi
  echo "$want_sum" >"$STAMP"
fi

# Smoke test: the SDK's task API must load under this node.
if ! out="$(cd "$TS_DIR" && node --input-type=module -e \
  "import('@modelcontextprotocol/sdk/experimental/tasks/index.js').then(m => { if (!m.InMemoryTaskStore) throw new Error('no InMemoryTaskStore'); })" 2>&1)"; then
  log "the SDK does not load under $(command -v node) ($(node --version)):"
  printf '%s\n' "$out" >&2
  exit 1
fi
log "node $(node --version), @modelcontextprotocol/sdk $have_sdk ready"
