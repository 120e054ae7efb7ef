package web_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"iter"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/mcpi-dev/mcpi/client"
	"github.com/mcpi-dev/mcpi/demo"
	"github.com/mcpi-dev/mcpi/internal/bounce"
	"github.com/mcpi-dev/mcpi/internal/web"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/server"
	"github.com/mcpi-dev/mcpi/tasks"
	"github.com/mcpi-dev/mcpi/transport"
)

// serverDialer connects every target to srv over an in-memory pipe.
func serverDialer(srv *server.Server) web.Dialer {
	return func(ctx context.Context, tg web.Target, co *client.Options, _ web.LoginFunc) (*client.Session, web.Dialed, error) {
		o := *co
		o.ProtocolVersion = tg.Protocol
		s, err := client.New(mcp.Implementation{Name: "mcpi-web-test", Version: "0"}, &o).Connect(ctx,
			transport.PipeTransport{Serve: func(ctx context.Context, c jsonrpc.Connection) error { srv.Connect(ctx, c); return nil }})
		return s, web.Dialed{Name: "test", Transport: "in-memory pipe"}, err
	}
}

// demoDialer connects every target to a fresh demo server over an in-memory pipe; a
// target with a URL fails, as an unreachable server would.
func demoDialer(t testing.TB, opts *demo.Options) web.Dialer {
	return func(ctx context.Context, tg web.Target, co *client.Options, _ web.LoginFunc) (*client.Session, web.Dialed, error) {
		if tg.URL != "" {
			return nil, web.Dialed{}, &net404{tg.URL}
		}
		o := *co
		o.ProtocolVersion = tg.Protocol
		srv := demo.New(opts)
		t.Cleanup(srv.Close)
		s, err := client.New(mcp.Implementation{Name: "mcpi-web-test", Version: "0"}, &o).Connect(ctx,
			transport.PipeTransport{Serve: func(ctx context.Context, c jsonrpc.Connection) error { srv.Connect(ctx, c); return nil }})
		return s, web.Dialed{Name: "demo", Transport: "in-memory pipe"}, err
	}
}

type net404 struct{ url string }

func (e *net404) Error() string { return "cannot reach " + e.url }

// page is a browser stand-in: a cookie jar that took the token from the printed URL.
type page struct {
	t    testing.TB
	base string
	c    *http.Client
}

func open(t testing.TB, srv *web.Server) *page {
	t.Helper()
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	t.Cleanup(srv.Close)
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	resp, err := c.Get(ts.URL + "/?token=" + srv.Token())
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), `<script type="module" src="/js/main.js">`) {
		t.Fatalf("the page: %d %s", resp.StatusCode, body)
	}
	if resp.Request.URL.RawQuery != "" {
		t.Errorf("the token stays in the address bar: %s", resp.Request.URL)
	}
	return &page{t: t, base: ts.URL, c: c}
}

