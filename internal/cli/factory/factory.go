// Package factory builds the [cmdutil.Factory] that the mcpi commands run with: the
// selected server, reached through package connect, with server requests answered from
// an answers file (package answers) or at a terminal prompt (package prompt).
package factory

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/internal/cli/answers"
	"github.com/mcpi-dev/mcpi/internal/cli/browser"
	"github.com/mcpi-dev/mcpi/internal/cli/cmdutil"
	"github.com/mcpi-dev/mcpi/internal/cli/connect"
	"github.com/mcpi-dev/mcpi/internal/cli/iostreams"
	"github.com/mcpi-dev/mcpi/internal/cli/prompt"
	"github.com/mcpi-dev/mcpi/internal/cut"
	"github.com/mcpi-dev/mcpi/internal/look"
	"github.com/mcpi-dev/mcpi/mcp"
)

// New returns a factory whose Connect opens a session with the server sel selects
// (read when Connect is called, so flags may fill sel in later).
// Its Browser is the system browser, which a login opens on a terminal.
func New(ios *iostreams.IOStreams, sel *connect.Selection, version string) *cmdutil.Factory {
	f := &cmdutil.Factory{IOStreams: ios, Version: version, Browser: browser.Open}
	w := newWiring(ios, sel)
	w.browser = func(url string) error { return f.Browser(url) }
	f.Connect = w.connect
	return f
}

// wiring opens the sessions of one mcpi invocation.
type wiring struct {
	io  *iostreams.IOStreams
	sel *connect.Selection
	// prompt is shared by the sessions: it reads stdin for the invocation's whole life,
	// and asks one question at a time.
	prompt *prompt.Answerer
	// ask is prompt.Ask; tests make it slower.
	ask func(context.Context, *client.Request)
	// browser opens the authorization page of a login.
	browser func(url string) error
}

func newWiring(ios *iostreams.IOStreams, sel *connect.Selection) *wiring {
	p := prompt.New(ios)
	return &wiring{io: ios, sel: sel, prompt: p, ask: p.Ask}
}

// connect is a [cmdutil.ConnectFunc]. The answers file is read first, so that a bad one
// is refused before anything is sent.
func (w *wiring) connect(ctx context.Context, policy cmdutil.RequestPolicy) (*cmdutil.Session, error) {
	h := &handler{w: w, policy: policy, left: make(chan struct{})}
	if policy.Answers != "" {
		set, err := answers.Load(policy.Answers)
		if err != nil {
			return nil, err
		}
		set.Note, set.Kind = w.io.Note, policy.Kind
		h.answers = set
	}
	// A login is shown on the terminal, if there is one; the flags are read now that
	// they are parsed.
	sel := *w.sel
	sel.Auth.Show = cmdutil.ShowLogin(w.io, sel.Auth.NoBrowser, w.browser)
	sess, resumed, err := sel.ConnectResuming(ctx, &client.Options{OnRequest: h.handle, Receiver: ReceiverOptions()})
	if err != nil {
		return nil, err
	}
	h.mu.Lock()
	h.sess = sess
	h.mu.Unlock()
	if sel.ServerLog != "" {
		h.logs = make(chan struct{})
		go printLogs(w.io, sess.Subscribe(), sel.ServerLog, h.logs)
	}
	s := cmdutil.NewSession(sess, h)
	s.Resumed, s.SessionEnded = resumed == connect.SessionResumed, resumed == connect.SessionEnded
	return s, nil
}

// maxLogData bounds what is printed of one log message's data: a server's message can be
// as large as any.
const maxLogData = 4096

// printLogs prints the log messages of level and above that sub brings, each on one line
// of stderr above the status line, until the session ends; then it closes done. The
// server was asked for that level; one that sends lower levels all the same is not
// echoed.
func printLogs(io *iostreams.IOStreams, sub *client.Subscription, level mcp.LoggingLevel, done chan struct{}) {
	defer close(done)
	for e := range sub.All(context.Background()) {
		le, ok := e.(*client.LogEvent)
		if !ok || le.Params.Level.Severity() < level.Severity() {
			continue
		}
		io.Note(LogLine(le.Params))
	}
}

