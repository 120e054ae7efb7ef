// Package shared holds what the "mcpi tasks" commands share: finding a task's server
// (the flags given, else the local state file's record of the task), and the errors of
// task requests turned into sentences.
package shared

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/internal/cli/cmdutil"
	"github.com/mcpi-dev/mcpi/internal/cli/connect"
	"github.com/mcpi-dev/mcpi/internal/cli/iostreams"
	"github.com/mcpi-dev/mcpi/internal/cli/state"
	"github.com/mcpi-dev/mcpi/internal/look"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
)

// Options are the inputs every "tasks" command that talks to a server has.
type Options struct {
	IO      *iostreams.IOStreams
	Connect cmdutil.ConnectFunc
	// Selection is the server the flags selected, which Connect reads when it is called:
	// a command on one task with no server flags fills it in from the state file. Nil
	// means the embedded demo server, with no lookup in the state file.
	Selection *connect.Selection
	// State is the local state file; nil means the default one.
	State *state.Store
	JSON  bool

	// recorded is the state file's entry of the task, once Resolve has found it and the
	// selected server is the one it records.
	recorded *state.Entry
	// sessionEnded is set by Open when the server had ended the recorded session.
	sessionEnded bool
	// sess is the session Open opened.
	sess *cmdutil.Session
}

// NewOptions returns the options of a command built from f.
func NewOptions(f *cmdutil.Factory, sel *connect.Selection) Options {
	return Options{IO: f.IOStreams, Connect: f.Connect, Selection: sel}
}

// Embedded reports whether the selected server is the embedded demo server.
func (o *Options) Embedded() bool { return o.Selection == nil || !o.Selection.IsSet() }

// Store returns the state file.
func (o *Options) Store() (*state.Store, error) {
	if o.State != nil {
		return o.State, nil
	}
	return state.Default()
}

// Resolve finds the server of task id: with server flags given, those (and the state
// file only for the task's tool); without, the server the state file recorded for id,
// which fills in the selection. A task recorded on the selected server is reached in the
// protocol version it was created in, unless --protocol names one, and through the
// session it was created in when mcpi left that open. found is false when the state file
// does not know id.
func (o *Options) Resolve(id string) (entry state.Entry, found bool, err error) {
	store, err := o.Store()
	if err != nil {
		if o.Embedded() {
			return state.Entry{}, false, err
		}
		return state.Entry{}, false, nil
	}
	entry, found, err = store.Find(id)
	if err != nil {
		if o.Embedded() {
			return state.Entry{}, false, err
		}
		return state.Entry{}, false, nil // the flags say where to go; the file is not needed
	}
	if found && o.Embedded() && o.Selection != nil {
		entry.Server.Apply(o.Selection) // Connect reads the selection when it is called
	}
	if found && o.Selection != nil && state.FromSelection(o.Selection).Same(entry.Server) {
		o.recorded = &entry
		// The task is reached in the protocol it was created in, unless --protocol says
		// otherwise: auto would pick 2026-07-28 with a server that speaks both.
		entry.ApplyProtocol(o.Selection)
		// Some servers bind a task to the session that created it.
		o.Selection.Resume = entry.Session
	}
	return entry, found, nil
}

// Open connects as o.Connect does, taking up the task's recorded session (see Resolve).
// When the server has ended that session, the record loses it: a new session was begun,
// and later commands begin one too.
func (o *Options) Open(ctx context.Context, requests cmdutil.RequestPolicy) (*cmdutil.Session, error) {
	sess, err := o.Connect(ctx, requests)
	if err != nil {
		return nil, err
	}
	o.sess = sess
	if sess.SessionEnded && o.recorded != nil {
		o.sessionEnded = true
		if store, err := o.Store(); err == nil {
			_ = store.SetSession(o.recorded.TaskID, nil) // at worst the next command finds it ended too
		}
	}
	return sess, nil
}

// TaskErr turns the error of tasks/get or tasks/cancel of id into the sentence the user
// sees: -32602 means the server has no such task, unless it refused a cancel of a task
// that tasks/get could not say was unknown ([client.CancelRefusedError]), whose record
// stays.
func (o *Options) TaskErr(err error, id string) error {
	if e := otherEra(err, id); e != nil {
		return e
	}
	var refused *client.CancelRefusedError
	if errors.As(err, &refused) {
		return err
	}
	if errors.Is(err, jsonrpc.ErrInvalidParams) {
		return o.unknown(id)
	}
	return o.OutcomeErr(err, id)
}

