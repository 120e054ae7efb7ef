// Package plural says a count of things in a sentence with the noun that agrees with it
// ("1 attempt", "2 attempts"). It is the one copy every layer uses, the transport's
// errors as much as the front ends' lines.
package plural

import "strconv"

// Count says n things: "1 " + one when n is 1, else n and many ("0 tasks", "2 tasks").
func Count[N ~int | ~int64](n N, one, many string) string {
	return strconv.FormatInt(int64(n), 10) + " " + Word(n, one, many)
}

// Word is the word that agrees with a count of n: one when n is 1, else many ("was" or
// "were", "it" or "them").
func Word[N ~int | ~int64](n N, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
