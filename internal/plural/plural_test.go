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

func TestWord(t *testing.T) {
	for n, want := range map[int]string{0: "were", 1: "was", 2: "were"} {
		if got := Word(n, "was", "were"); got != want {
			t.Errorf("Word(%d) = %q, want %q", n, got, want)
		}
	}
}
