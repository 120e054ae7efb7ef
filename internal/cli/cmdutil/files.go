package cmdutil

import (
	"fmt"
	"io"
	"os"
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
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, &FileTooLargeError{Limit: limit}
	}
	return data, nil
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
	return fmt.Sprintf("%d bytes", n)
}
