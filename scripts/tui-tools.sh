#!/usr/bin/env bash
# Installs what the terminal UI's real-terminal test (internal/tui/tmux_test.go) needs: tmux,
# from Debian's packages, unless it is on PATH already.
#
#   bash scripts/tui-tools.sh      # from anywhere
#
# Then run the test so that a missing tmux fails it instead of skipping it:
#
#   MCPI_TUI_TMUX=1 go test ./internal/tui/...
set -euo pipefail
exec bash "$(dirname "${BASH_SOURCE[0]}")/apt-tools.sh" tui-tools tmux tmux