// otherEra is the error of a task the server has in the other protocol era: its -32602
// names the era in data.createdIn. The task is alive, so its record stays.
func otherEra(err error, id string) error {
	var rpc *jsonrpc.Error
	if !errors.As(err, &rpc) || rpc.Code != jsonrpc.CodeInvalidParams || len(rpc.Data) == 0 {
		return nil
	}
	var data struct{ TaskID, CreatedIn string }
	if json.Unmarshal(rpc.Data, &data) != nil || data.TaskID != id || !(mcp.IsModernProtocolVersion(data.CreatedIn) || data.CreatedIn == mcp.LatestProtocolVersion) {
		return nil
	}
	asked := mcp.LatestProtocolVersion
	if data.CreatedIn == asked {
		asked = mcp.ProtocolVersion20260728
	}
	return &cmdutil.TaskError{ID: id, Reason: cmdutil.TaskOtherEra, Era: data.CreatedIn, Asked: asked}
}

// OutcomeErr turns the outcome error of task id, as [client.Session.TaskResult] gives
// it, into what the user sees: a task the server does not know is said so (with a hint
// for the embedded demo server); a cancelled task and the task's own error stay as they
// are.
func (o *Options) OutcomeErr(err error, id string) error {
	if e := otherEra(err, id); e != nil {
		return e
	}
	if errors.Is(err, client.ErrTaskGone) {
		return o.unknown(id)
	}
	return err
}

// unknown is the error of a task id the server does not know. A task the state file
// records on that server can never be reached again (its ttl has not run out, or the
// file would have dropped it: the server restarted, or lost it otherwise, or it bound
// the task to a session that has ended), so its entry is removed, and the error says so.
func (o *Options) unknown(id string) error {
	e := &cmdutil.TaskError{ID: id, Reason: cmdutil.TaskUnknown, Embedded: o.Embedded()}
	if o.recorded == nil || o.recorded.TaskID != id {
		return e
	}
	if r := o.recorded; r.Protocol != "" && o.Selection != nil {
		// A server may answer as for an unknown id when asked from the other era (mcpi's
		// own does for a 2025-11-25 task, which is its session's): the task may live
		// on, so its record stays.
		if asked := o.Selection.Protocol; asked != "" && asked != client.ProtocolAuto && mcp.IsModernProtocolVersion(asked) != mcp.IsModernProtocolVersion(r.Protocol) {
			return &cmdutil.TaskError{ID: id, Reason: cmdutil.TaskOtherEra, Era: r.Protocol, Asked: asked}
		}
	}
	e.Recorded = true
	switch r := o.recorded; {
	case o.sessionEnded:
		e.Session = cmdutil.SessionEnded
	case r.Session == nil && r.Server.URL != "" && !mcp.IsModernProtocolVersion(r.Protocol):
		// Recorded without its session (by an older mcpi, or from a server that gave no
		// session id): the session may have held it.
		e.Session = cmdutil.SessionUnknown
	}
	if store, err := o.Store(); err == nil && store.Forget(id) == nil {
		e.Forgotten = true
		if o.sess != nil && !o.sessionEnded {
			o.ReleaseSession(o.sess, o.recorded.Session)
		}
	}
	return e
}

// ForgetGone removes from the state file the record of task id, which the server said
// it no longer knows while sess followed it (for a command on several tasks, which has
// no one task resolved), and has sess end on the server as it closes when it took up
// the session kept with the record and no other record names it, as [Options.unknown]
// does for one task. A record of another server, or of the other protocol era (whose
// server may answer as for an unknown id from this one), stays. It reports whether the
// record was removed.
func (o *Options) ForgetGone(sess *cmdutil.Session, id string) bool {
	store, err := o.Store()
	if err != nil {
		return false
	}
	e, found, err := store.Find(id)
	if err != nil || !found || !e.Server.Same(state.FromSelection(o.Selection)) || !e.Reachable(sess.ProtocolVersion()) {
		return false
	}
	if store.Forget(id) != nil {
		return false
	}
	o.ReleaseSession(sess, e.Session)
	return true
}

// ReleaseSession has sess, which took up the session kept (recorded with a task the
// state file has just forgotten), end on the server as it closes when no record names
// that session any more: no command would take it up again, and the server would hold
// it, and what it binds to it, until its idle timeout. A session another record names
// stays open for that task; so does one whose records cannot be read.
func (o *Options) ReleaseSession(sess *cmdutil.Session, kept *client.Resumption) {
	if !sess.Resumed || kept == nil {
		return
	}
	store, err := o.Store()
	if err != nil {
		return
	}
	all, err := store.Load()
	if err != nil {
		return
	}
	server := state.FromSelection(o.Selection)
	for _, e := range all {
		if e.Session != nil && e.Session.SessionID == kept.SessionID && e.Server.Same(server) {
			return
		}
	}
	sess.EndOnClose()
}

