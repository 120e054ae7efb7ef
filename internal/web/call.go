package web

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/internal/cut"
	"github.com/mcpi-dev/mcpi/internal/look"
	"github.com/mcpi-dev/mcpi/mcp"
)

// A plain call holds the page's request open until its result: while it runs, the page
// shows its progress and may stop it. The page names the call, since the request that
// would tell it a name is the one still open.

// progressEvery is the least time between two progress events of one call: a server may
// send thousands a second, and a person reads a few.
const progressEvery = 50 * time.Millisecond

// maxCallName bounds the page's name for a call.
const maxCallName = 64

// plainCall is a call the page waits on.
type plainCall struct {
	name string // the page's
	stop context.CancelCauseFunc

	// Guarded by conn.mu.
	latest  *mcp.ProgressNotificationParams
	sent    time.Time // when the last progress event went out
	due     bool      // one is scheduled
	ended   bool
	stopped bool // by the page
}

// progressEvent is what the page gets of a plain call's progress.
type progressEvent struct {
	Call     string   `json:"call"`
	Progress float64  `json:"progress"`
	Total    *float64 `json:"total,omitempty"`
	Message  string   `json:"message,omitempty"`
}

// errStopped is a plain call's error when the page stopped it.
var errStopped = errors.New("cancelled: the server was told to stop the call (notifications/cancelled)")

// startCall registers the plain call named name (if the page named it) under token and
// returns the context to make it in, and end, to call once it has returned (it maps
// the error of a call the page stopped to errStopped).
func (c *conn) startCall(ctx context.Context, sess *client.Session, name string, token any) (context.Context, func(error) error, error) {
	if name == "" {
		return ctx, func(err error) error { return err }, nil
	}
	if len(name) > maxCallName || !utf8.ValidString(name) {
		return nil, nil, bad("a call's name is a string of at most %d bytes", maxCallName)
	}
	ctx, stop := context.WithCancelCause(ctx)
	pc := &plainCall{name: name, stop: stop}
	key := callKey(sess, token)
	c.mu.Lock()
	for _, o := range c.calls {
		if o.name == name {
			c.mu.Unlock()
			stop(nil)
			return nil, nil, bad("a call named %q is running already", look.Safe(name))
		}
	}
	c.calls[key] = pc
	c.mu.Unlock()
	var once sync.Once
	end := func(err error) error {
		once.Do(func() {
			c.mu.Lock()
			delete(c.calls, key)
			pc.ended = true
			c.mu.Unlock()
			stop(nil)
		})
		c.mu.Lock()
		stopped := pc.stopped
		c.mu.Unlock()
		if err != nil && stopped && errors.Is(err, context.Canceled) {
			return errStopped
		}
		return err
	}
	return ctx, end, nil
}

// stopCall stops the plain call the page named name.
func (c *conn) stopCall(name string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, pc := range c.calls {
		if pc.name == name {
			pc.stopped = true
			pc.stop(client.ErrCancelledByUser) // what the server is told (notifications/cancelled)
			return nil
		}
	}
	return bad("no call %q is running: it has ended", look.Safe(name))
}

// callKey names a plain call by its session and progress token: a session that replaces
// another (a reconnection) may hand out the same tokens while the old one's calls end.
func callKey(sess *client.Session, token any) string { return fmt.Sprintf("%p %v", sess, token) }

// progress passes a plain call's progress to the page: at once if none went out within
// progressEvery, else the latest at the end of it.
func (c *conn) progress(sess *client.Session, e *mcp.ProgressNotificationParams) {
	key := callKey(sess, e.ProgressToken)
	c.mu.Lock()
	defer c.mu.Unlock()
	pc := c.calls[key]
	if pc == nil {
		return
	}
	p := *e
	pc.latest = &p
	if pc.due {
		return
	}
	if wait := progressEvery - time.Since(pc.sent); wait > 0 {
		pc.due = true
		time.AfterFunc(wait, func() {
			c.mu.Lock()
			defer c.mu.Unlock()
			pc.due = false
			c.sendProgress(pc)
		})
		return
	}
	c.sendProgress(pc)
}

// sendProgress publishes pc's latest progress; c.mu is held.
func (c *conn) sendProgress(pc *plainCall) {
	if pc.ended || pc.latest == nil {
		return
	}
	p := pc.latest
	pc.latest, pc.sent = nil, time.Now()
	c.s.hub.publish(event{Type: evProgress, Conn: c.id, Data: progressEvent{Call: pc.name, Progress: p.Progress, Total: p.Total, Message: cut.Bytes(p.Message, maxRowText)}})
}
