package ui

import (
	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/mcp"
)

// ClientCapabilities is what a session opened for the terminal UI declares: roots,
// sampling, form and URL elicitation, and tasks in the receiver role (tasks/list,
// tasks/cancel, sampling and elicitation as tasks), so that every request a server can
// send reaches the Requests view and every task the Tasks view.
func ClientCapabilities() *mcp.ClientCapabilities { return client.AllCapabilities() }

// DefaultLogLevel is the server log level a session for the terminal UI asks for from
// the start, until the user picks another in the Log view: the web inspector's too.
const DefaultLogLevel = mcp.LoggingLevelInfo

// ClientOptions are the client options of a session for the terminal UI: the
// capabilities above, receiver tasks on, no OnRequest handler (the Requests view
// answers server requests), and the server's log at [DefaultLogLevel].
func ClientOptions() *client.Options {
	return &client.Options{Capabilities: ClientCapabilities(), Receiver: &client.ReceiverOptions{}, LogLevel: DefaultLogLevel}
}
