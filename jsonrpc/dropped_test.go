package jsonrpc_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/mcpi-dev/mcpi/jsonrpc"
)

// scripted is a Connection whose reads answer each written request as reply says; it
// records what the Conn writes.
type scripted struct {
	reply   func(req *jsonrpc.Request) (jsonrpc.Message, error)
	mu      sync.Mutex
	written []jsonrpc.Message
	next    chan func() (jsonrpc.Message, error)
	done    chan struct{}
	once    sync.Once
}

func (s *scripted) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case f := <-s.next:
		return f()
	case <-s.done:
		return nil, jsonrpc.ErrClosed
	}
}

func (s *scripted) Write(ctx context.Context, m jsonrpc.Message) error {
	s.mu.Lock()
	s.written = append(s.written, m)
	s.mu.Unlock()
	if req, ok := m.(*jsonrpc.Request); ok && !req.IsNotification() {
		go func() { s.next <- func() (jsonrpc.Message, error) { return s.reply(req) } }()
	}
	return nil
}

func (s *scripted) Close() error {
	s.once.Do(func() { close(s.done) })
	return nil
}

// TestDroppedResponseFailsTheCall: a transport that drops a response (too large) and says
// whose it was makes the call fail with its cause, and nothing is sent back for it.
func TestDroppedResponseFailsTheCall(t *testing.T) {
	cause := errors.New("too large")
	s := &scripted{next: make(chan func() (jsonrpc.Message, error)), done: make(chan struct{})}
	s.reply = func(req *jsonrpc.Request) (jsonrpc.Message, error) {
		if req.Method == "ok" {
			return &jsonrpc.Response{ID: req.ID, Result: []byte(`{}`)}, nil
		}
		return nil, &jsonrpc.DecodeError{ID: req.ID, Response: true, Cause: cause,
			Err: jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "message too large")}
	}
	c := jsonrpc.NewConn(s, jsonrpc.Options{})
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), failsafe)
	defer cancel()
	err := c.Call(ctx, "big", nil, nil)
	var ce *jsonrpc.CallError
	if !errors.Is(err, cause) || !errors.As(err, &ce) || ce.Op != jsonrpc.OpReceive || ce.Method != "big" {
		t.Fatalf("call: %#v, want a *CallError of OpReceive for big with the cause", err)
	}
	if err := c.Call(ctx, "ok", nil, nil); err != nil {
		t.Fatalf("the next call: %v", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.written) != 2 {
		t.Errorf("wrote %d messages, want the two requests only: %v", len(s.written), s.written)
	}
}
