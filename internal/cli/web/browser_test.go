package web_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/cookiejar"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/mcpi-dev/mcpi/auth"
	"github.com/mcpi-dev/mcpi/demo"
	"github.com/mcpi-dev/mcpi/internal/cli/connect"
	"github.com/mcpi-dev/mcpi/internal/cli/iostreams"
	"github.com/mcpi-dev/mcpi/internal/cli/state/statetest"
	webcmd "github.com/mcpi-dev/mcpi/internal/cli/web"
	"github.com/mcpi-dev/mcpi/internal/oauthtest"
	"github.com/mcpi-dev/mcpi/mcp"
	"github.com/mcpi-dev/mcpi/server"
	"github.com/mcpi-dev/mcpi/transport"
)

// browserEnv set to 1 makes a missing Chromium fail the browser tests instead of
// skipping them (scripts/test.sh sets it after scripts/web-tools.sh).
const browserEnv = "MCPI_WEB_BROWSER"

func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv(browserEnv) == "1" {
		t.Fatalf("%s=1 but no Chromium is installed: run scripts/web-tools.sh", browserEnv)
	}
	t.Skipf("no Chromium (scripts/web-tools.sh installs it; %s=1 makes this a failure)", browserEnv)
	return ""
}

// session is mcpi web on the embedded demo server, and a headless Chromium on its page.
type session struct {
	t       *testing.T
	ctx     context.Context
	url     string
	started time.Time
}

func startWeb(t *testing.T) *session {
	t.Helper()
	return startWebOn(t, &connect.Selection{})
}

// startWebOn is startWeb on the server sel names.
func startWebOn(t *testing.T, sel *connect.Selection) *session {
	t.Helper()
	exe := chromium(t)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	// The browser first, so that the start-up measured is mcpi's, not Chromium's.
	actx, acancel := chromedp.NewExecAllocator(ctx, append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe), chromedp.NoSandbox, chromedp.Headless, chromedp.DisableGPU, chromedp.WindowSize(1280, 860))...)
	t.Cleanup(acancel)
	bctx, bcancel := chromedp.NewContext(actx)
	t.Cleanup(bcancel)
	if err := chromedp.Do(bctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("starting Chromium: %v", err)
	}
	ios, _, _, _ := iostreams.Test()
	urls := make(chan string, 1)
	started := time.Now()
	done := make(chan error, 1)
	go func() {
		done <- webcmd.Run(ctx, &webcmd.Options{IO: ios, Sel: sel, Listen: "127.0.0.1:0", NoOpen: true,
			TaskTTL: time.Minute, Ready: func(u string) { urls <- u }})
	}()
	var u string
	select {
	case u = <-urls:
	case err := <-done:
		t.Fatalf("mcpi web ended: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("mcpi web did not start")
	}
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return &session{t: t, ctx: bctx, url: u, started: started}
}

// watchBlocked makes what the page's Content-Security-Policy blocks from now on (an
// inline style, say) a fault of the page, which fails the test at its end. The page must
// stay loaded until then.
func (s *session) watchBlocked() {
	s.run("watch for blocked content",
		chromedp.Evaluate[chromedp.Void](`window.__blocked = []; document.addEventListener('securitypolicyviolation', (e) => window.__blocked.push(e.violatedDirective + ' ' + (e.blockedURI || e.sample)))`),
	)
	s.t.Cleanup(func() {
		if blocked := value(s, "blocked content", chromedp.Evaluate[[]string](`window.__blocked`)); len(blocked) > 0 {
			s.t.Errorf("the page's Content-Security-Policy blocked %d times: %v", len(blocked), slices.Compact(slices.Sorted(slices.Values(blocked))))
		}
	})
}

// run runs steps with a deadline, failing the test with a screenshot's path on error.
func (s *session) run(what string, steps ...chromedp.Action[chromedp.Void]) {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(s.ctx, 20*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		s.fail(what, err)
	}
}

func (s *session) fail(what string, err error) {
	s.t.Helper()
	path := filepath.Join(s.t.TempDir(), "failure.png")
	if png, perr := chromedp.Run(s.ctx, chromedp.FullScreenshot(80)); perr == nil {
		_ = os.WriteFile(path, png, 0o644)
	}
	body, _ := chromedp.Run(s.ctx, chromedp.Text(chromedp.CSS("body")))
	s.t.Fatalf("%s: %v\nscreenshot: %s\npage text:\n%s", what, err, path, body)
}

// value runs one action that gives a value, with a deadline.
func value[T any](s *session, what string, a chromedp.Action[T]) T {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(s.ctx, 20*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		s.fail(what, err)
	}
	return v
}

// openTool shows the Tools view with the tool name selected.
func openTool(name string) chromedp.Action[chromedp.Void] {
	li := chromedp.CSS(`li[data-tool="` + name + `"]`)
	return chromedp.Steps(
		chromedp.Click(chromedp.CSS(`button[data-view="tools"]`)),
		chromedp.WaitVisible(li),
		chromedp.Click(li),
	)
}

// clickCSS clicks the first element sel finds, from the page's own JavaScript, once there
// is one: a list drawn again between chromedp finding a node and clicking it failed the
// click ("Could not find node with given id").
func clickCSS(sel string) chromedp.Action[chromedp.Void] {
	q, _ := json.Marshal(sel)
	return waitJS(`(() => { const el = document.querySelector(` + string(q) + `); if (!el) return false; el.click(); return true })()`)
}

// waitJS polls a JavaScript expression until it is true.
func waitJS(expr string) chromedp.Action[chromedp.Void] {
	return waitJSFor(expr, 15*time.Second)
}

// waitJSFor is waitJS with a bound of its own: a liveness bound, for work that the race
// detector and a loaded machine (the whole suite at once) make many times slower.
func waitJSFor(expr string, bound time.Duration) chromedp.Action[chromedp.Void] {
	return chromedp.Poll[chromedp.Void](expr, chromedp.WithPollingInterval(10*time.Millisecond), chromedp.WithPollingTimeout(bound))
}

// shot saves a screenshot under docs/ when MCPI_WEB_SCREENSHOTS names the folder.
func (s *session) shot(name string) {
	dir := os.Getenv("MCPI_WEB_SCREENSHOTS")
	if dir == "" {
		return
	}
	png := value(s, "screenshot "+name, chromedp.CaptureScreenshot())
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		s.t.Error(err)
	}
}

// figures are what TestBrowser measured, printed for docs/PERFORMANCE.md.
var figures sync.Map

