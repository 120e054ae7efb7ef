package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/internal/pause"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/server"
	"github.com/mcpi-dev/mcpi/transport"
)

// ReceiverResult is one run of the receiver workload: a server asks an mcpi client to
// run N elicitations as tasks and leaves them pending until their ttl runs out.
type ReceiverResult struct {
	Tasks int `json:"tasks"`
	// CreateMs is how long the server took to create them all (CreateTaskResult received).
	CreateMs float64 `json:"createMs"`
	// Heap figures are runtime.MemStats.HeapAlloc after a GC: before the tasks, with all
	// of them pending, and after all expired.
	BaselineHeapBytes uint64  `json:"baselineHeapBytes"`
	LoadedHeapBytes   uint64  `json:"loadedHeapBytes"`
	AfterHeapBytes    uint64  `json:"afterHeapBytes"`
	HeapPerTaskBytes  float64 `json:"heapPerTaskBytes"`
	// StackPerTaskBytes is the goroutine stack memory per pending task (StackInuse).
	StackPerTaskBytes float64 `json:"stackPerTaskBytes"`
	// AfterRatio is AfterHeapBytes / BaselineHeapBytes.
	AfterRatio float64 `json:"afterRatio"`
	// GetUs is the mean tasks/get round trip (server to client) with all tasks pending;
	// PingUs is a ping on the same connection at the same time, for reference.
	GetUs  float64 `json:"getUs"`
	PingUs float64 `json:"pingUs"`
	// ExpireMs is from the end of the creation to the moment no task was left.
	ExpireMs          float64 `json:"expireMs"`
	GoroutinesLoaded  int     `json:"goroutinesLoaded"`
	GoroutinesAfter   int     `json:"goroutinesAfter"`
	BaselineGoroutine int     `json:"goroutinesBaseline"`
}

// ReceiverOptions sizes the receiver workload.
type ReceiverOptions struct {
	Tasks int
	// TTL is the ttl the server asks for; it must outlast the creation of all tasks.
	TTL time.Duration
	// Gets is how many tasks/get to time.
	Gets int
	// Workers send the elicitations concurrently.
	Workers int
	// HeapProfile, when set, receives heap profiles with all tasks pending
	// (HeapProfile+".loaded") and after all expired (HeapProfile+".after").
	HeapProfile string
}

var receiverElicit = &mcp.ElicitParams{
	Mode:            mcp.ElicitModeForm,
	Message:         "benchmark",
	RequestedSchema: json.RawMessage(`{"type":"object","properties":{}}`),
}

