package tasks

import (
	"context"
	"fmt"
	"slices"
	"sync/atomic"

	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
)

// Handle lets a task's work report its status, and end it.
type Handle struct {
	m        *Manager
	t        *task
	ctx      context.Context // the work's (see task.cancel)
	release  context.CancelFunc
	finished atomic.Bool
	stopped  atomic.Bool // a deferred task's stop was called
}

// Finish ends the task's work with out: the task becomes completed or failed, unless it
// already ended (cancelled, expired), in which case out is dropped. Only the first call
// counts. A task made by [Manager.Create] is finished with what its RunFunc returns.
func (h *Handle) Finish(out Outcome) {
	if !h.finished.CompareAndSwap(false, true) {
		return
	}
	h.m.finish(h.t, out)
	h.release()
	h.m.mu.Lock()
	delete(h.m.unfinished, h.t)
	h.m.mu.Unlock()
	h.m.running.Done()
}

// ID is the task's id.
func (h *Handle) ID() string { return h.t.state.TaskID }

// Created returns the task as it was created, in status working: what the
// CreateTaskResult reports.
func (h *Handle) Created() mcp.Task {
	// Built from the fields that never change, which needs no lock; the others had
	// these values at creation.
	s := &h.t.state
	return mcp.Task{
		TaskID:        s.TaskID,
		Status:        mcp.TaskStatusWorking,
		CreatedAt:     s.CreatedAt,
		LastUpdatedAt: s.CreatedAt,
		TTL:           s.TTL,
		PollInterval:  s.PollInterval,
	}
}

// State returns the task as it is now: what a CreateTaskResult reports of work that
// ended before it was written (a task already completed or failed).
func (h *Handle) State() mcp.Task {
	h.m.mu.Lock()
	defer h.m.mu.Unlock()
	return h.t.state
}

// TryState is [Handle.State] for a caller that must not wait (a connection's reading
// goroutine): ok is false when another goroutine holds the manager.
func (h *Handle) TryState() (_ mcp.Task, ok bool) {
	if !h.m.mu.TryLock() {
		return mcp.Task{}, false
	}
	defer h.m.mu.Unlock()
	return h.t.state, true
}

// Context returns the task's context: it ends when the task is cancelled or expires, its
// owner is dropped, the manager closes, or at [Handle.Finish].
func (h *Handle) Context() context.Context { return h.ctx }

// SetStatus moves the task to input_required or back to working, with a message. It
// fails once the task has ended (cancelled, for instance), which the work should take as
// a sign to stop.
//
// A task of [DialectExtension] is input_required exactly while it has input requests
// outstanding, which tasks/get must then show: [Handle.AskInput] sets that status and
// the answers clear it. SetStatus refuses input_required for such a task, and working
// while requests are outstanding; it may still set the message of the status it has.
func (h *Handle) SetStatus(status mcp.TaskStatus, message string) error {
	if status.IsTerminal() {
		return fmt.Errorf("tasks: a task's work ends it by returning, not with status %q", status)
	}
	return h.m.update(h.t, func(s *mcp.Task) error {
		if x := h.t.ext; x != nil && status != s.Status {
			if status == mcp.TaskStatusInputRequired {
				return fmt.Errorf("tasks: task %s is of %s: it is input_required only while it asks for input (Handle.AskInput)", s.TaskID, h.t.dialect)
			}
			if len(x.asked) > 0 {
				return fmt.Errorf("tasks: task %s has input requests outstanding: it stays input_required until they are answered", s.TaskID)
			}
		}
		if !mcp.ValidTransition(s.Status, status) {
			return fmt.Errorf("tasks: task %s cannot go from %s to %s", s.TaskID, s.Status, status)
		}
		s.Status = status
		s.StatusMessage = message
		return nil
	}, nil)
}

// RelatedRequest returns the id of the newest tasks/result request waiting on this task,
// so requests the work sends to the requestor can travel on that response stream.
func (h *Handle) RelatedRequest() (jsonrpc.ID, bool) {
	h.m.wmu.Lock()
	defer h.m.wmu.Unlock()
	if n := len(h.t.resultWaiters); n > 0 {
		return h.t.resultWaiters[n-1].id, true
	}
	return jsonrpc.ID{}, false
}