func TestBrowser(t *testing.T) {
	s := startWeb(t)

	// Open the page: the tools of the demo server (2026-07-28, the embedded default).
	s.run("open the page and see the tools",
		chromedp.Navigate(s.url),
		chromedp.WaitVisible(chromedp.CSS(`li[data-tool="slow_task"]`)),
	)
	painted := time.Since(s.started)
	figures.Store("start to tools painted", painted)
	marks := value(s, "timings", chromedp.Evaluate[map[string]float64](`(() => {
		const n = performance.getEntriesByType('navigation')[0];
		return {origin: performance.timeOrigin, dcl: n.domContentLoadedEventEnd, load: n.loadEventEnd, painted: window.__mcpiPerf.toolsPainted - performance.timeOrigin,
			snapshot: window.__mcpiPerf.snapshot - performance.timeOrigin, redirect: n.redirectEnd, fetchStart: n.fetchStart};
	})()`))
	t.Logf("mcpi web start to navigation start %v; then (ms) %v", time.UnixMilli(int64(marks["origin"])).Sub(s.started), marks)
	res := value(s, "resources", chromedp.Evaluate[[]string](`performance.getEntriesByType('resource').map(e => e.name.replace(location.origin, '') + ' ' + Math.round(e.startTime) + '-' + Math.round(e.responseEnd))`))
	t.Logf("resources: %v", res)
	header := value(s, "header", chromedp.Text(chromedp.CSS("#conn-header")))
	if !strings.Contains(header, "mcpi-demo") || !strings.Contains(header, "protocol 2026-07-28") {
		t.Errorf("header %q", header)
	}
	s.shot("web-tools")
	s.watchBlocked()

	// slow_task: the server makes the call a task, and the Tasks view follows it.
	s.run("call slow_task",
		clickCSS(`li[data-tool="slow_task"]`),
		chromedp.WaitVisible(chromedp.CSS(`input[name="seconds"]`)),
		chromedp.SetValue(chromedp.CSS(`input[name="seconds"]`), "0.6"),
		chromedp.Click(chromedp.CSS(`button[data-action="call"]`)),
		chromedp.WaitVisible(chromedp.CSS(`main[data-view="tasks"] .trow[data-status="completed"]`)),
	)
	row := value(s, "the completed row", chromedp.Text(chromedp.CSS(`.trow[data-status="completed"]`)))
	if !strings.Contains(row, "slow_task") || !strings.Contains(row, "✓ completed") || !strings.Contains(row, "ext") {
		t.Errorf("row %q", row)
	}

	// slow, which the server runs plainly: its progress shows while the page waits, and
	// Cancel stops it.
	s.run("call slow and see its progress",
		openTool("slow"),
		chromedp.WaitVisible(chromedp.CSS(`input[name="steps"]`)),
		chromedp.SetValue(chromedp.CSS(`input[name="seconds"]`), "60"),
		chromedp.SetValue(chromedp.CSS(`input[name="steps"]`), "600"),
		chromedp.Click(chromedp.CSS(`button[data-action="call"]`)),
		waitJS(`(() => {
			const bar = document.querySelector('.call-progress progress');
			return bar !== null && bar.max === 600 && bar.value >= 2 && document.querySelector('.progress-text').textContent.includes('/600');
		})()`),
	)
	if !value(s, "the Call button while calling", chromedp.Evaluate[bool](`document.querySelector('button[data-action="call"]').disabled`)) {
		t.Error("the Call button is enabled while a call runs")
	}
	s.shot("web-call-progress")
	s.run("cancel slow",
		chromedp.Click(chromedp.CSS(`button[data-action="stop"]`)),
		waitJS(`(() => { const h = document.querySelector('.call-out h3'); return h !== null && h.textContent.startsWith('Cancelled slow'); })()`),
		waitJS(`!document.querySelector('button[data-action="call"]').disabled`),
	)
	if said := value(s, "the cancelled call", chromedp.Text(chromedp.CSS(`.call-out`))); !strings.Contains(said, "notifications/cancelled") {
		t.Errorf("the cancelled call says %q", said)
	}

	// ask_task in 2026-07-28: its questions are the task's input requests.
	s.run("ask_task in 2026-07-28",
		openTool("ask_task"),
		chromedp.WaitVisible(chromedp.CSS(`button[data-action="call"]`)),
		chromedp.Click(chromedp.CSS(`button[data-action="call"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#pending-badge`)),
		chromedp.Click(chromedp.CSS(`button[data-view="requests"]`)),
		chromedp.WaitVisible(chromedp.CSS(`form.elicit input[name="name"]`)),
		waitJS(`document.querySelector('.pane h2').textContent.includes('task input')`),
		chromedp.SendKeys(chromedp.CSS(`form.elicit input[name="name"]`), "Ada"),
		chromedp.Click(chromedp.CSS(`button[data-action="accept"]`)),
		chromedp.WaitVisible(chromedp.CSS(`textarea[name="reply"]`)),
		chromedp.SendKeys(chromedp.CSS(`textarea[name="reply"]`), "Hello, Ada!"),
		chromedp.Click(chromedp.CSS(`button[data-action="respond"]`)),
		chromedp.Click(chromedp.CSS(`button[data-view="tasks"]`)),
		waitJS(`[...document.querySelectorAll('.trow[data-status="completed"]')].some(r => r.textContent.includes('ask_task'))`),
	)

	// A second tab: the embedded demo server in 2025-11-25, through the Connect view.
	s.run("connect in 2025-11-25",
		chromedp.Click(chromedp.CSS(`#add-conn`)),
		chromedp.WaitVisible(chromedp.CSS(`form.connect`)),
		chromedp.SetValue(chromedp.CSS(`select[name="kind"]`), "demo"),
		chromedp.SetValue(chromedp.CSS(`select[name="protocol"]`), "2025-11-25"),
		chromedp.Click(chromedp.CSS(`form.connect button[type="submit"]`)),
		waitJS(`document.querySelectorAll('.conn-tab').length === 2 && document.querySelector('#conn-header').textContent.includes('2025-11-25')`),
		chromedp.Click(chromedp.CSS(`button[data-view="tools"]`)),
		chromedp.WaitVisible(chromedp.CSS(`li[data-tool="ask_task"]`)),
	)

	// ask_task as a task: its elicitation and sampling are answered in the forms.
	s.run("ask_task's elicitation",
		clickCSS(`li[data-tool="ask_task"]`),
		chromedp.WaitVisible(chromedp.CSS(`button[data-action="task"]`)),
		chromedp.Click(chromedp.CSS(`button[data-action="task"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#pending-badge`)),
		chromedp.Click(chromedp.CSS(`button[data-view="requests"]`)),
		chromedp.WaitVisible(chromedp.CSS(`form.elicit input[name="name"]`)),
	)
	s.shot("web-requests")
	s.run("answer the elicitation, then the sampling",
		chromedp.SendKeys(chromedp.CSS(`form.elicit input[name="name"]`), "Ada"),
		chromedp.Click(chromedp.CSS(`button[data-action="accept"]`)),
		chromedp.WaitVisible(chromedp.CSS(`textarea[name="reply"]`)),
		chromedp.SendKeys(chromedp.CSS(`textarea[name="reply"]`), "Hello, Ada!"),
		chromedp.Click(chromedp.CSS(`button[data-action="respond"]`)),
		chromedp.Click(chromedp.CSS(`button[data-view="tasks"]`)),
		waitJS(`[...document.querySelectorAll('.trow[data-status="completed"]')].some(r => r.textContent.includes('ask_task'))`),
	)

	// The receiver role: ask_model_task makes mcpi run the sampling as a task (←).
	s.run("the server's sampling task",
		openTool("ask_model_task"),
		chromedp.WaitVisible(chromedp.CSS(`input[name="prompt"]`)),
		chromedp.SendKeys(chromedp.CSS(`input[name="prompt"]`), "Say hi"),
		chromedp.Click(chromedp.CSS(`button[data-action="call"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#pending-badge`)),
		chromedp.Click(chromedp.CSS(`button[data-view="tasks"]`)),
		waitJS(`[...document.querySelectorAll('.trow')].some(r => r.textContent.includes('←') && r.textContent.includes('sampling/createMessage'))`),
		chromedp.Click(chromedp.CSS(`button[data-view="requests"]`)),
		chromedp.WaitVisible(chromedp.CSS(`textarea[name="reply"]`)),
		chromedp.SendKeys(chromedp.CSS(`textarea[name="reply"]`), "hi!"),
		chromedp.Click(chromedp.CSS(`button[data-action="respond"]`)),
		chromedp.Click(chromedp.CSS(`button[data-view="tasks"]`)),
		waitJS(`[...document.querySelectorAll('.trow[data-status="completed"]')].some(r => r.textContent.includes('←'))`),
	)
	s.shot("web-tasks")

	// Cancel a task, with confirmation.
	s.run("cancel side_effect_task",
		openTool("side_effect_task"),
		chromedp.WaitVisible(chromedp.CSS(`input[name="path"]`)),
		chromedp.SendKeys(chromedp.CSS(`input[name="path"]`), "web-test"),
		chromedp.SetValue(chromedp.CSS(`input[name="seconds"]`), "30"),
		chromedp.Click(chromedp.CSS(`button[data-action="task"]`)),
		waitJS(`[...document.querySelectorAll('.trow[data-status="working"]')].some(r => r.textContent.includes('side_effect_task'))`),
		chromedp.Evaluate[chromedp.Void](`[...document.querySelectorAll('.trow[data-status="working"]')].find(r => r.textContent.includes('side_effect_task')).click()`),
		chromedp.WaitVisible(chromedp.CSS(`button[data-action="cancel"]`)),
		chromedp.Click(chromedp.CSS(`button[data-action="cancel"]`)),
		chromedp.WaitVisible(chromedp.CSS(`button[data-action="confirm-cancel"]`)),
		chromedp.Click(chromedp.CSS(`button[data-action="confirm-cancel"]`)),
		waitJS(`[...document.querySelectorAll('.trow[data-status="cancelled"]')].some(r => r.textContent.includes('side_effect_task'))`),
	)

	// Read a resource.
	s.run("read demo://about",
		chromedp.Click(chromedp.CSS(`button[data-view="resources"]`)),
		chromedp.WaitVisible(chromedp.CSS(`li[data-uri="demo://about"]`)),
		chromedp.Click(chromedp.CSS(`li[data-uri="demo://about"]`)),
		waitJS(`document.querySelector('.pane .content.resource') !== null`),
	)

	// A template's variable completed by the server, and a prompt with its arguments.
	s.run("a template with completion",
		chromedp.WaitVisible(chromedp.CSS(`li[data-template="demo://greetings/{name}"]`)),
		chromedp.Click(chromedp.CSS(`li[data-template="demo://greetings/{name}"]`)),
		chromedp.WaitVisible(chromedp.CSS(`.pane input[name="name"]`)),
		chromedp.SendKeys(chromedp.CSS(`.pane input[name="name"]`), "A"),
		waitJS(`document.querySelectorAll('#complete-name option').length > 0`),
		chromedp.Click(chromedp.CSS(`.pane button[type="submit"]`)),
		waitJS(`document.querySelector('.pane .content.resource') !== null && document.querySelector('.pane h2').textContent.includes('demo://greetings/A')`),
	)
	s.run("a prompt",
		chromedp.Click(chromedp.CSS(`button[data-view="prompts"]`)),
		chromedp.WaitVisible(chromedp.CSS(`li[data-prompt="greet"]`)),
		chromedp.Click(chromedp.CSS(`li[data-prompt="greet"]`)),
		chromedp.WaitVisible(chromedp.CSS(`.pane input[name="name"]`)),
		chromedp.SendKeys(chromedp.CSS(`.pane input[name="name"]`), "Ada"),
		waitJS(`document.querySelectorAll('#parg-name option').length > 0`),
		chromedp.Click(chromedp.CSS(`button[data-action="get"]`)),
		waitJS(`document.querySelector('.pane .msg') !== null && document.querySelector('.pane .msg').textContent.includes('Ada')`),
	)

	// Disconnect and reconnect, from the Connect view.
	s.run("disconnect and reconnect",
		chromedp.Click(chromedp.CSS(`button[data-view="connect"]`)),
		chromedp.WaitVisible(chromedp.CSS(`.servers tr[data-conn="c2"] button`)),
		chromedp.Evaluate[chromedp.Void](`[...document.querySelectorAll('.servers tr[data-conn="c2"] button')].find(b => b.textContent === 'Disconnect').click()`),
		waitJS(`document.querySelector('#conn-header .state').textContent === 'closed'`),
		chromedp.Evaluate[chromedp.Void](`[...document.querySelectorAll('.servers tr[data-conn="c2"] button')].find(b => b.textContent === 'Reconnect').click()`),
		waitJS(`document.querySelector('#conn-header .state').textContent === 'connected'`),
		chromedp.Click(chromedp.CSS(`button[data-view="resources"]`)),
		chromedp.WaitVisible(chromedp.CSS(`li[data-uri="demo://about"]`)),
	)

	// The Log has the traffic, both ways.
	s.run("the log",
		chromedp.Click(chromedp.CSS(`button[data-view="log"]`)),
		waitJS(`document.querySelectorAll('.lrow.in').length > 0 && document.querySelectorAll('.lrow.out').length > 0`),
		chromedp.SetValue(chromedp.CSS(`input[aria-label="filter by method"]`), "resources/read"),
		chromedp.Evaluate[chromedp.Void](`document.querySelector('input[aria-label="filter by method"]').dispatchEvent(new Event('input'))`),
		// Requests and their responses, each response named by its request's method.
		waitJS(`[...document.querySelectorAll('.lrow')].length > 0 && [...document.querySelectorAll('.lrow')].every(r => r.textContent.includes('resources/read'))`+
			` && [...document.querySelectorAll('.lrow.in')].some(r => r.textContent.includes('✓ resources/read #'))`),
	)
	s.shot("web-log")
	// Where the page's connection left events out (it fell behind a flood), a row says how
	// many, whatever the filter. The server side of it is internal/web's
	// TestBehindFollowerReadsTheSessionAgain; the row is put in the page's store here.
	s.run("a gap in the log",
		chromedp.Evaluate[chromedp.Void](`import('/js/store.js').then((s) => {
			const c = s.activeConn();
			const row = { seq: -1, time: new Date().toISOString(), dir: 'gap', message: { dropped: 4321 } };
			c.log.push(row);
			s.emit('message', c, row);
		})`),
		waitJS(`[...document.querySelectorAll('.lrow.gap')].some(r => r.textContent.includes('4321 events not shown'))`),
	)
	// Each row has a line of its own (their places are styles, which the page's
	// Content-Security-Policy lets through only when set from script).
	tops := value(s, "the rows' places", chromedp.Evaluate[[]float64](`[...document.querySelectorAll('.lrow')].map(r => r.offsetTop)`))
	if len(tops) < 3 || len(tops) != len(slices.Compact(slices.Sorted(slices.Values(tops)))) {
		t.Errorf("log rows at %v: one over another", tops)
	}
	s.shot("web-log-gap")

	// How long a status took from mcpi's client to the row on the screen.
	lat := value(s, "latencies", chromedp.Evaluate[[]float64](`window.__mcpiPerf.taskLatency`))
	if len(lat) == 0 {
		t.Error("no task row was measured")
	} else {
		slices.Sort(lat)
		figures.Store("status to row (median ms)", lat[len(lat)/2])
		figures.Store("status to row (max ms)", lat[len(lat)-1])
	}
}