func (p *page) post(path, body string) (int, map[string]json.RawMessage) {
	p.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, p.base+"/api/"+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", p.base)
	resp, err := p.c.Do(req)
	if err != nil {
		p.t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]json.RawMessage
	_ = json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

func TestRequestsNeedTheToken(t *testing.T) {
	srv := web.New(web.Options{Dial: demoDialer(t, nil)})
	ts := httptest.NewServer(srv)
	defer ts.Close()
	defer srv.Close()
	for _, c := range []struct {
		name, method, path, token string
		hdr                       map[string]string
		want                      int
	}{
		{"the page without the token", "GET", "/", "", nil, 401},
		{"an asset without the token", "GET", "/js/main.js", "", nil, 401},
		{"the events without the token", "GET", "/api/events", "", nil, 401},
		{"a command without the token", "POST", "/api/connect", "", map[string]string{"Content-Type": "application/json"}, 401},
		{"a wrong token in the URL", "GET", "/?token=nope", "", nil, 401},
		{"a wrong cookie", "GET", "/", "nope", nil, 401},
		{"a foreign Host", "GET", "/", srv.Token(), map[string]string{"Host": "attacker.example"}, 403},
		{"a foreign Host with a port", "GET", "/", srv.Token(), map[string]string{"Host": "attacker.example:8080"}, 403},
		{"a foreign Origin", "POST", "/api/connect", srv.Token(), map[string]string{"Origin": "http://attacker.example", "Content-Type": "application/json"}, 403},
		{"a cross-site fetch", "GET", "/api/events", srv.Token(), map[string]string{"Sec-Fetch-Site": "cross-site"}, 403},
		{"a form post", "POST", "/api/connect", srv.Token(), map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, 415},
		{"a command by GET", "GET", "/api/connect", srv.Token(), nil, 405},
		{"the page with the token", "GET", "/", srv.Token(), nil, 200},
		{"localhost", "GET", "/", srv.Token(), map[string]string{"Host": "localhost"}, 200},
	} {
		req, _ := http.NewRequest(c.method, ts.URL+c.path, strings.NewReader("{}"))
		if c.token != "" {
			req.AddCookie(&http.Cookie{Name: "mcpi_token", Value: c.token})
		}
		for k, v := range c.hdr {
			if k == "Host" {
				req.Host = v
			} else {
				req.Header.Set(k, v)
			}
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != c.want {
			t.Errorf("%s: %d, want %d", c.name, resp.StatusCode, c.want)
		}
		if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe") {
			t.Errorf("%s: Content-Security-Policy %q", c.name, csp)
		}
	}
	// The cookie is HttpOnly and SameSite=Strict.
	resp, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Get(ts.URL + "/?token=" + srv.Token())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if sc := resp.Header.Get("Set-Cookie"); resp.StatusCode != http.StatusSeeOther || !strings.Contains(sc, "HttpOnly") || !strings.Contains(sc, "SameSite=Strict") {
		t.Errorf("token exchange: %d, Set-Cookie %q", resp.StatusCode, sc)
	}
}

// The commands, end to end against the demo server: connect, list, call, a task that
// ends, a bad command and a failed connection each with one clear sentence.
func TestCommands(t *testing.T) {
	srv := web.New(web.Options{Dial: demoDialer(t, &demo.Options{Tasks: nil})})
	p := open(t, srv)
	code, out := p.post("connect", `{"protocol":"2025-11-25"}`)
	if code != 200 {
		t.Fatalf("connect: %d %s", code, out["error"])
	}
	var id string
	json.Unmarshal(out["conn"], &id)
	if code, out = p.post(id+"/tools", `{}`); code != 200 || !strings.Contains(string(out["items"]), `"slow_task"`) {
		t.Errorf("tools: %d %s", code, out)
	}
	if code, out = p.post(id+"/call", `{"name":"add","arguments":{"a":2,"b":3}}`); code != 200 || !strings.Contains(string(out["result"]), `"sum":5`) {
		t.Errorf("call add: %d %s", code, out)
	}
	if code, out = p.post(id+"/call", `{"name":"instant_task","task":true,"ttl":60000}`); code != 200 || !strings.HasPrefix(string(out["task"]), `"req:`) {
		t.Errorf("call instant_task as a task: %d %s", code, out)
	}
	for _, c := range []struct{ path, body, want string }{
		{id + "/call", `{"name":`, "the command's body is not valid"},
		{id + "/call", `{}`, "call needs the tool's name"},
		{id + "/call", `{"name":"add","arguments":{"a":"two","b":3}}`, `argument \"a\" must be a number, not a string`},
		{id + "/nope", `{}`, `no command \"nope\"`},
		{"c99/tools", `{}`, `no connection \"c99\"`},
		{id + "/answer", `{"id":"r1","action":"accept"}`, "was answered or withdrawn already"},
		{id + "/cancel", `{"key":"x"}`, `no task \"x\"`},
	} {
		code, out := p.post(c.path, c.body)
		if code != 400 && code != 404 || !strings.Contains(string(out["error"]), c.want) {
			t.Errorf("%s %s: %d %s, want %q", c.path, c.body, code, out["error"], c.want)
		}
	}
	if code, out = p.post("connect", `{"url":"http://127.0.0.1:1/mcp"}`); code != 502 || !strings.Contains(string(out["error"]), "cannot reach") {
		t.Errorf("a failed connection: %d %s", code, out)
	}
}

// The event stream starts with a snapshot, then carries the task's rows to their end.
func TestEventStream(t *testing.T) {
	srv := web.New(web.Options{Dial: demoDialer(t, nil)})
	p := open(t, srv)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if _, err := srv.Open(ctx, web.Target{Protocol: "2026-07-28"}); err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, p.base+"/api/events", nil)
	resp, err := p.c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<22)
	next := func() map[string]json.RawMessage {
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				var ev map[string]json.RawMessage
				if err := json.Unmarshal([]byte(d), &ev); err != nil {
					t.Fatalf("event %s: %v", d, err)
				}
				return ev
			}
		}
		t.Fatal("the stream ended")
		return nil
	}
	snap := next()
	if string(snap["type"]) != `"snapshot"` || !strings.Contains(string(snap["data"]), `"protocol":"2026-07-28"`) {
		t.Fatalf("first event %s", snap)
	}
	go p.post("c1/call", `{"name":"slow_task","arguments":{"seconds":0.2,"steps":2}}`)
	var statuses []string
	for len(statuses) == 0 || statuses[len(statuses)-1] != "completed" {
		ev := next()
		if string(ev["type"]) != `"task"` {
			continue
		}
		var row struct {
			Status, Dialect, Name, StatusMessage string
			At                                   int64
		}
		json.Unmarshal(ev["data"], &row)
		if row.Name != "slow_task" || row.Dialect != "2026-07-28" || row.At == 0 {
			t.Fatalf("task row %s", ev["data"])
		}
		statuses = append(statuses, row.Status)
	}
	if statuses[0] != "working" {
		t.Errorf("statuses %v", statuses)
	}
}

// The page fetches its modules at once: index.html preloads every one of them, so a new
// module that is not listed would load a round trip late.
func TestEveryModulePreloaded(t *testing.T) {
	srv := web.New(web.Options{Dial: demoDialer(t, nil)})
	p := open(t, srv)
	resp, err := p.c.Get(p.base + "/")
	if err != nil {
		t.Fatal(err)
	}
	index, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	err = fs.WalkDir(os.DirFS("static"), ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".js") || path == "js/main.js" {
			return err
		}
		if !strings.Contains(string(index), `<link rel="modulepreload" href="/`+path+`">`) {
			t.Errorf("index.html does not preload %s", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A message of megabytes reaches the Log as its method, id and size, not whole: the Log
// keeps thousands of messages per server.
func TestLogBoundsMessages(t *testing.T) {
	srv := web.New(web.Options{Dial: demoDialer(t, nil)})
	p := open(t, srv)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if _, err := srv.Open(ctx, web.Target{Protocol: "2025-11-25"}); err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("x", 200<<10)
	if code, out := p.post("c1/call", `{"name":"echo","arguments":{"text":"`+big+`"}}`); code != 200 || !strings.Contains(string(out["result"]), big) {
		t.Fatalf("echo: %d", code)
	}
	d := p.snapshot(ctx)
	if len(d) > 100<<10 {
		t.Errorf("the snapshot carries %d bytes: a message went in whole", len(d))
	}
	if !strings.Contains(d, `"mcpi/truncated":"`) || !strings.Contains(d, `"method":"tools/call"`) {
		t.Errorf("the Log lacks the truncated tools/call")
	}
}

// events yields the data of each event a page that opens the event stream now gets, the
// snapshot (everything) first, until ctx is done or the stream ends.
func (p *page) events(ctx context.Context) iter.Seq[string] {
	return func(yield func(string) bool) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, p.base+"/api/events", nil)
		resp, err := p.c.Do(req)
		if err != nil {
			p.t.Error(err)
			return
		}
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<24)
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok && !yield(d) {
				return
			}
		}
	}
}

