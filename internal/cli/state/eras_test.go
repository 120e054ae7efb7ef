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

func TestErasRoundTrip(t *testing.T) {
	e := &Eras{Path: filepath.Join(t.TempDir(), ErasFileName)}
	for _, k := range erasKeys {
		if v, open := e.Lookup(k), e.Open(k); v != "" || open {
			t.Errorf("%s: %q, %v before anything was remembered", k, v, open)
		}
	}
	for i, k := range erasKeys {
		if err := e.Remember(k, fmt.Sprintf("v%d", i)); err != nil {
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
	// Remembering what is remembered writes nothing.
	before, err := os.Stat(e.Path)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Remember(erasKeys[0], "v0"); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.Stat(e.Path); !after.ModTime().Equal(before.ModTime()) || after.Size() != before.Size() {
		t.Error("the file was written for an entry that did not change")
	}
}

// A file that cannot be read as the memory is a miss, never an error or a panic; the
// next Remember starts it afresh.
func TestErasDamagedFile(t *testing.T) {
	for _, body := range []string{"", "{", "[]", `{"k":5}`, `{"k":{"version":7}}`, "\x00\xff", `{"k":{"version":"v1"},"k":{"version":"v2"}}`} {
		e := &Eras{Path: filepath.Join(t.TempDir(), ErasFileName)}
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
		if err := e.Remember("other", "v9"); err != nil {
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
	if err := e.Remember("newest", "v"); err != nil {
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
		if err := e.Remember(k, fmt.Sprintf("v%d", i)); err != nil {
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