// TestBrowserTenThousandTasks: ten thousand tasks in the list, and the time one frame
// of scrolling (and one of a status update) takes to draw.
func TestBrowserTenThousandTasks(t *testing.T) {
	if testing.Short() {
		t.Skip("makes 10,000 tasks")
	}
	s := startWeb(t)
	s.run("open", chromedp.Navigate(s.url), chromedp.WaitVisible(chromedp.CSS(`li[data-tool="instant_task"]`)))
	s.watchBlocked()
	// The page's own API, from Go, with the browser's cookie: 10,000 task calls.
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	resp, err := c.Get(s.url)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	base := strings.Split(s.url, "/?")[0]
	post := func(path, body string) error {
		req, _ := http.NewRequest(http.MethodPost, base+"/api/"+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Origin", base)
		resp, err := c.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			return fmt.Errorf("%s: %s", path, resp.Status)
		}
		return nil
	}
	if err := post("connect", `{"protocol":"2025-11-25"}`); err != nil {
		t.Fatal(err)
	}
	const n = 10000
	var wg sync.WaitGroup
	errs := make(chan error, n)
	sem := make(chan struct{}, 64)
	for range n {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			for {
				err := post("c2/call", `{"name":"instant_task","task":true}`)
				if err != nil && strings.Contains(err.Error(), "502") {
					time.Sleep(20 * time.Millisecond) // the demo server's rate limit
					continue
				}
				errs <- err
				return
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	s.run("ten thousand rows",
		chromedp.Evaluate[chromedp.Void](`document.querySelectorAll('.conn-tab')[1].click()`),
		chromedp.Click(chromedp.CSS(`button[data-view="tasks"]`)),
		waitJS(`document.querySelector('.tbar .count') && document.querySelector('.tbar .count').textContent.startsWith('10000 tasks')`),
	)
	s.shot("web-tasks-10k")
	frames := value(s, "scroll frames", chromedp.Evaluate[[]float64](`(() => {
		const sc = document.querySelector('.tscroll');
		const out = [];
		for (let i = 0; i < 200; i++) {
			const t0 = performance.now();
			sc.scrollTop = (i * 997 * 28) % (sc.scrollHeight - sc.clientHeight);
			sc.dispatchEvent(new Event('scroll'));
			void sc.querySelector('.trows').offsetHeight; // layout, as a frame would
			out.push(performance.now() - t0);
		}
		return out;
	})()`))
	slices.Sort(frames)
	figures.Store("10k tasks: scroll frame p50 (ms)", frames[len(frames)/2])
	figures.Store("10k tasks: scroll frame p95 (ms)", frames[len(frames)*95/100])
	// Status changes while ten thousand rows are listed: each frame filters them all
	// and draws those in sight.
	s.run("updates", chromedp.Evaluate[chromedp.Void](`window.__mcpiPerf.updateFrames = []`))
	for range 30 {
		if err := post("c2/call", `{"name":"instant_task","task":true}`); err != nil {
			t.Fatal(err)
		}
		time.Sleep(20 * time.Millisecond) // a frame or so apart
	}
	s.run("update frames", waitJS(`window.__mcpiPerf.updateFrames.length >= 10`))
	updates := value(s, "update frames", chromedp.Evaluate[[]float64](`window.__mcpiPerf.updateFrames`))
	slices.Sort(updates)
	figures.Store("10k tasks: update frame p50 (ms)", updates[len(updates)/2])
	figures.Store("10k tasks: update frame max (ms)", updates[len(updates)-1])
	rows := value(s, "rows drawn", chromedp.Evaluate[int](`document.querySelectorAll('.trow').length`))
	if rows > 200 {
		t.Errorf("%d rows in the DOM for 10,000 tasks: the list is not virtual", rows)
	}
}

func TestMain(m *testing.M) {
	code := statetest.Main(m) // the tests run mcpi's commands: their state goes to a directory of their own
	var lines []string
	figures.Range(func(k, v any) bool {
		lines = append(lines, fmt.Sprintf("%s: %v", k, v))
		return true
	})
	if len(lines) > 0 {
		slices.Sort(lines)
		b, _ := json.Marshal(lines)
		fmt.Fprintf(os.Stderr, "web figures: %s\n", b)
	}
	os.Exit(code)
}

// htmlEnv makes TestHTMLServerProcess serve: the browser test runs the test binary as a
// server whose every string is markup that would run script if a page took it as HTML.
const htmlEnv = "MCPI_TEST_HTML_SERVER"

// htmlPayload sets window.__pwned wherever a page lets it run.
const htmlPayload = `<img src=x onerror="window.__pwned='img'"><script>window.__pwned='script'</script><svg onload="window.__pwned='svg'"></svg>`

// TestHTMLServerProcess is not a test: with htmlEnv set, it serves the markup server on
// stdin and stdout until stdin closes.
func TestHTMLServerProcess(t *testing.T) {
	if os.Getenv(htmlEnv) != "1" {
		t.Skip("the markup server for TestBrowserHostileMarkup")
	}
	srv := server.New(mcp.Implementation{Name: "html" + htmlPayload, Version: htmlPayload}, &server.Options{Instructions: htmlPayload})
	svg := base64.StdEncoding.EncodeToString([]byte(`<svg xmlns="http://www.w3.org/2000/svg" onload="window.__pwned='data-svg'"/>`))
	srv.AddTool(&mcp.Tool{Name: "markup", Title: htmlPayload, Description: htmlPayload,
		InputSchema: json.RawMessage(`{"type":"object","properties":{"x":{"type":"string","title":` + strconv.Quote(htmlPayload) + `,"description":` + strconv.Quote(htmlPayload) + `,"enum":[` + strconv.Quote(htmlPayload) + `]}}}`)},
		func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{
				mcp.TextContent(htmlPayload),
				{Type: "image", MimeType: "image/svg+xml", Data: svg},
				{Type: "resource_link", URI: "javascript:window.__pwned='link'", Name: htmlPayload},
			}, StructuredContent: json.RawMessage(`{"k":` + strconv.Quote(htmlPayload) + `}`)}, nil
		})
	// A URL elicitation whose URL is a script, not a web page.
	srv.AddTool(&mcp.Tool{Name: "url_script", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
			r, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Mode: mcp.ElicitModeURL, Message: "Log in", URL: "javascript:window.__pwned='url'", ElicitationID: "e1"})
			if err != nil {
				return nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent("action " + r.Action)}}, nil
		})
	// An output schema whose enum of 200,000 values is met at each of 50,000 items: the
	// page's check of the result against it gave up never.
	srv.AddTool(&mcp.Tool{Name: "outsized", InputSchema: json.RawMessage(`{"type":"object"}`),
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"items":{"type":"array","items":{"enum":[` + numberList(200_000) + `]}}}}`)},
		func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent("outsized")},
				StructuredContent: json.RawMessage(`{"items":[` + numberList(50_000) + `]}`)}, nil
		})
	if err := srv.Run(context.Background(), transport.StdioTransport{}); err != nil {
		t.Fatal(err)
	}
}

// A URL elicitation whose URL is no web page (javascript:) is said not to be opened:
// no link, no button that opens it, only Decline and Cancel.
func TestBrowserURLElicitationOffersOnlyWebPages(t *testing.T) {
	s := startWebOn(t, processServer("TestHTMLServerProcess", htmlEnv))
	s.run("call url_script",
		chromedp.Navigate(s.url),
		chromedp.WaitVisible(chromedp.CSS(`li[data-tool="url_script"]`)),
		clickCSS(`li[data-tool="url_script"]`),
		chromedp.WaitVisible(chromedp.CSS(`button[data-action="call"]`)),
		chromedp.Click(chromedp.CSS(`button[data-action="call"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#pending-badge`)),
		chromedp.Click(chromedp.CSS(`button[data-view="requests"]`)),
		chromedp.WaitVisible(chromedp.CSS(`button[data-action="decline"]`)),
	)
	pane := value(s, "the request", chromedp.Evaluate[[]string](`(() => { const p = document.querySelector('button[data-action="decline"]').closest('.pane') || document.body;
		return [p.textContent, String(p.querySelectorAll('a[href^="javascript"], button[data-action="open"], button[data-action="accept"]').length)]; })()`))
	if !strings.Contains(pane[0], "will not open: javascript:window.__pwned='url'") || pane[1] != "0" {
		t.Errorf("the script URL is offered (%s links or buttons to open it): %q", pane[1], pane[0])
	}
	s.run("decline", chromedp.Click(chromedp.CSS(`button[data-action="decline"]`)))
}

