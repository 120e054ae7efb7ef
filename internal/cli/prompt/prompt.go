// Package prompt answers the server's own requests (elicitation and sampling) that arrive
// while a command runs: on a terminal it asks the user with simple line prompts; anywhere
// else it refuses them with an error that tells the user to run mcpi on a terminal.
package prompt

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/internal/cli/iostreams"
	"github.com/mcpi-dev/mcpi/internal/cut"
	"github.com/mcpi-dev/mcpi/internal/look"
	"github.com/mcpi-dev/mcpi/internal/plural"
	"github.com/mcpi-dev/mcpi/mcp"
)

// Answerer answers server requests for one mcpi invocation.
type Answerer struct {
	io *iostreams.IOStreams

	ask    sync.Mutex // one question at a time
	resume func()     // brings the status line back; set while ask is held
	once   sync.Once
	lines  chan string
}

// New returns an answerer that talks to the user over ios.
func New(ios *iostreams.IOStreams) *Answerer { return &Answerer{io: ios} }

// Ask asks the user on the terminal to answer r, one question at a time, with any status
// line suspended meanwhile; it can serve as a [client.Options.OnRequest]. The caller has
// checked that the user can be asked.
func (a *Answerer) Ask(ctx context.Context, r *client.Request) {
	a.ask.Lock()
	defer a.ask.Unlock()
	if r.Withdrawn() {
		return
	}
	resume := a.io.SuspendStatusLine()
	defer resume()
	// The status line comes back before the answer goes: the answer may end the task,
	// and the command with it, before this goroutine would resume it.
	a.resume = resume
	defer func() { a.resume = nil }()
	var err error
	switch {
	case r.Elicitation != nil:
		err = a.elicit(ctx, r)
	case r.Sampling != nil:
		err = a.sample(ctx, r)
	}
	if err != nil {
		if ctx.Err() != nil {
			fmt.Fprintln(a.io.ErrOut, "\n(the server withdrew its request)")
			return
		}
		resume()
		_ = r.Refuse("the user could not answer: " + err.Error())
	}
}

// resumeNow brings the status line back, if a question suspended it, before the answer
// that may end the task goes out.
func (a *Answerer) resumeNow() {
	if a.resume != nil {
		a.resume()
	}
}