// AwaitNextRequestor waits until a tasks/result request starts waiting on the task
// after the call, and returns its id (or the newest one's): the ones already waiting do
// not count, as the requestor of one may have gone away. It gives up when ctx ends or the
// task ends.
func (h *Handle) AwaitNextRequestor(ctx context.Context) (jsonrpc.ID, bool) {
	h.m.wmu.Lock()
	added := h.waiterAddedLocked()
	h.m.wmu.Unlock()
	if !h.await(ctx, added) {
		return jsonrpc.ID{}, false
	}
	return h.RelatedRequest()
}

// waiterAddedLocked returns the channel closed when the next tasks/result starts
// waiting; h.m.wmu is held.
func (h *Handle) waiterAddedLocked() <-chan struct{} {
	if h.t.waiterAdded == nil {
		h.t.waiterAdded = make(chan struct{})
	}
	return h.t.waiterAdded
}

// await waits for ch to close, and reports false when the task or ctx ends first.
func (h *Handle) await(ctx context.Context, ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	case <-h.t.done:
		return false
	case <-ctx.Done():
		return false
	}
}

// AwaitRequestor waits until a tasks/result request is waiting on the task and returns
// its id: the input_required flow asks the requestor to call tasks/result and expects the
// receiver's own requests on that response. It gives up when ctx ends or the task ends.
func (h *Handle) AwaitRequestor(ctx context.Context) (jsonrpc.ID, bool) {
	for {
		h.m.wmu.Lock()
		if n := len(h.t.resultWaiters); n > 0 {
			id := h.t.resultWaiters[n-1].id
			h.m.wmu.Unlock()
			return id, true
		}
		added := h.waiterAddedLocked()
		h.m.wmu.Unlock()
		if !h.await(ctx, added) {
			return jsonrpc.ID{}, false
		}
	}
}

// AwaitRequestorOf waits until a tasks/result request is waiting on the task from an
// owner that accept reports true for, and returns the newest such request's id and its
// owner. Unlike [Handle.AwaitNextRequestor] it takes a request that began waiting before
// the call. It gives up when ctx ends or the task ends.
func (h *Handle) AwaitRequestorOf(ctx context.Context, accept func(owner string) bool) (id jsonrpc.ID, owner string, ok bool) {
	for {
		h.m.wmu.Lock()
		// Taken with the snapshot, so that a request that starts waiting while
		// accept runs is not missed.
		added := h.waiterAddedLocked()
		waiters := slices.Clone(h.t.resultWaiters)
		h.m.wmu.Unlock()
		for _, w := range slices.Backward(waiters) {
			if accept(w.owner) {
				return w.id, w.owner, true
			}
		}
		if !h.await(ctx, added) {
			return jsonrpc.ID{}, "", false
		}
	}
}

// WhileRunning runs fn unless the task has ended, in order with the task's changes: a
// message fn sends goes out before the announcement of the task's end, never after it.
// fn must not change the task. It reports whether fn ran.
func (h *Handle) WhileRunning(fn func()) bool {
	h.t.tellMu.Lock()
	defer h.t.tellMu.Unlock()
	h.m.mu.Lock()
	ended := h.t.gone || h.t.state.Status.IsTerminal()
	h.m.mu.Unlock()
	if ended {
		return false
	}
	fn()
	return true
}

// Commit runs fn unless the task has ended, and from then on the task ends with its
// work's outcome, not cancelled: fn is for a side effect that cannot be undone (a file
// written, a payment made), which a task reported cancelled must not have had. A
// cancel that comes during fn or after it waits for the work to finish and is answered
// as for an ended task ([ErrTerminal]; the extension acknowledges it). So the work
// should return soon after Commit. It reports whether fn ran; false means the task
// ended first (cancelled, expired), and the work should stop without the side effect.
func (h *Handle) Commit(fn func()) bool {
	h.t.tellMu.Lock()
	defer h.t.tellMu.Unlock()
	h.m.mu.Lock()
	ended := h.t.gone || h.t.state.Status.IsTerminal()
	if !ended {
		h.t.committed = true
	}
	h.m.mu.Unlock()
	if ended {
		return false
	}
	fn()
	return true
}