// numberList is "0,1,...,n-1".
func numberList(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(i))
	}
	return b.String()
}

// A result checked against an output schema of a server's making costs the page a
// bounded amount of work, whatever the sizes: it says it is too large to check.
func TestBrowserOutputSchemaOfHostileSize(t *testing.T) {
	s := startWebOn(t, processServer("TestHTMLServerProcess", htmlEnv))
	s.openAndCall("outsized", `document.querySelector('.result .structured') !== null`)
	if text := value(s, "the verdict", chromedp.Text(chromedp.CSS(".result .structured h4"))); !strings.Contains(text, "too large to check") {
		t.Errorf("the structured content's heading says %q", text)
	}
}

// A server's strings are text on the page: names, descriptions, schemas, results and
// images that carry markup run nothing.
func TestBrowserHostileMarkup(t *testing.T) {
	s := startWebOn(t, processServer("TestHTMLServerProcess", htmlEnv))
	s.openAndCall("markup", `document.querySelector('.result') !== null`)
	pwned := value(s, "window.__pwned", chromedp.Evaluate[*string](`window.__pwned === undefined ? null : String(window.__pwned)`))
	if pwned != nil {
		t.Errorf("the server's markup ran: window.__pwned = %q", *pwned)
	}
	injected := value(s, "elements", chromedp.Evaluate[int](`document.querySelectorAll('img[src="x"], svg, script:not([type="module"])').length`))
	if injected != 0 {
		t.Errorf("%d elements of the server's markup are in the page", injected)
	}
	text := value(s, "the page's text", chromedp.Text(chromedp.CSS("main")))
	if !strings.Contains(text, `<img src=x onerror=`) {
		t.Errorf("the markup is not shown as text:\n%s", text)
	}
	if !strings.Contains(text, "an image of type image/svg+xml that the page does not show") {
		t.Errorf("the SVG image was shown")
	}
}

// processServer runs this test binary as the server: the test named run serves when env
// is set.
func processServer(run, env string) *connect.Selection {
	return &connect.Selection{Stdio: shellQuote(os.Args[0]) + " -test.run=^" + run + "$", Env: []string{env + "=1"}}
}

