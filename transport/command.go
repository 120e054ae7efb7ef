package transport

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mcpi-dev/mcpi/jsonrpc"
)

// Command is a [Transport] that starts an MCP server as a child process and speaks to it
// over its stdin and stdout. The child's stderr goes to Logger, and its last lines are
// quoted when the child exits, because that is where servers say why they failed.
//
// The connection's Close stops the server as MCP's stdio transport recommends: it
// closes the server's stdin, sends SIGTERM to its process group 2 s later if it has not
// exited, and SIGKILL 2 s after that; it returns within about 5 s, even when processes
// the server started hold its stdout or stderr, or left its group. What the server
// started and left in its group is sent SIGTERM once the server has exited.
//
// The connection also has a method CloseContext(ctx context.Context) error, which
// hurries that sequence once ctx has ended (SIGTERM at once, SIGKILL a tenth of a second
// later): a client whose Connect failed for its context's deadline closes it so.
type Command struct {
	Path string
	Args []string
	// Env is added to the current environment.
	Env []string
	Dir string
	// MaxMessageSize bounds one inbound message; 0 means [DefaultMaxMessageSize].
	MaxMessageSize int
	// MaxStrayLines and MaxStrayBytes bound the lines the server writes on its stdout that
	// are no JSON-RPC message (a banner, a log, a line over MaxMessageSize that is no
	// response) before its first message: past either, reading ends with [ErrStrayFlood],
	// and so does the connection, so that a handshake gives up at once on a server that
	// floods its stdout instead of speaking MCP; the server is then stopped without the
	// grace of an orderly end (SIGTERM at once, SIGKILL a tenth of a second later). 0 means
	// [DefaultMaxStrayLines] (1,000 lines) and [DefaultMaxStrayBytes] (1 MiB); negative
	// removes the bound. After the first message such lines are answered with an error
	// and skipped, without a bound.
	MaxStrayLines int
	MaxStrayBytes int
	Logger        *slog.Logger
}

// ErrServerExited is matched by the error of every read and write after the server
// process ended; that error is an [*ExitError], which says how.
var ErrServerExited = errors.New("the server process exited")

// ExitError is the end of a server process, as the reads and writes after it report it:
// how the process ended and the last lines it wrote to stderr, which is where servers say
// why they failed. It matches [ErrServerExited].
type ExitError struct {
	// Status is how the process ended, as the operating system puts it ("exit status 3",
	// "signal: killed"). It is empty when the process closed its output but had not
	// exited a grace period later.
	Status string
	// Stderr holds the last lines (at most three) the process wrote to stderr, oldest
	// first.
	Stderr []string
	// Err is the error behind the end, if any: what waiting for the process returned (an
	// [*exec.ExitError] for a status other than 0), or, when Status is empty, the error
	// of the read that found the output closed.
	Err error
}

func (e *ExitError) Error() string {
	var b strings.Builder
	b.WriteString(ErrServerExited.Error())
	switch {
	case e.Status != "":
		b.WriteString(" (" + e.Status + ")")
	case e.Err != nil:
		b.WriteString(": its output closed: " + e.Err.Error())
	default:
		b.WriteString(": its output closed")
	}
	if len(e.Stderr) > 0 {
		b.WriteString("; its last output: " + strings.Join(e.Stderr, " | "))
	}
	return b.String()
}

// Unwrap returns Err.
func (e *ExitError) Unwrap() error { return e.Err }

// Is reports whether target is [ErrServerExited], so that errors.Is finds the sentinel
// without it being in the chain.
func (e *ExitError) Is(target error) bool { return target == ErrServerExited }

// stderrLines is how many of the server's last stderr lines an [ExitError] quotes.
const stderrLines = 3

// processGrace is how long a server gets to exit after its stdin is closed (and again after
// SIGTERM), and how long a closed stdout waits for the exit status. Tests shorten it.
var processGrace = 2 * time.Second

// pipeGrace is how long the end of a server that has exited waits for the end of its
// stderr, which a process it started may hold open for as long as that one lives (a
// daemon, a "sleep &"): its last lines are written by then. It is shorter than
// processGrace, so that a read that found the output closed still gets the exit status.
var pipeGrace = processGrace / 4

// hurriedGrace is the time a server gets to stop after SIGTERM when the one who closes
// it cannot wait: see [process.CloseContext].
var hurriedGrace = 100 * time.Millisecond

