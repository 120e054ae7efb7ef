package shared

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/mcpi-dev/mcpi/internal/cli/cmdutil"
	"github.com/mcpi-dev/mcpi/internal/cli/state"
	"github.com/mcpi-dev/mcpi/internal/look"
	"github.com/mcpi-dev/mcpi/internal/plural"
	"github.com/mcpi-dev/mcpi/mcp"
)

// MaxRecordedGets bounds the tasks/get of [Options.RecordedTasks]: the most recent tasks
// recorded are asked for, and the others counted.
const MaxRecordedGets = 200

// Recorded is what stands for tasks/list in protocol 2026-07-28, whose Tasks extension
// has none: the tasks the state file records for the selected server, as the server has
// them now, and what was left out.
type Recorded struct {
	Tasks []mcp.Task
	// OtherEra counts the recorded tasks created in protocol Other (2025-11-25), which
	// cannot be reached in this one; Older those beyond [MaxRecordedGets], not asked for;
	// Gone those the server no longer knows, which the state file forgot.
	OtherEra, Older, Gone int
	Other                 string
}

// Report counts on w what r left out, one sentence each.
func (r *Recorded) Report(w io.Writer) {
	if r.OtherEra > 0 {
		fmt.Fprintf(w, "%s recorded for it %s created in protocol %s and can be reached only in it: \"mcpi tasks list --local\" lists %s, and \"mcpi tasks result ID\" fetches one.\n",
			count(r.OtherEra, "more task", "more tasks"), was(r.OtherEra), look.Safe(r.Other), them(r.OtherEra))
	}
	if r.Older > 0 {
		fmt.Fprintf(w, "%s recorded for it %s not asked for (\"mcpi tasks list --local\" lists %s).\n",
			count(r.Older, "older task", "older tasks"), is(r.Older), them(r.Older))
	}
	if r.Gone > 0 {
		fmt.Fprintf(w, "%s recorded for it the server no longer knows (%s expired, or the server restarted): forgotten.\n",
			count(r.Gone, "task", "tasks"), pronoun(r.Gone))
	}
}

func count(n int, one, many string) string { return plural.Count(n, one, many) }

func was(n int) string { return pick(n, "was", "were") }
func is(n int) string  { return pick(n, "is", "are") }

func them(n int) string    { return pick(n, "it", "them") }
func pronoun(n int) string { return pick(n, "it", "they") }

func pick(n int, one, many string) string { return plural.Word(n, one, many) }

// RecordedTasks returns the tasks the state file records for the selected server, each
// as the server has it now (tasks/get, a few at a time, the newest [MaxRecordedGets]),
// for protocol 2026-07-28, whose Tasks extension has no tasks/list. A task the server no
// longer knows is forgotten, and one created in 2025-11-25, which cannot be reached in
// this protocol, is left out; both are counted.
func (o *Options) RecordedTasks(ctx context.Context, sess *cmdutil.Session) (*Recorded, error) {
	store, err := o.Store()
	if err != nil {
		return nil, err
	}
	all, err := store.Load()
	if err != nil {
		return nil, err
	}
	r := &Recorded{}
	server := state.FromSelection(o.Selection)
	var ids []string
	for _, e := range all {
		switch {
		case !e.Server.Same(server):
		case !e.Reachable(sess.ProtocolVersion()):
			r.OtherEra++
			r.Other = e.Protocol
		default:
			ids = append(ids, e.TaskID)
		}
	}
	if len(ids) > MaxRecordedGets {
		r.Older = len(ids) - MaxRecordedGets
		ids = ids[len(ids)-MaxRecordedGets:]
	}
	type got struct {
		task mcp.Task
		err  error
	}
	results := make([]got, len(ids))
	sem := make(chan struct{}, 8)
	var wg sync.WaitGroup
	for i, id := range ids {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			d, err := sess.TaskDetail(ctx, id)
			if err == nil {
				results[i].task = d.ToTask()
			}
			results[i].err = err
		})
	}
	wg.Wait()
	for i, res := range results {
		if res.err == nil {
			r.Tasks = append(r.Tasks, res.task)
			continue
		}
		var te *cmdutil.TaskError
		switch err := o.TaskErr(res.err, ids[i]); {
		case errors.As(err, &te) && te.Reason == cmdutil.TaskUnknown:
			if store.Forget(ids[i]) == nil {
				r.Gone++
			}
		case errors.As(err, &te) && te.Reason == cmdutil.TaskOtherEra:
			// Recorded before records kept their protocol: reachable in the other only.
		default:
			return nil, err
		}
	}
	return r, nil
}

// InOtherSessions returns the tasks the state file records for the selected server in
// protocol version (2025-11-25) with a session of their own, oldest first: a new
// session's tasks/list does not show them, as a server that binds tasks to their
// session (the TypeScript SDK's) lists those of the asking session only, and each is
// reached through its own. It is empty when the state file cannot be read: the tasks
// are only a hint, and every command on one task reads the file itself.
func (o *Options) InOtherSessions(version string) []state.Entry {
	store, err := o.Store()
	if err != nil {
		return nil
	}
	all, err := store.Load()
	if err != nil {
		return nil
	}
	server := state.FromSelection(o.Selection)
	var in []state.Entry
	for _, e := range all {
		if e.Session != nil && e.Server.Same(server) && e.Reachable(version) {
			in = append(in, e)
		}
	}
	return in
}

// ReportUnlisted says on w how many tasks of [Options.InOtherSessions] a listing of
// "tasks list" did not show, when there are any, and which commands show them.
func ReportUnlisted(w io.Writer, n int) {
	if n > 0 {
		fmt.Fprintf(w, "%s mcpi recorded for this server %s left in sessions of their own, which this session's tasks/list does not show: \"mcpi tasks list --local\" lists %s, and \"mcpi tasks watch\" follows %s through %s.\n",
			count(n, "task", "tasks"), was(n), them(n), them(n), pick(n, "its session", "their sessions"))
	}
}
