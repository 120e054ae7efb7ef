// Package iostreams holds the standard streams of the mcpi CLI and the one place that
// decides whether they are terminals. Commands write to Out and ErrOut and ask
// IsStdoutTTY or CanPrompt, never os.Stdout; tests use [Test] and buffers.
package iostreams

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"syscall"

	"github.com/charmbracelet/x/ansi"
	"golang.org/x/term"

	"github.com/mcpi-dev/mcpi/internal/look"
)

// IOStreams are the streams a command reads and writes.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer

	stdinTTY, stdoutTTY, stderrTTY bool
	width                          int

	status statusLine
}

// closedGuard is the process's standard output, whose closing by its reader (a
// script's "| head -1") is told to onClosed, once, rather than killing mcpi with SIGPIPE
// or failing each write: the command winds down as on Ctrl-C (a followed task is
// recorded), and what it still writes is dropped.
type closedGuard struct {
	f        *os.File
	mu       sync.Mutex
	closed   bool
	onClosed func()
}

func (g *closedGuard) Write(p []byte) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return len(p), nil
	}
	n, err := g.f.Write(p)
	if errors.Is(err, syscall.EPIPE) {
		g.closed = true
		if g.onClosed != nil {
			g.onClosed()
		}
		return len(p), nil
	}
	return n, err
}

// Fd, Read and Close are the file's: a terminal UI given the guard as its output
// finds the terminal behind it (the charm libraries look for a term.File), where it
// drew nothing, taking it for a pipe of unknown size.
func (g *closedGuard) Fd() uintptr                { return g.f.Fd() }
func (g *closedGuard) Read(p []byte) (int, error) { return g.f.Read(p) }
func (g *closedGuard) Close() error               { return g.f.Close() }

// OnOutputClosed has f called, once, when the reader of the process's standard output
// closes it. Only the streams of [System] watch for it; mcpi must also keep SIGPIPE from
// killing it (the main package notifies it), or the write never returns.
func (s *IOStreams) OnOutputClosed(f func()) {
	if g, ok := s.Out.(*closedGuard); ok {
		g.mu.Lock()
		g.onClosed = f
		g.mu.Unlock()
	}
}

// statusLine is the one line on ErrOut that a live view redraws in place.
type statusLine struct {
	mu        sync.Mutex
	text      string
	shown     bool
	suspended int
	// kept is a line to end with a newline once the prompt that suspended it is done.
	kept bool
	// held are the notes written while a prompt had the terminal, to be written once it
	// is done, and skipped counts those left out past maxHeld.
	held    []string
	skipped int
}

// maxHeld bounds the notes held while a prompt has the terminal: a server may send log
// messages without end while the user thinks.
const maxHeld = 1000

// System returns the process's own streams.
func System() *IOStreams {
	return &IOStreams{
		In:        os.Stdin,
		Out:       &closedGuard{f: os.Stdout},
		ErrOut:    os.Stderr,
		stdinTTY:  isTerminal(os.Stdin),
		stdoutTTY: isTerminal(os.Stdout),
		stderrTTY: isTerminal(os.Stderr),
	}
}

// Test returns streams over buffers, none of them a terminal, and the buffers.
func Test() (ios *IOStreams, in, out, errOut *bytes.Buffer) {
	in, out, errOut = &bytes.Buffer{}, &bytes.Buffer{}, &bytes.Buffer{}
	return &IOStreams{In: in, Out: out, ErrOut: errOut}, in, out, errOut
}

// IsStdinTTY reports whether In is a terminal.
func (s *IOStreams) IsStdinTTY() bool { return s.stdinTTY }

// IsStdoutTTY reports whether Out is a terminal.
func (s *IOStreams) IsStdoutTTY() bool { return s.stdoutTTY }

// IsStderrTTY reports whether ErrOut is a terminal.
func (s *IOStreams) IsStderrTTY() bool { return s.stderrTTY }

// SetStdinTTY overrides terminal detection for In (tests).
func (s *IOStreams) SetStdinTTY(v bool) { s.stdinTTY = v }

// SetStdoutTTY overrides terminal detection for Out (tests).
func (s *IOStreams) SetStdoutTTY(v bool) { s.stdoutTTY = v }

// SetStderrTTY overrides terminal detection for ErrOut (tests).
func (s *IOStreams) SetStderrTTY(v bool) { s.stderrTTY = v }

// CanPrompt reports whether the user can be asked questions: the questions go to ErrOut
// and the answers come from In, so both must be a terminal.
func (s *IOStreams) CanPrompt() bool { return s.stdinTTY && s.stderrTTY }

// isTerminal reports whether f is a terminal (a character device such as /dev/null is
// not).
func isTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }

// TerminalWidth returns the width of the terminal Out is, or 0 when Out is not a
// terminal (or its width is unknown): then output need not fit any width.
func (s *IOStreams) TerminalWidth() int {
	if !s.stdoutTTY {
		return 0
	}
	return s.widthOf(s.Out)
}

// SetTerminalWidth overrides the terminal width (tests).
func (s *IOStreams) SetTerminalWidth(w int) { s.width = w }

// widthOf is the width of the terminal w is (80 when unknown), asked at each call so that
// a resized window is followed.
func (s *IOStreams) widthOf(w io.Writer) int {
	if s.width > 0 {
		return s.width
	}
	if g, ok := w.(*closedGuard); ok {
		w = g.f
	}
	if f, ok := w.(*os.File); ok {
		if cols, _, err := term.GetSize(int(f.Fd())); err == nil && cols > 0 {
			return cols
		}
	}
	return 80
}

// SetStatusLine draws text as the status line on ErrOut, replacing the one shown. It
// only draws when ErrOut is a terminal, and holds the text back while a prompt has the
// terminal (see [IOStreams.SuspendStatusLine]). The text, which shows what servers say,
// is drawn as [look.Safe] shows it: a carriage return or an escape sequence in it would
// break the line or drive the terminal. It is cut to the terminal's width: a line that
// wrapped could not be redrawn in place, and each redraw would leave a line behind.
func (s *IOStreams) SetStatusLine(text string) {
	if !s.stderrTTY {
		return
	}
	st := &s.status
	st.mu.Lock()
	defer st.mu.Unlock()
	st.text = ansi.Truncate(look.Safe(text), s.widthOf(s.ErrOut)-1, "…")
	if st.suspended > 0 {
		return
	}
	fmt.Fprintf(s.ErrOut, "\r\033[K%s", st.text)
	st.shown = true
}

// Note writes line to stderr above the status line, which is drawn again below it: a
// line written while the status line shows would run on from its end. While a prompt has
// the terminal (see [IOStreams.SuspendStatusLine]) the line is held, and written when the
// prompt is done: written then, it would run on from the question, and push it away.
func (s *IOStreams) Note(line string) {
	st := &s.status
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.suspended > 0 {
		if len(st.held) < maxHeld {
			st.held = append(st.held, line)
		} else {
			st.skipped++
		}
		return
	}
	if st.shown {
		fmt.Fprint(s.ErrOut, "\r\033[K")
	}
	fmt.Fprintln(s.ErrOut, line)
	if st.shown {
		fmt.Fprint(s.ErrOut, st.text)
	}
}

// ClearStatusLine erases the status line and forgets it.
func (s *IOStreams) ClearStatusLine() {
	st := &s.status
	st.mu.Lock()
	defer st.mu.Unlock()
	st.text, st.kept = "", false
	if st.shown {
		fmt.Fprint(s.ErrOut, "\r\033[K")
		st.shown = false
	}
}

// KeepStatusLine ends the status line with a newline, so it stays on the screen, and
// forgets it. While a prompt has the terminal, that happens when the prompt is done: the
// last state of a task must not be lost to a question asked just before it ended.
func (s *IOStreams) KeepStatusLine() {
	st := &s.status
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.suspended > 0 {
		st.kept = st.text != ""
		return
	}
	if st.shown {
		fmt.Fprintln(s.ErrOut)
		st.shown = false
	}
	st.text = ""
}

// SuspendStatusLine erases the status line while something else (a question to the
// user) writes on ErrOut; resume draws it again.
func (s *IOStreams) SuspendStatusLine() (resume func()) {
	st := &s.status
	st.mu.Lock()
	st.suspended++
	if st.shown {
		fmt.Fprint(s.ErrOut, "\r\033[K")
		st.shown = false
	}
	st.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			st.mu.Lock()
			defer st.mu.Unlock()
			st.suspended--
			if st.suspended > 0 {
				return
			}
			st.flushHeld(s.ErrOut)
			if st.text == "" || !s.stderrTTY {
				return
			}
			fmt.Fprintf(s.ErrOut, "\r\033[K%s", st.text)
			st.shown = true
			if st.kept {
				fmt.Fprintln(s.ErrOut)
				st.shown, st.kept, st.text = false, false, ""
			}
		})
	}
}

// flushHeld writes the notes held while a prompt had the terminal; st.mu is held, and
// the status line is not shown.
func (st *statusLine) flushHeld(w io.Writer) {
	for _, l := range st.held {
		fmt.Fprintln(w, l)
	}
	if st.skipped > 0 {
		fmt.Fprintf(w, "(%d more lines came while mcpi asked; they were left out)\n", st.skipped)
	}
	st.held, st.skipped = nil, 0
}
