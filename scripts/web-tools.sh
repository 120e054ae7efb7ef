#!/usr/bin/env bash
# Installs what the web inspector's browser tests (internal/cli/web/browser_test.go) need:
# headless Chromium, from Debian's packages, unless it is on PATH already.
#
#   bash scripts/web-tools.sh      # from anywhere
#
# Then run the tests so that a missing browser fails them instead of skipping them:
#
#   MCPI_WEB_BROWSER=1 go test ./internal/cli/web/...
set -euo pipefail
exec bash "$(dirname "${BASH_SOURCE[0]}")/apt-tools.sh" web-tools chromium chromium fonts-dejavu-core