// LogLine words a server's log message for stderr, on one line made safe for a terminal:
// "server warning (LOGGER): DATA", a string's data as its text, other data as JSON, cut to
// 4 KiB.
func LogLine(p mcp.LoggingMessageNotificationParams) string {
	data := string(p.Data)
	var text string
	if json.Unmarshal(p.Data, &text) == nil {
		data = text
	}
	who := "server " + string(p.Level)
	if p.Logger != "" {
		who += " (" + cut.Bytes(p.Logger, 100) + ")"
	}
	return look.Safe(who + ": " + cut.Bytes(data, maxLogData))
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

// handler answers the server's requests of one session as its policy says: from the
// answers file when it has an answer, at the terminal when there is one, else it refuses
// them with a sentence that says how to answer. It is a [cmdutil.RequestHandler].
type handler struct {
	w       *wiring
	policy  cmdutil.RequestPolicy
	answers *answers.Set

	mu      sync.Mutex
	sess    *client.Session // once connected
	refused error           // a *cmdutil.NeedTerminalError, or an answers file's answer that does not fit
	done    bool            // Wait was called
	// left is closed once a request is left unanswered (policy.Leave).
	left     chan struct{}
	leftOnce sync.Once
	// running counts the requests being answered; Add only under mu, while !done, so
	// that no Add races with Wait.
	running sync.WaitGroup
	// logs, with --server-log, is closed once every log message of the session is
	// printed.
	logs chan struct{}
}

// toolOf finds the tool a request belongs to: the tool of its related task when the
// session started that task, or when the command knows it (policy.TaskTool), else the
// tool the command named (a task the session follows by id, as "tasks result" does in
// 2026-07-28, has no tool of its own).
func (h *handler) toolOf(req *client.Request) string {
	h.mu.Lock()
	sess := h.sess
	h.mu.Unlock()
	if req.RelatedTask != "" && sess != nil {
		for _, t := range sess.Tasks() {
			if t.ID() == req.RelatedTask && t.Tool != "" {
				return t.Tool
			}
		}
	}
	if req.RelatedTask != "" && h.policy.TaskTool != nil {
		if tool, ok := h.policy.TaskTool(req.RelatedTask); ok {
			return tool
		}
	}
	return h.policy.Tool
}

// handle is the session's [client.Options.OnRequest].
func (h *handler) handle(ctx context.Context, req *client.Request) {
	h.mu.Lock()
	if h.done {
		h.mu.Unlock()
		return // the session has ended, withdrawing req
	}
	h.running.Add(1)
	h.mu.Unlock()
	defer h.running.Done()

	if h.policy.Hold {
		return // withdrawn when the session ends
	}
	tool := h.toolOf(req)
	answered, err := h.answers.Answer(req, tool)
	if answered {
		return
	}
	if err != nil {
		h.refuse(req, err)
		return
	}
	if h.w.io.CanPrompt() {
		h.w.ask(ctx, req)
		return
	}
	e := &cmdutil.NeedTerminalError{Tool: tool, Kind: h.policy.Kind, Needs: h.needs(req, tool), Task: req.RelatedTask}
	if h.answers != nil {
		e.Answers = h.answers.File
	}
	h.refuse(req, e)
}

// needs returns what is missing for req: req alone, or every request of its round that
// the answers file does not answer, since the round is asked again only once all are
// answered. A request that is one of several of its kind in the round is keyed by its
// input key in the example.
func (h *handler) needs(req *client.Request, tool string) []cmdutil.Need {
	round := req.Round()
	if len(round) == 0 {
		round = []*client.Request{req}
	}
	count := map[string]int{}
	for _, r := range round {
		count[kindOf(r)]++
	}
	var needs []cmdutil.Need
	for _, r := range round {
		if r != req && h.answers.Has(r, tool) {
			continue
		}
		n := cmdutil.Need{What: kindOf(r)}
		if count[n.What] > 1 && r.InputKey != "" {
			key := tool
			if key == "" {
				key = answers.Any
			}
			n.Key = key + answers.KeySep + r.InputKey
		}
		switch {
		case r.Elicitation != nil && r.Elicitation.EffectiveMode() == mcp.ElicitModeURL:
			n.Answer = `"accept"`
		case r.Elicitation != nil:
			n.Answer = "{" + answers.Example(r.Elicitation.RequestedSchema) + "}"
		}
		needs = append(needs, n)
	}
	return needs
}

func kindOf(r *client.Request) string {
	if r.Sampling != nil {
		return "sampling"
	}
	return "elicitation"
}

// refuse refuses req for want of a good answer, err saying why, and keeps the first such
// err for [handler.Refused]. With policy.Leave it leaves req unanswered instead (the
// session's end withdraws it, and its task keeps waiting for the input) and closes
// left, which ends the command.
func (h *handler) refuse(req *client.Request, err error) {
	h.mu.Lock()
	if h.refused == nil {
		h.refused = err
	}
	h.mu.Unlock()
	if h.policy.Leave {
		h.leftOnce.Do(func() { close(h.left) })
		return
	}
	// The sentence is for the user of mcpi (it names the answers file, and suggests an
	// answer): the server is told no more than that no answer came.
	_ = req.Refuse(RefusalMessage)
}

// RefusalMessage is the message of the error (code -1, [client.CodeUserRejected]) with
// which mcpi refuses a server's request it could not put to the user, or whose answer
// from the answers file does not fit the request.
const RefusalMessage = "the client could not answer this request"

// Left is closed once a request is left unanswered.
func (h *handler) Left() <-chan struct{} { return h.left }

// Refused returns the first request refused for want of a good answer, or nil.
func (h *handler) Refused() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.refused
}

// Choose asks at the terminal, after any request's prompt.
func (h *handler) Choose(ctx context.Context, question, letters string) (byte, error) {
	return h.w.prompt.Choose(ctx, question, letters)
}

// Wait waits for the requests being answered, and answers no more.
func (h *handler) Wait() {
	h.mu.Lock()
	h.done = true
	h.mu.Unlock()
	h.running.Wait()
	if h.logs != nil {
		<-h.logs // the session has ended: its subscription ends too
	}
}
