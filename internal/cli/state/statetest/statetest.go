// Package statetest gives a test binary a state directory of its own.
package statetest

import (
	"fmt"
	"os"
)

// Main runs the tests of m with MCPI_STATE_DIR set to a new temporary directory (unless
// the environment names one already), removes it after, and returns m's exit code. Tests
// that run mcpi's commands need it: mcpi keeps state there (the era each server spoke,
// tasks, tokens), and the user's directory is no place for what tests leave.
func Main(m interface{ Run() int }) int {
	if os.Getenv("MCPI_STATE_DIR") != "" {
		return m.Run()
	}
	dir, err := os.MkdirTemp("", "mcpi-state-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "statetest:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	os.Setenv("MCPI_STATE_DIR", dir)
	return m.Run()
}
