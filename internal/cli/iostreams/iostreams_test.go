package iostreams

import (
	"io"
	"strings"
	"testing"
)

// The status line is cut to the terminal's width by what the terminal shows (a wide
// character takes two columns, an escaped control character its escape), so that it
// never wraps: a wrapped line cannot be redrawn in place. It is cut between grapheme
// clusters (an accent stays on its letter, an emoji sequence whole) and never inside an
// escape sequence, as look.Safe has shown every one, C1 controls too, before the cut.
func TestStatusLineFitsTheTerminal(t *testing.T) {
	for _, c := range []struct{ name, text, want string }{
		{"short", "progress 1/5", "progress 1/5"},
		{"long", strings.Repeat("abcdefghij", 3), "abcdefghijabcdefgh…"},
		{"wide", strings.Repeat("日本", 10), "日本日本日本日本日…"},
		{"escapes", "a\x1b[31mred" + strings.Repeat("x", 30), "a␛[31mredxxxxxxxxx…"},
		{"C1 CSI", "a\u009b31mred" + strings.Repeat("x", 30), "a\\u009b31mredxxxxx…"},
		{"clusters", strings.Repeat("e\u0301👩\u200d👧", 10), strings.Repeat("e\u0301👩\u200d👧", 6) + "…"},
		{"wide at the edge", "a" + strings.Repeat("日", 20), "a" + strings.Repeat("日", 8) + "…"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ios, _, _, errOut := Test()
			ios.SetStderrTTY(true)
			ios.SetTerminalWidth(20)
			ios.SetStatusLine(c.text)
			got, ok := strings.CutPrefix(errOut.String(), "\r\x1b[K")
			if !ok || got != c.want {
				t.Fatalf("drew %q, want %q", errOut.String(), c.want)
			}
		})
	}
}

// A note goes above the status line, which is drawn again below it (a note written after
// it ran on from the status line's end); without a status line it is a line.
func TestNoteAboveTheStatusLine(t *testing.T) {
	ios, _, _, errOut := Test()
	ios.SetStderrTTY(true)
	ios.SetTerminalWidth(40)
	ios.SetStatusLine("working 1/5")
	errOut.Reset()
	ios.Note("The server runs the call as task t1.")
	if got, want := errOut.String(), "\r\x1b[KThe server runs the call as task t1.\nworking 1/5"; got != want {
		t.Errorf("wrote %q, want %q", got, want)
	}
	ios.ClearStatusLine()
	errOut.Reset()
	ios.Note("plain")
	if got := errOut.String(); got != "plain\n" {
		t.Errorf("without a status line: %q", got)
	}
}

// A note written while a prompt has the terminal (a server's log line, say) is held and
// written once the prompt is done: written at once, it would run on from the question
// and push it off the screen. Past the bound, the notes left out are counted.
func TestNotesHeldWhilePrompting(t *testing.T) {
	ios, _, _, errOut := Test()
	ios.SetStderrTTY(true)
	ios.SetTerminalWidth(40)
	ios.SetStatusLine("working")
	resume := ios.SuspendStatusLine()
	ios.Note("server info (sleeper): second 5")
	errOut.WriteString("Cancel the task? [c/l] ") // the prompt writes its question itself
	if got, want := errOut.String(), "\r\x1b[Kworking\r\x1b[KCancel the task? [c/l] "; got != want {
		t.Fatalf("while prompting: %q, want %q", got, want)
	}
	errOut.WriteString("l\n") // the terminal echoes the answer
	resume()
	if got, want := errOut.String(), "\r\x1b[Kworking\r\x1b[KCancel the task? [c/l] l\nserver info (sleeper): second 5\n\r\x1b[Kworking"; got != want {
		t.Fatalf("after the prompt: %q, want %q", got, want)
	}

	errOut.Reset()
	resume = ios.SuspendStatusLine()
	for i := range maxHeld + 3 {
		ios.Note(strings.Repeat("x", i%3))
	}
	resume()
	if got := errOut.String(); strings.Count(got, "\n") != maxHeld+1 || !strings.Contains(got, "(3 more lines came while mcpi asked; they were left out)\n") {
		t.Errorf("after a flood: %d lines, ending %q", strings.Count(got, "\n"), got[max(0, len(got)-80):])
	}
}

// The standard output of System, which watches for its reader going away, is still seen
// as the terminal it writes to by what looks for one (bubbletea wants a term.File): the
// terminal UI drew nothing through it.
func TestSystemOutputIsAFile(t *testing.T) {
	if _, ok := System().Out.(interface {
		io.ReadWriteCloser
		Fd() uintptr
	}); !ok {
		t.Fatalf("System().Out is a %T, which has no file descriptor", System().Out)
	}
}
