package form

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
)

// numbers is "0,1,...,n-1".
func numbers(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprint(&b, i)
	}
	return b.String()
}

// A server's schema of a few hundred kilobytes builds its form at once: a long required
// list over many properties, a large default beside a long enum, and a long default
// list beside a long list of choices each cost a product of the two (hours), and the
// Tools view builds the fields of the selected tool as it draws it. The deadline is a
// liveness bound, far above what the work takes.
func TestFromSchemaOfHostileSizes(t *testing.T) {
	var props, req strings.Builder
	for i := range 50_000 {
		if i > 0 {
			props.WriteByte(',')
			req.WriteByte(',')
		}
		fmt.Fprintf(&props, `"p%d":{}`, i)
		fmt.Fprintf(&req, `"q%d"`, i)
	}
	for _, c := range []struct{ name, schema string }{
		{"required", `{"properties":{` + props.String() + `},"required":[` + req.String() + `]}`},
		{"enum default", `{"properties":{"a":{"enum":[` + numbers(100_000) + `],"default":[` + numbers(100_000) + `]}}}`},
		{"choices defaults", `{"properties":{"a":{"type":"array","items":{"enum":[` + numbers(50_000) + `]},"default":[` + numbers(50_000) + `]}}}`},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		done := make(chan []*Field, 1)
		go func() {
			fields, err := FromSchema(json.RawMessage(c.schema))
			if err != nil {
				t.Error(err)
			}
			done <- fields
		}()
		select {
		case fields := <-done:
			if c.name == "choices defaults" && (len(fields) != 1 || !fields[0].multi[49_999]) {
				t.Errorf("%s: the default choices are not chosen", c.name)
			}
		case <-ctx.Done():
			t.Errorf("%s: the form of a schema of %d bytes is not built after a minute", c.name, len(c.schema))
		}
		cancel()
	}
}

// A form is drawn at every key: drawing one of 20,000 fields (a server's schema of
// 20,000 properties) does the work of the fields on screen, not of all of them. The
// work is counted in allocations.
func TestViewOfManyFieldsDrawsWhatShows(t *testing.T) {
	work := func(n int) float64 {
		var props []string
		for i := range n {
			props = append(props, fmt.Sprintf(`"p%d":{"type":"string","description":"field %d"}`, i, i))
		}
		fields, err := FromSchema(json.RawMessage(`{"properties":{` + strings.Join(props, ",") + `}}`))
		if err != nil {
			t.Fatal(err)
		}
		f := New(fields, "Call")
		keys(f, "down", "down", "down")
		if !strings.Contains(ansi.Strip(f.View(80, 20)), "p3") {
			t.Fatalf("the focused field does not show:\n%s", ansi.Strip(f.View(80, 20)))
		}
		return testing.AllocsPerRun(5, func() { f.View(80, 20) })
	}
	small, large := work(30), work(20_000)
	if large > 2*small+200 {
		t.Errorf("drawing a form of 20,000 fields allocates %.0f times, of 30 fields %.0f", large, small)
	}
}