// openAndCall opens the page, watches for blocked content, runs before, then calls tool
// (which takes no arguments) and waits for done.
func (s *session) openAndCall(tool, done string, before ...chromedp.Action[chromedp.Void]) {
	s.run("open the page",
		chromedp.Navigate(s.url),
		chromedp.WaitVisible(chromedp.CSS(`li[data-tool="`+tool+`"]`)),
	)
	s.watchBlocked()
	s.run("before the call", before...)
	s.run("call "+tool,
		clickCSS(`li[data-tool="`+tool+`"]`),
		chromedp.WaitVisible(chromedp.CSS(`button[data-action="call"]`)),
		clickCSS(`button[data-action="call"]`),
		waitJS(done),
	)
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// formsEnv makes TestFormsServerProcess serve: one tool whose input schema has what the
// form builder draws, and which returns its arguments as structured content.
const formsEnv = "MCPI_TEST_FORMS_SERVER"

const shapeSchema = `{"type":"object",
 "$defs":{"point":{"type":"object","properties":{"x":{"type":"integer","minimum":0,"maximum":10},"y":{"type":"integer","default":3}},"required":["x"]}},
 "properties":{
  "name":{"type":"string","default":"Ada","minLength":2},
  "color":{"oneOf":[{"const":"r","title":"Red"},{"const":"g","title":"Green"}]},
  "size":{"enum":["s","m"]},
  "note":{"type":["string","null"]},
  "origin":{"$ref":"#/$defs/point"},
  "tags":{"type":"array","items":{"type":"string"}},
  "ratio":{"type":"number","minimum":0,"maximum":1}},
 "required":["name","origin"]}`

func TestFormsServerProcess(t *testing.T) {
	if os.Getenv(formsEnv) != "1" {
		t.Skip("the forms server for TestBrowserForms")
	}
	srv := server.New(mcp.Implementation{Name: "forms", Version: "1"}, nil)
	var bumps atomic.Int64
	srv.AddResource(&mcp.Resource{URI: "forms://counter", Name: "counter"}, func(ctx context.Context, _ *server.Session, p *mcp.ReadResourceParams) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{{URI: p.URI, MimeType: "text/plain", Text: fmt.Sprintf("count %d", bumps.Load())}}}, nil
	})
	srv.AddTool(&mcp.Tool{Name: "bump", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
			bumps.Add(1)
			srv.NotifyResourceUpdated(ctx, "forms://counter")
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent("bumped")}}, nil
		})
	// A 1×1 PNG and a WAV of silence, and a link to a resource.
	png := "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
	wav := "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQAAAAA="
	srv.AddTool(&mcp.Tool{Name: "media", InputSchema: json.RawMessage(`{"type":"object"}`), OutputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`)},
		func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{
				{Type: "image", MimeType: "image/png", Data: png},
				{Type: "audio", MimeType: "audio/wav", Data: wav},
				{Type: "resource_link", URI: "forms://counter", Name: "counter"},
			}, StructuredContent: json.RawMessage(`{"n":1}`)}, nil
		})
	srv.AddTool(&mcp.Tool{Name: "authorize", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
			r, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Mode: mcp.ElicitModeURL, Message: "Sign in to continue",
				URL: "https://auth.example/sign-in?state=1", ElicitationID: "e1"})
			if err != nil {
				return nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent("action " + r.Action)}}, nil
		})
	srv.AddTool(&mcp.Tool{Name: "shape", InputSchema: json.RawMessage(shapeSchema)},
		func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent("ok")}, StructuredContent: req.Params.Arguments}, nil
		})
	if err := srv.Run(context.Background(), transport.StdioTransport{}); err != nil {
		t.Fatal(err)
	}
}

// The form built from an input schema: defaults, enums with titles, nullable, $ref,
// arrays, bounds checked before anything is sent; and the raw-JSON mode, which leaves
// the user's text alone while they type.
func TestBrowserForms(t *testing.T) {
	s := startWebOn(t, processServer("TestFormsServerProcess", formsEnv))
	s.run("the form",
		chromedp.Navigate(s.url),
		chromedp.WaitVisible(chromedp.CSS(`li[data-tool="shape"]`)),
	)
	s.watchBlocked()
	s.run("open the form",
		clickCSS(`li[data-tool="shape"]`),
		chromedp.WaitVisible(chromedp.CSS(`[data-field="origin"] input[name="x"]`)),
	)
	defaults := value(s, "defaults", chromedp.Evaluate[[]string](`[document.querySelector('input[name="name"]').value, document.querySelector('[data-field="origin"] input[name="y"]').value,
		[...document.querySelector('select[name="color"]').options].map(o => o.textContent).join('|')]`))
	if !slices.Equal(defaults, []string{"Ada", "3", "(not set)|Red|Green"}) {
		t.Errorf("defaults and titles: %q", defaults)
	}
	s.run("out of bounds: nothing is sent",
		chromedp.SetValue(chromedp.CSS(`[data-field="origin"] input[name="x"]`), "11"),
		chromedp.Click(chromedp.CSS(`button[data-action="call"]`)),
		waitJS(`document.querySelector('.call-out').textContent.includes('nothing was sent') && document.querySelector('.call-out').textContent.includes('at most 10')`),
	)
	s.run("fill and call",
		chromedp.SetValue(chromedp.CSS(`[data-field="origin"] input[name="x"]`), "4"),
		chromedp.Evaluate[chromedp.Void](`(() => { const s = document.querySelector('select[name="color"]'); s.value = [...s.options].find(o => o.textContent === 'Green').value; })()`),
		chromedp.Click(chromedp.CSS(`[data-field="note"] ~ .null input, .nullable .null input`)),
		chromedp.Click(chromedp.CSS(`[data-field="tags"] button.add`)),
		chromedp.SendKeys(chromedp.CSS(`input[name="tags[0]"]`), "t1"),
		chromedp.SetValue(chromedp.CSS(`input[name="ratio"]`), "0.5"),
		chromedp.Click(chromedp.CSS(`button[data-action="call"]`)),
		waitJS(`window.__lastResult !== undefined`),
	)
	got := value(s, "the result", chromedp.Evaluate[map[string]any](`window.__lastResult.structuredContent`))
	want := map[string]any{"name": "Ada", "color": "g", "note": nil, "origin": map[string]any{"x": 4.0, "y": 3.0}, "tags": []any{"t1"}, "ratio": 0.5}
	if b1, b2 := mustJSON(got), mustJSON(want); b1 != b2 {
		t.Errorf("the arguments the server got:\n%s\nwant\n%s", b1, b2)
	}
	// Raw JSON: half-typed text stays as typed.
	s.run("raw JSON",
		chromedp.Click(chromedp.CSS(`button.mode`)),
		chromedp.WaitVisible(chromedp.CSS(`textarea.raw`)),
		chromedp.Evaluate[chromedp.Void](`document.querySelector('textarea.raw').value = ''`),
		chromedp.SendKeys(chromedp.CSS(`textarea.raw`), `{"name": "Bo`),
		chromedp.Sleep(300*time.Millisecond),
	)
	if v := value(s, "raw text", chromedp.Value(chromedp.CSS(`textarea.raw`))); v != `{"name": "Bo` {
		t.Errorf("the raw text changed under the user: %q", v)
	}
	s.run("finish the raw JSON and call",
		chromedp.SendKeys(chromedp.CSS(`textarea.raw`), `b", "origin": {"x": 1}}`),
		chromedp.Evaluate[chromedp.Void](`window.__lastResult = undefined`),
		chromedp.Click(chromedp.CSS(`button[data-action="call"]`)),
		waitJS(`window.__lastResult !== undefined`),
	)
	got = value(s, "the raw result", chromedp.Evaluate[map[string]any](`window.__lastResult.structuredContent`))
	if b := mustJSON(got); b != `{"name":"Bob","origin":{"x":1}}` {
		t.Errorf("raw arguments the server got: %s", b)
	}

	// Images, audio, a resource link, and structured content checked against the output
	// schema.
	s.run("media",
		clickCSS(`li[data-tool="media"]`),
		chromedp.WaitVisible(chromedp.CSS(`button[data-action="call"]`)),
		chromedp.Click(chromedp.CSS(`button[data-action="call"]`)),
		waitJS(`document.querySelector('.result img[src^="data:image/png;base64,"]') !== null && document.querySelector('.result audio[src^="data:audio/wav;base64,"]') !== null`),
		waitJS(`document.querySelector('.result .content.link').textContent.includes('forms://counter') && document.querySelector('.result .structured').textContent.includes('matches the output schema')`),
	)

	// URL elicitation: the page offers to open the link, and says the user did.
	s.run("URL elicitation",
		openTool("authorize"),
		chromedp.WaitVisible(chromedp.CSS(`button[data-action="call"]`)),
		chromedp.Evaluate[chromedp.Void](`window.__lastResult = undefined; window.open = (u) => { window.__opened = u; return null; }`),
		chromedp.Click(chromedp.CSS(`button[data-action="call"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#pending-badge`)),
		chromedp.Click(chromedp.CSS(`button[data-view="requests"]`)),
		chromedp.WaitVisible(chromedp.CSS(`button[data-action="open"]`)),
		chromedp.Click(chromedp.CSS(`button[data-action="open"]`)),
		chromedp.Click(chromedp.CSS(`button[data-view="tools"]`)),
		waitJS(`window.__lastResult !== undefined`),
	)
	if got := value(s, "opened", chromedp.Evaluate[string](`window.__opened + ' ' + window.__lastResult.content[0].text`)); got != "https://auth.example/sign-in?state=1 action accept" {
		t.Errorf("URL elicitation: %q", got)
	}

	// A subscribed resource is read again when the server says it changed.
	s.run("subscribe, and see the update",
		chromedp.Click(chromedp.CSS(`button[data-view="resources"]`)),
		chromedp.WaitVisible(chromedp.CSS(`li[data-uri="forms://counter"]`)),
		chromedp.Click(chromedp.CSS(`li[data-uri="forms://counter"]`)),
		chromedp.WaitVisible(chromedp.CSS(`button[data-action="subscribe"]`)),
		chromedp.Click(chromedp.CSS(`button[data-action="subscribe"]`)),
		chromedp.WaitVisible(chromedp.CSS(`button[data-action="unsubscribe"]`)),
		chromedp.Evaluate[chromedp.Void](`fetch('/api/c1/call', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify({name: 'bump'})})`),
		waitJS(`document.querySelector('.pane').textContent.includes('count 1') && document.querySelector('.pane').textContent.includes(' 1 update')`),
	)
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// A tab whose server wants a login says "authorization needed" with the authorization
// URL as a link; the user opens it (the test, with an HTTP client, as the page only
// shows it), logs in, and the tab connects by itself.
func TestBrowserLogin(t *testing.T) {
	srv := demo.New(&demo.Options{SideEffectDir: t.TempDir()})
	t.Cleanup(srv.Close)
	p := oauthtest.Protect(t, srv.HTTPHandler(nil), nil)
	sel := &connect.Selection{URL: p.URL}
	sel.Auth.Store = &auth.MemoryStore{}
	s := startWebOn(t, sel)
	s.run("open the page: authorization needed",
		chromedp.Navigate(s.url),
		chromedp.WaitVisible(chromedp.CSS(`#conn-header a.auth-link`)),
	)
	header := value(s, "header", chromedp.Text(chromedp.CSS("#conn-header")))
	if !strings.Contains(header, "authorizing") || !strings.Contains(header, "authorization needed") {
		t.Errorf("header %q", header)
	}
	link := value(s, "the login link", chromedp.Evaluate[map[string]string](`(() => {
		const a = document.querySelector('#conn-header a.auth-link');
		return {href: a.href, target: a.target, rel: a.rel};
	})()`))
	if !strings.HasPrefix(link["href"], p.AS.URL+"/authorize?") || link["target"] != "_blank" || link["rel"] != "noopener noreferrer" {
		t.Fatalf("the link: %v", link)
	}
	s.shot("web-login")
	resp, err := http.Get(link["href"])
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("the login: HTTP %d at %s", resp.StatusCode, resp.Request.URL)
	}
	s.run("connected by itself",
		chromedp.WaitVisible(chromedp.CSS(`li[data-tool="add"]`)),
		waitJS(`!document.querySelector('#conn-header a.auth-link') && document.querySelector('#conn-header .state').textContent === 'connected'`),
	)
	header = value(s, "header", chromedp.Text(chromedp.CSS("#conn-header")))
	if !strings.Contains(header, "protocol 2026-07-28") {
		t.Errorf("header after the login %q", header)
	}
}

// floodEnv makes TestFloodServerProcess serve: a server whose tool sends floodLines log
// messages as fast as it can before it answers.
const floodEnv = "MCPI_TEST_FLOOD_SERVER"

// floodLines is 100,000 for the figures in docs/PERFORMANCE.md; with the race detector,
// a quarter (still past every bound the Log's way: the session's 16,384 events for a
// subscriber, the page's 8,192 for its stream), so that the test stays well inside its
// waits on a busy machine.
var floodLines = func() int {
	if raceDetector {
		return 25_000
	}
	return 100_000
}()

// TestFloodServerProcess is not a test: with floodEnv set, it serves the flooding server
// on stdin and stdout until stdin closes.
func TestFloodServerProcess(t *testing.T) {
	if os.Getenv(floodEnv) != "1" {
		t.Skip("the flooding server for TestBrowserFlood")
	}
	srv := server.New(mcp.Implementation{Name: "flood", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "flood", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *server.ToolRequest) (*mcp.CallToolResult, error) {
			for i := range floodLines {
				if err := req.Session.Log(ctx, mcp.LoggingLevelInfo, "flood", "line "+strconv.Itoa(i)); err != nil {
					return nil, err
				}
			}
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.TextContent("flooded")}}, nil
		})
	if err := srv.Run(context.Background(), transport.StdioTransport{}); err != nil {
		t.Fatal(err)
	}
}

