package cmdutil

import (
	"bytes"
	"fmt"
	"io"
	"os"

	"github.com/mcpi-dev/mcpi/internal/plural"
)

// FileTooLargeError is a file that mcpi refused to read whole: it holds more than Limit
// bytes, or never ends (a device such as /dev/zero).
type FileTooLargeError struct{ Limit int64 }

func (e *FileTooLargeError) Error() string {
	return fmt.Sprintf("it is too large (over %s)", Size(e.Limit))
}

// ReadFile reads file as os.ReadFile does, but no more than limit bytes: a larger file
// is a [*FileTooLargeError], so that no file named on the command line can exhaust
// memory.
func ReadFile(file string, limit int64) ([]byte, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// A regular file is read into a buffer of its size, in one read: growing one from
	// nothing copies a file of 100 KB several times (every command reads eras.json).
	var size int64
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		size = fi.Size()
	}
	if size > limit {
		return nil, &FileTooLargeError{Limit: limit}
	}
	buf := bytes.NewBuffer(make([]byte, 0, size+bytes.MinRead))
	if _, err := buf.ReadFrom(io.LimitReader(f, limit+1)); err != nil {
		return nil, err
	}
	if int64(buf.Len()) > limit {
		return nil, &FileTooLargeError{Limit: limit}
	}
	return buf.Bytes(), nil
}

// Size renders a count of bytes in the largest binary unit that divides it: "4 MiB",
// "512 KiB", "1000 bytes".
func Size(n int64) string {
	for _, u := range []struct {
		n    int64
		name string
	}{{1 << 30, "GiB"}, {1 << 20, "MiB"}, {1 << 10, "KiB"}} {
		if n >= u.n && n%u.n == 0 {
			return fmt.Sprintf("%d %s", n/u.n, u.name)
		}
	}
	return plural.Count(n, "byte", "bytes")
}
