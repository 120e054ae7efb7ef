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

# The peers of revision 2026-07-28:
# - TypeScript SDK v2 (@modelcontextprotocol/server), pinned and locked in
#   internal/interop/ts2, installed with npm ci like the 1.x SDK above;
# - go-sdk v1.8.0, a module of its own in internal/interop/gosdk (the main module does not
#   depend on it), built into .tools/bin/gosdk-server.
TS2_DIR="$(cd "$SCRIPT_DIR/../internal/interop/ts2" && pwd)"
TS2_STAMP="$TS2_DIR/node_modules/.mcpi-interop-lock.sha256"
ts2_sum="$(cat "$TS2_DIR/package.json" "$TS2_DIR/package-lock.json" | sha256sum | cut -d' ' -f1)"
if [ "$(cat "$TS2_STAMP" 2>/dev/null || true)" = "$ts2_sum" ]; then
  log "TypeScript SDK v2 already installed in internal/interop/ts2/node_modules"
else
  log "installing the TypeScript SDK v2 into internal/interop/ts2/node_modules"
  (cd "$TS2_DIR" && npm ci --no-audit --no-fund --no-update-notifier --loglevel=error >&2)
  echo "$ts2_sum" >"$TS2_STAMP"
fi
want_ts2="$(sed -n 's/^[[:space:]]*"@modelcontextprotocol\/server":[[:space:]]*"\([^"]*\)".*/\1/p' "$TS2_DIR/package.json" | head -1)"
have_ts2="$(pkg_version "$TS2_DIR/node_modules/@modelcontextprotocol/server/package.json")"
[ "$have_ts2" = "$want_ts2" ] || { log "expected @modelcontextprotocol/server $want_ts2, got '${have_ts2:-nothing}'"; exit 1; }

GOSDK_DIR="$(cd "$SCRIPT_DIR/../internal/interop/gosdk" && pwd)"
BIN_DIR="$(cd "$SCRIPT_DIR/.." && pwd)/.tools/bin"
mkdir -p "$BIN_DIR"
gosdk_sum="$(cat "$GOSDK_DIR/go.mod" "$GOSDK_DIR/go.sum" "$GOSDK_DIR"/*.go | sha256sum | cut -d' ' -f1)"
if [ -x "$BIN_DIR/gosdk-server" ] && [ "$(cat "$BIN_DIR/.gosdk-server.sha256" 2>/dev/null || true)" = "$gosdk_sum" ]; then
  log "go-sdk peer already built: .tools/bin/gosdk-server"
else
  log "building the go-sdk peer into .tools/bin/gosdk-server"
  (cd "$GOSDK_DIR" && GOWORK=off GOFLAGS=-mod=readonly go build -trimpath -o "$BIN_DIR/gosdk-server" .)
  echo "$gosdk_sum" >"$BIN_DIR/.gosdk-server.sha256"
fi
client_sum="$(cat "$GOSDK_DIR/go.mod" "$GOSDK_DIR/go.sum" "$GOSDK_DIR"/client/*.go | sha256sum | cut -d' ' -f1)"
if [ -x "$BIN_DIR/gosdk-client" ] && [ "$(cat "$BIN_DIR/.gosdk-client.sha256" 2>/dev/null || true)" = "$client_sum" ]; then
  log "go-sdk client peer already built: .tools/bin/gosdk-client"
else
  log "building the go-sdk client peer into .tools/bin/gosdk-client"
  (cd "$GOSDK_DIR" && GOWORK=off GOFLAGS=-mod=readonly go build -trimpath -o "$BIN_DIR/gosdk-client" ./client)
  echo "$client_sum" >"$BIN_DIR/.gosdk-client.sha256"
fi
go version -m "$BIN_DIR/gosdk-server" | grep -q 'github.com/modelcontextprotocol/go-sdk[[:space:]]*v1.8.0' ||
  { log ".tools/bin/gosdk-server is not built with go-sdk v1.8.0"; exit 1; }
log "TypeScript SDK v2 $have_ts2 and go-sdk v1.8.0 ready"
