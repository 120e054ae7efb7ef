package state

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcpi-dev/mcpi/internal/cli/cmdutil"
	"github.com/mcpi-dev/mcpi/internal/jsonwire"
)

// ErasFileName is the file, in the state directory, that remembers which protocol version
// each server spoke.
const ErasFileName = "eras.json"

// maxEras bounds the servers remembered; the oldest are forgotten first.
const maxEras = 500

// How long a remembered version is trusted before the server is asked again: servers
// are upgraded, and one remembered as of 2025-11-25 would otherwise be spoken to in
// that era for good. A version the server stated (it refused server/discover as a
// server of 2025-11-25 does, or answered it) is trusted for EraTrust; one taken for want
// of an answer (the probe timed out, as it does for a server still starting) only for
// GuessTrust, as the same server may answer in time when it starts faster.
const (
	EraTrust   = 24 * time.Hour
	GuessTrust = time.Hour
)

// Eras remembers the protocol version each server spoke last, so that a server of the
// 2025-11-25 era is not probed with server/discover by every command. It is a cache: a
// file that cannot be read or written is no error, only a probe more next time.
type Eras struct {
	Path string
	// Now is the clock (nil: time.Now).
	Now func() time.Time
}

type eraEntry struct {
	Version string    `json:"version,omitempty"`
	At      time.Time `json:"at"`
	// Checked is when the server was last asked its era (Version is what it came to);
	// zero in files of earlier versions, which go by At.
	Checked time.Time `json:"checked,omitzero"`
	// Guessed: Version was taken because the probe went unanswered.
	Guessed bool `json:"guessed,omitempty"`
	// Open is set for a server that answered without a token, so that the login probe
	// of an HTTP server is not sent again (connect.Selection.Connect).
	Open bool `json:"open,omitempty"`
}

func (e *Eras) now() time.Time {
	if e.Now != nil {
		return e.Now()
	}
	return time.Now()
}

// DefaultEras returns the memory at the default location.
func DefaultEras() (*Eras, error) {
	d, err := Dir()
	if err != nil {
		return nil, err
	}
	return &Eras{Path: filepath.Join(d, ErasFileName)}, nil
}

func (e *Eras) load() map[string]eraEntry {
	m := map[string]eraEntry{}
	b, err := cmdutil.ReadFile(e.Path, 1<<20)
	if err == nil {
		_ = json.Unmarshal(b, &m)
	}
	return m
}

// keyPrefix begins the names the file gives servers.
const keyPrefix = "sha256:"

// EraKey is the name of server in the file: a hash of it, since what names a server
// may hold its credentials (a URL's password or query token, a stdio server's
// environment) and the file is written by every command that lets mcpi choose the era.
// The hash still tells servers apart, and is all a lookup needs.
func EraKey(server string) string {
	sum := sha256.Sum256([]byte(server))
	return keyPrefix + hex.EncodeToString(sum[:])
}

// entry returns server's entry, decoding only it: every command asks for one, and the
// file may hold maxEras (a whole decode of it took 0.7 ms, a tenth of a cold start).
// The name is matched as save writes it; one written otherwise is a miss, which costs a
// probe.
func (e *Eras) entry(server string) eraEntry {
	b, err := cmdutil.ReadFile(e.Path, 1<<20)
	if err != nil {
		return eraEntry{}
	}
	key, err := json.Marshal(EraKey(server))
	if err != nil {
		return eraEntry{}
	}
	found, err := jsonwire.Member(b, string(key)) // the last one counts, as when the file is decoded whole
	if err != nil || found == nil {
		return eraEntry{}
	}
	var entry eraEntry
	if json.Unmarshal(found, &entry) != nil {
		return eraEntry{}
	}
	return entry
}

// Lookup returns the version server spoke when it was last asked, or "" when it was
// not asked, or too long ago (see [EraTrust]).
func (e *Eras) Lookup(server string) string {
	entry := e.entry(server)
	checked, trust := entry.Checked, EraTrust
	if checked.IsZero() {
		checked = entry.At
	}
	if entry.Guessed {
		trust = GuessTrust
	}
	if age := e.now().Sub(checked); age < 0 || age >= trust {
		return ""
	}
	return entry.Version
}

// Remember records that server speaks version, as it was found now: guessed says that
// it was taken because the server did not answer the probe in time.
func (e *Eras) Remember(server, version string, guessed bool) error {
	now := e.now().UTC()
	return e.update(server, func(entry *eraEntry) {
		entry.Version, entry.Guessed, entry.Checked = version, guessed, now
	})
}

// Open reports whether server answered without a token when last asked.
func (e *Eras) Open(server string) bool {
	return e.entry(server).Open
}

// RememberOpen records whether server answers without a token.
func (e *Eras) RememberOpen(server string, open bool) error {
	return e.update(server, func(entry *eraEntry) { entry.Open = open })
}

// update applies set to server's entry and saves it dated now, unless set changed
// nothing (the file is then not written).
func (e *Eras) update(server string, set func(*eraEntry)) error {
	entry := e.entry(server)
	if entry.Checked.IsZero() {
		entry.Checked = entry.At // an entry of an earlier mcpi: At is about to change
	}
	before := entry
	set(&entry)
	if entry == before {
		return nil // the usual case: only the entry is read
	}
	m := e.load()
	entry.At = e.now().UTC()
	m[EraKey(server)] = entry
	return e.save(m)
}

func (e *Eras) save(m map[string]eraEntry) error {
	for k := range m {
		if !strings.HasPrefix(k, keyPrefix) {
			delete(m, k) // named in clear by an older mcpi: its credentials go
		}
	}
	for len(m) > maxEras {
		oldest := ""
		for k, v := range m {
			if oldest == "" || v.At.Before(m[oldest].At) {
				oldest = k
			}
		}
		delete(m, oldest)
	}
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return writeAtomic(e.Path, ".eras-*.json", append(data, '\n'))
}