// snapshot is the first event a page that opens the event stream now gets: everything.
func (p *page) snapshot(ctx context.Context) string {
	p.t.Helper()
	for d := range p.events(ctx) {
		return d
	}
	p.t.Fatal("no snapshot")
	return ""
}

// A page's follower that falls far behind the session (here held on its first task
// event while a server floods progress and asks the user something) shows in the log
// where events were left out, and reads the session again: the request it never saw is
// pending on the page, the task it saw start has its outcome, and the log ends with the
// last message (the events left out are the oldest).
func TestBehindFollowerReadsTheSessionAgain(t *testing.T) {
	var hold atomic.Bool
	held, release := make(chan struct{}), make(chan struct{})
	now := func() time.Time {
		if hold.CompareAndSwap(true, false) {
			close(held)
			<-release
		}
		return time.Now()
	}
	var sess *client.Session
	dial := demoDialer(t, nil)
	srv := web.New(web.Options{Now: now, Dial: func(ctx context.Context, tg web.Target, co *client.Options, l web.LoginFunc) (*client.Session, web.Dialed, error) {
		s, d, err := dial(ctx, tg, co, l)
		sess = s
		return s, d, err
	}})
	p := open(t, srv)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	if _, err := srv.Open(ctx, web.Target{Protocol: mcp.LatestProtocolVersion}); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	defer once.Do(func() { close(release) })

	// A page open all along sees the gap live; a snapshot may not, since what the follower
	// left out is the oldest and newer messages push it out of the log a snapshot carries.
	// (Opened before the follower is held: a snapshot waits for it.)
	gaps, streaming := make(chan int, 1), make(chan struct{})
	go func() {
		defer close(gaps)
		for d := range p.events(ctx) {
			select {
			case <-streaming:
			default:
				close(streaming) // the snapshot: the page is subscribed
				continue
			}
			var ev struct {
				Type string
				Data struct {
					Dir     string
					Message struct{ Dropped int }
				}
			}
			if json.Unmarshal([]byte(d), &ev) == nil && ev.Type == "message" && ev.Data.Dir == "gap" {
				gaps <- ev.Data.Message.Dropped
				return
			}
		}
	}()
	select {
	case <-streaming:
	case <-ctx.Done():
		t.Fatal("no snapshot")
	}
	hold.Store(true)
	task, err := sess.StartToolTask(ctx, &mcp.CallToolParams{Name: demo.ToolInstantTask}, nil)
	if err != nil {
		t.Fatal(err)
	}
	<-held
	for range client.MaxQueuedEvents/2000 + 1 {
		if _, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: demo.ToolSlow, Arguments: json.RawMessage(`{"seconds":0.001,"steps":1000}`)}, &client.CallOptions{Progress: true}); err != nil {
			t.Fatal(err)
		}
	}
	asked := make(chan error, 1)
	go func() {
		_, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: demo.ToolAskUser}, nil)
		asked <- err
	}()
	for len(sess.PendingRequests()) == 0 {
		select {
		case err := <-asked:
			t.Fatalf("ask_user ended without asking: %v", err)
		case <-time.After(time.Millisecond):
		}
	}
	if _, err := task.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	once.Do(func() { close(release) })

	// The page's view of the connection, as a page that opens now gets it.
	type view struct {
		Tasks []struct {
			Name, Status string
			Ended        *time.Time
		}
		Requests []struct{ Method string }
		Log      []struct {
			Dir     string
			Message json.RawMessage
		}
	}
	snapshot := func() view {
		d := p.snapshot(ctx)
		var ev struct {
			Data struct{ Conns []view }
		}
		if err := json.Unmarshal([]byte(d), &ev); err != nil || len(ev.Data.Conns) != 1 {
			t.Fatalf("snapshot %.300s: %v", d, err)
		}
		return ev.Data.Conns[0]
	}
	select {
	case gap := <-gaps:
		if gap == 0 {
			t.Fatal("the page's event stream ended without a gap")
		}
	case <-ctx.Done():
		t.Fatal("the page's event stream shows no events left out")
	}
	for deadline := time.Now().Add(10 * time.Second); ; {
		v := snapshot()
		asking := len(v.Requests) == 1 && v.Requests[0].Method == mcp.MethodElicitationCreate
		done := len(v.Tasks) == 1 && v.Tasks[0].Status == "completed" && v.Tasks[0].Ended != nil
		var last struct{ Method string }
		if n := len(v.Log); n > 0 {
			json.Unmarshal(v.Log[n-1].Message, &last)
		}
		if asking && done && last.Method == mcp.MethodElicitationCreate {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the page shows requests %v, tasks %v, the log's last %q", v.Requests, v.Tasks, last.Method)
		}
		time.Sleep(10 * time.Millisecond)
	}
	sess.PendingRequests()[0].Decline()
	if err := <-asked; err != nil {
		t.Fatal(err)
	}
}

