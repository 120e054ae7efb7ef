//go:build !linux

package transport

import "io"

// pipeRoom is nil where a pipe's room cannot be read (see room_linux.go): every write
// then goes through [Stream.Write].
func pipeRoom(io.Writer) func(n int) bool { return nil }
