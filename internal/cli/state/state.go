// Package state is mcpi's small local state file: the tasks that mcpi started and left
// running on a server (detached with --detach, or left running on Ctrl-C), with the
// server flags that reach them again (and the session, for servers that bind a task to
// the session that created it), so that "mcpi tasks result ID" needs no flags.
//
// The file is tasks.json in $MCPI_STATE_DIR, else $XDG_STATE_HOME/mcpi, else
// ~/.local/state/mcpi. It is written atomically (a temporary file renamed over it), under
// a lock on its directory so that concurrent mcpi processes lose none of their changes,
// readable by its owner only (server flags may hold credentials in --header values), and
// bounded: entries whose TTL has run out are dropped (none younger than [MinKeep]), and
// only the newest [MaxEntries] are kept.
package state

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/internal/cli/cmdutil"
	"github.com/mcpi-dev/mcpi/internal/cli/connect"
	"github.com/mcpi-dev/mcpi/mcp"
)

// MaxEntries bounds the file.
const MaxEntries = 500

// MinKeep is how long an entry is kept at least, however short its ttl: the command
// that fetches a task with a ttl shorter than it takes to type that command (--ttl 1ms)
// finds the record, reaches the task's server, and says that the server no longer knows
// the task, where without the record it would ask the embedded demo server about an id
// it never saw.
const MinKeep = time.Minute

// FileName is the state file's name in the state directory.
const FileName = "tasks.json"

// Server is the server selection flags a task was started with.
type Server struct {
	Stdio   string   `json:"stdio,omitempty"`
	Env     []string `json:"env,omitempty"`
	Cwd     string   `json:"cwd,omitempty"`
	URL     string   `json:"url,omitempty"`
	Headers []string `json:"headers,omitempty"`
	Config  string   `json:"config,omitempty"`
	Server  string   `json:"server,omitempty"`
}

// FromSelection records sel. Relative --config and --cwd paths are made absolute, as a
// later mcpi may run elsewhere.
func FromSelection(sel *connect.Selection) Server {
	abs := func(p string) string {
		if p == "" || filepath.IsAbs(p) {
			return p
		}
		if a, err := filepath.Abs(p); err == nil {
			return a
		}
		return p
	}
	return Server{
		Stdio:   sel.Stdio,
		Env:     slices.Clone(sel.Env),
		Cwd:     abs(sel.Cwd),
		URL:     sel.URL,
		Headers: slices.Clone(sel.Headers),
		Config:  abs(sel.Config),
		Server:  sel.Server,
	}
}

// Same reports whether s and o select the same server.
func (s Server) Same(o Server) bool {
	return s.Stdio == o.Stdio && slices.Equal(s.Env, o.Env) && s.Cwd == o.Cwd && s.URL == o.URL &&
		slices.Equal(s.Headers, o.Headers) && s.Config == o.Config && s.Server == o.Server
}

// Apply sets sel's flags to the recorded ones.
func (s Server) Apply(sel *connect.Selection) {
	sel.Stdio, sel.Env, sel.Cwd = s.Stdio, slices.Clone(s.Env), s.Cwd
	sel.URL, sel.Headers = s.URL, slices.Clone(s.Headers)
	sel.Config, sel.Server = s.Config, s.Server
}

// String names the server for a table: its URL (with a password and the query's values
// redacted), its
// command line, or FILE:NAME.
func (s Server) String() string {
	switch {
	case s.URL != "":
		return redactURL(s.URL)
	case s.Stdio != "":
		return s.Stdio
	case s.Config != "" && s.Server != "":
		return s.Config + ":" + s.Server
	case s.Config != "":
		return s.Config
	}
	return connect.EmbeddedTarget
}

// Redacted is the placeholder that stands for a value kept out of a listing.
const Redacted = cmdutil.Redacted

// Redacted returns s as a listing shows it: the values of --header and --env (an
// Authorization header's credentials, an API key in the environment) replaced with
// [Redacted], their names kept, and a password and the query's values in the URL
// redacted ([cmdutil.RedactURL]).
func (s Server) Redacted() Server {
	redact := func(pairs []string) []string {
		out := make([]string, len(pairs))
		for i, p := range pairs {
			k, v, _ := strings.Cut(p, "=")
			if v != "" {
				v = Redacted
			}
			out[i] = k + "=" + v
		}
		return out
	}
	r := s
	if s.Headers != nil {
		r.Headers = redact(s.Headers)
	}
	if s.Env != nil {
		r.Env = redact(s.Env)
	}
	r.URL = redactURL(s.URL)
	return r
}