// NeedList refuses tasks/list with a server that declares no tasks.list.
func NeedList(sess *client.Session) error {
	if sess.Modern() {
		return cmdutil.UsageErrorf("the server speaks protocol %s, whose Tasks extension has no tasks/list: name a task by its id", look.Safe(sess.ProtocolVersion()))
	}
	if !sess.ServerCapabilities().Tasks.SupportsList() {
		return cmdutil.UsageErrorf("the server does not list tasks (it declares no tasks.list capability)")
	}
	return nil
}

// NeedCancel refuses tasks/cancel with a server that declares no tasks.cancel.
// In 2026-07-28 every server of the Tasks extension takes tasks/cancel.
func NeedCancel(sess *client.Session) error {
	if sess.Modern() {
		if _, ok := sess.ServerCapabilities().Extensions[mcp.ExtensionTasks]; !ok {
			return cmdutil.UsageErrorf("the server has no tasks (it declares no %s extension)", mcp.ExtensionTasks)
		}
		return nil
	}
	if !sess.ServerCapabilities().Tasks.SupportsCancel() {
		return cmdutil.UsageErrorf("the server does not cancel tasks (it declares no tasks.cancel capability)")
	}
	return nil
}

// Created renders a task's createdAt in local time ("2006-01-02 15:04:05"), or as it is
// when it cannot be parsed.
func Created(s string) string {
	t, err := mcp.ParseTime(s)
	if err != nil {
		return cmdutil.OrDash(s)
	}
	return t.Local().Format("2006-01-02 15:04:05")
}

// Age renders how long ago s (a task timestamp) was, relative to now.
func Age(s string, now time.Time) string {
	t, err := mcp.ParseTime(s)
	if err != nil {
		return ""
	}
	return look.Duration(now.Sub(t).Round(100*time.Millisecond)) + " ago"
}

// StatusText is "✓ completed".
func StatusText(st mcp.TaskStatus) string { return look.Status(st) }

// PrintTask writes a task's fields for people, one per line, with what the state file
// knows of it. The values are the server's, shown as [look.Safe] shows them.
func PrintTask(w io.Writer, t mcp.Task, entry *state.Entry, now time.Time) {
	row := func(k, v string) {
		if v != "" {
			fmt.Fprintf(w, "%-9s %s\n", k+":", look.Safe(v))
		}
	}
	row("ID", t.TaskID)
	row("Status", StatusText(t.Status))
	row("Message", t.StatusMessage)
	if entry != nil {
		row("Tool", entry.Tool)
		row("Server", entry.Server.String())
	}
	created := Created(t.CreatedAt)
	if age := Age(t.CreatedAt, now); age != "" {
		created += " (" + age + ")"
	}
	row("Created", created)
	updated := Created(t.LastUpdatedAt)
	if age := Age(t.LastUpdatedAt, now); age != "" {
		updated += " (" + age + ")"
	}
	row("Updated", updated)
	ttl := look.TTL(t.TTL)
	if at, ok := t.ExpiresAt(); ok {
		if at.After(now) {
			ttl += fmt.Sprintf(" (expires in %s)", look.Duration(at.Sub(now).Round(time.Second)))
		} else {
			ttl += " (expired)"
		}
	}
	row("TTL", ttl)
	if t.PollInterval != nil {
		row("Poll", look.Duration(mcp.Milliseconds(*t.PollInterval)))
	}
}

// CheckOutput checks res, the result of a task of tool, against the tool's output
// schema, as "tools call" checks the result of a call: it returns the
// [*cmdutil.OutputSchemaError] of a result that does not fit, or nil. The tool is
// found by its name in the server's tools/list (bounded as every listing is), which is
// asked only for a result that is not a tool error (a tool error need not fit) and a
// task whose tool is known (the state file records it): with no tool name there is
// nothing to check against. When the tool cannot be found, a line on stderr says the
// result was not checked, and the outcome stands.
func (o *Options) CheckOutput(ctx context.Context, sess *cmdutil.Session, tool string, res *mcp.CallToolResult) error {
	if tool == "" || res == nil || res.IsError {
		return nil
	}
	t, err := sess.Tool(ctx, tool)
	if err != nil {
		fmt.Fprintln(o.IO.ErrOut, look.Safe(fmt.Sprintf("mcpi did not check the result against the output schema of the tool %q: %s.", tool, look.Sentence(err))))
		return nil
	}
	var out *client.OutputError
	if errors.As(client.ValidateStructuredContent(t, res), &out) {
		return &cmdutil.OutputSchemaError{Tool: tool, Err: out}
	}
	return nil
}