// A plain call shows its progress while it runs, and the page may stop it: the server
// hears of it (its slow tool ends cancelled), the call answers that it was cancelled,
// and the call's name is free again. In both eras the demo runs slow plainly.
func TestPlainCallProgressAndStop(t *testing.T) {
	for _, proto := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(proto, func(t *testing.T) {
			exits := make(chan error, 1)
			srv := web.New(web.Options{Dial: demoDialer(t, &demo.Options{OnSlowExit: func(_ int, err error) { exits <- err }})})
			p := open(t, srv)
			ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
			defer cancel()
			if _, err := srv.Open(ctx, web.Target{Protocol: proto}); err != nil {
				t.Fatal(err)
			}
			next, done := iter.Pull(p.events(ctx))
			defer done()
			if _, ok := next(); !ok {
				t.Fatal("no snapshot")
			}
			type answer struct {
				code int
				body string
			}
			answered := make(chan answer, 1)
			go func() {
				req, _ := http.NewRequestWithContext(ctx, http.MethodPost, p.base+"/api/c1/call",
					strings.NewReader(`{"name":"slow","arguments":{"seconds":60,"steps":600},"call":"k1"}`))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Origin", p.base)
				resp, err := p.c.Do(req)
				if err != nil {
					answered <- answer{body: err.Error()}
					return
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				answered <- answer{resp.StatusCode, string(b)}
			}()
			type progress struct {
				Call     string
				Progress float64
				Total    *float64
				Message  string
			}
			var got []progress
			for len(got) < 3 {
				d, ok := next()
				if !ok {
					t.Fatal("the stream ended")
				}
				var ev struct {
					Type string
					Conn string
					Raw  json.RawMessage `json:"data"`
					Data progress        `json:"-"`
				}
				if err := json.Unmarshal([]byte(d), &ev); err != nil {
					t.Fatal(err)
				}
				if ev.Type == "task" {
					t.Errorf("a plain call has a task row: %s", d)
				}
				if ev.Type != "progress" {
					continue
				}
				if err := json.Unmarshal(ev.Raw, &ev.Data); err != nil {
					t.Fatal(err)
				}
				if ev.Conn != "c1" || ev.Data.Call != "k1" || ev.Data.Total == nil || *ev.Data.Total != 600 || ev.Data.Message == "" {
					t.Fatalf("progress event %s", d)
				}
				if n := len(got); n > 0 && ev.Data.Progress <= got[n-1].Progress {
					t.Fatalf("progress %v after %v", ev.Data.Progress, got[n-1].Progress)
				}
				got = append(got, ev.Data)
			}
			if code, out := p.post("c1/call", `{"name":"slow","arguments":{"seconds":60},"call":"k1"}`); code != 400 || !strings.Contains(string(out["error"]), "running already") {
				t.Errorf("a second call of the same name: %d %s", code, out)
			}
			if code, out := p.post("c1/stop", `{"call":"k1"}`); code != 200 {
				t.Fatalf("stop: %d %s", code, out)
			}
			select {
			case a := <-answered:
				if a.code != http.StatusBadGateway || !strings.Contains(a.body, "cancelled: the server was told") {
					t.Fatalf("the call answered %d %s", a.code, a.body)
				}
			case <-ctx.Done():
				t.Fatal("the call did not end")
			}
			select {
			case err := <-exits:
				if !errors.Is(err, context.Canceled) {
					t.Fatalf("the slow tool ended with %v, want cancelled", err)
				}
			case <-ctx.Done():
				t.Fatal("the server never heard of it")
			}
			if code, out := p.post("c1/stop", `{"call":"k1"}`); code != 400 || !strings.Contains(string(out["error"]), "has ended") {
				t.Errorf("stopping an ended call: %d %s", code, out)
			}
			if code, out := p.post("c1/call", `{"name":"slow","arguments":{"seconds":0,"steps":1},"call":"k1"}`); code != 200 || !strings.Contains(string(out["result"]), "done") {
				t.Errorf("the name again: %d %s", code, out)
			}
		})
	}
}

// A server that floods a plain call with progress, each with a long message: the page
// gets a few of them (at most one per 50 ms), each message cut to at most 4 KiB, whole
// characters.
func TestPlainCallProgressBounded(t *testing.T) {
	const notes = 3000
	msg := strings.Repeat("é", 3000)
	srv := server.New(mcp.Implementation{Name: "flood", Version: "1"}, nil)
	t.Cleanup(srv.Close)
	srv.AddTool(&mcp.Tool{Name: "flood", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
			total := float64(notes)
			for i := range notes {
				if err := req.Progress(ctx, float64(i+1), &total, msg); err != nil {
					return nil, err
				}
			}
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent("flooded")}}, nil
		})
	w := web.New(web.Options{Dial: serverDialer(srv)})
	p := open(t, w)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	if _, err := w.Open(ctx, web.Target{}); err != nil {
		t.Fatal(err)
	}
	events := make(chan string, 1<<16)
	streaming := make(chan struct{})
	go func() {
		defer close(events)
		first := true
		for d := range p.events(ctx) {
			if first {
				first = false
				close(streaming)
				continue
			}
			if strings.HasPrefix(d, `{"type":"progress"`) {
				events <- d
			}
		}
	}()
	<-streaming
	started := time.Now()
	if code, out := p.post("c1/call", `{"name":"flood","call":"f"}`); code != 200 || !strings.Contains(string(out["result"]), "flooded") {
		t.Fatalf("the call: %d %s", code, out)
	}
	took := time.Since(started)
	cancel()
	n := 0
	for d := range events {
		var ev struct{ Data struct{ Message string } }
		if err := json.Unmarshal([]byte(d), &ev); err != nil {
			t.Fatal(err)
		}
		if m := ev.Data.Message; !utf8.ValidString(m) || len(m) > 4096+len("…") || !strings.HasSuffix(m, "é…") {
			t.Fatalf("a message of %d bytes: %.40q…", len(m), m)
		}
		n++
	}
	if limit := int(took/(50*time.Millisecond)) + 1; n == 0 || n > limit {
		t.Fatalf("%d progress events for %d notifications in %v, want 1 to %d", n, notes, took, limit)
	}
	t.Logf("%d progress events for %d notifications in %v", n, notes, took)
}

