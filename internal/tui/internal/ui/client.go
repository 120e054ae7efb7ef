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

// ClientOptions are the client options of a session for the terminal UI: the
// capabilities above, receiver tasks on, and no OnRequest handler (the Requests view
// answers server requests).
func ClientOptions() *client.Options {
	return &client.Options{Capabilities: ClientCapabilities(), Receiver: &client.ReceiverOptions{}}
}