// redactURL is [cmdutil.RedactURL].
func redactURL(u string) string { return cmdutil.RedactURL(u) }

// Flags returns the mcpi flags that select the server, quoted for a shell.
func (s Server) Flags() string {
	var parts []string
	add := func(flag, v string) { parts = append(parts, flag, cmdutil.ShellQuote(v)) }
	if s.Stdio != "" {
		add("--stdio", s.Stdio)
	}
	for _, e := range s.Env {
		add("--env", e)
	}
	if s.Cwd != "" {
		add("--cwd", s.Cwd)
	}
	if s.URL != "" {
		add("--url", s.URL)
	}
	for _, h := range s.Headers {
		add("--header", h)
	}
	if s.Config != "" {
		add("--config", s.Config)
	}
	if s.Server != "" {
		add("--server", s.Server)
	}
	return strings.Join(parts, " ")
}

// Entry is one task mcpi left running.
type Entry struct {
	TaskID string `json:"taskId"`
	Tool   string `json:"tool"`
	Server Server `json:"server"`
	// Created is when the server created the task.
	Created time.Time `json:"created"`
	// TTL is the task's lifetime in milliseconds from Created, as the server reported
	// it; null means unlimited.
	TTL *int64 `json:"ttl"`
	// Protocol is the protocol version of the session that created the task, the only
	// one it can be reached in; empty in the records of older mcpi versions (unknown).
	Protocol string `json:"protocol,omitempty"`
	// Session is the Streamable HTTP session of the 2025-11-25 era that created the
	// task, which mcpi left open on the server so that later commands take it up: some
	// servers bind a task to its session, reachable from no other. Nil for tasks of
	// other servers and eras, when the server gave no session id, and in the records of
	// older mcpi versions.
	Session *client.Resumption `json:"session,omitempty"`
}

// Listed is an entry as "mcpi tasks list --local --json" shows it: its server's
// credentials redacted ([Server.Redacted]), and whether mcpi keeps the task's session
// rather than the session's id, which is the client's secret.
type Listed struct {
	TaskID   string    `json:"taskId"`
	Tool     string    `json:"tool"`
	Server   Server    `json:"server"`
	Created  time.Time `json:"created"`
	TTL      *int64    `json:"ttl"`
	Protocol string    `json:"protocol,omitempty"`
	// Session is set when the record keeps the session that created the task, which
	// later commands take up.
	Session bool `json:"session"`
}

// Listed returns e as a listing shows it.
func (e Entry) Listed() Listed {
	return Listed{TaskID: e.TaskID, Tool: e.Tool, Server: e.Server.Redacted(), Created: e.Created, TTL: e.TTL, Protocol: e.Protocol, Session: e.Session != nil}
}

// MaxSessionSize bounds what a record keeps of a session (its id and the server's
// initialize result, without the instructions): a server's capabilities may be of any
// size, and the file is read whole by every command. A larger session is not recorded,
// and later commands begin a new one.
const MaxSessionSize = 64 << 10

// keptSession is what an entry keeps of r: r without the server's instructions, which no
// command on a task needs, or nil when that is larger than MaxSessionSize.
func keptSession(r *client.Resumption) *client.Resumption {
	if r == nil || r.Initialize == nil {
		return nil
	}
	init := *r.Initialize
	init.Instructions = ""
	k := &client.Resumption{SessionID: r.SessionID, Initialize: &init}
	if b, err := json.Marshal(k); err != nil || len(b) > MaxSessionSize {
		return nil
	}
	return k
}

// Reachable reports whether the task can be reached in protocol version (2025-11-25
// or 2026-07-28): whether it was created in the same era. A record without a protocol
// may be of either.
func (e Entry) Reachable(version string) bool {
	return e.Protocol == "" || mcp.IsModernProtocolVersion(e.Protocol) == mcp.IsModernProtocolVersion(version)
}

// ApplyProtocol sets sel's --protocol to the one the task was created in, unless the
// user chose a version (sel's is not auto) or the record has none.
func (e Entry) ApplyProtocol(sel *connect.Selection) {
	if e.Protocol != "" && (sel.Protocol == "" || sel.Protocol == client.ProtocolAuto) {
		sel.Protocol = e.Protocol
	}
}

