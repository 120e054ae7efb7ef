// Package info implements "mcpi info": what the server says of itself at the start of
// a session (its name and version, the protocol agreed, its capabilities and its
// instructions), which a server's developer checks first and no other command shows.
package info

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcpi-dev/mcpi/internal/cli/cmdutil"
	"github.com/mcpi-dev/mcpi/internal/cli/iostreams"
	"github.com/mcpi-dev/mcpi/internal/look"
	"github.com/mcpi-dev/mcpi/mcp"
)

// Options are the inputs of "info".
type Options struct {
	IO      *iostreams.IOStreams
	Connect cmdutil.ConnectFunc
	JSON    bool
}

// Result is the --json output of info: the server's own words, as it sent them (the
// initialize result in 2025-11-25; in 2026-07-28 the server/discover result, whose
// server info travels in its _meta), with the session's era.
type Result struct {
	// ServerInfo is nil when a 2026-07-28 server put none in the _meta of
	// server/discover, where it is optional.
	ServerInfo      *mcp.Implementation `json:"serverInfo,omitempty"`
	ProtocolVersion string              `json:"protocolVersion"`
	Era             string              `json:"era"`
	// SupportedVersions is what a 2026-07-28 server lists in server/discover.
	SupportedVersions []string               `json:"supportedVersions,omitempty"`
	Capabilities      mcp.ServerCapabilities `json:"capabilities"`
	Instructions      string                 `json:"instructions,omitempty"`
}

// NewCmd returns the command; runF replaces [Run] in tests of the flag handling.
func NewCmd(f *cmdutil.Factory, runF func(context.Context, *Options) error) *cobra.Command {
	opts := &Options{IO: f.IOStreams, Connect: f.Connect}
	cmd := &cobra.Command{
		Use:   "info",
		Short: "Show what the server declares: name, version, protocol, capabilities, instructions",
		Long: `Show what the server says of itself when mcpi connects: its name and version,
the protocol version agreed (and, in 2026-07-28, every version it supports), each
capability it declares (tools, prompts, resources, logging, completions, tasks, and
the extensions of 2026-07-28) and its instructions to the model, whole.

--json prints them as the server sent them, with the era of the session:
{"serverInfo","protocolVersion","era","supportedVersions","capabilities",
"instructions"}. A 2026-07-28 server may leave its serverInfo out of
server/discover: the text says "not given", and the JSON has no serverInfo.`,
		Example: `  mcpi info
  mcpi --stdio "npx -y @modelcontextprotocol/server-everything" info --json`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return Run(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the server's declaration as JSON")
	return cmd
}

// Run connects and prints the server's declaration.
func Run(ctx context.Context, opts *Options) error {
	sess, err := opts.Connect(ctx, cmdutil.RequestPolicy{})
	if err != nil {
		return err
	}
	defer sess.Close()
	init := sess.InitializeResult()
	r := Result{
		ServerInfo:      &init.ServerInfo,
		ProtocolVersion: sess.ProtocolVersion(),
		Era:             look.Era(sess.Modern()),
		Capabilities:    init.Capabilities,
		Instructions:    init.Instructions,
	}
	if d := sess.Discover(); d != nil {
		r.SupportedVersions = d.SupportedVersions
		if _, ok := d.ServerInfo(); !ok {
			r.ServerInfo = nil
		}
	}
	if opts.JSON {
		return cmdutil.PrintJSON(opts.IO.Out, r)
	}
	write(opts.IO.Out, &r)
	return nil
}

// write prints r as labelled lines, every text of the server made safe for a terminal.
func write(w io.Writer, r *Result) {
	line := func(label, value string) { fmt.Fprintf(w, "%-13s %s\n", label, value) }
	if si := r.ServerInfo; si == nil {
		line("server", "not given (the server sent no serverInfo)")
	} else {
		name := look.Safe(si.Name)
		if si.Version != "" {
			name += " " + look.Safe(si.Version)
		}
		if si.Title != "" && si.Title != si.Name {
			name += fmt.Sprintf(" (%s)", look.Safe(si.Title))
		}
		line("server", name)
		if si.Description != "" {
			line("description", look.Safe(si.Description))
		}
	}
	proto := fmt.Sprintf("%s (%s era)", look.Safe(r.ProtocolVersion), r.Era)
	if len(r.SupportedVersions) > 0 {
		proto += "; the server supports " + look.Safe(strings.Join(r.SupportedVersions, ", "))
	}
	line("protocol", proto)
	c := &r.Capabilities
	line("tools", offered(c.Tools != nil, c.Tools != nil && c.Tools.ListChanged, false))
	line("prompts", offered(c.Prompts != nil, c.Prompts != nil && c.Prompts.ListChanged, false))
	line("resources", offered(c.Resources != nil, c.Resources != nil && c.Resources.ListChanged, c.Resources != nil && c.Resources.Subscribe))
	line("logging", yesNo(c.Logging != nil))
	line("completions", yesNo(c.Completions != nil))
	line("tasks", tasks(c, r.Era == look.Era(true), r.ProtocolVersion))
	if len(c.Extensions) > 0 {
		line("extensions", look.Safe(strings.Join(sortedKeys(c.Extensions), ", ")))
	}
	if len(c.Experimental) > 0 {
		line("experimental", look.Safe(strings.Join(sortedKeys(c.Experimental), ", ")))
	}
	if r.Instructions == "" {
		line("instructions", "none")
		return
	}
	fmt.Fprintln(w, "instructions")
	for l := range strings.Lines(look.SafeLines(r.Instructions)) {
		fmt.Fprintf(w, "  %s\n", strings.TrimRight(l, "\n"))
	}
}

// offered words a capability that may notify list changes and offer subscriptions.
func offered(yes, listChanged, subscribe bool) string {
	if !yes {
		return "no"
	}
	var more []string
	if subscribe {
		more = append(more, "subscriptions")
	}
	if listChanged {
		more = append(more, "tells of list changes")
	}
	if len(more) == 0 {
		return "yes"
	}
	return "yes (" + strings.Join(more, ", ") + ")"
}

func yesNo(yes bool) string {
	if yes {
		return "yes"
	}
	return "no"
}

// tasks words the server's task support in the session's era: the 2025-11-25 tasks
// capability (which requests may be tasks, and whether tasks are listed and cancelled),
// or the 2026-07-28 Tasks extension, declared or not.
func tasks(c *mcp.ServerCapabilities, modern bool, version string) string {
	if modern {
		if _, ok := c.Extensions[mcp.ExtensionTasks]; ok {
			return "the Tasks extension (" + mcp.ExtensionTasks + "): the server decides per call"
		}
		return "no (the server declares no Tasks extension)"
	}
	if !mcp.HasCoreTasks(version) {
		return fmt.Sprintf("no (protocol %s has none; they came with %s)", look.Safe(version), mcp.LatestProtocolVersion)
	}
	if c.Tasks == nil {
		return "no (the server declares no tasks capability)"
	}
	var what []string
	if c.Tasks.SupportsToolCall() {
		what = append(what, "tools/call as tasks")
	}
	if c.Tasks.SupportsList() {
		what = append(what, "tasks/list")
	}
	if c.Tasks.SupportsCancel() {
		what = append(what, "tasks/cancel")
	}
	if len(what) == 0 {
		return "the tasks capability, with nothing in it"
	}
	return strings.Join(what, ", ")
}

func sortedKeys(m map[string]json.RawMessage) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
