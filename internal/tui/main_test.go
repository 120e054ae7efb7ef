package tui

import (
	"fmt"
	"os"
	"testing"
)

func TestMain(m *testing.M) {
	// The tests run mcpi (in tmux, and in process), which keeps state (the eras each
	// server spoke, tasks, tokens): in a directory of their own, never the user's.
	state, err := os.MkdirTemp("", "mcpi-state-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if os.Getenv("MCPI_STATE_DIR") == "" {
		os.Setenv("MCPI_STATE_DIR", state)
	}
	code := m.Run()
	os.RemoveAll(state)
	os.Exit(code)
}
