package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
)

// Dialect is the task protocol a task was created in. One [Manager] and one record type
// hold the tasks of both; a task is reached only through the methods of its own dialect.
type Dialect uint8

// Dialects.
const (
	// DialectCore is the core Tasks of revision 2025-11-25 (params.task, tasks/result,
	// tasks/list, side-channel requests).
	DialectCore Dialect = iota
	// DialectExtension is the Tasks extension of revision 2026-07-28
	// (io.modelcontextprotocol/tasks): the receiver decides, tasks/get inlines the
	// outcome or the input requests, tasks/update answers them, tasks/cancel is an ack.
	DialectExtension
)

func (d Dialect) String() string {
	if d == DialectExtension {
		return "the Tasks extension of 2026-07-28"
	}
	return "the core tasks of 2025-11-25"
}

// otherDialect is the error of naming a task through the other dialect's methods.
func otherDialect(id string, has, asked Dialect) *jsonrpc.Error {
	era := func(d Dialect) string {
		if d == DialectExtension {
			return "2026-07-28"
		}
		return "2025-11-25"
	}
	return jsonrpc.Errorf(jsonrpc.CodeInvalidParams,
		"task %s was created by a %s request (%s) and cannot be reached from protocol %s",
		id, era(has), has, era(asked)).
		WithData(map[string]string{"taskId": id, "createdIn": era(has)})
}

// ErrTaskEnded is what [Handle.AskInput] returns when the task ends (cancelled,
// expired) while it waits.
var ErrTaskEnded = errors.New("tasks: the task ended while waiting for input")

// extState is what a task of [DialectExtension] keeps besides its status. Most tasks
// never ask for input, and the engine keeps up to MaxKept of them after they end, so
// its maps and channel are made when the first input is asked for (guarded by the
// manager's mu, as the rest).
type extState struct {
	// asked are the input requests outstanding now, by key.
	asked map[string]mcp.InputRequest
	// answers are the answers received, by key, kept for the task's life: a key is
	// never asked twice, and asking again for an answered key gets its answer.
	answers map[string]json.RawMessage
	// changed is closed and replaced when answers arrive; it is made with asked, so a
	// key waited for always has one.
	changed chan struct{}
}

// ask records q as outstanding under key k.
func (x *extState) ask(k string, q mcp.InputRequest) {
	if x.asked == nil {
		x.asked, x.changed = map[string]mcp.InputRequest{}, make(chan struct{})
	}
	x.asked[k] = q
}

// answer moves key k from the outstanding requests to the answers.
func (x *extState) answer(k string, a json.RawMessage) {
	delete(x.asked, k)
	if x.answers == nil {
		x.answers = map[string]json.RawMessage{}
	}
	x.answers[k] = a
}

var errNoChange = errors.New("tasks: no change")

