package watch

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/mcpi-dev/mcpi/internal/cli/cmdutil"
	"github.com/mcpi-dev/mcpi/internal/cli/state"
	"github.com/mcpi-dev/mcpi/internal/look"
	"github.com/mcpi-dev/mcpi/internal/plural"
)

// MaxSessions bounds the sessions of their own that "tasks watch" without an id takes
// up to follow the tasks mcpi recorded with them: each is a connection held open as long
// as the watch. The newest sessions are taken up, and the tasks of the others counted on
// stderr.
const MaxSessions = 8

// recordedSession is a session that tasks were recorded with, taken up to follow them.
type recordedSession struct {
	sess    *cmdutil.Session
	entries []state.Entry
}

// notFollowed counts the tasks recorded with sessions of their own that the watch does
// not follow, by why.
type notFollowed struct {
	// Skipped are those of the sessions past [MaxSessions]; Failed those whose session
	// could not be taken up, or whose tasks/get failed (Err is the first error); Gone
	// those the server no longer knows, which the state file forgot.
	Skipped, SkippedSessions, Failed, Gone int
	Err                                    error
}

// report says on w what n counts, one sentence each.
func (n *notFollowed) report(w io.Writer) {
	if n.Skipped > 0 {
		fmt.Fprintf(w, "%s mcpi recorded for this server in %s of their own %s not followed, as a watch takes up at most %d sessions: \"mcpi tasks watch ID\" follows one through its session (\"mcpi tasks list --local\" lists %s).\n",
			plural.Count(n.Skipped, "task", "tasks"), plural.Count(n.SkippedSessions, "more session", "more sessions"), plural.Word(n.Skipped, "is", "are"), MaxSessions, plural.Word(n.Skipped, "it", "them"))
	}
	if n.Failed > 0 {
		why, _ := cmdutil.Describe(n.Err)
		why = strings.TrimSuffix(strings.TrimPrefix(why, "mcpi: "), ".")
		fmt.Fprintf(w, "%s mcpi recorded for this server in sessions of their own could not be followed (%s): \"mcpi tasks watch ID\" follows one through its session (\"mcpi tasks list --local\" lists %s).\n",
			plural.Count(n.Failed, "task", "tasks"), look.Safe(why), plural.Word(n.Failed, "it", "them"))
	}
	if n.Gone > 0 {
		fmt.Fprintf(w, "%s mcpi recorded for this server in sessions of their own the server no longer knows (%s expired, or the server ended %s session): forgotten.\n",
			plural.Count(n.Gone, "task", "tasks"), plural.Word(n.Gone, "it", "they"), plural.Word(n.Gone, "its", "their"))
	}
}

// takeUp takes up the sessions (the newest [MaxSessions]) that mcpi recorded tasks of
// this 2025-11-25 server with: a server may bind a task to its session (the TypeScript
// SDK's), and then lists and reaches it only there. Each session answers the server's
// requests as policy says, for the tool of its tasks. The tasks of a session the server has ended go to cs, a new
// session, which reaches them on a server that lets a session take a task over (and
// finds them gone on others). It returns the sessions, cs's share first, and counts what
// it skipped or could not take up in nf; it stops early when ctx ends.
func takeUp(ctx context.Context, opts *Options, cs *cmdutil.Session, policy cmdutil.RequestPolicy, nf *notFollowed) []*recordedSession {
	var order []string
	bySession := map[string]*recordedSession{}
	for _, e := range opts.InOtherSessions(cs.ProtocolVersion()) {
		g := bySession[e.Session.SessionID]
		if g == nil {
			g = &recordedSession{}
			bySession[e.Session.SessionID] = g
			order = append(order, e.Session.SessionID)
		}
		g.entries = append(g.entries, e)
	}
	if len(order) > MaxSessions {
		// The state file lists the newest last.
		for _, id := range order[:len(order)-MaxSessions] {
			nf.Skipped += len(bySession[id].entries)
			nf.SkippedSessions++
		}
		order = order[len(order)-MaxSessions:]
	}
	own := &recordedSession{sess: cs}
	taken := []*recordedSession{own}
	for _, id := range order {
		g := bySession[id]
		if ctx.Err() != nil {
			break
		}
		// The answers file is looked up by the tool of the session's tasks, as for
		// "tasks watch ID", when they share one.
		p := policy
		p.Tool = g.entries[0].Tool
		for _, e := range g.entries {
			if e.Tool != p.Tool {
				p.Tool = ""
			}
		}
		// Connect reads the selection when it is called, once per session.
		opts.Selection.Resume = g.entries[0].Session
		sess, err := opts.Connect(ctx, p)
		opts.Selection.Resume = nil
		switch {
		case err != nil:
			nf.Failed += len(g.entries)
			if nf.Err == nil {
				nf.Err = err
			}
		case sess.SessionEnded:
			// As [shared.Options.Open] does for one task: the records lose the session,
			// and later commands begin a new one.
			sess.Close()
			if store, err := opts.Store(); err == nil {
				for _, e := range g.entries {
					_ = store.SetSession(e.TaskID, nil) // at worst the next command finds it ended too
				}
			}
			own.entries = append(own.entries, g.entries...)
		default:
			g.sess = sess
			taken = append(taken, g)
		}
	}
	return taken
}
