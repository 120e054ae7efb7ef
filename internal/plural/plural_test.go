package plural

import "testing"

func TestCount(t *testing.T) {
	for _, c := range []struct {
		n    int
		want string
	}{
		{0, "0 attempts"},
		{1, "1 attempt"},
		{2, "2 attempts"},
		{-1, "-1 attempts"},
	} {
		if got := Count(c.n, "attempt", "attempts"); got != c.want {
			t.Errorf("Count(%d) = %q, want %q", c.n, got, c.want)
		}
	}
}