// A server that floods the page (floodLines log messages as fast as it can send them) does
// not freeze it: the call's result shows, the Log ends with the last message, and no task
// of the page's main thread takes long.
func TestBrowserFlood(t *testing.T) {
	s := startWebOn(t, processServer("TestFloodServerProcess", floodEnv))
	var started time.Time
	s.openAndCall("flood", `document.querySelector('.result') !== null && document.querySelector('.result').textContent.includes('flooded')`,
		chromedp.Evaluate[chromedp.Void](`window.__long = []; new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__long.push(e.duration); }).observe({ type: 'longtask', buffered: false })`),
		func(context.Context, *chromedp.Target) (chromedp.Void, error) {
			started = time.Now()
			return chromedp.Void{}, nil
		})
	shown := time.Since(started)
	last := "line " + strconv.Itoa(floodLines-1)
	s.run("the log's end",
		chromedp.Click(chromedp.CSS(`button[data-view="log"]`)),
		// 25,000 messages through the race detector on a machine running the whole suite
		// took more than 15 s (twice); alone, 2.4 s.
		waitJSFor(`[...document.querySelectorAll('.lrow')].some(r => r.textContent.includes('`+last+`"'))`, time.Minute),
	)
	settled := time.Since(started)
	snapshots := value(s, "snapshots", chromedp.Evaluate[int](`window.__mcpiPerf.snapshots`))
	long := value(s, "long tasks", chromedp.Evaluate[[]float64](`window.__long`))
	slices.Sort(long)
	worst := 0.0
	if len(long) > 0 {
		worst = long[len(long)-1]
	}
	flood := fmt.Sprintf("flood of %d log messages", floodLines)
	figures.Store(flood+": result shown (ms)", shown.Milliseconds())
	figures.Store(flood+": log settled (ms)", settled.Milliseconds())
	figures.Store(flood+": long tasks, worst (ms)", fmt.Sprintf("%d, %.0f", len(long), worst))
	t.Logf("result shown after %v, log settled after %v; %d long tasks of the main thread, the worst %.0f ms; %d snapshots", shown, settled, len(long), worst, snapshots)
}

// A call's state is the page's, not the pane's: a running call (its progress, its Cancel
// button, the Call button held) and its result survive leaving the Tools view, which
// answering the server's request needs.
func TestBrowserCallSurvivesViews(t *testing.T) {
	s := startWeb(t)
	s.run("open", chromedp.Navigate(s.url), chromedp.WaitVisible(chromedp.CSS(`li[data-tool="ask_user"]`)))
	s.watchBlocked()
	s.run("ask_user, answered in Requests",
		openTool("ask_user"),
		chromedp.WaitVisible(chromedp.CSS(`button[data-action="call"]`)),
		chromedp.Click(chromedp.CSS(`button[data-action="call"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#pending-badge`)),
		chromedp.Click(chromedp.CSS(`button[data-view="requests"]`)),
		chromedp.WaitVisible(chromedp.CSS(`form.elicit input[name="name"]`)),
		chromedp.SendKeys(chromedp.CSS(`form.elicit input[name="name"]`), "Ada"),
		chromedp.Click(chromedp.CSS(`button[data-action="accept"]`)),
		waitJS(`window.__lastResult !== undefined`),
		chromedp.Click(chromedp.CSS(`button[data-view="tools"]`)),
		waitJS(`(() => { const h = document.querySelector('.call-out h3'); return h !== null && h.textContent.startsWith('Result of ask_user') && document.querySelector('.call-out .result').textContent.includes('Ada'); })()`),
	)
	if v := value(s, "the Call button", chromedp.Evaluate[bool](`document.querySelector('button[data-action="call"]').disabled`)); v {
		t.Error("the Call button stays disabled after the result")
	}

	s.run("slow, away and back",
		openTool("slow"),
		chromedp.WaitVisible(chromedp.CSS(`input[name="steps"]`)),
		chromedp.SetValue(chromedp.CSS(`input[name="seconds"]`), "60"),
		chromedp.SetValue(chromedp.CSS(`input[name="steps"]`), "600"),
		chromedp.Click(chromedp.CSS(`button[data-action="call"]`)),
		waitJS(`(() => { const bar = document.querySelector('.call-progress progress'); return bar !== null && bar.value >= 1; })()`),
		chromedp.Click(chromedp.CSS(`button[data-view="requests"]`)),
		chromedp.WaitVisible(chromedp.CSS(`main[data-view="requests"]`)),
		openTool("ask_user"),
		waitJS(`document.querySelector('.call-out .result') !== null`),
		openTool("slow"),
		waitJS(`(() => {
			const bar = document.querySelector('.call-progress progress');
			return bar !== null && bar.max === 600 && bar.value >= 2 && document.querySelector('.progress-text').textContent.includes('/600')
				&& document.querySelector('button[data-action="stop"]') !== null;
		})()`),
	)
	if !value(s, "the Call button while calling", chromedp.Evaluate[bool](`document.querySelector('button[data-action="call"]').disabled`)) {
		t.Error("the Call button is enabled again while the call runs")
	}
	if v := value(s, "the arguments", chromedp.Evaluate[string](`document.querySelector('input[name="seconds"]').value`)); v != "60" {
		t.Errorf("the form's seconds after coming back: %q, want the call's 60", v)
	}
	s.run("cancel slow",
		chromedp.Click(chromedp.CSS(`button[data-action="stop"]`)),
		waitJS(`(() => { const h = document.querySelector('.call-out h3'); return h !== null && h.textContent.startsWith('Cancelled slow'); })()`),
		waitJS(`!document.querySelector('button[data-action="call"]').disabled`),
	)
}

