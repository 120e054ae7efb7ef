package bench

import (
	"encoding/json"
	"math"
	"slices"
)

// A Summary of no passes has a NaN median; [Summary.MarshalJSON] writes it as null.

// Summary is a figure over several passes: the median and the spread.
type Summary struct {
	Median float64   `json:"median"`
	Min    float64   `json:"min"`
	Max    float64   `json:"max"`
	Passes []float64 `json:"passes"`
}

// Summarize returns the median, min and max of xs.
func Summarize(xs []float64) Summary {
	if len(xs) == 0 {
		return Summary{Median: math.NaN(), Min: math.NaN(), Max: math.NaN(), Passes: []float64{}}
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	med := s[len(s)/2]
	if len(s)%2 == 0 {
		med = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return Summary{Median: med, Min: s[0], Max: s[len(s)-1], Passes: xs}
}

// Spread is (max-min)/median, as a fraction.
func (s Summary) Spread() float64 {
	if s.Median == 0 || math.IsNaN(s.Median) {
		return math.NaN()
	}
	return (s.Max - s.Min) / s.Median
}

// MarshalJSON writes a Summary of no passes with null figures (JSON has no NaN).
func (s Summary) MarshalJSON() ([]byte, error) {
	type plain struct {
		Median *float64  `json:"median"`
		Min    *float64  `json:"min"`
		Max    *float64  `json:"max"`
		Passes []float64 `json:"passes"`
	}
	p := plain{Passes: s.Passes}
	if !math.IsNaN(s.Median) {
		p.Median, p.Min, p.Max = &s.Median, &s.Min, &s.Max
	}
	return json.Marshal(p)
}