// Connect starts the process.
func (c *Command) Connect(ctx context.Context) (jsonrpc.Connection, error) {
	if c.Path == "" {
		return nil, errors.New("transport: no server command given")
	}
	path, err := exec.LookPath(c.Path)
	if err != nil {
		return nil, fmt.Errorf("server command %q not found: %w", c.Path, err)
	}
	if c.Dir != "" {
		// Else a missing directory fails the start as "fork/exec PATH: no such file or
		// directory", which blames the command.
		if fi, err := os.Stat(c.Dir); err != nil {
			return nil, &fs.PathError{Op: "chdir", Path: c.Dir, Err: errors.Unwrap(err)}
		} else if !fi.IsDir() {
			return nil, &fs.PathError{Op: "chdir", Path: c.Dir, Err: syscall.ENOTDIR}
		}
	}
	cmd := exec.Command(path, c.Args...)
	cmd.Env = append(os.Environ(), c.Env...)
	cmd.Dir = c.Dir
	setProcessGroup(cmd)
	// Not cmd.StdinPipe: its writer is no *os.File, whose room a write can be judged by
	// (Stream.WriteNow), so that the client's reading goroutine can send a request
	// without waiting on a server that does not read.
	stdinR, stdinW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.Stdin = stdinR
	stdin := &closeOnceFile{File: stdinW}
	// Not cmd.StdoutPipe: Wait closes that pipe as soon as the process has exited, which
	// throws away whatever the server wrote just before exiting and we have not read yet.
	// With our own pipe, reads go on until the server's output ends.
	stdout, stdoutW, err := os.Pipe()
	if err != nil {
		stdinR.Close()
		stdinW.Close()
		return nil, err
	}
	cmd.Stdout = stdoutW
	// Not cmd.StderrPipe either: Wait would wait for the pipe's end, which a process the
	// server started may hold for as long as it lives; and exec's WaitDelay, which bounds
	// that, closes our end, so that such a process dies of SIGPIPE at its next log line,
	// though it may be the one serving (a launcher that exits and leaves its child).
	stderr, stderrW, err := os.Pipe()
	if err != nil {
		stdinR.Close()
		stdinW.Close()
		stdout.Close()
		stdoutW.Close()
		return nil, err
	}
	cmd.Stderr = stderrW
	err = cmd.Start()
	stdinR.Close() // the child has its own copies
	stdoutW.Close()
	stderrW.Close()
	if err != nil {
		stdinW.Close()
		stdout.Close()
		stderr.Close()
		return nil, fmt.Errorf("starting server %q: %w", c.Path, err)
	}
	log := c.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	p := &process{
		// The grace periods as they are now: the goroutines of a process may outlive its
		// Close, and a test may change the package's.
		processGrace: processGrace,
		pipeGrace:    pipeGrace,
		Stream:       NewStream(stdout, stdin, c.MaxMessageSize),
		cmd:          cmd,
		stdin:        stdin,
		stderr:       stderr,
		reaped:       make(chan struct{}),
		exited:       make(chan struct{}),
		tail:         &tailBuffer{max: stderrLines},
	}
	p.Stream.maxStrayLines = orDefault(c.MaxStrayLines, DefaultMaxStrayLines)
	p.Stream.maxStrayBytes = orDefault(c.MaxStrayBytes, DefaultMaxStrayBytes)
	stderrDone := make(chan struct{})
	go func() {
		defer close(stderrDone)
		readLines(stderr, maxStderrLine, func(line string) {
			p.tail.add(line)
			log.Debug("server stderr", "line", line)
		})
	}()
	go func() {
		p.waitErr = cmd.Wait()
		switch {
		case cmd.ProcessState != nil:
			p.status = cmd.ProcessState.String()
		case p.waitErr != nil:
			p.status = p.waitErr.Error()
		}
		close(p.reaped)
		// The last lines come with the end of stderr, unless a process the server
		// started holds it open.
		t := time.NewTimer(p.pipeGrace)
		select {
		case <-stderrDone:
		case <-t.C:
		}
		t.Stop()
		close(p.exited)
	}()
	return p, nil
}

type process struct {
	*Stream
	processGrace, pipeGrace time.Duration
	cmd                     *exec.Cmd
	stdin                   io.Closer
	stderr                  io.Closer
	// reaped is closed when the process has exited; exited, when its stderr has also
	// ended, or pipeGrace later.
	reaped chan struct{}
	exited chan struct{}
	// waitErr and status are set before reaped is closed.
	waitErr error
	status  string
	tail    *tailBuffer
	once    sync.Once
}

// Read reports the end of the child process, with its exit status and the tail of its
// stderr, instead of a bare EOF.
func (p *process) Read(ctx context.Context) (jsonrpc.Message, error) {
	m, err := p.Stream.Read(ctx)
	if err == nil {
		return m, nil
	}
	var de *jsonrpc.DecodeError
	if errors.As(err, &de) {
		return nil, err
	}
	if errors.Is(err, ErrStrayFlood) {
		// Given up on, the server is stopped as for a Connect whose time ran out: the
		// grace of an orderly end would outlast a short handshake bound, and the
		// handshake's failure would then be taken for a timeout.
		ended, cancel := context.WithCancel(context.Background())
		cancel()
		_ = p.CloseContext(ended)
		return nil, err
	}
	select {
	case <-p.exited:
	case <-time.After(p.processGrace):
		return nil, &ExitError{Stderr: p.tail.last(stderrLines), Err: err}
	}
	return nil, p.exitError()
}