// The Tasks view: a task that is gone shows as such (and filters as such), the detail's
// elapsed time and ttl move on as the row's do, a tool result's text shows plainly, and
// the rows take the keyboard.
func TestBrowserTasksDetail(t *testing.T) {
	s := startWeb(t)
	s.run("open", chromedp.Navigate(s.url), chromedp.WaitVisible(chromedp.CSS(`li[data-tool="slow_task"]`)))
	s.watchBlocked()

	// A running task's detail moves on by itself, between the task's events (sleep_task
	// sends none while it sleeps).
	s.run("sleep_task for 4 s",
		openTool("sleep_task"),
		chromedp.WaitVisible(chromedp.CSS(`input[name="seconds"]`)),
		chromedp.SetValue(chromedp.CSS(`input[name="seconds"]`), "4"),
		chromedp.Click(chromedp.CSS(`button[data-action="call"]`)),
		chromedp.WaitVisible(chromedp.CSS(`main[data-view="tasks"] .trow[data-status="working"]`)),
		chromedp.Click(chromedp.CSS(`.trow[data-status="working"]`)),
		waitJS(`document.querySelector('.tdetail h3') !== null`),
	)
	line := `document.querySelector('.tdetail h3 + p').textContent`
	first := value(s, "the detail's line", chromedp.Evaluate[string](line))
	s.run("a second later", waitJSFor(line+` !== `+strconv.Quote(first)+` && `+line+`.includes('working')`, 3*time.Second))

	// Its result: the text as text, the JSON below.
	s.run("the result",
		waitJS(`document.querySelector('.trow.selected') && document.querySelector('.trow.selected').dataset.status === 'completed'`),
		waitJS(`document.querySelector('.tdetail .task-result pre.content.text') !== null && document.querySelector('.tdetail .task-result .json') !== null`),
	)

	// The rows take the keyboard: focus, arrows, Enter.
	s.run("a second task",
		openTool("slow_task"),
		chromedp.WaitVisible(chromedp.CSS(`input[name="seconds"]`)),
		chromedp.SetValue(chromedp.CSS(`input[name="seconds"]`), "0.2"),
		chromedp.Click(chromedp.CSS(`button[data-action="call"]`)),
		waitJS(`document.querySelectorAll('main[data-view="tasks"] .trow[data-status="completed"]').length === 2`),
		chromedp.Focus(chromedp.CSS(`.trow:not(.selected)`)),
		chromedp.Evaluate[chromedp.Void](`window.__first = document.activeElement.dataset.key`),
		chromedp.KeyEvent("\r"),
		waitJS(`document.activeElement.classList.contains('selected') && document.querySelector('.trow.selected').dataset.key === window.__first`),
		chromedp.KeyEvent(kb.ArrowDown),
		waitJS(`document.querySelector('.trow.selected').dataset.key !== window.__first && document.activeElement === document.querySelector('.trow.selected')`),
		chromedp.KeyEvent(kb.ArrowUp),
		waitJS(`document.querySelector('.trow.selected').dataset.key === window.__first`),
	)

	// A task the server forgets when its ttl runs out: expired, not working.
	s.run("short_ttl_task",
		openTool("short_ttl_task"),
		chromedp.WaitVisible(chromedp.CSS(`input[name="seconds"]`)),
		chromedp.SetValue(chromedp.CSS(`input[name="seconds"]`), "5"),
		chromedp.Click(chromedp.CSS(`button[data-action="call"]`)),
		chromedp.WaitVisible(chromedp.CSS(`main[data-view="tasks"] .trow[data-status="working"]`)),
		waitJS(`document.querySelector('.trow[data-status="expired"]') !== null && document.querySelector('.trow[data-status="expired"] .c-status').textContent.includes('expired')`),
		chromedp.SetValue(chromedp.CSS(`select[aria-label="status"]`), "working"),
		chromedp.Evaluate[chromedp.Void](`document.querySelector('select[aria-label="status"]').dispatchEvent(new Event('change'))`),
		waitJS(`[...document.querySelectorAll('.trow')].filter(r => !r.hidden).length === 0`),
		chromedp.SetValue(chromedp.CSS(`select[aria-label="status"]`), "gone"),
		chromedp.Evaluate[chromedp.Void](`document.querySelector('select[aria-label="status"]').dispatchEvent(new Event('change'))`),
		waitJS(`(() => { const rs = [...document.querySelectorAll('.trow')].filter(r => !r.hidden); return rs.length === 1 && rs[0].textContent.includes('short_ttl_task'); })()`),
	)
}

// At 600 px wide the Tasks view shows every column (its header and rows scroll sideways
// together) and the Tools form stays inside its pane.
func TestBrowserNarrow(t *testing.T) {
	s := startWeb(t)
	s.run("open at 600 px",
		chromedp.EmulateViewport(600, 800),
		chromedp.Navigate(s.url),
		chromedp.WaitVisible(chromedp.CSS(`li[data-tool="slow"]`)),
		openTool("slow"),
		chromedp.WaitVisible(chromedp.CSS(`input[name="steps"]`)),
	)
	s.watchBlocked()
	s.shot("web-narrow-tools")
	over := value(s, "the form's fields", chromedp.Evaluate[[]string](`(() => {
		const pane = document.querySelector('.pane').getBoundingClientRect();
		const out = [];
		for (const el of document.querySelectorAll('.pane input, .pane select, .pane textarea, .pane button')) {
			const r = el.getBoundingClientRect();
			if (r.width > 0 && (r.right > pane.right + 1 || r.left < pane.left - 1)) out.push((el.name || el.textContent) + ' ' + r.left + '-' + r.right + ' in ' + pane.left + '-' + pane.right);
		}
		if (pane.right > window.innerWidth + 1) out.push('the pane ends at ' + pane.right);
		return out;
	})()`))
	if len(over) > 0 {
		t.Errorf("at 600 px the form overflows its pane: %v", over)
	}
	s.run("a task",
		openTool("slow_task"),
		chromedp.WaitVisible(chromedp.CSS(`input[name="seconds"]`)),
		chromedp.SetValue(chromedp.CSS(`input[name="seconds"]`), "0.2"),
		chromedp.Click(chromedp.CSS(`button[data-action="call"]`)),
		chromedp.WaitVisible(chromedp.CSS(`main[data-view="tasks"] .trow[data-status="completed"]`)),
	)
	// Scrolled as far right as it goes (the view and its list), every column of the row
	// is in sight, under its header.
	bad := value(s, "the columns", chromedp.Evaluate[[]string](`(() => {
		const main = document.querySelector('main');
		main.scrollLeft = main.scrollWidth;
		const sc = document.querySelector('.tscroll');
		sc.scrollLeft = sc.scrollWidth;
		const box = sc.getBoundingClientRect();
		const row = document.querySelector('.trow[data-status="completed"]');
		const out = [];
		for (const k of ['elapsed', 'ttl', 'polls', 'wait']) {
			const c = row.querySelector('.c-' + k).getBoundingClientRect();
			const hd = document.querySelector('.thead .c-' + k).getBoundingClientRect();
			if (c.right > box.right + 1 || c.left < box.left - 1 || c.right > window.innerWidth + 1) out.push(k + ': the cell is at ' + c.left + '-' + c.right + ', the list shows ' + box.left + '-' + box.right);
			if (Math.abs(c.left - hd.left) > 1) out.push(k + ': the cell at ' + c.left + ', its header at ' + hd.left);
		}
		return out;
	})()`))
	if len(bad) > 0 {
		t.Errorf("at 600 px: %v", bad)
	}
	s.shot("web-narrow-tasks")
}