// A task row keeps at most 4 KiB of each text a server sends it (its status message, its
// progress message) and a note in place of a result over 64 KiB: a connection keeps
// thousands of rows.
func TestTaskRowBoundsServerText(t *testing.T) {
	long := strings.Repeat("ü", 50_000)
	srv := server.New(mcp.Implementation{Name: "long", Version: "1"}, &server.Options{Tasks: &tasks.Options{}})
	t.Cleanup(srv.Close)
	srv.AddTool(&mcp.Tool{Name: "long", InputSchema: json.RawMessage(`{"type":"object"}`), Execution: &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}},
		func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
			if err := req.Progress(ctx, 1, nil, long); err != nil {
				return nil, err
			}
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{mcp.TextContent(long)}}, nil
		})
	w := web.New(web.Options{Dial: serverDialer(srv)})
	p := open(t, w)
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	if _, err := w.Open(ctx, web.Target{Protocol: "2025-11-25"}); err != nil {
		t.Fatal(err)
	}
	if code, out := p.post("c1/call", `{"name":"long","task":true}`); code != 200 || len(out["task"]) == 0 {
		t.Fatalf("the call: %d %s", code, out)
	}
	for {
		var ev struct {
			Data struct {
				Conns []struct {
					Tasks []struct {
						Status, StatusMessage string
						Progress              *struct{ Message string }
						Result                json.RawMessage
					}
				}
			}
		}
		if err := json.Unmarshal([]byte(p.snapshot(ctx)), &ev); err != nil {
			t.Fatal(err)
		}
		rows := ev.Data.Conns[0].Tasks
		if len(rows) == 1 && rows[0].Status == "failed" && rows[0].Progress != nil && rows[0].Result != nil {
			r := rows[0]
			for what, s := range map[string]string{"status message": r.StatusMessage, "progress message": r.Progress.Message} {
				if !utf8.ValidString(s) || len(s) > 4096+len("…") || !strings.HasSuffix(s, "ü…") {
					t.Errorf("the row's %s: %d bytes, %.20q…", what, len(s), s)
				}
			}
			if len(r.Result) > 1024 || !strings.Contains(string(r.Result), "mcpi/truncated") {
				t.Errorf("the row's result: %.200s", r.Result)
			}
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the row: %+v", rows)
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// rawDialer connects every target to a server written by hand: serve reads the client's
// messages and answers them, in the way a hostile server would.
func rawDialer(serve func(ctx context.Context, c jsonrpc.Connection)) web.Dialer {
	return func(ctx context.Context, tg web.Target, co *client.Options, _ web.LoginFunc) (*client.Session, web.Dialed, error) {
		o := *co
		o.ProtocolVersion = tg.Protocol
		s, err := client.New(mcp.Implementation{Name: "mcpi-web-test", Version: "0"}, &o).Connect(ctx,
			transport.PipeTransport{Serve: func(_ context.Context, c jsonrpc.Connection) error { go serve(context.Background(), c); return nil }})
		return s, web.Dialed{Name: "raw", Transport: "in-memory pipe"}, err
	}
}

// reply answers request id with result, as a hand-written server does.
func reply(ctx context.Context, c jsonrpc.Connection, id jsonrpc.ID, result string) {
	_ = c.Write(ctx, &jsonrpc.Response{ID: id, Result: json.RawMessage(result)})
}

// A server that says its tools changed a thousand times in a burst, while a listing of
// them is slow to come, gets one listing more, not one per notification: each listing
// is a round trip and a whole tools list, for the page and for the server.
func TestToolsListChangedFloodListsOnce(t *testing.T) {
	const notes = 1000
	const toolsList = `{"tools":[{"name":"burst","inputSchema":{"type":"object"}}]}`
	var (
		lists   atomic.Int32
		mu      sync.Mutex
		conn    jsonrpc.Connection
		holding = true
		// bursting: the call has begun its notifications; only the listings they cause
		// are held (a listing before, such as a call's look-up of its tool, is answered).
		bursting bool
		waiting  []jsonrpc.ID
	)
	serve := func(ctx context.Context, c jsonrpc.Connection) {
		mu.Lock()
		conn = c
		mu.Unlock()
		for {
			m, err := c.Read(ctx)
			if err != nil {
				return
			}
			req, ok := m.(*jsonrpc.Request)
			if !ok || req.IsNotification() {
				continue
			}
			switch req.Method {
			case mcp.MethodInitialize:
				reply(ctx, c, req.ID, `{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":true}},"serverInfo":{"name":"churn","version":"1"}}`)
			case mcp.MethodToolsList:
				mu.Lock()
				hold := bursting && holding
				if bursting {
					lists.Add(1)
				}
				if hold {
					waiting = append(waiting, req.ID)
				}
				mu.Unlock()
				if !hold {
					reply(ctx, c, req.ID, toolsList)
				}
			case mcp.MethodToolsCall:
				mu.Lock()
				bursting = true
				mu.Unlock()
				for range notes {
					_ = c.Write(ctx, &jsonrpc.Request{Method: mcp.NotificationToolsListChanged})
				}
				reply(ctx, c, req.ID, `{"content":[{"type":"text","text":"changed"}]}`)
			default:
				reply(ctx, c, req.ID, `{}`)
			}
		}
	}
	w := web.New(web.Options{Dial: rawDialer(serve)})
	p := open(t, w)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	if _, err := w.Open(ctx, web.Target{Protocol: "2025-11-25"}); err != nil {
		t.Fatal(err)
	}
	next, done := iter.Pull(p.events(ctx))
	defer done()
	event := func() string {
		d, ok := next()
		if !ok {
			t.Fatal("the stream ended")
		}
		return d
	}
	// The tools listed at connection, in the snapshot or after it.
	for {
		if strings.Contains(event(), `"name":"burst"`) {
			break
		}
	}
	if code, out := p.post("c1/call", `{"name":"burst"}`); code != 200 {
		t.Fatalf("the call: %d %s", code, out)
	}
	// Every notification has reached the page, so the follower has seen them all, before
	// the listings they caused are answered.
	for n := 0; n < notes; {
		if strings.HasPrefix(event(), `{"type":"list"`) {
			n++
		}
	}
	mu.Lock()
	holding = false
	held := len(waiting)
	for _, id := range waiting {
		reply(ctx, conn, id, toolsList)
	}
	mu.Unlock()
	// Each answered listing reaches the page as a tools event.
	for n := 0; n < held; {
		if strings.HasPrefix(event(), `{"type":"tools"`) {
			n++
		}
	}
	if n := lists.Load(); n > 2 {
		t.Errorf("%d tools/list requests for a burst of %d tools/list_changed, want at most 2 (one, one more)", n, notes)
	}
}

// The page's log level picker shows info, and the server is asked for info from the
// start, in both eras (in 2026-07-28 a request that names no level gets no log at all:
// the Log had none of the server's messages; in 2025-11-25 it had every level); a level
// the page picks holds for the calls after it, and the connection's info says it.
func TestServerLogLevel(t *testing.T) {
	for _, proto := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(proto, func(t *testing.T) {
			p, ctx := openDemo(t, proto)
			levels := func(message string) []string {
				t.Helper()
				if code, out := p.post("c1/call", `{"name":"log_levels","arguments":{"message":"`+message+`"}}`); code != 200 {
					t.Fatalf("log_levels: %d %s", code, out)
				}
				// The Log takes the messages from the session's events on a goroutine
				// of its own: the last (emergency, sent at every level) may come after
				// the result. A liveness bound.
				for deadline := time.Now().Add(10 * time.Second); ; {
					got := p.logLevels(ctx, message)
					if slices.Contains(got, "emergency") || time.Now().After(deadline) {
						return got
					}
					time.Sleep(5 * time.Millisecond)
				}
			}
			want := []string{"info", "notice", "warning", "error", "critical", "alert", "emergency", "level info"}
			if got := levels("first"); !slices.Equal(got, want) {
				t.Errorf("at first: %v, want %v", got, want)
			}
			if code, out := p.post("c1/loglevel", `{"level":"error"}`); code != 200 {
				t.Fatalf("loglevel: %d %s", code, out)
			}
			want = []string{"error", "critical", "alert", "emergency", "level error"}
			if got := levels("second"); !slices.Equal(got, want) {
				t.Errorf("after picking error: %v, want %v", got, want)
			}
			if code, out := p.post("c1/loglevel", `{"level":"loud"}`); code != 400 {
				t.Errorf("an unknown level: %d %s", code, out)
			}
		})
	}
}

// logLevels is the levels of the server's log messages ending with message in the Log of
// the page's first connection, then "level " and the connection's log level.
func (p *page) logLevels(ctx context.Context, message string) []string {
	p.t.Helper()
	var ev struct {
		Data struct {
			Conns []struct {
				Info struct{ LogLevel string }
				Log  []struct{ Message json.RawMessage }
			}
		}
	}
	if err := json.Unmarshal([]byte(p.snapshot(ctx)), &ev); err != nil || len(ev.Data.Conns) != 1 {
		p.t.Fatalf("snapshot: %v", err)
	}
	c := ev.Data.Conns[0]
	var got []string
	for _, r := range c.Log {
		var m struct {
			Method string
			Params struct{ Level, Data string }
		}
		if json.Unmarshal(r.Message, &m) == nil && m.Method == "notifications/message" && strings.HasSuffix(m.Params.Data, message) {
			got = append(got, m.Params.Level)
		}
	}
	return append(got, "level "+c.Info.LogLevel)
}

// An HTTP server that stops answering ends no connection: the connection's info says
// why it does not answer (the page showed "connected" while every request failed), and
// says nothing once a request gets through again.
func TestUnreachableHTTPServer(t *testing.T) {
	srv := demo.New(nil)
	t.Cleanup(srv.Close)
	bs := bounce.New(t, srv.HTTPHandler(nil))
	hc := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	w := web.New(web.Options{Dial: func(ctx context.Context, tg web.Target, co *client.Options, _ web.LoginFunc) (*client.Session, web.Dialed, error) {
		s, err := client.New(mcp.Implementation{Name: "mcpi-web-test", Version: "0"}, co).Connect(ctx, &transport.HTTPClient{URL: tg.URL, Client: hc})
		return s, web.Dialed{Name: tg.URL, Transport: "Streamable HTTP"}, err
	}})
	p := open(t, w)
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	if _, err := w.Open(ctx, web.Target{URL: bs.URL}); err != nil {
		t.Fatal(err)
	}
	unreachable := func() string {
		var ev struct {
			Data struct {
				Conns []struct {
					Info struct{ State, Unreachable string }
				}
			}
		}
		if err := json.Unmarshal([]byte(p.snapshot(ctx)), &ev); err != nil || len(ev.Data.Conns) != 1 {
			t.Fatalf("snapshot: %v", err)
		}
		if st := ev.Data.Conns[0].Info.State; st != "connected" {
			t.Errorf("state %q, want connected: the session goes on", st)
		}
		return ev.Data.Conns[0].Info.Unreachable
	}
	// The info changes on the connection's own goroutine: a liveness bound.
	wait := func(want string) {
		t.Helper()
		got := ""
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
			if got = unreachable(); got == want {
				return
			}
		}
		t.Errorf("unreachable %q, want %q", got, want)
	}
	wait("")
	bs.Stop()
	if code, out := p.post("c1/call", `{"name":"add","arguments":{"a":1,"b":2}}`); code == 200 {
		t.Fatalf("a call to a server that is gone: %d %s", code, out)
	}
	wait("the server is no longer reachable")
	bs.Start()
	if code, out := p.post("c1/call", `{"name":"add","arguments":{"a":1,"b":2}}`); code != 200 {
		t.Fatalf("a call once the server is back: %d %s", code, out)
	}
	wait("")
}

