package main

import (
	"runtime/debug"
	"testing"
)

// A build from a checkout says which commit it is, as go build records it; a module
// version recorded by go install is enough alone; a build that recorded neither says so
// (it said only "dev", as a build from a checkout without a commit's details).
func TestVersionOf(t *testing.T) {
	vcs := []debug.BuildSetting{
		{Key: "vcs", Value: "git"},
		{Key: "vcs.revision", Value: "1f001eb0c2a5d8e9f4b3a2c1d0e9f8a7b6c5d4e3"},
		{Key: "vcs.time", Value: "2026-11-28T04:00:00Z"},
	}
	for _, c := range []struct {
		bi   *debug.BuildInfo
		want string
	}{
		{nil, "dev (built without version information)"},
		// What go build -buildvcs=false records, or a build outside a checkout.
		{&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{{Key: "-buildmode", Value: "exe"}, {Key: "GOOS", Value: "linux"}}},
			"dev (built without version information)"},
		// Since Go 1.24 go build in a checkout records the commit as a pseudo-version.
		{&debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261128040000-1f001eb0c2a5+dirty"}, Settings: vcs}, "v0.0.0-20261128040000-1f001eb0c2a5+dirty"},
		{&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs}, "dev (commit 1f001eb0c2a5, 2026-11-28T04:00:00Z)"},
		{&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: append(vcs, debug.BuildSetting{Key: "vcs.modified", Value: "true"})},
			"dev (commit 1f001eb0c2a5, 2026-11-28T04:00:00Z, modified)"},
		{&debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}, Settings: vcs}, "v1.2.3"},
	} {
		if got := versionOf(c.bi); got != c.want {
			t.Errorf("versionOf = %q, want %q", got, c.want)
		}
	}
}
