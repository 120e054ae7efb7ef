//go:build !unix

package bench

import (
	"os"
	"time"
)

// SelfMaxRSSKiB is not measured on this system.
func SelfMaxRSSKiB() int64 { return 0 }

// ChildMaxRSSKiB is not measured on this system.
func ChildMaxRSSKiB(*os.ProcessState) int64 { return 0 }

// SelfCPU is not measured on this system.
func SelfCPU() time.Duration { return 0 }