// A tool task whose question the server runs as a task on the client keeps its name: the
// question's method names the client's (receiver) row, not the tool's (in 2025-11-25 the
// tool's row was renamed elicitation/create, for good).
func TestToolTaskKeepsItsNameWhileItAsks(t *testing.T) {
	p, ctx := openDemo(t, "2025-11-25")
	if code, out := p.post("c1/call", `{"name":"ask_user_task","arguments":{},"task":true}`); code != 200 {
		t.Fatalf("call: %d %s", code, out)
	}
	// The rows as a page that opens now gets them, once the client's task is there.
	names := map[string]string{}
	for deadline := time.Now().Add(10 * time.Second); names["receiver"] == "" && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		var ev struct {
			Data struct {
				Conns []struct{ Tasks []struct{ Role, Name string } }
			}
		}
		if err := json.Unmarshal([]byte(p.snapshot(ctx)), &ev); err != nil || len(ev.Data.Conns) != 1 {
			t.Fatalf("snapshot: %v", err)
		}
		for _, r := range ev.Data.Conns[0].Tasks {
			names[r.Role] = r.Name
		}
	}
	if names["requestor"] != "ask_user_task" {
		t.Errorf("the tool task's row is named %q, want ask_user_task (rows: %v)", names["requestor"], names)
	}
}

