package cmdutil

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// PrintJSON writes v as indented JSON and a newline: the machine output of --json.
func PrintJSON(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// Table prints rows in aligned columns under a header.
type Table struct {
	w *tabwriter.Writer
}

// NewTable starts a table with the given column headers.
func NewTable(w io.Writer, headers ...string) *Table {
	t := &Table{w: tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)}
	t.Row(headers...)
	return t
}

// Row adds a row; tabs and newlines in cells are flattened to spaces.
func (t *Table) Row(cells ...string) {
	for i, c := range cells {
		cells[i] = strings.Map(func(r rune) rune {
			if r == '\t' || r == '\n' || r == '\r' {
				return ' '
			}
			return r
		}, c)
	}
	fmt.Fprintln(t.w, strings.Join(cells, "\t"))
}

// Flush writes the table.
func (t *Table) Flush() error { return t.w.Flush() }

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
