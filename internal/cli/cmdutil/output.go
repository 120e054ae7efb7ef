package cmdutil

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"strings"
	"unicode/utf8"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/internal/look"
)

// PrintJSON writes v as indented JSON and a newline: the machine output of --json. What
// a terminal would obey or what disguises text is escaped ([look.SafeJSON]): the JSON
// reads the same, and may be printed.
func PrintJSON(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", look.SafeJSON(b))
	return err
}

// Table prints rows in aligned columns under a header. With a width, the last column
// is cut to fit it.
type Table struct {
	w     io.Writer
	width int
	rows  [][]string
}

// NewTable starts a table with the given column headers. width is the terminal's width,
// or 0 when output is not a terminal (nothing is cut).
func NewTable(w io.Writer, width int, headers ...string) *Table {
	t := &Table{w: w, width: width}
	t.Row(headers...)
	return t
}

// Row adds a row. Tabs and line breaks in cells are flattened to spaces; any other
// control character (a cell is mostly a server's text) is shown as [look.Safe] shows
// it, so that no cell can drive the terminal.
func (t *Table) Row(cells ...string) {
	row := make([]string, len(cells))
	for i, c := range cells {
		row[i] = look.Safe(strings.Map(func(r rune) rune {
			if r == '\t' || r == '\n' {
				return ' '
			}
			return r
		}, strings.ReplaceAll(c, "\r\n", "\n")))
	}
	t.rows = append(t.rows, row)
}

// Flush writes the table.
func (t *Table) Flush() error {
	var widths []int
	for _, row := range t.rows {
		for i, c := range row {
			if i >= len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	const gap = 2
	var b strings.Builder
	for _, row := range t.rows {
		used := 0
		for i, c := range row {
			if i == len(row)-1 {
				if t.width > 0 && used+utf8.RuneCountInString(c) > t.width {
					c = truncate(c, max(t.width-used, 10))
				}
				b.WriteString(c)
				break
			}
			b.WriteString(c)
			pad := widths[i] - utf8.RuneCountInString(c) + gap
			b.WriteString(strings.Repeat(" ", pad))
			used += widths[i] + gap
		}
		b.WriteByte('\n')
	}
	t.rows = nil
	_, err := io.WriteString(t.w, b.String())
	return err
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// FirstLine returns the first non-empty line of s, trimmed.
func FirstLine(s string) string {
	for line := range strings.Lines(s) {
		if l := strings.TrimSpace(line); l != "" {
			return l
		}
	}
	return ""
}

// OrDash returns s, or "-" when it is empty, so a table column never looks missing.
func OrDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// Collect gathers the items of a listing; the slice is never nil, so that --json prints
// [] for an empty list. A listing that stopped at mcpi's own bound
// (--max-pages, --max-items: a *client.ListLimitError) returns the items it listed with
// the error, as they are worth printing before the sentence that says where it stopped
// ([ListingStopped]); any other error returns none.
func Collect[T any](seq iter.Seq2[T, error]) ([]T, error) {
	out := []T{}
	for item, err := range seq {
		if err != nil {
			if ListingStopped(err) {
				return out, err
			}
			return nil, err
		}
		out = append(out, item)
	}
	return out, nil
}

// ListingStopped reports whether err is a listing's stop at mcpi's own bound, after
// which a command prints what was listed and then fails with err.
func ListingStopped(err error) bool {
	var limit *client.ListLimitError
	return errors.As(err, &limit)
}

// Listed is a listing command's outcome once its items are printed: the printing's
// error, else stopped, the listing's stop at a bound (or nil).
func Listed(printed, stopped error) error {
	if printed != nil {
		return printed
	}
	return stopped
}

// RedactURL is [look.RedactURL]: a password and the query's values as "xxxxx".
func RedactURL(u string) string { return look.RedactURL(u) }
