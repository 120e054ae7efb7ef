package transport

import (
	"io"
	"syscall"
	"unsafe"
)

// pipeRoom returns, for a writer that is a pipe, a function that reports whether a write
// of n bytes to it would return at once; nil for any other writer, whose writes cannot
// be judged without making them.
//
// A pipe's write of at most PIPE_BUF bytes blocks only when the pipe has no room for all
// of it; the room is judged from the bytes still unread (FIONREAD, which Linux answers
// on either end) against the pipe's capacity (F_GETPIPE_SZ). The kernel keeps a pipe's
// bytes in pages, up to capacity/4096 of them, and merges small writes into the last
// one: with at most one page unread and a message of at most one page, three pages at
// most are taken, so the judgement holds for a pipe of four pages or more.
func pipeRoom(w io.Writer) func(n int) bool {
	f, ok := w.(syscall.Conn) // an *os.File, or one that wraps it
	if !ok {
		return nil
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return nil
	}
	var fifo bool
	var capacity uintptr
	if rc.Control(func(fd uintptr) {
		var st syscall.Stat_t
		if syscall.Fstat(int(fd), &st) != nil || st.Mode&syscall.S_IFMT != syscall.S_IFIFO {
			return
		}
		c, _, errno := syscall.Syscall(syscall.SYS_FCNTL, fd, fGetPipeSz, 0)
		fifo, capacity = errno == 0, c
	}) != nil || !fifo || capacity < 4*pipePage {
		return nil
	}
	return func(n int) bool {
		if n > pipePage {
			return false
		}
		room := false
		_ = rc.Control(func(fd uintptr) {
			var unread int32
			_, _, errno := syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TIOCINQ, uintptr(unsafe.Pointer(&unread)))
			room = errno == 0 && unread >= 0 && unread <= pipePage
		})
		return room
	}
}

const (
	fGetPipeSz = 1032 // F_GETPIPE_SZ, which package syscall does not name
	pipePage   = 4096 // PIPE_BUF, and the size of a page of a pipe
)
