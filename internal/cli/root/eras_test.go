package root

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/internal/cli/internal/clitest"
	"github.com/mcpi-dev/mcpi/internal/cli/state"
)

// The era remembered for a server is trusted for a while, then the server is asked
// again: a server remembered as of 2025-11-25 a day ago, or an hour ago for want of an
// answer to the probe, and that speaks 2026-07-28 now (the demo speaks both), is spoken
// to in 2026-07-28, and that is remembered; one remembered just now is trusted.
func TestRememberedEraIsAskedAgain(t *testing.T) {
	dir := clitest.StateDir(t)
	url := clitest.DemoHTTP(t, nil)
	path := filepath.Join(dir, "eras.json")
	key := state.EraKey("http " + url) // servers are named by a hash in the file
	stamp := func(ago time.Duration) string { return time.Now().Add(-ago).UTC().Format(time.RFC3339) }
	for _, c := range []struct {
		name, entry, era string
	}{
		{"stated a day ago", `{"version":"2025-11-25","at":"` + stamp(25*time.Hour) + `"}`, "modern era"},
		{"guessed two hours ago", `{"version":"2025-11-25","at":"` + stamp(2*time.Hour) + `","checked":"` + stamp(2*time.Hour) + `","guessed":true}`, "modern era"},
		{"stated just now", `{"version":"2025-11-25","at":"` + stamp(time.Minute) + `","checked":"` + stamp(time.Minute) + `"}`, "legacy era"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if err := os.WriteFile(path, []byte(`{"`+key+`":`+c.entry+`}`), 0o600); err != nil {
				t.Fatal(err)
			}
			out, stderr, code := mcpi(t, "--url", url, "ping")
			if code != 0 || !strings.Contains(out, c.era) {
				t.Fatalf("ping: exit %d, stdout %q, stderr %q; want the %s", code, out, stderr, c.era)
			}
			var eras map[string]struct{ Version string }
			b, _ := os.ReadFile(path)
			if err := json.Unmarshal(b, &eras); err != nil {
				t.Fatal(err)
			}
			want := "2026-07-28"
			if c.era == "legacy era" {
				want = "2025-11-25"
			}
			if got := eras[key].Version; got != want {
				t.Errorf("remembered %q, want %q", got, want)
			}
		})
	}
}
