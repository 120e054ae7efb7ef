#!/usr/bin/env bash
# Runs a pinned MCP conformance suite (0.1.16 by default) and verifies its results.
#
#   scripts/conformance.sh server URL [CLI-ARGS...]
#       URL of an already running Streamable HTTP server, e.g.
#       http://127.0.0.1:8931/mcp (must be localhost/127.0.0.1/[::1]: the
#       dns-rebinding-protection scenario fails any other host).
#       Runs `conformance server --url URL --suite active -o DIR`. CLI-ARGS are
#       passed through, e.g. `--scenario tools-call-with-progress` (then only
#       that scenario runs) or `--suite all`.
#
#   scripts/conformance.sh client CMD [SCENARIO...]
#       CMD is the client command as ONE argument ("/abs/bin/client --flag");
#       the suite splits it on single spaces (no quoting), runs it through
#       /bin/sh and appends the mock server's URL as the last argument, with the
#       scenario name in $MCP_CONFORMANCE_SCENARIO (and, from 0.2.0 on, the
#       revision in $MCP_CONFORMANCE_PROTOCOL_VERSION). Use a prebuilt binary:
#       the client must finish within 30 s. Each SCENARIO runs on its own, one
#       after the other, with -o DIR. Default scenarios: initialize tools_call
#       elicitation-sep1034-client-defaults sse-retry; with --spec-version
#       2026-07-28: tools_call request-metadata sep-2322-client-request-state
#       http-standard-headers http-custom-headers http-invalid-tool-headers
#       json-schema-ref-no-deref json-schema-2020-12-preservation.
#
# Options (before the mode):
#   --suite-version V         the suite to run: 0.1.16 (default) or
#                             0.2.0-alpha.12 (or "alpha"), each installed pinned
#                             by scripts/conformance-tools.sh
#   --spec-version V          client mode: the protocol revision each scenario
#                             runs at (`conformance client --spec-version V`),
#                             e.g. 2025-11-25 or 2026-07-28 (0.2.0-alpha.12). A
#                             scenario not applicable at V is skipped by the
#                             suite, writes no checks.json, and so fails here.
#   --expected-failures FILE  YAML with `server:` / `client:` lists of scenario
#                             names that may fail (a listed one that passes is
#                             an error: remove it). E.g. internal/conformance/expected-failures.yml
#   --allow-warnings          do not count WARNING checks as failures
#                             (server mode: tasks-status-notifications, whose
#                             every check 0.2.0-alpha.12 reports SKIPPED, is
#                             reported as skipped by the suite, not as failed)
#   --out DIR                 results folder (default .tools/conformance-results/
#                             <mode>[-<suite>][-<spec>]-<timestamp>)
# Environment: CONFORMANCE_CLIENT_TIMEOUT_MS (default 30000).
#
# After the run, every scenario's checks.json must hold at least one SUCCESS,
# no FAILURE and no WARNING (the CLI's own baseline logic also counts WARNING
# as failure); in client mode the CLI must also exit 0 (a client that exits
# non-zero or times out fails). One line per failed scenario is printed, then
# "conformance: N passed, M failed"; the exit status is 1 on any failure.
set -euo pipefail

ROOT="$(pwd)"
SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
NODE_BIN_DIR="$ROOT/.tools/node22/node_modules/node/bin"

die() { printf 'conformance.sh: %s\n' "$*" >&2; exit 2; }
usage() { sed -n '2,46p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit 2; }

CHECK_ARGS=()
OUT=""
SUITE_VERSION="0.1.16"
SPEC_VERSION=""
while [ $# -gt 0 ]; do
  case "$1" in
    --expected-failures)
      [ $# -ge 2 ] || die "--expected-failures needs a file"
      [ -f "$2" ] || die "no such file: $2"
      CHECK_ARGS+=(--expected-failures "$(cd "$(dirname "$2")" && pwd)/$(basename "$2")"); shift 2 ;;
    --allow-warnings) CHECK_ARGS+=(--allow-warnings); shift ;;
    --out) [ $# -ge 2 ] || die "--out needs a folder"; OUT="$2"; shift 2 ;;
    --suite-version) [ $# -ge 2 ] || die "--suite-version needs a version"; SUITE_VERSION="$2"; shift 2 ;;
    --spec-version) [ $# -ge 2 ] || die "--spec-version needs a revision"; SPEC_VERSION="$2"; shift 2 ;;
    -h|--help) usage ;;
    --*) die "unknown option $1 (options go before the mode)" ;;
    *) break ;;
  esac
done
[ $# -ge 1 ] || usage
MODE="$1"; shift
case "$SUITE_VERSION" in
  0.1.16|0.2.0-alpha.12) ;;
  alpha) SUITE_VERSION="0.2.0-alpha.12" ;;
  *) die "unknown --suite-version $SUITE_VERSION (known: 0.1.16, 0.2.0-alpha.12)" ;;
esac