// Expires is when the server may delete the task; ok is false for an unlimited TTL. A
// TTL too long for a time.Duration counts as the longest one, not as a negative one.
func (e Entry) Expires() (at time.Time, ok bool) {
	if e.TTL == nil {
		return time.Time{}, false
	}
	return e.Created.Add(mcp.Milliseconds(*e.TTL)), true
}

type file struct {
	Tasks []Entry `json:"tasks"`
}

// Store is the state file.
type Store struct {
	// Path is the file.
	Path string
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// ErrNoDir is [Dir]'s error when there is no home directory and neither MCPI_STATE_DIR
// nor XDG_STATE_HOME is set. Only what needs the state fails with it: the eras' memory is
// a cache, and the token store is read as empty until a login needs it.
var ErrNoDir error = &cmdutil.UsageError{Msg: "there is no directory for mcpi's state (HOME is not set): set MCPI_STATE_DIR to one"}

// Dir returns the state directory: $MCPI_STATE_DIR, $XDG_STATE_HOME/mcpi or
// ~/.local/state/mcpi; [ErrNoDir] without any.
func Dir() (string, error) {
	if d := os.Getenv("MCPI_STATE_DIR"); d != "" {
		return d, nil
	}
	if d := os.Getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "mcpi"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", ErrNoDir
	}
	return filepath.Join(home, ".local", "state", "mcpi"), nil
}

// Default returns the store at the default location.
func Default() (*Store, error) {
	d, err := Dir()
	if err != nil {
		return nil, err
	}
	return &Store{Path: filepath.Join(d, FileName)}, nil
}

func (s *Store) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// Load returns the entries, oldest first, without the expired ones. A missing file is no
// entries.
func (s *Store) Load() ([]Entry, error) {
	data, err := os.ReadFile(s.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		err = withoutPath(err)
		return nil, cmdutil.UsageErrorf("cannot read the state file %s: %v", s.Path, err)
	}
	var f file
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, cmdutil.UsageErrorf("the state file %s is not valid (%v); remove it to start afresh", s.Path, cmdutil.JSONSyntaxError(data, err))
	}
	return s.prune(f.Tasks), nil
}

// prune drops expired entries older than MinKeep and keeps the newest MaxEntries,
// oldest first.
func (s *Store) prune(entries []Entry) []Entry {
	now := s.now()
	out := entries[:0:0]
	for _, e := range entries {
		if at, ok := e.Expires(); ok && !at.After(now) && !e.Created.Add(MinKeep).After(now) {
			continue
		}
		out = append(out, e)
	}
	slices.SortStableFunc(out, func(a, b Entry) int { return a.Created.Compare(b.Created) })
	if len(out) > MaxEntries {
		out = out[len(out)-MaxEntries:]
	}
	return out
}

// Find returns the entry of a task id.
func (s *Store) Find(id string) (Entry, bool, error) {
	entries, err := s.Load()
	if err != nil {
		return Entry{}, false, err
	}
	for i := len(entries) - 1; i >= 0; i-- {
		if entries[i].TaskID == id {
			return entries[i], true, nil
		}
	}
	return Entry{}, false, nil
}

// Add records an entry, replacing one with the same task id.
func (s *Store) Add(e Entry) error {
	return s.change(func(entries []Entry) []Entry {
		entries = slices.DeleteFunc(entries, func(x Entry) bool { return x.TaskID == e.TaskID })
		return append(entries, e)
	})
}

// SetSession replaces the recorded session of task id (nil: none), if the task is
// recorded.
func (s *Store) SetSession(id string, r *client.Resumption) error {
	return s.change(func(entries []Entry) []Entry {
		for i := range entries {
			if entries[i].TaskID == id {
				entries[i].Session = keptSession(r)
			}
		}
		return entries
	})
}

// Forget removes the entry of a task id, if there is one.
func (s *Store) Forget(id string) error {
	return s.change(func(entries []Entry) []Entry {
		return slices.DeleteFunc(entries, func(x Entry) bool { return x.TaskID == id })
	})
}