// Receiver runs the receiver workload in this process, over an in-memory pipe.
func Receiver(ctx context.Context, o ReceiverOptions) (*ReceiverResult, error) {
	if o.Workers <= 0 {
		o.Workers = 4
	}
	if o.Gets <= 0 {
		o.Gets = 1000
	}
	srv := server.New(mcp.Implementation{Name: "bench-requestor", Version: "dev"}, nil)
	defer srv.Close()
	var ss *server.Session
	tr := transport.PipeTransport{Serve: func(ctx context.Context, conn jsonrpc.Connection) error {
		ss = srv.Connect(ctx, conn)
		return nil
	}}
	// The tasks wait for a user who never answers: the capabilities are declared, as a
	// front end declares them, so that the client keeps the requests for one rather than
	// refuse them for want of a subscriber (which would cost the events this measures
	// without).
	c := client.New(Impl, &client.Options{Capabilities: client.AllCapabilities(), Receiver: &client.ReceiverOptions{
		MaxActive: o.Tasks + 16,
		MaxTTL:    24 * time.Hour,
	}})
	sess, err := c.Connect(ctx, tr)
	if err != nil {
		return nil, err
	}
	defer sess.Close()

	// The ids are kept in one block allocated before the baseline, so that the
	// requestor's own bookkeeping does not count as the receiver's.
	const idLen = 32
	ids := make([]byte, o.Tasks*idLen)
	r := &ReceiverResult{Tasks: o.Tasks}
	base := settle()
	r.BaselineHeapBytes = base.HeapAlloc
	r.BaselineGoroutine = runtime.NumGoroutine()

	start := time.Now()
	var (
		next  atomic.Int64
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	for range o.Workers {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= o.Tasks || ctx.Err() != nil {
					return
				}
				ct, err := ss.ElicitTask(ctx, receiverElicit, o.TTL)
				if err == nil && len(ct.Created.TaskID) != idLen {
					err = fmt.Errorf("task id %q is not %d characters", ct.Created.TaskID, idLen)
				}
				if err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
					return
				}
				copy(ids[i*idLen:], ct.Created.TaskID)
			}
		})
	}
	wg.Wait()
	created := time.Now()
	r.CreateMs = ms(created.Sub(start))
	if first != nil {
		return nil, fmt.Errorf("creating receiver tasks: %w", first)
	}
	// Every request must be queued for the user (a client may queue them on goroutines of
	// their own).
	for len(sess.PendingRequests()) < o.Tasks {
		if err := pause.For(ctx, 100*time.Millisecond); err != nil {
			return nil, err
		}
	}
	loaded := settle()
	writeHeapProfile(o.HeapProfile, ".loaded")
	r.LoadedHeapBytes = loaded.HeapAlloc
	r.GoroutinesLoaded = runtime.NumGoroutine()
	if o.Tasks > 0 {
		r.HeapPerTaskBytes = (float64(loaded.HeapAlloc) - float64(base.HeapAlloc)) / float64(o.Tasks)
		r.StackPerTaskBytes = (float64(loaded.StackInuse) - float64(base.StackInuse)) / float64(o.Tasks)
	}

	// tasks/get at this size, on random tasks, and ping on the same connection.
	if o.Tasks > 0 {
		t0 := time.Now()
		for range o.Gets {
			i := rand.IntN(o.Tasks)
			id := string(ids[i*idLen : (i+1)*idLen])
			st, err := ss.ClientTask(id).Get(ctx)
			if err != nil {
				return nil, fmt.Errorf("tasks/get: %w", err)
			}
			if st.Status != mcp.TaskStatusWorking {
				return nil, fmt.Errorf("tasks/get: task %s is %s, want working", id, st.Status)
			}
		}
		r.GetUs = us(time.Since(t0) / time.Duration(o.Gets))
		t0 = time.Now()
		for range o.Gets {
			if err := ss.Ping(ctx); err != nil {
				return nil, err
			}
		}
		r.PingUs = us(time.Since(t0) / time.Duration(o.Gets))
	}

	// Wait until every task has expired and its request has left the queue (listing
	// 100,000 pending requests is not free: look only once the ttl is over).
	if err := pause.For(ctx, time.Until(start.Add(o.TTL))); err != nil {
		return nil, fmt.Errorf("waiting for the tasks to expire: %w", err)
	}
	for len(sess.PendingRequests()) > 0 || len(sess.ReceiverTasks()) > 0 {
		if err := pause.For(ctx, 100*time.Millisecond); err != nil {
			return nil, fmt.Errorf("waiting for the tasks to expire: %w", err)
		}
	}
	r.ExpireMs = ms(time.Since(created))
	// Let the goroutines of the last tasks return.
	for range 100 {
		if runtime.NumGoroutine() <= r.BaselineGoroutine {
			break
		}
		_ = pause.For(ctx, 10*time.Millisecond)
	}
	after := settle()
	writeHeapProfile(o.HeapProfile, ".after")
	r.AfterHeapBytes = after.HeapAlloc
	r.GoroutinesAfter = runtime.NumGoroutine()
	if base.HeapAlloc > 0 {
		r.AfterRatio = float64(after.HeapAlloc) / float64(base.HeapAlloc)
	}
	runtime.KeepAlive(ids)
	return r, nil
}

// settle collects garbage until the heap stops shrinking and returns the statistics.
func settle() runtime.MemStats {
	var m runtime.MemStats
	runtime.GC()
	debug.FreeOSMemory()
	runtime.ReadMemStats(&m)
	return m
}

func writeHeapProfile(path, suffix string) {
	if path == "" {
		return
	}
	f, err := os.Create(path + suffix)
	if err != nil {
		return
	}
	defer f.Close()
	_ = pprof.Lookup("heap").WriteTo(f, 0)
}