[ -f "$ROOT/go.mod" ] || die "run from the repository root"
CONF_BIN="$(bash "$SCRIPT_DIR/conformance-tools.sh" "$SUITE_VERSION" | tail -1)"
[ -x "$CONF_BIN" ] || die "conformance bin missing after install: $CONF_BIN"
export PATH="$NODE_BIN_DIR:$PATH"
node_major="$(node -p 'process.versions.node.split(".")[0]')"
[ "$node_major" -ge 22 ] || die "node on PATH is $(node --version), need >= 22"

tag="$MODE"
[ "$SUITE_VERSION" = 0.1.16 ] || tag="$tag-$SUITE_VERSION"
[ -z "$SPEC_VERSION" ] || tag="$tag-$SPEC_VERSION"
OUT="${OUT:-$ROOT/.tools/conformance-results/$tag-$(date +%Y%m%d-%H%M%S)}"
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"

case "$MODE" in
  server)
    [ $# -ge 1 ] || die "usage: conformance.sh server URL [CLI-ARGS...]"
    [ -z "$SPEC_VERSION" ] || die "--spec-version is for client mode (pass the CLI's own --spec-version after the URL)"
    URL="$1"; shift
    case "$URL" in
      http://localhost[:/]*|http://127.0.0.1[:/]*|http://\[::1\][:/]*) ;;
      *) printf 'conformance.sh: warning: %s is not a localhost URL; dns-rebinding-protection will fail\n' "$URL" >&2 ;;
    esac
    have_suite=0; have_scenario=0
    for a in "$@"; do
      case "$a" in --suite|--suite=*|--requirements|--requirements=*) have_suite=1 ;; --scenario|--scenario=*) have_scenario=1 ;; --expected-failures*|-o|--output-dir*) die "$a: not supported here (see the options above)" ;; esac
    done
    args=(server --url "$URL" -o "$OUT")
    if [ "$have_suite" = 0 ] && [ "$have_scenario" = 0 ]; then args+=(--suite active); fi
    args+=("$@")
    echo "conformance.sh: conformance ${args[*]}" >&2
    set +e
    "$CONF_BIN" "${args[@]}" 2>&1 | tee "$OUT/cli.log"
    cli_rc=${PIPESTATUS[0]}
    set -e
    echo "conformance.sh: CLI exited $cli_rc; results in $OUT" >&2
    set +e
    node "$SCRIPT_DIR/conformance-check.mjs" --mode server --dir "$OUT" --log "$OUT/cli.log" "${CHECK_ARGS[@]}" \
      --suite-skips tasks-status-notifications
    rc=$?
    set -e
    # The CLI's exit status in server mode only reflects FAILURE checks, which
    # the checker has already judged.
    exit "$rc"
    ;;
  client)
    [ $# -ge 1 ] || die "usage: conformance.sh client CMD [SCENARIO...]"
    CMD="$1"; shift
    first="${CMD%% *}"
    if [ ! -x "$first" ] && ! command -v "$first" >/dev/null 2>&1; then
      die "client command '$first' is not an executable file or on PATH (build it first; use a prebuilt binary, not go run)"
    fi
    case "$CMD" in *"  "*|*'"'*|*"'"*) printf 'conformance.sh: warning: the suite splits CMD on single spaces without quoting\n' >&2 ;; esac
    SCENARIOS=("$@")
    if [ ${#SCENARIOS[@]} -eq 0 ] && [ "$SPEC_VERSION" = 2026-07-28 ]; then
      SCENARIOS=(tools_call request-metadata sep-2322-client-request-state http-standard-headers
        http-custom-headers http-invalid-tool-headers json-schema-ref-no-deref json-schema-2020-12-preservation)
    elif [ ${#SCENARIOS[@]} -eq 0 ]; then
      SCENARIOS=(initialize tools_call elicitation-sep1034-client-defaults sse-retry)
    fi
    timeout_ms="${CONFORMANCE_CLIENT_TIMEOUT_MS:-30000}"
    spec_args=()
    [ -z "$SPEC_VERSION" ] || spec_args=(--spec-version "$SPEC_VERSION")
    echo "conformance.sh: conformance $SUITE_VERSION, client mode${SPEC_VERSION:+ at $SPEC_VERSION}" >&2
    exits=()
    for s in "${SCENARIOS[@]}"; do
      log="$OUT/cli-${s//\//_}.log"
      echo "conformance.sh: == client scenario $s" >&2
      set +e
      "$CONF_BIN" client --command "$CMD" --scenario "$s" "${spec_args[@]}" --timeout "$timeout_ms" -o "$OUT" >"$log" 2>&1
      rc=$?
      set -e
      grep -E '^(Passed:|.*OVERALL:|.*CLIENT (TIMED OUT|EXITED))' "$log" | sed "s|^|  $s: |" >&2 || true
      exits+=(--cli-exit "$s=$rc" --expect "$s")
    done
    echo "conformance.sh: results in $OUT" >&2
    set +e
    node "$SCRIPT_DIR/conformance-check.mjs" --mode client --dir "$OUT" "${exits[@]}" "${CHECK_ARGS[@]}"
    rc=$?
    set -e
    exit "$rc"
    ;;
  *) usage ;;
esac
