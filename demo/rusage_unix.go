//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package demo

import (
	"runtime"
	"syscall"
)

// maxRSSKiB returns the process's peak resident set size in KiB, from getrusage(2).
func maxRSSKiB() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	rss := int64(ru.Maxrss)
	if runtime.GOOS == "darwin" {
		rss /= 1024 // bytes there, KiB elsewhere
	}
	return rss
}
