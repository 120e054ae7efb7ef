package tui

import (
	"os"
	"testing"

	"github.com/mcpi-dev/mcpi/internal/cli/state/statetest"
)

// The tests run mcpi (in tmux, and in process): its state goes to a directory of their own.
func TestMain(m *testing.M) { os.Exit(statetest.Main(m)) }
