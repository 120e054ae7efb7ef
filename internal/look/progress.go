package look

import (
	"math"
	"strconv"
	"strings"
)

// Progress words a progress notification's numbers in at most width cells where it can:
// "2/4" while that fits, else the share done, "50%", or without a total the progress
// alone. The numbers are a server's, of any size: a total that is not a positive finite
// number is taken for none (a total of -1 is no total), a progress beyond the total for
// the total reached, and a progress below 0 or not a number for 0. A number too long for
// width is written shorter ([Number]), never cut, which would make 100000 read as 10000.
func Progress(progress float64, total *float64, width int) string {
	if math.IsNaN(progress) || progress < 0 {
		progress = 0
	}
	if total == nil || !(*total > 0) || math.IsInf(*total, 1) {
		return Number(progress, width)
	}
	t := *total
	progress = min(progress, t)
	// A share of whole numbers reads as counted steps (3/10); of others, as a percentage.
	if progress == math.Trunc(progress) && t == math.Trunc(t) {
		if s := Number(progress, 0) + "/" + Number(t, 0); len(s) <= width {
			return s
		}
	}
	return strconv.Itoa(int(math.Floor(100*progress/t))) + "%"
}

// Number writes f in at most width bytes where it can (width 0 is no bound): as it is
// (12.5, 100000), else rounded to fewer decimals (3.1416), else in e-notation with as
// many digits as fit (1.23e+08, 1e+300). It never cuts digits off, so that what it
// shows is f, or f rounded.
func Number(f float64, width int) string {
	exact := strconv.FormatFloat(f, 'f', -1, 64)
	if width <= 0 && math.Abs(f) < 1e21 {
		return exact
	}
	if len(exact) <= width {
		return exact
	}
	if math.Abs(f) < 1e6 {
		for prec := 4; prec >= 0; prec-- {
			s := strconv.FormatFloat(f, 'f', prec, 64)
			if strings.Contains(s, ".") {
				s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
			}
			if len(s) <= width {
				return s
			}
		}
	}
	// The shortest e-notation that is f, then fewer digits.
	var e string
	for _, prec := range []int{-1, 2, 1, 0} {
		e = strconv.FormatFloat(f, 'e', prec, 64)
		if m, exp, ok := strings.Cut(e, "e"); ok && strings.Contains(m, ".") {
			e = strings.TrimRight(strings.TrimRight(m, "0"), ".") + "e" + exp
		}
		if len(e) <= width {
			break
		}
	}
	return e
}