// Write reports a server that exited, with its status and the tail of its stderr, instead
// of a bare broken pipe.
func (p *process) Write(ctx context.Context, m jsonrpc.Message) error {
	err := p.Stream.Write(ctx, m)
	var pe *fs.PathError
	if err == nil || !errors.As(err, &pe) {
		return err // written, or not encodable: the process has nothing to do with it
	}
	// The server closed its stdin, which it mostly does by exiting.
	select {
	case <-p.exited:
		return p.exitError()
	case <-time.After(p.processGrace):
		return err
	}
}

func (p *process) exitError() error {
	return &ExitError{Status: p.status, Stderr: p.tail.last(stderrLines), Err: p.waitErr}
}

// Close asks the server to stop by closing its stdin, then signals it if it lingers, as
// the MCP stdio shutdown sequence recommends: SIGTERM to its process group after a grace
// period, SIGKILL to the group after another. It returns within about two grace periods
// (2 s each) and a half, whatever the server and the processes it started do.
func (p *process) Close() error { return p.CloseContext(context.Background()) }

// CloseContext is Close for a caller that cannot wait past ctx (a Connect that failed
// because its context ended): once ctx has ended, the server is sent SIGTERM at once and
// SIGKILL a tenth of a second later, and CloseContext returns as soon as it has been
// reaped, without waiting for the end of its stderr.
func (p *process) CloseContext(ctx context.Context) error {
	p.once.Do(func() {
		_ = p.stdin.Close()
		if p.waitFor(ctx, p.exited, p.processGrace) {
			return
		}
		terminate(p.cmd)
		if p.waitFor(ctx, p.exited, p.processGrace) {
			return
		}
		hurried := ctx.Err() != nil
		if hurried && p.waitFor(context.Background(), p.reaped, hurriedGrace) {
			return
		}
		kill(p.cmd)
		// SIGKILL is not refused: the wait is short, and bounded all the same (a process
		// stuck in the kernel is not reaped until it leaves).
		end := p.exited
		if hurried {
			end = p.reaped
		}
		p.waitFor(context.Background(), end, p.processGrace)
	})
	// What the server started and left in its group goes with it, as before a terminal
	// that hangs up (the group's id is not reused while a member lives).
	select {
	case <-p.reaped:
		terminate(p.cmd)
	default:
	}
	// A process the server started may still hold stderr and stdout: let go of our ends,
	// which also unblocks a read.
	_ = p.stderr.Close()
	_ = p.Stream.Close()
	return nil
}

// waitFor waits until ch is closed, d has passed or ctx has ended, and reports whether ch
// was closed.
func (p *process) waitFor(ctx context.Context, ch <-chan struct{}, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ch:
		return true
	case <-t.C:
	case <-ctx.Done():
	}
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// maxStderrLine is how much of one stderr line is kept, for the log and the tail an
// [ExitError] quotes.
const maxStderrLine = 1024

// readLines calls each with every line of r, without its terminator ("\n" or "\r\n"),
// until r ends. A line of any length is read to its end, since a child that cannot write
// its stderr stops, but only its first limit bytes are kept, followed by its length:
// "aaaa… (2097152 bytes)".
func readLines(r io.Reader, limit int, each func(string)) {
	br := bufio.NewReaderSize(r, 4096)
	var (
		kept       []byte // the line's first limit+2 bytes: room for a "\r\n" to strip
		n          int    // the line's length so far, terminator included
		prev, last byte   // its last two bytes
	)
	for {
		frag, err := br.ReadSlice('\n')
		n += len(frag)
		kept = append(kept, frag[:min(len(frag), limit+2-len(kept))]...)
		for _, c := range frag[max(len(frag)-2, 0):] {
			prev, last = last, c
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if n > 0 {
			size := n
			if last == '\n' {
				size--
				if prev == '\r' {
					size--
				}
			}
			if size > limit {
				each(strings.ToValidUTF8(string(kept[:limit]), "") + fmt.Sprintf("… (%d bytes)", size))
			} else {
				each(string(kept[:size]))
			}
		}
		if err != nil {
			return
		}
		kept, n, prev, last = kept[:0], 0, 0, 0
	}
}

type tailBuffer struct {
	mu    sync.Mutex
	max   int
	lines []string
}

func (t *tailBuffer) add(s string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.lines = append(t.lines, s)
	if len(t.lines) > t.max {
		t.lines = t.lines[len(t.lines)-t.max:]
	}
}

// last returns a copy of the last n lines, or nil if there are none.
func (t *tailBuffer) last(n int) []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	n = min(n, len(t.lines))
	if n == 0 {
		return nil
	}
	return append([]string(nil), t.lines[len(t.lines)-n:]...)
}

// closeOnceFile is the server's stdin: the stream and the process both close it, and the
// second Close is no error.
type closeOnceFile struct {
	*os.File
	once sync.Once
	err  error
}

func (f *closeOnceFile) Close() error {
	f.once.Do(func() { f.err = f.File.Close() })
	return f.err
}
