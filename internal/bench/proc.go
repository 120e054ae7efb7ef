package bench

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// RunResult is one run of a process.
type RunResult struct {
	Wall      time.Duration
	MaxRSSKiB int64
	Stdout    []byte
}

// RunMeasured runs argv to completion and reports its wall time (start to exit) and peak
// RSS. A non-zero exit is an error quoting the end of stderr.
func RunMeasured(ctx context.Context, argv []string, env []string) (*RunResult, error) {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = env
	var out, errb bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &errb
	cmd.WaitDelay = 5 * time.Second
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %s", strings.Join(argv, " "), err, tail(errb.String(), 600))
	}
	return &RunResult{Wall: wall, MaxRSSKiB: ChildMaxRSSKiB(cmd.ProcessState), Stdout: out.Bytes()}, nil
}

func tail(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}