// The Connect form's kind of server needs its field: an empty command or URL is refused
// with a sentence (it opened the embedded demo server, as a target naming nothing does).
func TestConnectNeedsItsField(t *testing.T) {
	srv := web.New(web.Options{Dial: demoDialer(t, nil)})
	p := open(t, srv)
	for _, c := range []struct{ body, want string }{
		{`{"kind":"stdio","stdio":"  "}`, "give a command to run the server"},
		{`{"kind":"url","url":""}`, "give the server's URL"},
		{`{"kind":"config"}`, "give the config file"},
		{`{"kind":"telepathy"}`, `no kind of server \"telepathy\"`},
	} {
		code, out := p.post("connect", c.body)
		if code != http.StatusBadRequest || !strings.Contains(string(out["error"]), c.want) {
			t.Errorf("%s: %d %s, want 400 and %q", c.body, code, out, c.want)
		}
	}
	if code, out := p.post("connect", `{"kind":"demo"}`); code != 200 || !strings.Contains(string(out["conn"]), "c1") {
		t.Errorf("the demo server: %d %s", code, out)
	}
}

// A reconnection marks the rows of the session before as of an earlier connection on the
// open pages too (only a page opened after it saw them so).
func TestReconnectMarksRowsOnOpenPages(t *testing.T) {
	p, ctx := openDemo(t, "2025-11-25")
	next, done := iter.Pull(p.events(ctx))
	defer done()
	if _, ok := next(); !ok {
		t.Fatal("no snapshot")
	}
	if code, out := p.post("c1/call", `{"name":"sleep_task","arguments":{"seconds":0},"task":true}`); code != 200 {
		t.Fatalf("call: %d %s", code, out)
	}
	type row struct {
		Key    string
		Status string
		Stale  bool
	}
	rowEvent := func(want func(row) bool) row {
		t.Helper()
		for {
			d, ok := next()
			if !ok {
				t.Fatal("the stream ended")
			}
			var ev struct {
				Type string
				Data row
			}
			if json.Unmarshal([]byte(d), &ev) == nil && ev.Type == "task" && want(ev.Data) {
				return ev.Data
			}
		}
	}
	ended := rowEvent(func(r row) bool { return r.Status == "completed" })
	if code, out := p.post("c1/reconnect", `{}`); code != 200 {
		t.Fatalf("reconnect: %d %s", code, out)
	}
	stale := rowEvent(func(r row) bool { return r.Key == ended.Key && r.Stale })
	if stale.Status != "completed" {
		t.Errorf("the stale row: %+v", stale)
	}
}

// A question the server ran as a task on the client and then cancelled shows cancelled
// (its row stayed "working" for ever: a cancel was no event).
func TestReceiverTaskCancelledByTheServer(t *testing.T) {
	p, ctx := openDemo(t, "2025-11-25")
	if code, out := p.post("c1/call", `{"name":"ask_then_cancel","arguments":{"seconds":0.1}}`); code != 200 || !strings.Contains(string(out["result"]), "cancelled") {
		t.Fatalf("ask_then_cancel: %d %s", code, out)
	}
	var status string
	for deadline := time.Now().Add(10 * time.Second); status != "cancelled" && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		var ev struct {
			Data struct {
				Conns []struct {
					Tasks []struct {
						Role, Status string
						Ended        *time.Time
					}
				}
			}
		}
		if err := json.Unmarshal([]byte(p.snapshot(ctx)), &ev); err != nil || len(ev.Data.Conns) != 1 {
			t.Fatalf("snapshot: %v", err)
		}
		for _, r := range ev.Data.Conns[0].Tasks {
			if r.Role == "receiver" && (r.Status != "cancelled" || r.Ended != nil) {
				status = r.Status
			}
		}
	}
	if status != "cancelled" {
		t.Errorf("the client's task the server cancelled is %q, want cancelled and ended", status)
	}
}

// A server removed while it connects is gone: its dial ends at once, and no tab comes
// back when the dial would have ended (it came back as a failed tab that could not be
// removed, 30 s later).
func TestRemovedWhileConnecting(t *testing.T) {
	dialing := make(chan struct{})
	srv := web.New(web.Options{Dial: func(ctx context.Context, tg web.Target, co *client.Options, _ web.LoginFunc) (*client.Session, web.Dialed, error) {
		close(dialing)
		<-ctx.Done() // a server that never answers initialize
		return nil, web.Dialed{}, ctx.Err()
	}})
	p := open(t, srv)
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	opened := make(chan error, 1)
	go func() {
		_, err := srv.Open(ctx, web.Target{Stdio: "sleep 100"})
		opened <- err
	}()
	<-dialing
	if code, out := p.post("c1/forget", `{}`); code != 200 {
		t.Fatalf("forget: %d %s", code, out)
	}
	select {
	case err := <-opened:
		if err == nil {
			t.Error("the removed connection's dial succeeded")
		}
	case <-ctx.Done():
		t.Fatal("the removed connection's dial went on")
	}
	if d := p.snapshot(ctx); strings.Contains(d, `"id":"c1"`) {
		t.Errorf("the removed connection is back: %s", d)
	}
}

