// Package loglimit bounds a log line that a peer can make repeat without end (a line a
// malformed message, a million garbage lines): the first few are logged one by one,
// the rest counted and summarised.
package loglimit

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// First is how many times a [Repeated] line is logged one by one; Every is how often,
// at most, its summary is logged after that.
const (
	First = 10
	Every = time.Minute
)

// Repeated is one kind of log line. Its zero value logs nothing past [First]
// occurrences but summaries: one at most every [Every], saying how many were not logged
// (Summary, with "count" and the last one's attributes, each key prefixed "last"), and
// one by [Repeated.Flush] for those still counted. It is safe for concurrent use.
type Repeated struct {
	Level   slog.Level
	Msg     string // the line's message
	Summary string // the summary's message

	mu         sync.Mutex
	logged     int
	held       int       // occurrences since the last summary, not logged
	last       []any     // the attributes of the last one held
	summarised time.Time // when the last summary was logged, or the first one held
}

// Log logs the line with args on l, or counts it and logs the summary when its time
// has come. A logger that would drop the line costs nothing more.
func (r *Repeated) Log(l *slog.Logger, args ...any) {
	if !l.Enabled(context.Background(), r.Level) {
		return
	}
	r.mu.Lock()
	if r.logged < First {
		r.logged++
		r.mu.Unlock()
		l.Log(context.Background(), r.Level, r.Msg, args...)
		return
	}
	now := time.Now()
	if r.summarised.IsZero() {
		r.summarised = now // the first summary comes a minute after the first line held
	}
	r.held++
	r.last = args
	if now.Sub(r.summarised) < Every {
		r.mu.Unlock()
		return
	}
	n, last := r.take(now)
	r.mu.Unlock()
	r.summary(l, n, last)
}

// Flush logs the summary of the occurrences not logged since the last one, if any: for
// the end of what made them (a connection), so that no count is lost.
func (r *Repeated) Flush(l *slog.Logger) {
	r.mu.Lock()
	if r.held == 0 {
		r.mu.Unlock()
		return
	}
	n, last := r.take(time.Now())
	r.mu.Unlock()
	r.summary(l, n, last)
}

func (r *Repeated) take(now time.Time) (int, []any) {
	n, last := r.held, r.last
	r.held, r.last, r.summarised = 0, nil, now
	return n, last
}

func (r *Repeated) summary(l *slog.Logger, n int, last []any) {
	args := make([]any, 0, 2+len(last))
	args = append(args, "count", n)
	for _, a := range slog.Group("", last...).Value.Group() {
		args = append(args, slog.Any("last"+upper(a.Key), a.Value))
	}
	l.Log(context.Background(), r.Level, r.Summary, args...)
}

// upper makes key's first letter a capital, for the camelCase of the attributes' keys.
func upper(key string) string {
	if key == "" || key[0] < 'a' || key[0] > 'z' {
		return key
	}
	return string(key[0]-'a'+'A') + key[1:]
}
