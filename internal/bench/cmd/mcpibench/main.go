// Command mcpibench measures mcpi against its peers on the workloads of the benchmark
// contract, in one run, against the same benchmark server (the demo server), and prints
// a table with each peer as a ratio to mcpi, and writes the figures as JSON.
//
//	go run ./internal/bench/cmd/mcpibench [-quick] [-passes N] [-json FILE] [-only LIST]
//
// Install the peers first with scripts/bench.sh (which also runs this command). A peer
// that is not installed is skipped, and the table says so.
//
// Subcommands used by the run itself:
//
//	mcpibench serve [-http ADDR] [-no-status]   the benchmark server
//	mcpibench drive -workload W ...              one workload with mcpi's client
package main

import (
	"fmt"
	"os"
)

func main() {
	var err error
	args := os.Args[1:]
	switch {
	case len(args) > 0 && args[0] == "serve":
		err = serveMain(args[1:])
	case len(args) > 0 && args[0] == "drive":
		err = driveMain(args[1:])
	case len(args) > 0 && args[0] == "run":
		err = runMain(args[1:])
	default:
		err = runMain(args)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "mcpibench:", err)
		os.Exit(1)
	}
}