// An error of connecting that carries its own sentence (the CLI's dialer words them as
// the CLI does) is shown as it is.
func TestConnectErrorsSentence(t *testing.T) {
	srv := web.New(web.Options{Dial: func(ctx context.Context, tg web.Target, co *client.Options, _ web.LoginFunc) (*client.Session, web.Dialed, error) {
		return nil, web.Dialed{}, worded{"nothing is listening at " + tg.URL}
	}})
	p := open(t, srv)
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	if _, err := srv.Open(ctx, web.Target{URL: "http://127.0.0.1:1/mcp"}); err == nil {
		t.Fatal("the dial succeeded")
	}
	if d := p.snapshot(ctx); !strings.Contains(d, `"error":"nothing is listening at http://127.0.0.1:1/mcp"`) {
		t.Errorf("the connection's error is not the dialer's sentence: %s", d)
	}
}

type worded struct{ s string }

func (w worded) Error() string    { return "connecting: dial tcp: connection refused" }
func (w worded) Sentence() string { return w.s }

// A negative ttl is refused before anything is sent.
func TestCallRefusesNegativeTTL(t *testing.T) {
	p, _ := openDemo(t, "2025-11-25")
	code, out := p.post("c1/call", `{"name":"sleep_task","arguments":{"seconds":0},"task":true,"ttl":-5}`)
	if code != http.StatusBadRequest || !strings.Contains(string(out["error"]), "the task's ttl must be positive, not -5 ms") {
		t.Errorf("a negative ttl: %d %s", code, out)
	}
}

// openDemo opens a page's connection to a fresh demo server speaking protocol, and
// returns the page and a context that ends with the test, 20 s at most.
func openDemo(t *testing.T, protocol string) (*page, context.Context) {
	t.Helper()
	srv := web.New(web.Options{Dial: demoDialer(t, nil)})
	p := open(t, srv)
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	t.Cleanup(cancel)
	if _, err := srv.Open(ctx, web.Target{Protocol: protocol}); err != nil {
		t.Fatal(err)
	}
	return p, ctx
}

// The page's Log has the session's start (initialize and notifications/initialized in
// 2025-11-25, server/discover in 2026-07-28), which came before the follower subscribed.
func TestLogHasTheHandshake(t *testing.T) {
	for proto, methods := range map[string][]string{
		"2025-11-25": {mcp.MethodInitialize, mcp.NotificationInitialized},
		"2026-07-28": {mcp.MethodServerDiscover},
	} {
		t.Run(proto, func(t *testing.T) {
			p, ctx := openDemo(t, proto)
			d := p.snapshot(ctx)
			for _, m := range methods {
				if !strings.Contains(d, `"method":"`+m+`"`) {
					t.Errorf("the Log lacks %s", m)
				}
			}
		})
	}
}

// A server's URL reaches the page with its password and the values of its query as
// xxxxx, and its headers' values not at all, while it connects, once it failed, and
// once connected: the page names the server in its tab, its title and its header, and
// a server's key is often passed in the query.
func TestTargetSecretsNotServed(t *testing.T) {
	const raw = "http://user:hunter2@127.0.0.1:1/mcp?key=sekrit&v=2"
	shown, _ := json.Marshal("http://user:xxxxx@127.0.0.1:1/mcp?key=xxxxx&v=xxxxx")
	dialing, release := make(chan struct{}), make(chan struct{})
	var dials atomic.Int32
	demoDial := demoDialer(t, nil)
	srv := web.New(web.Options{Dial: func(ctx context.Context, tg web.Target, co *client.Options, l web.LoginFunc) (*client.Session, web.Dialed, error) {
		if dials.Add(1) == 1 {
			close(dialing)
			<-release
			return nil, web.Dialed{}, errors.New("connection refused")
		}
		return demoDial(ctx, web.Target{Protocol: tg.Protocol}, co, l)
	}})
	p := open(t, srv)
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	body := `{"kind":"url","url":"` + raw + `","headers":["Authorization=Bearer t0ken","X-Api-Key=apik3y"]}`
	check := func(when, snap string) {
		t.Helper()
		for _, secret := range []string{"hunter2", "sekrit", "t0ken", "apik3y"} {
			if strings.Contains(snap, secret) {
				t.Errorf("%s, the page is sent %q: %s", when, secret, snap)
			}
		}
	}
	failed := make(chan int, 1)
	go func() {
		code, _ := p.post("connect", body)
		failed <- code
	}()
	<-dialing
	snap := p.snapshot(ctx)
	if !strings.Contains(snap, `"name":`+string(shown)) || !strings.Contains(snap, `"state":"connecting"`) {
		t.Errorf("while connecting, the server is not named %s: %s", shown, snap)
	}
	check("while connecting", snap)
	close(release)
	if code := <-failed; code != http.StatusBadGateway {
		t.Fatalf("connect: %d, want the dial's failure", code)
	}
	snap = p.snapshot(ctx)
	if !strings.Contains(snap, `"name":`+string(shown)) || !strings.Contains(snap, `"state":"failed"`) {
		t.Errorf("once failed, the server is not named %s: %s", shown, snap)
	}
	check("once failed", snap)
	if code, out := p.post("connect", body); code != 200 {
		t.Fatalf("connect: %d %s", code, out)
	}
	snap = p.snapshot(ctx)
	if !strings.Contains(snap, `"state":"connected"`) {
		t.Fatalf("not connected: %s", snap)
	}
	check("once connected", snap)
}
