package shared

import (
	"strings"
	"testing"
)

// What a 2026-07-28 listing left out is counted in sentences whose grammar fits the
// count.
func TestRecordedReport(t *testing.T) {
	tests := []struct {
		r    Recorded
		want string
	}{
		{Recorded{}, ""},
		{Recorded{OtherEra: 1, Other: "2025-11-25", Older: 1, Gone: 1},
			`1 more task recorded for it was created in protocol 2025-11-25 and can be reached only in it: "mcpi tasks list --local" lists it, and "mcpi tasks result ID" fetches one.` + "\n" +
				`1 older task recorded for it is not asked for ("mcpi tasks list --local" lists it).` + "\n" +
				"1 task recorded for it the server no longer knows (it expired, or the server restarted): forgotten.\n"},
		{Recorded{OtherEra: 2, Other: "2025-11-25", Older: 3, Gone: 4},
			`2 more tasks recorded for it were created in protocol 2025-11-25 and can be reached only in it: "mcpi tasks list --local" lists them, and "mcpi tasks result ID" fetches one.` + "\n" +
				`3 older tasks recorded for it are not asked for ("mcpi tasks list --local" lists them).` + "\n" +
				"4 tasks recorded for it the server no longer knows (they expired, or the server restarted): forgotten.\n"},
	}
	for _, tt := range tests {
		var b strings.Builder
		tt.r.Report(&b)
		if b.String() != tt.want {
			t.Errorf("%+v:\n got %q\nwant %q", tt.r, b.String(), tt.want)
		}
	}
}
