//go:build unix

package state

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// lockDir takes an exclusive advisory lock (flock) on dir, waiting for it, and returns
// what releases it. The lock is the directory's, not a file's: the state file is replaced
// by renaming, so a lock on it would not be shared by the next reader, and a lock file
// would be one more file in the directory. A file system without flock (some network
// mounts) gets no lock, rather than no state file.
func lockDir(dir string) (unlock func(), err error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	for {
		err = unix.Flock(int(f.Fd()), unix.LOCK_EX)
		if !errors.Is(err, unix.EINTR) {
			break
		}
	}
	switch {
	case errors.Is(err, unix.ENOLCK), errors.Is(err, unix.EOPNOTSUPP), errors.Is(err, unix.ENOSYS):
	case err != nil:
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil // closing the last descriptor releases the lock
}
