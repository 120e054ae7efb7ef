package root

import (
	"path/filepath"
	"strings"
	"testing"
)

// --root serves directories to the server's roots/list, in both eras (2025-11-25: a
// request of the server; 2026-07-28: an input request of the call), over each transport:
// the demo's list_roots returns what mcpi served (a URI's dot segments resolved: a
// server may check paths against its roots by prefix). Without --root the list is empty.
func TestRootsFlag(t *testing.T) {
	dir := t.TempDir()
	url := serveDemoHTTP(t)
	eachServerAndEra(t, url, func(t *testing.T, args []string) {
		stdout, stderr, code := mcpi(t, append(args, "--root", dir, "--root", "file:///srv/x/../data", "tools", "call", "list_roots")...)
		want := "file://" + filepath.ToSlash(dir) + " (" + filepath.Base(dir) + ")\nfile:///srv/data (data)\n"
		if code != 0 || stdout != want {
			t.Errorf("exit %d, stdout %q, want %q; stderr: %s", code, stdout, want, stderr)
		}
		stdout, stderr, code = mcpi(t, append(args, "tools", "call", "list_roots")...)
		if code != 0 || stdout != "the client has no roots\n" {
			t.Errorf("without --root: exit %d, %q; stderr: %s", code, stdout, stderr)
		}
	})
}

// A root that is no file: URI, or a path that does not exist, is refused in one
// sentence before anything is sent.
func TestRootsFlagRefused(t *testing.T) {
	for arg, want := range map[string]string{
		"/no/such/dir":        `mcpi: invalid argument "/no/such/dir" for "--root" flag: /no/such/dir does not exist`,
		"https://example.com": `mcpi: invalid argument "https://example.com" for "--root" flag: a root is a file: URI, not https:`,
		"":                    `mcpi: invalid argument "" for "--root" flag: it is empty`,
	} {
		_, stderr, code := mcpi(t, "--root", arg, "tools", "list")
		if code != 2 || strings.TrimSpace(stderr) != want {
			t.Errorf("--root %q: exit %d, %q\nwant %q", arg, code, stderr, want)
		}
	}
}
