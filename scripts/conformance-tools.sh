#!/usr/bin/env bash
# Installs a pinned MCP conformance suite and a Node 22 runtime into .tools/.
#
#   bash scripts/conformance-tools.sh [SUITE]   # run from the repository root
#
# SUITE is the suite version: 0.1.16 (the default; into .tools/conformance, locked
# by scripts/conformance-lock/) or 0.2.0-alpha.12 (also spelt "alpha"; into
# .tools/conformance-alpha, locked by scripts/conformance-lock-alpha/). The alpha
# tests revision 2026-07-28 as well as 2025-11-25; both can be installed at once.
#
# Idempotent: anything already installed at the pinned version is skipped.
# Progress goes to stderr; the last line on stdout is the path of that suite's
# `conformance` bin. Run that bin with .tools/node22/node_modules/node/bin first
# on PATH (its shebang is `#!/usr/bin/env node`; the system Node 20 crashes on
# start) -- scripts/conformance.sh does that for you.
#
# Only the npm registry is needed: the `node@22` package fetches the Node binary
# through the node-linux-<arch> npm packages.
#
# The suite's own dependencies (@modelcontextprotocol/sdk, ...) float within the
# suite's semver ranges, so the exact tree is locked in the suite's lock folder
# (package.json + package-lock.json) and installed with `npm ci`.
# To move to another suite version: change the version below, delete the lock
# folder's two files, run this script (it falls back to `npm install`), and copy
# the install folder's package.json and package-lock.json back into the lock
# folder.
#
# Suggested .gitignore line:  /.tools/
set -euo pipefail

NODE_VERSION="22.23.3"          # highest 22.x per `npm view node@22 version`
STABLE_VERSION="0.1.16"         # revision 2025-11-25; server and client mode
ALPHA_VERSION="0.2.0-alpha.12"  # revisions 2025-11-25 and 2026-07-28

ROOT="$(pwd)"
SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
TOOLS="$ROOT/.tools"
NODE_PREFIX="$TOOLS/node22"
NODE_BIN_DIR="$NODE_PREFIX/node_modules/node/bin"
NODE="$NODE_BIN_DIR/node"

case "${1:-$STABLE_VERSION}" in
  "$STABLE_VERSION")
    CONFORMANCE_VERSION="$STABLE_VERSION"
    LOCK_DIR="$SCRIPT_DIR/conformance-lock"
    CONF_PREFIX="$TOOLS/conformance" ;;
  "$ALPHA_VERSION"|alpha)
    CONFORMANCE_VERSION="$ALPHA_VERSION"
    LOCK_DIR="$SCRIPT_DIR/conformance-lock-alpha"
    CONF_PREFIX="$TOOLS/conformance-alpha" ;;
  *)
    printf 'conformance-tools: unknown suite version %s (known: %s, %s)\n' "$1" "$STABLE_VERSION" "$ALPHA_VERSION" >&2
    exit 2 ;;
esac
CONF_PKG="$CONF_PREFIX/node_modules/@modelcontextprotocol/conformance"
CONF_BIN="$CONF_PREFIX/node_modules/.bin/conformance"
CONF_STAMP="$CONF_PREFIX/.installed-lock.sha256"

log() { printf 'conformance-tools: %s\n' "$*" >&2; }

if [ ! -f "$ROOT/go.mod" ]; then
  log "run this from the repository root (no go.mod in $ROOT)"
  exit 2
fi
command -v npm >/dev/null 2>&1 || { log "npm not found (apt-get install npm)"; exit 2; }

NPM_FLAGS=(--no-audit --no-fund --no-update-notifier --loglevel=error)

# "version" field of a package.json, without needing a working node.
pkg_version() {
  [ -f "$1" ] || return 0
  sed -n 's/^[[:space:]]*"version":[[:space:]]*"\([^"]*\)".*/\1/p' "$1" | head -1
}

lock_sum() {
  if [ -f "$LOCK_DIR/package-lock.json" ] && [ -f "$LOCK_DIR/package.json" ]; then
    cat "$LOCK_DIR/package.json" "$LOCK_DIR/package-lock.json" | sha256sum | cut -d' ' -f1
  else
    echo "no-lock"
  fi
}

# --- Node 22 ---------------------------------------------------------------
have_node=""
if [ -x "$NODE" ]; then have_node="$("$NODE" --version 2>/dev/null || true)"; fi
if [ "$have_node" = "v$NODE_VERSION" ]; then
  log "node $have_node already installed in ${NODE_PREFIX#"$ROOT"/}"
else
  log "installing node@$NODE_VERSION into ${NODE_PREFIX#"$ROOT"/} (found: ${have_node:-none})"
  mkdir -p "$NODE_PREFIX"
  npm install --prefix "$NODE_PREFIX" "${NPM_FLAGS[@]}" --save-exact "node@$NODE_VERSION" >&2
  have_node="$("$NODE" --version 2>/dev/null || true)"
  if [ "$have_node" != "v$NODE_VERSION" ]; then
    log "expected node v$NODE_VERSION at $NODE, got '${have_node:-nothing}'"
    exit 1
  fi
fi

# --- conformance suite ------------------------------------------------------
want_sum="$(lock_sum)"
have_conf="$(pkg_version "$CONF_PKG/package.json")"
have_sum="$(cat "$CONF_STAMP" 2>/dev/null || true)"
if [ "$have_conf" = "$CONFORMANCE_VERSION" ] && [ -e "$CONF_BIN" ] && [ "$have_sum" = "$want_sum" ]; then
  log "@modelcontextprotocol/conformance $have_conf already installed in ${CONF_PREFIX#"$ROOT"/}"
else
  log "installing @modelcontextprotocol/conformance@$CONFORMANCE_VERSION into ${CONF_PREFIX#"$ROOT"/} (found: ${have_conf:-none})"
  mkdir -p "$CONF_PREFIX"
  rm -f "$CONF_STAMP"
  if [ "$want_sum" != "no-lock" ]; then
    cp "$LOCK_DIR/package.json" "$LOCK_DIR/package-lock.json" "$CONF_PREFIX/"
    # Install scripts (if any) run under Node 22.
    PATH="$NODE_BIN_DIR:$PATH" npm ci --prefix "$CONF_PREFIX" "${NPM_FLAGS[@]}" >&2
  else
    log "no lock in ${LOCK_DIR#"$ROOT"/}: resolving dependencies afresh"
    PATH="$NODE_BIN_DIR:$PATH" npm install --prefix "$CONF_PREFIX" "${NPM_FLAGS[@]}" \
      --save-exact "@modelcontextprotocol/conformance@$CONFORMANCE_VERSION" >&2
  fi
  have_conf="$(pkg_version "$CONF_PKG/package.json")"
  if [ "$have_conf" != "$CONFORMANCE_VERSION" ]; then
    log "expected conformance $CONFORMANCE_VERSION, got '${have_conf:-nothing}' (stale lock in ${LOCK_DIR#"$ROOT"/}?)"
    exit 1
  fi
  echo "$want_sum" > "$CONF_STAMP"
fi

# --- smoke test: the CLI must start under Node 22 ---------------------------
if ! out="$(PATH="$NODE_BIN_DIR:$PATH" "$CONF_BIN" --version 2>&1)" || [ "$out" != "$CONFORMANCE_VERSION" ]; then
  log "conformance CLI failed to start under $NODE:"
  printf '%s\n' "$out" >&2
  exit 1
fi

log "node $("$NODE" --version) at ${NODE#"$ROOT"/}; conformance $CONFORMANCE_VERSION ready"
echo "$CONF_BIN"
