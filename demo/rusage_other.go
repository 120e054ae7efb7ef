//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package demo

// maxRSSKiB is 0 where getrusage(2) is not available.
func maxRSSKiB() int64 { return 0 }
