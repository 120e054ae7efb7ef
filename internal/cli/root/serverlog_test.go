package root

import (
	"strings"
	"testing"
)

// --server-log LEVEL asks the server for its log messages of LEVEL and above, in both
// eras (2025-11-25: logging/setLevel; 2026-07-28: the level in each request's _meta),
// over each transport, and prints each on stderr as it comes; stdout keeps the result.
func TestServerLogFlag(t *testing.T) {
	url := serveDemoHTTP(t)
	want := "server warning (mcpi-demo): warning: hi\nserver error (mcpi-demo): error: hi\n" +
		"server critical (mcpi-demo): critical: hi\nserver alert (mcpi-demo): alert: hi\n" +
		"server emergency (mcpi-demo): emergency: hi\n"
	eachServerAndEra(t, url, func(t *testing.T, args []string) {
		stdout, stderr, code := mcpi(t, append(args, "--server-log", "warning", "tools", "call", "log_levels", "--arg", "message=hi")...)
		if code != 0 || stdout != "logged \"hi\" at 8 levels\n" || stderr != want {
			t.Errorf("exit %d\nstdout %q\nstderr %q\nwant   %q", code, stdout, stderr, want)
		}
		_, stderr, _ = mcpi(t, append(args, "tools", "call", "log_levels")...)
		if stderr != "" {
			t.Errorf("without --server-log, stderr %q", stderr)
		}
	})
	_, stderr, code := mcpi(t, "--server-log", "loud", "ping")
	if code != 2 || !strings.Contains(stderr, `invalid argument "loud" for "--server-log" flag: want one of debug, info,`) {
		t.Errorf("--server-log loud: exit %d, %q", code, stderr)
	}
}
