// Package factory builds the [cmdutil.Factory] that the mcpi commands run with: the
// selected server, reached through package connect, with server requests answered from
// an answers file (package answers) or at a terminal prompt (package prompt).
package factory

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"time"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/internal/cli/answers"
	"github.com/mcpi-dev/mcpi/internal/cli/cmdutil"
	"github.com/mcpi-dev/mcpi/internal/cli/connect"
	"github.com/mcpi-dev/mcpi/internal/cli/iostreams"
	"github.com/mcpi-dev/mcpi/internal/cli/prompt"
)

// New returns a factory whose Connect opens a session with the server sel selects
// (read when Connect is called, so flags may fill sel in later).
func New(ios *iostreams.IOStreams, sel *connect.Selection, version string) *cmdutil.Factory {
	r := &router{io: ios, prompt: prompt.New(ios)}
	return &cmdutil.Factory{
		IOStreams: ios,
		Version:   version,
		Connect: func(ctx context.Context) (*client.Session, error) {
			sess, err := sel.Connect(ctx, &client.Options{OnRequest: r.handle, Receiver: ReceiverOptions()})
			if err == nil {
				r.mu.Lock()
				r.sessions = append(r.sessions, sess)
				r.mu.Unlock()
			}
			return sess, err
		},
		InputRefused:   r.refusedErr,
		UseAnswers:     r.useAnswers,
		SetRequestTool: r.setTool,
		HoldRequests:   r.holdRequests,
		Choose:         r.prompt.Choose,
	}
}

// ReceiverOptions are the CLI's receiver task options: mcpi lets servers run sampling
// and elicitation as tasks on it (and declares so), answers such a request like any
// other (at the terminal or from the answers file), and keeps the task 10 minutes unless
// the server asks for another lifetime, at most an hour, suggesting that the server poll
// every half second, and refusing a server that sends more than 100 task requests a
// second.
func ReceiverOptions() *client.ReceiverOptions {
	return &client.ReceiverOptions{
		DefaultTTL:    10 * time.Minute,
		MaxTTL:        time.Hour,
		PollInterval:  500 * time.Millisecond,
		RatePerSecond: 100,
	}
}

// router answers the server's requests: from the answers file when it has an answer, at
// the terminal when there is one, else it refuses them with a sentence that says how to
// answer.
type router struct {
	io     *iostreams.IOStreams
	prompt *prompt.Answerer

	mu       sync.Mutex
	answers  *answers.Set
	tool     string
	hold     bool
	sessions []*client.Session
	refused  []*cmdutil.NeedTerminalError
}

func (r *router) useAnswers(file string) error {
	set, err := answers.Load(file)
	if err != nil {
		return err
	}
	r.mu.Lock()
	r.answers = set
	r.mu.Unlock()
	return nil
}

func (r *router) holdRequests() {
	r.mu.Lock()
	r.hold = true
	r.mu.Unlock()
}

func (r *router) setTool(tool string) {
	r.mu.Lock()
	r.tool = tool
	r.mu.Unlock()
}

// toolOf finds the tool a request belongs to: the tool of its related task when a
// session started that task, else the tool the command named.
func (r *router) toolOf(req *client.Request) string {
	r.mu.Lock()
	sessions := append([]*client.Session(nil), r.sessions...)
	tool := r.tool
	r.mu.Unlock()
	if req.RelatedTask != "" {
		for _, s := range sessions {
			for _, t := range s.Tasks() {
				if t.ID() == req.RelatedTask {
					return t.Tool
				}
			}
		}
	}
	return tool
}

func (r *router) handle(ctx context.Context, req *client.Request) {
	tool := r.toolOf(req)
	r.mu.Lock()
	set, hold := r.answers, r.hold
	r.mu.Unlock()
	if hold {
		return // withdrawn when the session ends
	}
	if set.Answer(req, tool) {
		return
	}
	if r.io.CanPrompt() {
		r.prompt.Ask(ctx, req)
		return
	}
	what := "elicitation"
	if req.Sampling != nil {
		what = "sampling"
	}
	e := &cmdutil.NeedTerminalError{What: what, Tool: tool}
	if req.Elicitation != nil {
		e.Fields = formFields(req.Elicitation.RequestedSchema)
	}
	if set != nil {
		e.Answers = set.File
	}
	r.mu.Lock()
	r.refused = append(r.refused, e)
	r.mu.Unlock()
	_ = req.Refuse(e.Error())
}

// refusedErr returns the first request refused for want of an answer, or nil.
func (r *router) refusedErr() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.refused) == 0 {
		return nil
	}
	return r.refused[0]
}

// formFields returns the property names of an elicitation form, sorted.
func formFields(schema json.RawMessage) []string {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(schema, &s) != nil {
		return nil
	}
	names := make([]string, 0, len(s.Properties))
	for n := range s.Properties {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}
