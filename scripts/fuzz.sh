#!/usr/bin/env bash
# Runs every fuzz target of the module for a while: the decoders of what an untrusted
# peer sends (JSON-RPC frames, the mcp types' codecs, stdio lines, server-sent events,
# the Streamable HTTP handler) and a hostile server against the client. `go test` runs
# their seed corpora on every test run; this explores beyond them.
#
#   bash scripts/fuzz.sh                 # every target, MCPI_FUZZ_TIME each (default 10s)
#   MCPI_FUZZ_TIME=2m bash scripts/fuzz.sh FuzzHTTPHandler   # some targets, longer
#
# A failure leaves the input that caused it in the package's testdata/fuzz/ directory,
# where `go test` then runs it as a seed: commit it with the fix.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

fuzztime="${MCPI_FUZZ_TIME:-10s}"
only=("$@")

status=0
count=0
# The targets, found in the sources: asking go test to list them would build every
# package's tests once more.
for dir in $(grep -rl --include='*_test.go' --exclude-dir=node_modules --exclude-dir=.tools '^func Fuzz' . | xargs -n1 dirname | sort -u); do
  pkg="./${dir#./}"
  for target in $(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go | sed 's/^func //'); do
    if [ "${#only[@]}" -gt 0 ] && ! printf '%s\n' "${only[@]}" | grep -qx "$target"; then
      continue
    fi
    count=$((count + 1))
    printf 'fuzz: %s %s for %s\n' "${pkg#./}" "$target" "$fuzztime"
    log="/tmp/mcpi-fuzz-$target.log"
    ok=0
    for attempt in 1 2; do
      if go test -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" "$pkg" >"$log" 2>&1; then
        ok=1
        break
      fi
      # Go's fuzzing coordinator fails a run with a bare "context deadline exceeded" when
      # its workers answer too late at the end of -fuzztime (a starved machine), with no
      # failing input: that run is taken again once. A real failure names its input.
      if grep -q 'Failing input written to' "$log" || ! grep -q '^    context deadline exceeded$' "$log"; then
        break
      fi
      printf 'fuzz: %s: the fuzzing engine timed out with no failing input; once more\n' "$target" >&2
    done
    if [ $ok = 0 ]; then
      grep -v '^fuzz: elapsed' "$log" | tail -20 >&2
      status=1
    fi
  done
done
echo "fuzz: $count targets, $fuzztime each: $([ $status = 0 ] && echo 'no failure' || echo 'FAILED')"
exit $status
