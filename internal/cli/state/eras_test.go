package state

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Keys as mcpi makes them: a stdio server is its command line as JSON (quotes inside),
// and names may hold what encoding/json escapes (<, >, &) or any Unicode.
var erasKeys = []string{
	`stdio {"argv":["mcpi","serve","demo"],"dir":"","env":[]}`,
	`http http://127.0.0.1:8080/mcp?a=1&b=<2>`,
	"stdio {\"argv\":[\"naïve — ünïcødé\",\"\\u2028\"],\"dir\":\"/tmp\",\"env\":[\"A=1\"]}",
}

// clock is a settable clock for [Eras.Now].
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func TestErasRoundTrip(t *testing.T) {
	c := &clock{time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	e := &Eras{Path: filepath.Join(t.TempDir(), ErasFileName), Now: c.now}
	for _, k := range erasKeys {
		if v, open := e.Lookup(k), e.Open(k); v != "" || open {
			t.Errorf("%s: %q, %v before anything was remembered", k, v, open)
		}
	}
	for i, k := range erasKeys {
		if err := e.Remember(k, fmt.Sprintf("v%d", i), false); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.RememberOpen(erasKeys[1], true); err != nil {
		t.Fatal(err)
	}
	for i, k := range erasKeys {
		if got := e.Lookup(k); got != fmt.Sprintf("v%d", i) {
			t.Errorf("Lookup(%s) = %q, want v%d", k, got, i)
		}
		if got := e.Open(k); got != (i == 1) {
			t.Errorf("Open(%s) = %v", k, got)
		}
	}
	// Remembering what is remembered, at the same time, writes nothing.
	before, err := os.Stat(e.Path)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Remember(erasKeys[0], "v0", false); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.Stat(e.Path); !after.ModTime().Equal(before.ModTime()) || after.Size() != before.Size() {
		t.Error("the file was written for an entry that did not change")
	}
}

// A file that cannot be read as the memory is a miss, never an error or a panic; the
// next Remember starts it afresh.
func TestErasDamagedFile(t *testing.T) {
	const repeated = `{"k":{"version":"v1","at":"2026-01-01T00:00:00Z"},"k":{"version":"v2","at":"2026-01-01T00:00:00Z"}}`
	c := &clock{time.Date(2026, 1, 1, 1, 0, 0, 0, time.UTC)}
	for _, body := range []string{"", "{", "[]", `{"k":5}`, `{"k":{"version":7}}`, "\x00\xff", repeated} {
		e := &Eras{Path: filepath.Join(t.TempDir(), ErasFileName), Now: c.now}
		body = strings.ReplaceAll(body, `"k"`, `"`+EraKey("k")+`"`)
		if err := os.WriteFile(e.Path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		got := e.Lookup("k")
		want := ""
		if strings.Contains(body, `"v2"`) {
			want = "v2" // the last of a repeated name, as a whole decode would have it
		}
		if got != want {
			t.Errorf("%q: Lookup = %q, want %q", body, got, want)
		}
		if err := e.Remember("other", "v9", false); err != nil {
			t.Errorf("%q: Remember: %v", body, err)
		}
		if e.Lookup("other") != "v9" {
			t.Errorf("%q: not remembered after a damaged file", body)
		}
	}
}

// At most maxEras servers are kept, the oldest forgotten first.
func TestErasBounded(t *testing.T) {
	e := &Eras{Path: filepath.Join(t.TempDir(), ErasFileName)}
	m := map[string]eraEntry{}
	old := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range maxEras {
		m[EraKey(fmt.Sprintf("s%03d", i))] = eraEntry{Version: "v", At: old.Add(time.Duration(i) * time.Minute)}
	}
	if err := e.save(m); err != nil {
		t.Fatal(err)
	}
	if err := e.Remember("newest", "v", false); err != nil {
		t.Fatal(err)
	}
	var got map[string]eraEntry
	b, _ := os.ReadFile(e.Path)
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != maxEras || got[EraKey("s000")].Version != "" || got[EraKey("newest")].Version != "v" || got[EraKey("s001")].Version != "v" {
		t.Errorf("%d kept; s000 %+v, newest %+v", len(got), got[EraKey("s000")], got[EraKey("newest")])
	}
}

// A remembered version is trusted for a while, then the server is asked again: a day
// for one the server stated, an hour for one taken because the probe went unanswered
// (the server may have been starting), and an entry of an earlier mcpi by its date.
func TestErasExpire(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c := &clock{start}
	e := &Eras{Path: filepath.Join(t.TempDir(), ErasFileName), Now: c.now}
	if err := e.Remember("stated", "2025-11-25", false); err != nil {
		t.Fatal(err)
	}
	if err := e.Remember("guessed", "2025-11-25", true); err != nil {
		t.Fatal(err)
	}
	// Logging in (or not) later is no new look at the era.
	c.t = start.Add(GuessTrust - time.Minute)
	if err := e.RememberOpen("stated", true); err != nil {
		t.Fatal(err)
	}
	for _, step := range []struct {
		after           time.Duration
		stated, guessed string
	}{
		{0, "2025-11-25", "2025-11-25"},
		{GuessTrust - time.Second, "2025-11-25", "2025-11-25"},
		{GuessTrust, "2025-11-25", ""},
		{EraTrust - time.Second, "2025-11-25", ""},
		{EraTrust, "", ""},
		{-time.Hour, "", ""}, // a clock set back: ask again
	} {
		c.t = start.Add(step.after)
		if got := e.Lookup("stated"); got != step.stated {
			t.Errorf("after %s: the stated era is %q, want %q", step.after, got, step.stated)
		}
		if got := e.Lookup("guessed"); got != step.guessed {
			t.Errorf("after %s: the guessed era is %q, want %q", step.after, got, step.guessed)
		}
	}
	// Asked again, the server is trusted for as long again.
	c.t = start.Add(EraTrust)
	if err := e.Remember("stated", "2025-11-25", false); err != nil {
		t.Fatal(err)
	}
	c.t = start.Add(2*EraTrust - time.Second)
	if got := e.Lookup("stated"); got != "2025-11-25" {
		t.Errorf("asked again: %q", got)
	}

	// An entry written before entries had "checked" goes by "at".
	if err := os.WriteFile(e.Path, []byte(`{"`+EraKey("old")+`":{"version":"2025-11-25","at":"2026-01-01T00:00:00Z"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	c.t = start.Add(time.Hour)
	if got := e.Lookup("old"); got != "2025-11-25" {
		t.Errorf("an earlier entry of an hour ago: %q", got)
	}
	c.t = start.Add(EraTrust)
	if got := e.Lookup("old"); got != "" {
		t.Errorf("an earlier entry of a day ago: %q", got)
	}
}

// BenchmarkErasLookup: one lookup in a full memory (maxEras servers), as every command
// that connects makes.
func BenchmarkErasLookup(b *testing.B) {
	e := &Eras{Path: filepath.Join(b.TempDir(), ErasFileName)}
	m := map[string]eraEntry{}
	for i := range maxEras {
		m[EraKey(fmt.Sprintf(`stdio {"argv":["/tmp/mcpibench-%d/mcpi","serve","demo"],"dir":"","env":[]}`, i))] = eraEntry{Version: "2026-07-28", At: time.Now()}
	}
	if err := e.save(m); err != nil {
		b.Fatal(err)
	}
	key := `stdio {"argv":["/tmp/mcpibench-250/mcpi","serve","demo"],"dir":"","env":[]}`
	b.ReportAllocs()
	for b.Loop() {
		if e.Lookup(key) != "2026-07-28" {
			b.Fatal("missed")
		}
	}
}

// The memory names servers by a hash of their key: a URL's password and query token and
// a stdio server's environment (--env, or "env SECRET=... cmd") stay out of the file,
// which every command of the automatic era writes, and servers stay told apart. Entries
// of the names written before are dropped at the next save.
func TestErasKeepNoSecrets(t *testing.T) {
	e := &Eras{Path: filepath.Join(t.TempDir(), ErasFileName)}
	legacy := `{"http http://u:old-secret@h/mcp":{"version":"v0","at":"2026-01-01T00:00:00Z"}}`
	if err := os.WriteFile(e.Path, []byte(legacy), 0o600); err != nil {
		t.Fatal(err)
	}
	keys := []string{
		`http http://user:hunter2@127.0.0.1:8080/mcp?token=s3cr3t`,
		`http http://user:other@127.0.0.1:8080/mcp?token=s3cr3t`,
		`stdio {"argv":["env","API_KEY=k3y","srv"],"dir":"","env":["TOKEN=t0k"]}`,
	}
	for i, k := range keys {
		if err := e.Remember(k, fmt.Sprintf("v%d", i), false); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.RememberOpen(keys[0], true); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(e.Path)
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{"hunter2", "other", "s3cr3t", "k3y", "t0k", "old-secret", "127.0.0.1"} {
		if strings.Contains(string(b), secret) {
			t.Errorf("the file holds %q:\n%s", secret, b)
		}
	}
	for i, k := range keys {
		if got := e.Lookup(k); got != fmt.Sprintf("v%d", i) {
			t.Errorf("Lookup(%s) = %q, want v%d", k, got, i)
		}
	}
	if !e.Open(keys[0]) || e.Open(keys[1]) {
		t.Errorf("Open: %v, %v; want true, false", e.Open(keys[0]), e.Open(keys[1]))
	}
}
