// Package plural says a count of things in a sentence with the noun that agrees with it
// ("1 attempt", "2 attempts"). It is the one copy every layer uses, the transport's
// errors as much as the front ends' lines.
package plural

import "strconv"

// Count says n things: "1 " + one when n is 1, else n and many ("0 tasks", "2 tasks").
func Count[N ~int | ~int64](n N, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.FormatInt(int64(n), 10) + " " + many
}
