// Package status implements "mcpi auth status".
package status

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	mcpiauth "github.com/mcpi-dev/mcpi/auth"
	"github.com/mcpi-dev/mcpi/internal/cli/cmdutil"
	"github.com/mcpi-dev/mcpi/internal/cli/connect"
	"github.com/mcpi-dev/mcpi/internal/cli/iostreams"
	"github.com/mcpi-dev/mcpi/internal/cli/state"
	"github.com/mcpi-dev/mcpi/internal/look"
)

// Options are the inputs of "auth status".
type Options struct {
	IO        *iostreams.IOStreams
	Selection *connect.Selection
	JSON      bool
	// List lists every server of the token store; nil means the store of --token-store
	// (the OS keyring cannot be listed).
	List func(ctx context.Context) ([]state.StoredRecord, error)
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Entry is what the status says of one server; never a token or a secret.
type Entry struct {
	// Server is the server's URL, its password and the values of its query as xxxxx.
	Server   string `json:"server"`
	LoggedIn bool   `json:"loggedIn"`
	// State is "logged in", "expired" (a token that has expired, or expires too soon
	// for a command to send it, and cannot be refreshed), "not logged in" or
	// "unreadable" (then Error says why).
	State  string     `json:"state"`
	Issuer string     `json:"issuer,omitempty"`
	Scopes []string   `json:"scopes,omitempty"`
	Expiry *time.Time `json:"expiry,omitempty"`
	// Refreshable is set when a refresh token is held: the access token is renewed
	// without the user when it expires.
	Refreshable bool    `json:"refreshable,omitempty"`
	Client      *Client `json:"client,omitempty"`
	Error       string  `json:"error,omitempty"`
}

// Client is the client registration a login used.
type Client struct {
	ID   string `json:"id"`
	Kind string `json:"kind"` // pre-registered, metadata-document or dynamic
}

// Result is the --json output.
type Result struct {
	Servers []Entry `json:"servers"`
}

// NewCmd returns the command; runF replaces [Run] in tests of the flag handling.
func NewCmd(f *cmdutil.Factory, sel *connect.Selection, runF func(context.Context, *Options) error) *cobra.Command {
	opts := &Options{IO: f.IOStreams, Selection: sel}
	cmd := &cobra.Command{
		Use:   "status [--url URL]",
		Short: "Show the OAuth logins mcpi keeps: servers, issuers, scopes, expiry",
		Long: `Show whether mcpi is logged in to the server --url (or --config and --server)
names, or to every server it keeps tokens for: the authorization server that
issued the token, its scopes, when it expires, and whether it can be refreshed.
Tokens are never shown, nor a server URL's password and the values of its query
(?key=xxxxx).

With --json: {"servers":[{"server","loggedIn","state","issuer","scopes",
"expiry","refreshable","client":{"id","kind"}}...]}.`,
		Example: `  mcpi auth status
  mcpi auth status --url https://mcp.example.com/mcp --json`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return Run(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the status as JSON")
	return cmd
}

// Run shows the status.
func Run(ctx context.Context, opts *Options) error {
	now := time.Now
	if opts.Now != nil {
		now = opts.Now
	}
	var entries []Entry
	if opts.Selection.IsSet() {
		t, err := opts.Selection.FlowTarget()
		if err != nil {
			return err
		}
		rec, err := t.Flow.Record(ctx)
		if err != nil {
			return err
		}
		entries = append(entries, NewEntry(t.Flow.Server(), rec, now()))
	} else {
		if err := opts.Selection.Auth.CheckTokenStore(); err != nil {
			return err
		}
		list := opts.List
		if list == nil {
			var err error
			if list, err = storeList(opts.Selection.Auth.TokenStore); err != nil {
				return err
			}
		}
		stored, err := list(ctx)
		if err != nil {
			return err
		}
		for _, s := range stored {
			if s.Err != nil {
				msg, _ := cmdutil.Describe(s.Err)
				entries = append(entries, Entry{Server: cmdutil.RedactURL(s.Server), State: "unreadable", Error: msg})
				continue
			}
			entries = append(entries, NewEntry(s.Server, s.Record, now()))
		}
	}
	if opts.JSON {
		if entries == nil {
			entries = []Entry{}
		}
		return cmdutil.PrintJSON(opts.IO.Out, Result{Servers: entries})
	}
	if len(entries) == 0 {
		fmt.Fprintln(opts.IO.Out, "mcpi keeps no OAuth logins")
		return nil
	}
	tw := cmdutil.NewTable(opts.IO.Out, opts.IO.TerminalWidth(), "SERVER", "STATE", "ISSUER", "EXPIRES", "SCOPES")
	for _, e := range entries {
		state := e.State
		if e.Error != "" {
			state += ": " + e.Error
		}
		tw.Row(e.Server, state, cmdutil.OrDash(e.Issuer), Expires(e, now()), cmdutil.OrDash(strings.Join(e.Scopes, " ")))
	}
	return tw.Flush()
}

// storeList returns the lister of the token store kind names.
func storeList(kind string) (func(context.Context) ([]state.StoredRecord, error), error) {
	if kind == state.TokenStoreKeyring {
		return nil, cmdutil.UsageErrorf("the OS keyring cannot list the servers mcpi keeps tokens for: name one with --url")
	}
	files, err := state.DefaultTokenFiles()
	if err != nil {
		return nil, err
	}
	return files.List, nil
}

// NewEntry describes the record kept for server (nil: none) at now. The server is named
// as every sentence names it ([cmdutil.RedactURL]): its key is often passed in its query.
func NewEntry(server string, rec *mcpiauth.Record, now time.Time) Entry {
	e := Entry{Server: cmdutil.RedactURL(server), State: "not logged in"}
	if rec == nil {
		return e
	}
	e.Issuer = rec.Issuer
	if rec.Client != nil {
		e.Client = &Client{ID: rec.Client.ID, Kind: rec.Client.Kind}
	}
	scope := rec.GrantedScope
	if scope == "" {
		scope = rec.Scope
	}
	e.Scopes = strings.Fields(scope)
	slices.Sort(e.Scopes)
	t := rec.Token
	if t == nil || t.AccessToken == "" {
		return e
	}
	e.Refreshable = t.RefreshToken != ""
	if !t.Expiry.IsZero() {
		exp := t.Expiry.UTC()
		e.Expiry = &exp
	}
	// As a command would: a token about to expire is not sent (see auth.Usable).
	e.LoggedIn = e.Refreshable || mcpiauth.Usable(t, now)
	e.State = "logged in"
	if !e.LoggedIn {
		e.State = "expired"
	}
	return e
}

// Expires says when e's token expires, for people: "in 59m30s", "3h00m ago", with
// "(refreshable)" when it is renewed without the user.
func Expires(e Entry, now time.Time) string {
	var s string
	switch {
	case e.Expiry == nil && e.State != "logged in":
		return "-"
	case e.Expiry == nil:
		s = "never"
	case now.Before(*e.Expiry) && !e.LoggedIn:
		s = "in " + look.Duration(e.Expiry.Sub(now)) + ", too soon to be used"
	case now.Before(*e.Expiry):
		s = "in " + look.Duration(e.Expiry.Sub(now))
	default:
		s = look.Duration(now.Sub(*e.Expiry)) + " ago"
	}
	if e.Refreshable {
		s += " (refreshable)"
	}
	return s
}