// AskInput asks the requestor of a task of [DialectExtension] for the inputs in reqs
// and waits for all of their answers: the task is input_required, with every
// outstanding request in its inputRequests, until [Manager.Update] has answered them.
// A key answered before (in this call or an earlier one) is not asked again: its answer
// is returned. It returns early with ctx's error, or [ErrTaskEnded] when the task ends.
func (h *Handle) AskInput(ctx context.Context, reqs map[string]mcp.InputRequest) (map[string]json.RawMessage, error) {
	m, t := h.m, h.t
	if t.ext == nil {
		return nil, fmt.Errorf("tasks: task %s is of %s, which asks for input through side-channel requests", t.state.TaskID, t.dialect)
	}
	err := m.update(t, func(s *mcp.Task) error {
		added := false
		for k, q := range reqs {
			if _, ok := t.ext.answers[k]; ok {
				continue
			}
			if _, ok := t.ext.asked[k]; ok {
				continue
			}
			t.ext.ask(k, q)
			added = true
		}
		if !added {
			return errNoChange
		}
		s.Status = mcp.TaskStatusInputRequired
		s.StatusMessage = "waiting for input from the client"
		return nil
	}, nil)
	switch {
	case errors.Is(err, errNoChange):
	case errors.Is(err, ErrTerminal), errors.Is(err, ErrNotFound):
		return nil, ErrTaskEnded
	case err != nil:
		return nil, err
	}
	keys := slices.Sorted(maps.Keys(reqs))
	for {
		m.mu.Lock()
		out := make(map[string]json.RawMessage, len(keys))
		for _, k := range keys {
			if a, ok := t.ext.answers[k]; ok {
				out[k] = a
			}
		}
		changed := t.ext.changed
		m.mu.Unlock()
		if len(out) == len(keys) {
			return out, nil
		}
		select {
		case <-changed:
		case <-t.done:
			return nil, ErrTaskEnded
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// Detailed returns a task of [DialectExtension] as tasks/get reports it: its state and
// what its status inlines (the outstanding input requests, the result, or the error).
func (m *Manager) Detailed(owner, id string) (mcp.DetailedTask, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, err := m.lookupIn(DialectExtension, owner, id)
	if err != nil {
		return mcp.DetailedTask{}, err
	}
	return t.detailedLocked(), nil
}

// TryDetailed is [Manager.Detailed] for a caller that must not wait (a connection's
// reading goroutine): ok is false, and nothing is counted or logged, when another
// goroutine holds the manager or the lookup would fail (a miss, or the rate limit's
// refusal, is logged, which may wait for the log's writer); the caller then asks
// [Manager.Detailed].
func (m *Manager) TryDetailed(owner, id string) (_ mcp.DetailedTask, ok bool) {
	if !m.mu.TryLock() {
		return mcp.DetailedTask{}, false
	}
	defer m.mu.Unlock()
	t := m.quickLookupLocked(DialectExtension, owner, id)
	if t == nil {
		return mcp.DetailedTask{}, false
	}
	return t.detailedLocked(), true
}

// DetailedOf is [Manager.Detailed] without the owner check and the rate limit, for
// notifications about a task the manager announced; ok is false when the task is gone
// or not of [DialectExtension].
func (m *Manager) DetailedOf(id string) (_ mcp.DetailedTask, ok bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, found := m.tasks[id]
	if !found || t.gone || t.dialect != DialectExtension {
		return mcp.DetailedTask{}, false
	}
	return t.detailedLocked(), true
}

// WithDetail calls fn with task id as tasks/get would return it now, in order with the
// calls of [Options.OnDetail]: fn runs where they run, so no announcement of a change
// overtakes it or is overtaken by it. fn must not call the manager. It reports whether
// the task exists and is of [DialectExtension].
func (m *Manager) WithDetail(id string, fn func(mcp.DetailedTask)) bool {
	m.mu.Lock()
	t, ok := m.tasks[id]
	if !ok || t.gone || t.dialect != DialectExtension {
		m.mu.Unlock()
		return false
	}
	d := t.detailedLocked()
	m.notifyMu.Lock() // after mu, as update takes them
	m.mu.Unlock()
	defer m.notifyMu.Unlock()
	fn(d)
	return true
}

// IsExtension reports whether task id exists and is of [DialectExtension].
func (m *Manager) IsExtension(id string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, ok := m.tasks[id]
	return ok && !t.gone && t.dialect == DialectExtension
}

// ExtensionFor reports whether task id exists, is of [DialectExtension], and owner may
// reach it (see [Manager.DeferBound]). Unlike a lookup it neither counts against owner's
// rate limit nor logs a miss.
func (m *Manager) ExtensionFor(owner, id string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, ok := m.tasks[id]
	return ok && !t.gone && t.dialect == DialectExtension && (!t.bound || t.owner == owner)
}

func (t *task) detailedLocked() mcp.DetailedTask {
	d := mcp.DetailedTask{ExtTask: mcp.ExtTaskFrom(t.state)}
	switch t.state.Status {
	case mcp.TaskStatusInputRequired:
		if t.ext != nil {
			d.InputRequests = maps.Clone(t.ext.asked)
		}
	case mcp.TaskStatusCompleted:
		d.Result = t.outcome.Result
	case mcp.TaskStatusFailed:
		if e := t.outcome.Error; e != nil {
			d.Error = &mcp.ErrorObject{Code: int(e.Code), Message: e.Message, Data: e.Data}
		} else {
			msg := t.state.StatusMessage
			if msg == "" {
				msg = "the task failed"
			}
			d.Error = &mcp.ErrorObject{Code: int(jsonrpc.CodeInternalError), Message: msg}
		}
	}
	return d
}

// Update delivers answers to a task of [DialectExtension]: each response whose key is
// outstanding answers that request, and is gone from inputRequests when Update returns
// (read your writes); other keys (unknown, answered already) are ignored, and so is an
// update of a task that has ended. check, if not nil, may refuse an answer to an
// outstanding request; then nothing is applied and its error is returned. The task goes
// back to working once no request is outstanding.
//
// check runs without the manager's locks held: it may decode what the requestor sent,
// which can be large, and no other task's request is to wait for that. The answers are
// looked up by the outstanding keys (few, the work's), not the other way round.
func (m *Manager) Update(owner, id string, responses map[string]json.RawMessage, check func(key string, q mcp.InputRequest, answer json.RawMessage) error) error {
	m.mu.Lock()
	t, err := m.lookupIn(DialectExtension, owner, id)
	var answered map[string]mcp.InputRequest
	if err == nil {
		for k, q := range t.ext.asked {
			if _, ok := responses[k]; ok {
				if answered == nil {
					answered = map[string]mcp.InputRequest{}
				}
				answered[k] = q
			}
		}
	}
	m.mu.Unlock()
	if err != nil {
		return err
	}
	if len(answered) == 0 {
		return nil // nothing outstanding is answered: unknown, answered or ended
	}
	keys := slices.Sorted(maps.Keys(answered))
	if check != nil {
		for _, k := range keys {
			if err := check(k, answered[k], responses[k]); err != nil {
				return err
			}
		}
	}
	// A key stays outstanding until it is answered, and is never asked again: one still
	// outstanding now is the request that was checked.
	err = m.update(t, func(s *mcp.Task) error {
		var take []string
		for _, k := range keys {
			if _, ok := t.ext.asked[k]; ok {
				take = append(take, k)
			}
		}
		if len(take) == 0 {
			return errNoChange
		}
		for _, k := range take {
			t.ext.answer(k, responses[k])
		}
		if len(t.ext.asked) == 0 && s.Status == mcp.TaskStatusInputRequired {
			s.Status = mcp.TaskStatusWorking
			s.StatusMessage = ""
		}
		return nil
	}, func() {
		close(t.ext.changed)
		t.ext.changed = make(chan struct{})
	})
	if errors.Is(err, errNoChange) || errors.Is(err, ErrTerminal) {
		return nil
	}
	return err
}

// CancelExtension asks a task of [DialectExtension] to stop: it becomes cancelled and
// its work's context ends. Cancelling a task that has ended already is acknowledged all
// the same, as the extension wants; an unknown id is [ErrNotFound].
func (m *Manager) CancelExtension(owner, id string) error {
	_, err := m.cancelIn(DialectExtension, owner, id, "")
	if errors.Is(err, ErrTerminal) {
		return nil
	}
	return err
}
