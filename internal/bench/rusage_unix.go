//go:build unix

package bench

import (
	"os"
	"runtime"
	"syscall"
	"time"
)

// SelfMaxRSSKiB is this process's peak resident set size in KiB (getrusage(2)).
func SelfMaxRSSKiB() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return kib(ru.Maxrss)
}

// ChildMaxRSSKiB is the peak resident set size of an exited child in KiB, as wait4(2)
// reports it: the largest of the child and the descendants it waited for.
func ChildMaxRSSKiB(ps *os.ProcessState) int64 {
	if ps == nil {
		return 0
	}
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok || ru == nil {
		return 0
	}
	return kib(ru.Maxrss)
}

// SelfCPU is the CPU time (user and system) this process has used.
func SelfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func kib(maxrss int64) int64 {
	if runtime.GOOS == "darwin" {
		return maxrss / 1024 // bytes there, KiB elsewhere
	}
	return maxrss
}