// change reads the entries, changes them with f and writes them back, with the directory
// locked throughout: two processes that change the file at once would otherwise each
// write what they read, and one change would be lost.
func (s *Store) change(f func([]Entry) []Entry) error {
	dir := filepath.Dir(s.Path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return s.writeErr(err)
	}
	unlock, err := lockDir(dir)
	if err != nil {
		return s.writeErr(fmt.Errorf("locking its directory: %w", err))
	}
	defer unlock()
	entries, err := s.Load()
	if err != nil {
		return err
	}
	return s.write(s.prune(f(entries)))
}

// writeErr is the error of a state file that cannot be written.
func (s *Store) writeErr(err error) error {
	return cmdutil.UsageErrorf("cannot write the state file %s: %v", s.Path, withoutPath(err))
}

// write replaces the file atomically: a temporary file in the same directory, renamed.
func (s *Store) write(entries []Entry) error {
	if entries == nil {
		entries = []Entry{}
	}
	data, err := json.MarshalIndent(file{Tasks: entries}, "", "  ")
	if err != nil {
		return err
	}
	data = append(data, '\n')
	if err := writeAtomic(s.Path, ".tasks-*.json", data); err != nil {
		return s.writeErr(err)
	}
	return nil
}

// withoutPath returns the error of a file operation without the path and operation
// that *fs.PathError adds: the sentences around it name the file.
func withoutPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// writeAtomic replaces path with data atomically: a temporary file (named by pattern) in
// the same directory, synced, then renamed over it.
func writeAtomic(path, pattern string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // after a successful rename there is nothing to remove
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// String describes the store for messages.
func (s *Store) String() string { return fmt.Sprintf("the state file %s", s.Path) }

// FetchCommand is the command that fetches the result of task id, created in protocol
// version protocol, from the server sel selects, with the flags that select it (and the
// --protocol of a task of 2025-11-25, which --protocol auto would not choose with a
// server that speaks both).
//
// A task the state file records for that server is fetched by its id alone, as
// [Remember] says: the command then shows no --header or --env value, which the user's
// screen or a shared log would otherwise carry.
func FetchCommand(sel *connect.Selection, protocol, id string) string {
	if store, err := Default(); err == nil {
		if e, ok, err := store.Find(id); err == nil && ok && e.Server.Flags() == FromSelection(sel).Flags() {
			return "mcpi tasks result " + cmdutil.ShellQuote(id)
		}
	}
	return fetchWithFlags(sel, protocol, id)
}

// fetchWithFlags is the command of [FetchCommand] that names the server's flags.
func fetchWithFlags(sel *connect.Selection, protocol, id string) string {
	// The values of --header and --env (a bearer token, an API key) would stay on the
	// screen and in logs: [cmdutil.Describe] says to give them again.
	fetch := "mcpi"
	if f := FromSelection(sel).Redacted().Flags(); f != "" {
		fetch += " " + f
	}
	if protocol != "" && !mcp.IsModernProtocolVersion(protocol) {
		fetch += " --protocol " + cmdutil.ShellQuote(protocol)
	}
	return fetch + " tasks result " + cmdutil.ShellQuote(id)
}

// Remember records a task that mcpi leaves running on the server sel selects, created
// in protocol version protocol, in store (nil: the default state file), with the session
// that created it and that mcpi left open on the server (nil: none; see
// [client.Session.Keep]), and returns the command that fetches its result: with no server
// flags when the task was recorded, else with them ([FetchCommand]). The error says why
// it could not be recorded; the command is good either way.
func Remember(store *Store, sel *connect.Selection, tool, protocol string, t mcp.Task, session *client.Resumption) (fetch string, err error) {
	srv := FromSelection(sel)
	// The command for a task that could not be recorded names the server: the store
	// that failed is not read again to find a record.
	withFlags := func() string { return fetchWithFlags(sel, protocol, t.TaskID) }
	if store == nil {
		if store, err = Default(); err != nil {
			return withFlags(), err
		}
	}
	// The ttl is counted on this machine's clock from now (the task was created at most
	// a round trip ago): the server's createdAt is on its own clock, and one running
	// behind would have the entry pruned at once.
	e := Entry{TaskID: t.TaskID, Tool: tool, Server: srv, Created: store.now(), TTL: t.TTL, Protocol: protocol, Session: keptSession(session)}
	if err := store.Add(e); err != nil {
		return withFlags(), err
	}
	return "mcpi tasks result " + cmdutil.ShellQuote(t.TaskID), nil
}
