package look

import (
	"math"
	"testing"
)

// A progress notification's numbers are the server's: a total that is no positive finite
// number is no total, a progress beyond the total is the total reached, and a number too
// long for its room is written shorter (1.2e+08), never cut so that it reads as another.
func TestProgress(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	for _, tt := range []struct {
		progress float64
		total    *float64
		width    int
		want     string
	}{
		{2, f(4), 20, "2/4"},
		{7, nil, 20, "7"},
		{0.5, nil, 20, "0.5"},
		{1e300, f(-1), 20, "1e+300"},
		{1e300, f(-1), 6, "1e+300"},
		{5, f(0), 20, "5"},
		{5, f(math.Inf(1)), 20, "5"},
		{9, f(4), 20, "4/4"},
		{1e300, f(10), 20, "10/10"},
		{1.5, f(3), 20, "50%"},
		{123456, f(1000000), 6, "12%"},
		{123456, f(1000000), 20, "123456/1000000"},
		{123456789, nil, 6, "1e+08"},
		{123456789, nil, 20, "123456789"},
		{123456789, nil, 8, "1.23e+08"},
		{10000.7, nil, 6, "10001"},
		{3.14159, nil, 6, "3.1416"},
		{-3, nil, 20, "0"},
		{math.NaN(), f(2), 20, "0/2"},
	} {
		if got := Progress(tt.progress, tt.total, tt.width); got != tt.want {
			t.Errorf("Progress(%v, %v, %d) = %q, want %q", tt.progress, deref(tt.total), tt.width, got, tt.want)
		}
	}
}

func deref(f *float64) any {
	if f == nil {
		return nil
	}
	return *f
}