// readLine waits for a line of input or for ctx to end. Input is read by one goroutine
// for the answerer's whole life, so a withdrawn question loses no typed line.
func (a *Answerer) readLine(ctx context.Context) (string, error) {
	a.once.Do(func() {
		a.lines = make(chan string)
		go func() {
			defer close(a.lines)
			sc := bufio.NewScanner(a.io.In)
			for sc.Scan() {
				a.lines <- strings.TrimRight(sc.Text(), "\r")
			}
		}()
	})
	select {
	case l, ok := <-a.lines:
		if !ok {
			return "", io.EOF
		}
		return l, nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// printf writes a line of a prompt. The format is mcpi's; the strings put into it are
// mostly the server's (its question, field titles, choices, messages), so they are
// shown as [look.Safe] shows them: one line each, so that none can pass for a question
// of mcpi's, with no character that a terminal obeys.
func (a *Answerer) printf(format string, args ...any) {
	for i, arg := range args {
		if s, ok := arg.(string); ok {
			args[i] = look.Safe(s)
		}
	}
	fmt.Fprintf(a.io.ErrOut, format, args...)
}

// Choose asks the user a question whose answer is one of the given letters (the first
// letter of the typed line counts); an empty line asks again. The status line is
// suspended meanwhile. It fails when input ends or ctx is done.
func (a *Answerer) Choose(ctx context.Context, question, letters string) (byte, error) {
	a.ask.Lock()
	defer a.ask.Unlock()
	resume := a.io.SuspendStatusLine()
	defer resume()
	return a.choose(ctx, question, letters, 0)
}

// choose asks a question whose answer is one of the given letters; an empty answer is
// def, or asks again when def is 0.
func (a *Answerer) choose(ctx context.Context, question, letters string, def byte) (byte, error) {
	for {
		a.printf("%s ", question)
		l, err := a.readLine(ctx)
		if err != nil {
			return 0, err
		}
		l = strings.ToLower(strings.TrimSpace(l))
		if l == "" && def != 0 {
			return def, nil
		}
		if l == "" {
			continue
		}
		if strings.IndexByte(letters, l[0]) >= 0 {
			return l[0], nil
		}
		a.printf("Please answer one of %s.\n", strings.Join(strings.Split(letters, ""), ", "))
	}
}

func (a *Answerer) elicit(ctx context.Context, r *client.Request) error {
	p := r.Elicitation
	a.printf("\nThe server asks%s: %s\n", forTask(r), p.Message)
	if p.EffectiveMode() == mcp.ElicitModeURL {
		link, web := look.WebURL(p.URL)
		if !web {
			// A javascript: or file: URL is no page to visit; offered as one, it would be
			// pasted into a browser, or clicked in a terminal that makes links of URLs.
			a.printf("It wants you to open a page, but names no web address: %s, not to be opened.\n", fmt.Sprintf("%q", cut.Bytes(p.URL, 200)))
			c, err := a.choose(ctx, "Decline (d) or cancel (c)? [d/C]", "dc", 'c')
			if err != nil {
				return err
			}
			return a.finishElicit(r, c, nil)
		}
		a.printf("It wants you to open %s\n", link)
		c, err := a.choose(ctx, "Did you (a)ccept there, (d)ecline, or (c)ancel? [a/d/c]", "adc", 'c')
		if err != nil {
			return err
		}
		return a.finishElicit(r, c, nil)
	}
	c, err := a.choose(ctx, "Answer it (a), decline (d) or cancel (c)? [A/d/c]", "adc", 'a')
	if err != nil || c != 'a' {
		if err != nil {
			return err
		}
		return a.finishElicit(r, c, nil)
	}
	fields, required, err := formFields(p.RequestedSchema)
	if err != nil {
		return err
	}
	content := map[string]any{}
	for _, f := range fields {
		v, err := a.askField(ctx, f, required[f.Name])
		if err != nil {
			return err
		}
		if v != nil {
			content[f.Name] = v
		}
	}
	return a.finishElicit(r, 'a', content)
}

func (a *Answerer) finishElicit(r *client.Request, choice byte, content map[string]any) error {
	switch choice {
	case 'a':
		a.resumeNow()
		return r.Accept(content)
	case 'd':
		a.resumeNow()
		return r.Decline()
	}
	a.resumeNow()
	return r.Dismiss()
}

// field is one property of an elicitation form.
type field struct {
	Name        string
	Title       string   `json:"title"`
	Description string   `json:"description"`
	Type        string   `json:"type"`
	Enum        []string `json:"enum"`
	Default     any      `json:"default"`
	Items       *struct {
		Enum  []string `json:"enum"`
		AnyOf []struct {
			Const string `json:"const"`
		} `json:"anyOf"`
	} `json:"items"`
	OneOf []struct {
		Const string `json:"const"`
		Title string `json:"title"`
	} `json:"oneOf"`
}

// formFields reads a flat elicitation schema, keeping the order of its properties.
func formFields(schema json.RawMessage) ([]field, map[string]bool, error) {
	var s struct {
		Properties json.RawMessage `json:"properties"`
		Required   []string        `json:"required"`
	}
	if len(schema) > 0 {
		if err := json.Unmarshal(schema, &s); err != nil {
			return nil, nil, fmt.Errorf("the requested schema is not valid: %v", err)
		}
	}
	required := map[string]bool{}
	for _, n := range s.Required {
		required[n] = true
	}
	var fields []field
	if len(s.Properties) == 0 {
		return nil, required, nil
	}
	dec := json.NewDecoder(bytes.NewReader(s.Properties))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, nil, fmt.Errorf("the requested schema's properties are not an object")
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		var f field
		if err := dec.Decode(&f); err != nil {
			return nil, nil, fmt.Errorf("the requested schema's property %v is not valid: %v", t, err)
		}
		f.Name, _ = t.(string)
		fields = append(fields, f)
	}
	return fields, required, nil
}

func (a *Answerer) askField(ctx context.Context, f field, required bool) (any, error) {
	label := f.Title
	if label == "" {
		label = f.Name
	}
	options := f.Enum
	for _, o := range f.OneOf {
		options = append(options, o.Const)
	}
	multi := f.Type == "array"
	if multi && f.Items != nil {
		options = append(options, f.Items.Enum...)
		for _, o := range f.Items.AnyOf {
			options = append(options, o.Const)
		}
	}
	if f.Description != "" {
		a.printf("  %s\n", f.Description)
	}
	if len(options) > 0 {
		for i, o := range options {
			a.printf("    %d) %s\n", i+1, o)
		}
	}
	hint := f.Type
	switch {
	case multi:
		hint = "numbers or values, comma-separated"
	case len(options) > 0:
		hint = "number or value"
	case f.Type == "boolean":
		hint = "y/n"
	}
	if f.Default != nil {
		hint += fmt.Sprintf(", default %v", f.Default)
	} else if !required {
		hint += ", optional"
	}
	for {
		a.printf("%s (%s): ", label, hint)
		l, err := a.readLine(ctx)
		if err != nil {
			return nil, err
		}
		l = strings.TrimSpace(l)
		if l == "" {
			if f.Default != nil || !required {
				return nil, nil // the client fills in defaults
			}
			a.printf("  This field is required.\n")
			continue
		}
		v, problem := parseField(f, options, multi, l)
		if problem == "" {
			return v, nil
		}
		a.printf("  %s\n", problem)
	}
}

func parseField(f field, options []string, multi bool, l string) (any, string) {
	pick := func(s string) (string, bool) {
		s = strings.TrimSpace(s)
		if n, err := strconv.Atoi(s); err == nil && n >= 1 && n <= len(options) {
			return options[n-1], true
		}
		for _, o := range options {
			if o == s {
				return o, true
			}
		}
		return "", false
	}
	switch {
	case multi:
		var out []string
		for _, part := range strings.Split(l, ",") {
			if len(options) == 0 {
				out = append(out, strings.TrimSpace(part))
				continue
			}
			o, ok := pick(part)
			if !ok {
				return nil, fmt.Sprintf("%q is not one of the choices.", strings.TrimSpace(part))
			}
			out = append(out, o)
		}
		return out, ""
	case len(options) > 0:
		o, ok := pick(l)
		if !ok {
			return nil, "Choose one of the listed values."
		}
		return o, ""
	case f.Type == "boolean":
		switch strings.ToLower(l) {
		case "y", "yes", "true":
			return true, ""
		case "n", "no", "false":
			return false, ""
		}
		return nil, "Answer y or n."
	case f.Type == "integer":
		n, err := strconv.ParseInt(l, 10, 64)
		if err != nil {
			return nil, "Enter a whole number."
		}
		return n, ""
	case f.Type == "number":
		x, err := strconv.ParseFloat(l, 64)
		if err != nil {
			return nil, "Enter a number."
		}
		return x, ""
	}
	return l, ""
}

func (a *Answerer) sample(ctx context.Context, r *client.Request) error {
	p := r.Sampling
	a.printf("\nThe server asks%s for a model reply (sampling, up to %s).\n", forTask(r), plural.Count(p.MaxTokens, "token", "tokens"))
	if p.SystemPrompt != "" {
		a.printf("[system] %s\n", p.SystemPrompt)
	}
	for _, m := range p.Messages {
		for _, c := range m.Content {
			text := c.Text
			if c.Type != mcp.ContentTypeText {
				text = "(" + c.Type + " content)"
			}
			a.printf("[%s] %s\n", string(m.Role), text)
		}
	}
	a.printf("Type the reply as the model (an empty line refuses): ")
	l, err := a.readLine(ctx)
	if err != nil {
		return err
	}
	if strings.TrimSpace(l) == "" {
		a.resumeNow()
		return r.Refuse("the user refused the sampling request")
	}
	a.resumeNow()
	return r.Respond(&mcp.CreateMessageResult{
		Role:       mcp.RoleAssistant,
		Content:    []mcp.Content{mcp.TextContent(l)},
		Model:      "mcpi-user",
		StopReason: mcp.StopReasonEndTurn,
	})
}

// forTask names the task a request belongs to, if any, and the task it runs as, if the
// server runs it as one: " (for task ID)", " (as task ID, which the server polls)".
func forTask(r *client.Request) string {
	var parts []string
	if r.RelatedTask != "" {
		parts = append(parts, "for task "+r.RelatedTask)
	}
	if r.Task != "" {
		parts = append(parts, "as task "+r.Task+", which the server polls")
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, "; ") + ")"
}
