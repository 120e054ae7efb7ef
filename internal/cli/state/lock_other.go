//go:build !unix

package state

import "sync"

// dirLock serialises the writers of one process where flock does not exist.
var dirLock sync.Mutex

// lockDir locks the state directory against the other writers of this process.
func lockDir(string) (unlock func(), err error) {
	dirLock.Lock()
	return dirLock.Unlock, nil
}
