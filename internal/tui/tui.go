// Package tui is mcpi's terminal inspector (`mcpi tui`, and `mcpi` alone on a
// terminal): a Bubble Tea program over one [client.Session]. It renders the session's
// events and calls the session's methods, never JSON-RPC of its own.
//
// The screen is a header (the server, transport, protocol version, task dialect, both
// sides' capabilities and the connection state), a tab bar with the pending-request
// badge, one view, and a status and help bar. The views are separate models: Tools,
// Tasks, Requests, Resources, Prompts and Log. The client's events reach them as
// messages, in batches that coalesce bursts, and a one-second tick moves the clocks.
package tui

import (
	"context"
	"errors"
	"io"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/internal/look"
	"github.com/mcpi-dev/mcpi/internal/tui/internal/ui"
	"github.com/mcpi-dev/mcpi/mcp"
)

// Options configures [Run].
type Options struct {
	// In and Out are the terminal; nil means os.Stdin and os.Stdout.
	In  io.Reader
	Out io.Writer
	// Server names the server as the user did: a command line, a URL, or "the embedded
	// demo server". It is shown when the server's own name is not known.
	Server string
	// Transport says how mcpi reaches the server: see [TransportName].
	Transport string
	// ClientCapabilities is what the session declared; nil means [ClientCapabilities],
	// the declaration of a session opened with [ClientOptions].
	ClientCapabilities *mcp.ClientCapabilities
	// Reconnect opens a new session with the same server (with [ClientOptions]); nil
	// turns reconnecting off. It bounds its own wait: a login it waits for may take
	// minutes. Sessions it opens are closed when Run returns; the one given to Run is
	// the caller's to close.
	Reconnect func(ctx context.Context) (*client.Session, error)
	// Logins brings the authorization URL of each login the sessions wait for (the
	// server asked for OAuth, or for more scope, and no stored token would do), and ""
	// when it is over: the screen shows the URL until then, or until a reconnection
	// ends or the user puts it away.
	Logins <-chan string
	// TaskTTL prefills the TTL of a task call; 0 means 60s, a negative value leaves it
	// to the server.
	TaskTTL time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// DefaultTaskTTL is the task TTL the Tools view offers unless [Options.TaskTTL] says
// otherwise: [look.DefaultTaskTTL], the web inspector's too.
const DefaultTaskTTL = look.DefaultTaskTTL

// ClientOptions are the client options to open a session for the terminal UI with:
// its capabilities declared explicitly (sampling, form and URL elicitation, roots, and
// tasks as a receiver), receiver tasks on, and no OnRequest handler, since the
// Requests view answers the server's requests.
func ClientOptions() *client.Options { return ui.ClientOptions() }

// ClientCapabilities is the declaration of a session opened with [ClientOptions].
func ClientCapabilities() *mcp.ClientCapabilities { return ui.ClientCapabilities() }

// Run runs the terminal UI on sess until the user quits or ctx ends. It returns nil
// then, and an error only when the terminal could not be used.
func Run(ctx context.Context, sess *client.Session, opts Options) error {
	m := New(ctx, sess, opts)
	defer m.closeOwned()
	popts := []tea.ProgramOption{tea.WithContext(ctx)}
	if opts.In != nil {
		popts = append(popts, tea.WithInput(opts.In))
	}
	if opts.Out != nil {
		popts = append(popts, tea.WithOutput(opts.Out))
	}
	_, err := tea.NewProgram(&program{m}, popts...).Run()
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		return nil
	}
	return err
}

// program adapts [Model] to tea.Model.
type program struct{ m *Model }

func (p *program) Init() tea.Cmd                           { return p.m.Init() }
func (p *program) Update(msg tea.Msg) (tea.Model, tea.Cmd) { return p, p.m.Update(msg) }
func (p *program) View() tea.View                          { return p.m.TeaView() }