// The keyboard: Enter on a list item of Resources, Prompts and Requests does what a click
// does, Enter in a tool form's field calls the tool, and a disabled button looks it.
func TestBrowserKeyboard(t *testing.T) {
	s := startWeb(t)
	s.run("open", chromedp.Navigate(s.url), chromedp.WaitVisible(chromedp.CSS(`li[data-tool="echo"]`)))
	s.watchBlocked()
	s.run("Enter in a tool's field calls it",
		openTool("echo"),
		chromedp.WaitVisible(chromedp.CSS(`input[name="text"]`)),
		chromedp.SendKeys(chromedp.CSS(`input[name="text"]`), "hi from the keyboard\r"),
		waitJS(`window.__lastResult !== undefined && window.__lastResult.content[0].text.includes('hi from the keyboard')`),
	)
	s.run("a disabled button",
		openTool("slow"),
		chromedp.WaitVisible(chromedp.CSS(`input[name="steps"]`)),
		chromedp.SetValue(chromedp.CSS(`input[name="seconds"]`), "30"),
		chromedp.Click(chromedp.CSS(`button[data-action="call"]`)),
		waitJS(`document.querySelector('button[data-action="call"]').disabled`),
	)
	look := value(s, "the disabled Call button", chromedp.Evaluate[map[string]string](`(() => {
		const st = getComputedStyle(document.querySelector('button[data-action="call"]'));
		return {opacity: st.opacity, cursor: st.cursor};
	})()`))
	if look["opacity"] == "1" && look["cursor"] == "pointer" {
		t.Errorf("a disabled Call button looks like an enabled one: %v", look)
	}
	s.run("stop slow", chromedp.Click(chromedp.CSS(`button[data-action="stop"]`)), waitJS(`!document.querySelector('button[data-action="call"]').disabled`))

	s.run("Enter on a resource",
		chromedp.Click(chromedp.CSS(`button[data-view="resources"]`)),
		chromedp.WaitVisible(chromedp.CSS(`li[data-uri="demo://about"]`)),
		chromedp.Focus(chromedp.CSS(`li[data-uri="demo://about"]`)),
		chromedp.KeyEvent("\r"),
		waitJS(`document.querySelector('.pane .content.resource') !== null`),
		chromedp.Focus(chromedp.CSS(`li[data-template="demo://greetings/{name}"]`)),
		chromedp.KeyEvent("\r"),
		chromedp.WaitVisible(chromedp.CSS(`.pane input[name="name"]`)),
	)
	s.run("Enter on a prompt",
		chromedp.Click(chromedp.CSS(`button[data-view="prompts"]`)),
		chromedp.WaitVisible(chromedp.CSS(`li[data-prompt="greet"]`)),
		chromedp.Focus(chromedp.CSS(`li[data-prompt="greet"]`)),
		chromedp.KeyEvent("\r"),
		chromedp.WaitVisible(chromedp.CSS(`.pane input[name="name"]`)),
	)
	// Two requests wait: Enter on the second shows it, and their ages move on.
	s.run("two requests",
		openTool("ask_user"),
		chromedp.WaitVisible(chromedp.CSS(`button[data-action="call"]`)),
		chromedp.Click(chromedp.CSS(`button[data-action="call"]`)),
		openTool("ask_model"),
		chromedp.WaitVisible(chromedp.CSS(`input[name="prompt"]`)),
		chromedp.SendKeys(chromedp.CSS(`input[name="prompt"]`), "Say hi"),
		chromedp.Click(chromedp.CSS(`button[data-action="call"]`)),
		waitJS(`document.querySelector('#pending-badge') !== null && document.querySelector('#pending-badge').textContent === '2'`),
		chromedp.Click(chromedp.CSS(`button[data-view="requests"]`)),
		waitJS(`document.querySelectorAll('li[data-request]').length === 2`),
		chromedp.Focus(chromedp.CSS(`li[data-request]:not(.selected)`)),
		chromedp.KeyEvent("\r"),
		chromedp.WaitVisible(chromedp.CSS(`textarea[name="reply"]`)),
	)
	age := `document.querySelector('li[data-request] .age').textContent`
	was := value(s, "a request's age", chromedp.Evaluate[string](age))
	s.run("the ages move on", waitJSFor(age+` !== `+strconv.Quote(was), 3*time.Second))
}

// The Log says how many messages it holds, and a request's one-line preview starts with
// what the request is about, not the _meta every 2026-07-28 request carries; a number
// field says what is wrong with what was typed; a negative ttl is refused; and the page
// asks for no favicon.
func TestBrowserLogAndFields(t *testing.T) {
	s := startWebOn(t, processServer("TestFormsServerProcess", formsEnv))
	s.run("open",
		chromedp.Navigate(s.url),
		chromedp.WaitVisible(chromedp.CSS(`li[data-tool="shape"]`)),
	)
	s.watchBlocked()
	if icons := value(s, "the favicon requests", chromedp.Evaluate[[]string](`performance.getEntriesByType('resource').map(e => e.name).filter(n => n.includes('favicon'))`)); len(icons) > 0 {
		t.Errorf("the page fetched %v", icons)
	}
	if href := value(s, "the icon", chromedp.Evaluate[string](`(document.querySelector('link[rel="icon"]') || {}).href || ''`)); !strings.HasPrefix(href, "data:") {
		t.Errorf("the page's icon is %q, want a data: URL", href)
	}
	s.run("open the form",
		clickCSS(`li[data-tool="shape"]`),
		chromedp.WaitVisible(chromedp.CSS(`[data-field="origin"] input[name="x"]`)),
	)
	for _, c := range []struct{ typed, want string }{{"abc", "not a number"}, {"1e400", "out of range"}} {
		s.run("type "+c.typed,
			chromedp.Evaluate[chromedp.Void](`document.querySelector('[data-field="origin"] input[name="x"]').value = ''; document.querySelector('.call-out').replaceChildren()`),
			chromedp.SendKeys(chromedp.CSS(`[data-field="origin"] input[name="x"]`), c.typed),
			chromedp.Click(chromedp.CSS(`button[data-action="call"]`)),
			waitJS(`document.querySelector('.call-out').textContent.includes('nothing was sent')`),
		)
		if said := value(s, "the error", chromedp.Text(chromedp.CSS(`.call-out ul`))); !strings.Contains(said, c.want) || strings.Contains(said, "required") {
			t.Errorf("%q in an integer field: %q, want %q", c.typed, said, c.want)
		}
	}
	s.run("call",
		chromedp.SetValue(chromedp.CSS(`[data-field="origin"] input[name="x"]`), "2"),
		chromedp.Click(chromedp.CSS(`button[data-action="call"]`)),
		waitJS(`window.__lastResult !== undefined`),
	)
	s.run("the log",
		chromedp.Click(chromedp.CSS(`button[data-view="log"]`)),
		waitJS(`document.querySelectorAll('.lrow').length > 0 && /^\d+ messages/.test(document.querySelector('#log-count').textContent)`),
	)
	preview := value(s, "the call's preview", chromedp.Evaluate[string](`[...document.querySelectorAll('.lrow.out')].find(r => r.querySelector('.l-method').textContent.startsWith('tools/call')).querySelector('.l-body').textContent`))
	if !strings.HasPrefix(preview, `{"name":"shape","arguments":{`) {
		t.Errorf("the tools/call preview: %q", preview)
	}
}

// A task's ttl below zero is refused in the form (2025-11-25).
func TestBrowserNegativeTTL(t *testing.T) {
	s := startWebOn(t, &connect.Selection{Protocol: "2025-11-25"})
	s.run("open", chromedp.Navigate(s.url), chromedp.WaitVisible(chromedp.CSS(`li[data-tool="sleep_task"]`)))
	s.watchBlocked()
	s.run("a negative ttl",
		openTool("sleep_task"),
		chromedp.WaitVisible(chromedp.CSS(`button[data-action="task"]`)),
		chromedp.SetValue(chromedp.CSS(`input[name="seconds"]`), "1"),
		chromedp.SetValue(chromedp.CSS(`input[name="ttl"]`), "-5"),
		chromedp.Click(chromedp.CSS(`button[data-action="task"]`)),
		waitJS(`document.querySelector('.call-out').textContent.includes('nothing was sent') && document.querySelector('.call-out').textContent.includes('negative')`),
	)
	s.run("a moment", chromedp.Sleep(300*time.Millisecond))
	if n := value(s, "the tasks' count", chromedp.Text(chromedp.CSS(`button[data-view="tasks"]`))); n != "Tasks" {
		t.Errorf("a task was made: the Tasks tab says %q", n)
	}
}
