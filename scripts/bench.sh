#!/usr/bin/env bash
# Installs mcpi's benchmark peers and runs the whole benchmark (issue 6, docs/PERFORMANCE.md):
#
#   bash scripts/bench.sh              # install what is missing, then run everything (~8 min)
#   bash scripts/bench.sh -quick       # small sizes, two passes (~1 min): a check, not figures
#   bash scripts/bench.sh -install     # install the peers only
#   bash scripts/bench.sh -only burst  # any other arguments go to go run ./internal/bench/cmd/mcpibench
#
# The peers, each pinned and locked in its own folder so that mcpi's go.mod depends on none:
#   internal/bench/peers/node22     Node 22.23.3 from the npm registry (the `node` package): the
#                          Inspector 2.12 needs Node >= 22.19; every Node peer runs on it.
#   internal/bench/peers/ts         @modelcontextprotocol/sdk 1.32.2 (package-lock.json), drive.mjs
#   internal/bench/peers/inspector  @modelcontextprotocol/inspector 2.12.0 (package-lock.json)
#   internal/bench/peers/mcpgo      github.com/mark3labs/mcp-go v1.2.1 (go.mod, go.sum)
# Only the npm registry and the Go module proxy are needed. Each npm folder is installed
# with `npm ci` (exactly its lock) and skipped while a checksum stamp says it is current.
#
# The figures go to stdout as a Markdown table and to internal/bench/results/latest.json (-json FILE
# to choose). Benchmarks are not tests: CI does not run this. `go test ./internal/bench/...` (part of
# the test suite) only runs each workload once at a tiny size.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PEERS="$ROOT/internal/bench/peers"
NPM_FLAGS=(--no-audit --no-fund --no-update-notifier --loglevel=error)

log() { printf 'bench: %s\n' "$*" >&2; }

command -v go >/dev/null 2>&1 || { log "go not found"; exit 2; }
command -v npm >/dev/null 2>&1 || { log "npm not found (apt-get install npm)"; exit 2; }

# npm_install DIR [NODE_BIN_DIR]: npm ci in DIR unless its stamp matches package.json and
# the lock. With NODE_BIN_DIR, npm runs under that Node (install scripts included).
npm_install() {
  local dir="$1" bindir="${2:-}"
  local stamp="$dir/node_modules/.mcpi-bench-lock.sha256"
  [ -f "$dir/package-lock.json" ] || { log "$dir/package-lock.json is missing"; exit 1; }
  local want have
  want="$(cat "$dir/package.json" "$dir/package-lock.json" | sha256sum | cut -d' ' -f1)"
  have="$(cat "$stamp" 2>/dev/null || true)"
  if [ "$want" = "$have" ]; then
    log "${dir#$ROOT/} is up to date"
    return
  fi
  log "npm ci in ${dir#$ROOT/}"
  if [ -n "$bindir" ]; then
    (cd "$dir" && PATH="$bindir:$PATH" npm ci "${NPM_FLAGS[@]}" >&2)
  else
    (cd "$dir" && npm ci "${NPM_FLAGS[@]}" >&2)
  fi
  echo "$want" >"$stamp"
}

install() {
  npm_install "$PEERS/node22"
  local node_bin="$PEERS/node22/node_modules/node/bin"
  "$node_bin/node" --version >/dev/null || { log "Node 22 does not run here"; exit 1; }
  npm_install "$PEERS/ts" "$node_bin"
  npm_install "$PEERS/inspector" "$node_bin"
  log "go mod download in internal/bench/peers/mcpgo"
  (cd "$PEERS/mcpgo" && go mod download && go build -o /dev/null .)
  log "peers ready: node $("$node_bin/node" --version), TS SDK, MCP Inspector, mcp-go"
}

args=()
only_install=0
for a in "$@"; do
  case "$a" in
    -install|--install) only_install=1 ;;
    *) args+=("$a") ;;
  esac
done

install
[ "$only_install" = 1 ] && exit 0

cd "$ROOT"
log "running go run ./internal/bench/cmd/mcpibench ${args[*]:-}"
exec go run ./internal/bench/cmd/mcpibench "${args[@]}"
