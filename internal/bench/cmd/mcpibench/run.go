package main

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcpi-dev/mcpi/internal/bench"
	"github.com/mcpi-dev/mcpi/mcp"
)

// Clients, as named in the figures.
const (
	cMCPI      = "mcpi"
	cTS        = "ts-sdk"
	cMCPGo     = "mcp-go"
	cInspector = "inspector"
)

var peerOrder = []string{cTS, cMCPGo, cInspector}

var clientTitle = map[string]string{
	cMCPI:      "mcpi",
	cTS:        "TS SDK 1.32 client",
	cMCPGo:     "mcp-go 1.2.1 client",
	cInspector: "MCP Inspector 2.12 CLI",
}

// Figure is one measured quantity of one client: the median and spread over passes.
type Figure struct {
	Workload  string        `json:"workload"`
	Transport string        `json:"transport"`
	Metric    string        `json:"metric"`
	Unit      string        `json:"unit"`
	Client    string        `json:"client"`
	Stats     bench.Summary `json:"stats"`
	Note      string        `json:"note,omitempty"`
}

// Target is one target of the issue, checked against this run's figures.
type Target struct {
	Name   string  `json:"name"`
	Value  float64 `json:"value"`
	Bound  string  `json:"bound"`
	Met    bool    `json:"met"`
	Detail string  `json:"detail"`
}

// Report is the JSON file.
type Report struct {
	Started  time.Time         `json:"started"`
	Seconds  float64           `json:"seconds"`
	Command  string            `json:"command"`
	Machine  map[string]string `json:"machine"`
	Config   config            `json:"config"`
	Skipped  map[string]string `json:"skipped,omitempty"`
	Figures  []Figure          `json:"figures"`
	Targets  []Target          `json:"targets"`
	Failures []string          `json:"failures,omitempty"`
}

type config struct {
	Quick        bool          `json:"quick"`
	Passes       int           `json:"passes"`
	N            int           `json:"n"`
	TaskN        int           `json:"taskN"`
	Warmup       int           `json:"warmup"`
	BurstC       int           `json:"burstC"`
	BurstSmall   int           `json:"burstSmall,omitempty"`
	BurstSeconds float64       `json:"burstSeconds"`
	BurstPasses  int           `json:"burstPasses"`
	RecvTasks    int           `json:"receiverTasks"`
	RecvTTL      time.Duration `json:"receiverTTL"`
	RecvPasses   int           `json:"receiverPasses"`
	ListPasses   int           `json:"listPasses"`
	Only         []string      `json:"only,omitempty"`
}

type runner struct {
	cfg     config
	only    map[string]bool
	self    string
	root    string
	tmp     string
	mcpi    string
	node    string
	tsDrive string
	inspect string
	mcpgo   string
	skipped map[string]string
	figs    []Figure
	fails   []string
	log     io.Writer
}

func runMain(args []string) error {
	fs := flag.NewFlagSet("mcpibench", flag.ExitOnError)
	var cfg config
	quick := fs.Bool("quick", false, "small sizes and few passes (about a minute): a check, not figures")
	fs.IntVar(&cfg.Passes, "passes", 5, "passes of each latency workload (each of n round trips), and of each burst")
	fs.IntVar(&cfg.BurstC, "burst", 1000, "concurrent tasks of the burst")
	fs.IntVar(&cfg.BurstSmall, "burst-small", 200, "concurrent tasks of a second, smaller burst with status notifications (0: none)")
	jsonOut := fs.String("json", "", "write the figures to `FILE` (default internal/bench/results/latest.json in the repository)")
	only := fs.String("only", "", "comma-separated workloads to run (ping,call,task,burst,receiver,list; httpburst: the bursts over Streamable HTTP alone); empty means all")
	mcpiBin := fs.String("mcpi", "", "the mcpi binary for the cold start (built from ./cmd/mcpi when empty)")
	_ = fs.Parse(args)
	cfg.Quick = *quick
	cfg.N, cfg.TaskN, cfg.Warmup = 2000, 1000, 200
	cfg.BurstSeconds, cfg.BurstPasses = 1, cfg.Passes
	cfg.RecvTasks, cfg.RecvTTL, cfg.RecvPasses = 100000, 20*time.Second, 3
	cfg.ListPasses = 10
	if cfg.Quick {
		cfg.Passes, cfg.N, cfg.TaskN, cfg.Warmup = 2, 200, 100, 20
		cfg.BurstC, cfg.BurstPasses, cfg.BurstSmall = min(cfg.BurstC, 200), 2, 0
		cfg.RecvTasks, cfg.RecvTTL, cfg.RecvPasses = 10000, 5*time.Second, 1
		cfg.ListPasses = 3
	}
	r := &runner{cfg: cfg, only: map[string]bool{}, skipped: map[string]string{}, log: os.Stderr}
	if *only != "" {
		for _, w := range strings.Split(*only, ",") {
			r.only[strings.TrimSpace(w)] = true
			cfg.Only = append(cfg.Only, strings.TrimSpace(w))
		}
		r.cfg.Only = cfg.Only
	}
	started := time.Now()
	if err := r.setup(*mcpiBin); err != nil {
		return err
	}
	defer os.RemoveAll(r.tmp)

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	for _, w := range []string{"ping", "call", "task"} {
		if r.want(w) {
			r.latency(ctx, w)
		}
	}
	if r.want("task") {
		r.ratio(ctx)
	}
	if r.want("burst") {
		r.bursts(ctx)
	}
	if r.want("burst") || r.only["httpburst"] {
		r.httpBursts(ctx)
	}
	if r.want("receiver") {
		r.receiver(ctx)
	}
	if r.want("list") {
		r.coldStart(ctx)
	}

	rep := &Report{
		Started:  started.UTC(),
		Seconds:  time.Since(started).Seconds(),
		Command:  "go run ./internal/bench/cmd/mcpibench " + strings.Join(args, " "),
		Machine:  machine(r.node),
		Config:   r.cfg,
		Skipped:  r.skipped,
		Figures:  r.figs,
		Targets:  r.targets(),
		Failures: r.fails,
	}
	printReport(os.Stdout, rep)
	if *jsonOut == "" {
		*jsonOut = filepath.Join(r.root, "internal", "bench", "results", "latest.json")
		if err := os.MkdirAll(filepath.Dir(*jsonOut), 0o755); err != nil {
			return err
		}
	}
	{
		b, err := json.MarshalIndent(rep, "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(*jsonOut, append(b, '\n'), 0o644); err != nil {
			return err
		}
		fmt.Fprintf(r.log, "mcpibench: wrote %s\n", *jsonOut)
	}
	if len(r.fails) > 0 {
		return fmt.Errorf("%d measurements failed (see above)", len(r.fails))
	}
	return nil
}

func (r *runner) want(w string) bool { return len(r.only) == 0 || r.only[w] }

func (r *runner) logf(format string, args ...any) {
	fmt.Fprintf(r.log, "mcpibench: "+format+"\n", args...)
}

func (r *runner) fail(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	r.fails = append(r.fails, msg)
	r.logf("FAILED: %s", msg)
}

// setup finds the repository, builds mcpi and the mcp-go driver, and finds the Node peers.
func (r *runner) setup(mcpiBin string) error {
	var err error
	if r.self, err = os.Executable(); err != nil {
		return err
	}
	if r.root, err = repoRoot(); err != nil {
		return err
	}
	if r.tmp, err = os.MkdirTemp("", "mcpibench-"); err != nil {
		return err
	}
	r.mcpi = mcpiBin
	if r.mcpi == "" && r.want("list") {
		r.mcpi = filepath.Join(r.tmp, "mcpi")
		r.logf("building mcpi")
		if out, err := goBuild(r.root, r.mcpi, "./cmd/mcpi"); err != nil {
			return fmt.Errorf("building mcpi: %v: %s", err, out)
		}
	}
	peers := filepath.Join(r.root, "internal", "bench", "peers")
	if r.want("ping") || r.want("call") || r.want("task") {
		bin := filepath.Join(r.tmp, "mcpgo-drive")
		r.logf("building the mcp-go driver")
		if out, err := goBuild(filepath.Join(peers, "mcpgo"), bin, "."); err != nil {
			r.skipped[cMCPGo] = fmt.Sprintf("not built (%v: %s); run scripts/bench.sh", err, firstLine(out))
		} else {
			r.mcpgo = bin
		}
	}
	node := filepath.Join(peers, "node22", "node_modules", "node", "bin", "node")
	if _, err := os.Stat(node); err != nil {
		reason := "Node 22 not installed in internal/bench/peers/node22; run scripts/bench.sh"
		r.skipped[cTS], r.skipped[cInspector] = reason, reason
		return nil
	}
	r.node = node
	if _, err := os.Stat(filepath.Join(peers, "ts", "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		r.skipped[cTS] = "not installed in internal/bench/peers/ts; run scripts/bench.sh"
	} else {
		r.tsDrive = filepath.Join(peers, "ts", "drive.mjs")
	}
	insp := filepath.Join(peers, "inspector", "node_modules", "@modelcontextprotocol", "inspector", "clients", "launcher", "build", "index.js")
	if _, err := os.Stat(insp); err != nil {
		r.skipped[cInspector] = "not installed in internal/bench/peers/inspector; run scripts/bench.sh"
	} else {
		r.inspect = insp
	}
	return nil
}

func goBuild(dir, out, pkg string) (string, error) {
	cmd := exec.Command("go", "build", "-o", out, pkg)
	cmd.Dir = dir
	b, err := cmd.CombinedOutput()
	return string(b), err
}

func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && bytes.Contains(b, []byte("module github.com/mcpi-dev/mcpi\n")) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("run mcpibench inside the mcpi repository")
		}
		dir = parent
	}
}

// drive runs one driver process and decodes its output.
func (r *runner) drive(ctx context.Context, argv []string) (*DriveOutput, error) {
	res, err := bench.RunMeasured(ctx, argv, os.Environ())
	if err != nil {
		return nil, err
	}
	lines := bytes.Split(bytes.TrimSpace(res.Stdout), []byte("\n"))
	var out DriveOutput
	if err := json.Unmarshal(lines[len(lines)-1], &out); err != nil {
		return nil, fmt.Errorf("%s: output is not JSON: %s", argv[0], firstLine(string(res.Stdout)))
	}
	if out.Error != "" {
		return &out, errors.New(firstLine(out.Error))
	}
	return &out, nil
}

// driverArgv is the command line of client's driver for a workload.
func (r *runner) driverArgv(client string, flags ...string) []string {
	switch client {
	case cMCPI:
		return append([]string{r.self, "drive"}, flags...)
	case cTS:
		return append([]string{r.node, r.tsDrive}, flags...)
	case cMCPGo:
		return append([]string{r.mcpgo}, flags...)
	}
	panic("no driver for " + client)
}

func (r *runner) available(client string) bool {
	switch client {
	case cMCPI:
		return true
	case cTS:
		return r.tsDrive != ""
	case cMCPGo:
		return r.mcpgo != ""
	case cInspector:
		return r.inspect != ""
	}
	return false
}

func (r *runner) serverArgv(noStatus bool) string {
	argv := []string{r.self, "serve"}
	if noStatus {
		argv = append(argv, "-no-status")
	}
	b, _ := json.Marshal(argv)
	return string(b)
}

// startHTTP starts the benchmark server over HTTP in a process of its own.
func (r *runner) startHTTP(ctx context.Context) (string, func(), error) {
	cmd := exec.CommandContext(ctx, r.self, "serve", "-http", "127.0.0.1:0")
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return "", nil, err
	}
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	stop := func() {
		_ = cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		stop()
		return "", nil, fmt.Errorf("the HTTP server did not start: %w", err)
	}
	return strings.TrimSpace(line), stop, nil
}

func (r *runner) add(f Figure) { r.figs = append(r.figs, f) }

// latency runs a round-trip workload with every client over every transport it has. A
// pass is one process of the client's driver (warm-up, then n round trips) against a
// server of its own; the clients take turns pass by pass, so that whatever else the
// machine does falls on all of them alike.
func (r *runner) latency(ctx context.Context, workload string) {
	n := r.cfg.N
	if workload == "task" {
		n = r.cfg.TaskN
	}
	common := []string{"-workload", workload, "-n", strconv.Itoa(n), "-warmup", strconv.Itoa(r.cfg.Warmup), "-passes", "1"}
	for _, tr := range []string{bench.Pipe, bench.Stdio, bench.HTTP} {
		var clients []string
		for _, client := range []string{cMCPI, cTS, cMCPGo} {
			if r.available(client) && (tr != bench.Pipe || client == cMCPI) {
				clients = append(clients, client)
			}
		}
		passes := map[string][]float64{}
		notes := map[string]string{}
		failed := map[string]bool{}
		for p := range r.cfg.Passes {
			for _, client := range clients {
				if failed[client] || notes[client] != "" {
					continue
				}
				flags := append(append([]string{}, common...), "-transport", tr)
				var stop func()
				switch tr {
				case bench.Stdio:
					flags = append(flags, "-server", r.serverArgv(false))
				case bench.HTTP:
					url, s, err := r.startHTTP(ctx)
					if err != nil {
						r.fail("%s %s %s: %v", workload, tr, client, err)
						failed[client] = true
						continue
					}
					stop = s
					flags = append(flags, "-url", url)
				}
				r.logf("%s over %s: %s, pass %d of %d (%d round trips)", workload, tr, client, p+1, r.cfg.Passes, n)
				out, err := r.drive(ctx, r.driverArgv(client, flags...))
				if stop != nil {
					stop()
				}
				switch {
				case err != nil && client == cMCPGo && workload == "task":
					notes[client] = "cannot: " + err.Error()
				case err != nil:
					r.fail("%s %s %s: %v", workload, tr, client, err)
					failed[client] = true
				default:
					passes[client] = append(passes[client], out.PerOpUs...)
				}
			}
		}
		for _, client := range clients {
			f := Figure{Workload: workload, Transport: tr, Metric: "round trip", Unit: "µs", Client: client, Note: notes[client]}
			switch {
			case notes[client] != "":
				f.Stats = bench.Summarize(nil)
			case len(passes[client]) > 0:
				f.Stats = bench.Summarize(passes[client])
			default:
				continue
			}
			r.add(f)
		}
	}
}

// yardstick stands, among the clients of the ratio, for mcpi's driver timing two plain
// tools/call in a row instead of a task.
const yardstick = "mcpi-call2"

// ratioName is the workload of the task ÷ ping figures of an era ("" for 2025-11-25).
func ratioName(era string) string {
	if era == "" {
		return "task ÷ ping, alternating"
	}
	return "task ÷ ping, alternating, " + era
}

// ratio measures mcpi's task round trip against its own ping in alternating blocks, so
// that load from elsewhere on the machine falls on both alike: in 2025-11-25 on one
// session; in 2026-07-28, which has no ping, the task of a 2026-07-28 session against the
// ping of a 2025-11-25 session of the same driver to the same server (over stdio, a
// second server process).
func (r *runner) ratio(ctx context.Context) {
	for _, era := range []string{"", era2026} {
		for _, tr := range []string{bench.Pipe, bench.Stdio, bench.HTTP} {
			r.ratioOf(ctx, era, tr)
		}
	}
}

// ratioOf runs the ratio workload of era over tr: mcpi's, and in 2025-11-25 the TS SDK
// client's too (the same alternation in its own driver), the clients taking turns pass by
// pass.
func (r *runner) ratioOf(ctx context.Context, era, tr string) {
	clients := []string{cMCPI}
	if tr != bench.Pipe {
		// The yardstick: two plain tools/call in a row (of the era), set against the
		// ping the same way, is what the task's two exchanges would cost with nothing
		// of a task.
		clients = append(clients, yardstick)
		if era == "" && r.available(cTS) {
			clients = append(clients, cTS)
		}
	}
	type figures struct{ ratios, tasks, pings []float64 }
	got := map[string]*figures{}
	failed := map[string]bool{}
	for p := range r.cfg.Passes {
		for _, client := range clients {
			if failed[client] {
				continue
			}
			flags := []string{"-workload", "ratio", "-transport", tr, "-n", strconv.Itoa(r.cfg.TaskN), "-warmup", strconv.Itoa(r.cfg.Warmup), "-passes", "1"}
			if era != "" {
				flags = append(flags, "-era", era)
			}
			var stop func()
			switch tr {
			case bench.Stdio:
				flags = append(flags, "-server", r.serverArgv(false))
			case bench.HTTP:
				url, s, err := r.startHTTP(ctx)
				if err != nil {
					r.fail("ratio %s %s: %v", tr, era, err)
					return
				}
				stop = s
				flags = append(flags, "-url", url)
			}
			driver := client
			if client == yardstick {
				driver = cMCPI
				flags = append(flags, "-ratio-of", "call2")
			}
			r.logf("task ÷ ping over %s %s: %s, pass %d of %d", tr, cmp.Or(era, mcp.LatestProtocolVersion), client, p+1, r.cfg.Passes)
			out, err := r.drive(ctx, r.driverArgv(driver, flags...))
			if stop != nil {
				stop()
			}
			if err != nil {
				r.fail("ratio %s %s %s: %v", tr, era, client, err)
				failed[client] = true
				continue
			}
			f := got[client]
			if f == nil {
				f = &figures{}
				got[client] = f
			}
			f.ratios = append(f.ratios, out.PerOpUs...)
			f.tasks = append(f.tasks, out.TaskUs...)
			f.pings = append(f.pings, out.PingUs...)
		}
	}
	for _, client := range clients {
		f := got[client]
		if f == nil || len(f.ratios) == 0 {
			continue
		}
		add := func(metric, unit string, xs []float64) {
			r.add(Figure{Workload: ratioName(era), Transport: tr, Metric: metric, Unit: unit, Client: client, Stats: bench.Summarize(xs)})
		}
		if client == yardstick {
			client = cMCPI
			add("two plain calls ÷ ping (yardstick)", "", f.ratios)
			continue
		}
		add("task round trip", "µs", f.tasks)
		ping := "ping round trip"
		if era != "" {
			ping = "ping round trip (2025-11-25)"
		}
		add(ping, "µs", f.pings)
		add("task ÷ ping", "", f.ratios)
	}
}

// bursts runs the burst workloads: C concurrent sleep_task {seconds} with and without
// status notifications, and C concurrent sleep_task {0} (the engine's own throughput).
func (r *runner) bursts(ctx context.Context) {
	type mode struct {
		name     string
		c        int
		seconds  float64
		noStatus bool
	}
	modes := []mode{
		{fmt.Sprintf("burst %d×%gs", r.cfg.BurstC, r.cfg.BurstSeconds), r.cfg.BurstC, r.cfg.BurstSeconds, false},
		{fmt.Sprintf("burst %d×%gs, no status notifications", r.cfg.BurstC, r.cfg.BurstSeconds), r.cfg.BurstC, r.cfg.BurstSeconds, true},
		{fmt.Sprintf("burst %d×0s", r.cfg.BurstC), r.cfg.BurstC, 0, false},
	}
	if r.cfg.BurstSmall > 0 {
		modes = append(modes, mode{fmt.Sprintf("burst %d×%gs", r.cfg.BurstSmall, r.cfg.BurstSeconds), r.cfg.BurstSmall, r.cfg.BurstSeconds, false})
	}
	for _, m := range modes {
		res := map[string]*burstAcc{}
		failed := map[string]bool{}
		for p := range r.cfg.BurstPasses {
			for _, client := range []string{cMCPI, cTS} {
				if !r.available(client) || failed[client] {
					continue
				}
				flags := []string{"-workload", "burst", "-transport", bench.Stdio, "-server", r.serverArgv(m.noStatus),
					"-c", strconv.Itoa(m.c), "-seconds", strconv.FormatFloat(m.seconds, 'g', -1, 64)}
				r.logf("%s: %s, pass %d of %d", m.name, client, p+1, r.cfg.BurstPasses)
				out, err := r.drive(ctx, r.driverArgv(client, flags...))
				if err == nil && (out.Burst == nil || out.Burst.OK != m.c) {
					err = fmt.Errorf("only %d of %d tasks ended with a result: %v", okCount(out), m.c, burstErr(out))
				}
				if err != nil {
					r.fail("%s %s: %v", m.name, client, err)
					failed[client] = true
					continue
				}
				if res[client] == nil {
					res[client] = &burstAcc{}
				}
				res[client].add(out.Burst, m.seconds)
			}
		}
		for _, client := range []string{cMCPI, cTS} {
			if a := res[client]; a != nil {
				r.addBurst(m.name, bench.Stdio, client, m.seconds, a)
			}
		}
	}
}

// burstAcc gathers the figures of one client in one burst mode, pass by pass.
type burstAcc struct{ wall, over, created, tput, gets, listens, conns, crss, srss []float64 }

func (a *burstAcc) add(b *bench.BurstResult, seconds float64) {
	a.wall = append(a.wall, b.WallMs)
	// What a client adds to the tasks' own time: the part of the wall time it can
	// change, since no client makes a 1 s task end sooner.
	a.over = append(a.over, b.WallMs-seconds*1000)
	if b.CreatedMs > 0 {
		a.created = append(a.created, b.CreatedMs)
	}
	a.tput = append(a.tput, float64(b.Tasks)/(b.WallMs/1000))
	a.gets = append(a.gets, b.GetsPerTask)
	a.listens = append(a.listens, float64(b.Listens)/float64(max(b.Tasks, 1)))
	a.crss = append(a.crss, float64(b.ClientMaxRssKiB)/1024)
	a.srss = append(a.srss, float64(b.ServerMaxRssKiB)/1024)
}

// addBurst adds a's figures as those of client in workload over transport.
func (r *runner) addBurst(workload, transport, client string, seconds float64, a *burstAcc) {
	add := func(metric, unit string, xs []float64) {
		r.add(Figure{Workload: workload, Transport: transport, Metric: metric, Unit: unit, Client: client, Stats: bench.Summarize(xs)})
	}
	add("wall time to the last result", "ms", a.wall)
	if seconds > 0 {
		add("wall time beyond the task's own duration", "ms", a.over)
	}
	if len(a.created) > 0 {
		add("time to the last task created", "ms", a.created)
	}
	add("throughput (higher is better)", "tasks/s", a.tput)
	add("tasks/get received per task", "", a.gets)
	if slices.Max(a.listens) > 0 {
		add("subscriptions/listen received per task", "", a.listens)
	}
	if len(a.conns) > 0 {
		add("TCP connections the client opened (whole session)", "", a.conns)
	}
	add("client peak RSS", "MiB", a.crss)
	add("server peak RSS", "MiB", a.srss)
}

// era2026 names the 2026-07-28 burst.
const era2026 = mcp.ProtocolVersion20260728

// httpBurstName is the workload name of the burst over Streamable HTTP in an era ("" for
// 2025-11-25).
func (r *runner) httpBurstName(era string) string {
	name := fmt.Sprintf("burst %d×%gs", r.cfg.BurstC, r.cfg.BurstSeconds)
	if era != "" {
		name += ", " + era
	}
	return name
}

// httpBursts runs the burst of C × S s tasks over Streamable HTTP: mcpi in 2025-11-25,
// mcpi in 2026-07-28 (where the server makes a task of sleep_ext_task at once, and
// notifications/tasks come on a subscriptions/listen stream), and the TS SDK client
// (2025-11-25 only), taking turns pass by pass, each pass against a server process of
// its own.
func (r *runner) httpBursts(ctx context.Context) {
	type run struct{ client, era string }
	runs := []run{{cMCPI, ""}, {cMCPI, era2026}, {cTS, ""}}
	res := map[run]*burstAcc{}
	failed := map[run]bool{}
	c, seconds := r.cfg.BurstC, r.cfg.BurstSeconds
	for p := range r.cfg.BurstPasses {
		for _, rn := range runs {
			if !r.available(rn.client) || failed[rn] {
				continue
			}
			name := r.httpBurstName(rn.era)
			url, stop, err := r.startHTTP(ctx)
			if err != nil {
				r.fail("%s over http %s: %v", name, rn.client, err)
				failed[rn] = true
				continue
			}
			flags := []string{"-workload", "burst", "-transport", bench.HTTP, "-url", url,
				"-c", strconv.Itoa(c), "-seconds", strconv.FormatFloat(seconds, 'g', -1, 64)}
			if rn.era != "" {
				flags = append(flags, "-era", rn.era)
			}
			r.logf("%s over http: %s, pass %d of %d", name, rn.client, p+1, r.cfg.BurstPasses)
			out, err := r.drive(ctx, r.driverArgv(rn.client, flags...))
			var conns int64
			if err == nil {
				conns, err = connsOpened(ctx, url)
			}
			stop()
			if err == nil && (out.Burst == nil || out.Burst.OK != c) {
				err = fmt.Errorf("only %d of %d tasks ended with a result: %v", okCount(out), c, burstErr(out))
			}
			if err != nil {
				r.fail("%s over http %s: %v", name, rn.client, err)
				failed[rn] = true
				continue
			}
			if res[rn] == nil {
				res[rn] = &burstAcc{}
			}
			res[rn].add(out.Burst, seconds)
			res[rn].conns = append(res[rn].conns, float64(conns))
		}
	}
	for _, rn := range runs {
		if a := res[rn]; a != nil {
			r.addBurst(r.httpBurstName(rn.era), bench.HTTP, rn.client, seconds, a)
		}
	}
}

// connsOpened asks the benchmark server at url how many TCP connections were opened to
// it (GET /conns beside /mcp), the question's own included.
func connsOpened(ctx context.Context, url string) (int64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(url, "/mcp")+"/conns", nil)
	if err != nil {
		return 0, err
	}
	// A client of its own, whose connection is not one of the driver's.
	resp, err := (&http.Client{Transport: &http.Transport{DisableKeepAlives: true}}).Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	var c struct {
		Opened int64 `json:"opened"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&c); err != nil {
		return 0, fmt.Errorf("GET /conns: %w", err)
	}
	return c.Opened - 1, nil // less the question's own
}

func okCount(out *DriveOutput) int {
	if out == nil || out.Burst == nil {
		return 0
	}
	return out.Burst.OK
}

func burstErr(out *DriveOutput) string {
	if out == nil || out.Burst == nil {
		return "no burst result"
	}
	return out.Burst.FirstError
}

// receiver runs the receiver workload, mcpi only: no peer hosts client-side tasks in a
// form this benchmark can drive.
func (r *runner) receiver(ctx context.Context) {
	var heap, stack, get, ping, after, create []float64
	name := fmt.Sprintf("receiver %d tasks", r.cfg.RecvTasks)
	for p := range r.cfg.RecvPasses {
		r.logf("%s: pass %d of %d (ttl %s)", name, p+1, r.cfg.RecvPasses, r.cfg.RecvTTL)
		out, err := r.drive(ctx, r.driverArgv(cMCPI, "-workload", "receiver", "-transport", bench.Pipe,
			"-tasks", strconv.Itoa(r.cfg.RecvTasks), "-ttl", r.cfg.RecvTTL.String()))
		if err != nil {
			r.fail("%s: %v", name, err)
			return
		}
		rr := out.Receiver
		heap = append(heap, rr.HeapPerTaskBytes)
		stack = append(stack, rr.StackPerTaskBytes)
		get = append(get, rr.GetUs)
		ping = append(ping, rr.PingUs)
		after = append(after, rr.AfterRatio)
		create = append(create, rr.CreateMs/float64(rr.Tasks)*1000)
	}
	add := func(metric, unit string, xs []float64) {
		r.add(Figure{Workload: name, Transport: bench.Pipe, Metric: metric, Unit: unit, Client: cMCPI, Stats: bench.Summarize(xs)})
	}
	add("heap per pending task", "B", heap)
	add("goroutine stack per pending task", "B", stack)
	add("tasks/get round trip at that size", "µs", get)
	add("ping round trip at that size", "µs", ping)
	add("heap after expiry ÷ baseline", "", after)
	add("creation, per task", "µs", create)
}

// coldStart runs `mcpi tools list` and the Inspector CLI's tools/list against a stdio
// mcpi demo server, alternately, after one unmeasured run of each.
func (r *runner) coldStart(ctx context.Context) {
	server := []string{r.mcpi, "serve", "demo"}
	argvs := map[string][]string{
		cMCPI: {r.mcpi, "tools", "list", "--stdio", shellJoin(server)},
	}
	if r.inspect != "" {
		argvs[cInspector] = append([]string{r.node, r.inspect, "--cli"}, append(server, "--method", "tools/list")...)
	}
	// mcpi keeps what it learns of a server (the era it spoke) in its state directory:
	// one of the run's own, which the unmeasured first pass fills as any earlier use
	// would, rather than the user's, whose size would change the figure.
	state, err := os.MkdirTemp("", "mcpibench-state-")
	if err != nil {
		r.fail("cold start: %v", err)
		return
	}
	defer os.RemoveAll(state)
	env := append(os.Environ(), "MCPI_STATE_DIR="+state)
	walls := map[string][]float64{}
	rss := map[string][]float64{}
	for p := -1; p < r.cfg.ListPasses; p++ {
		for _, client := range []string{cMCPI, cInspector} {
			argv, ok := argvs[client]
			if !ok {
				continue
			}
			if p >= 0 {
				r.logf("cold start: %s, pass %d of %d", client, p+1, r.cfg.ListPasses)
			}
			res, err := bench.RunMeasured(ctx, argv, env)
			if err == nil && !bytes.Contains(res.Stdout, []byte("instant_task")) {
				err = fmt.Errorf("the tool list lacks instant_task: %s", firstLine(string(res.Stdout)))
			}
			if err != nil {
				r.fail("cold start %s: %v", client, err)
				delete(argvs, client)
				continue
			}
			if p >= 0 {
				walls[client] = append(walls[client], float64(res.Wall)/float64(time.Millisecond))
				rss[client] = append(rss[client], float64(res.MaxRSSKiB)/1024)
			}
		}
	}
	// Package initialisation before main, which every command pays (twice for a stdio
	// server of mcpi's own): a dependency that adds start-up work shows here first.
	var inits, initAllocs []float64
	for range max(r.cfg.ListPasses, 1) {
		ms, allocs, err := initTime(ctx, r.mcpi)
		if err != nil {
			r.fail("init time: %v", err)
			break
		}
		inits, initAllocs = append(inits, ms), append(initAllocs, allocs)
	}
	if len(inits) > 0 {
		r.add(Figure{Workload: "cold tools/list", Transport: bench.Stdio, Metric: "package init before main (mcpi --help)", Unit: "ms", Client: cMCPI, Stats: bench.Summarize(inits),
			Note: "GODEBUG=inittrace=1, the clock of every package's init summed"})
		r.add(Figure{Workload: "cold tools/list", Transport: bench.Stdio, Metric: "package init allocations", Unit: "", Client: cMCPI, Stats: bench.Summarize(initAllocs)})
	}
	for _, client := range []string{cMCPI, cInspector} {
		if len(walls[client]) == 0 {
			continue
		}
		r.add(Figure{Workload: "cold tools/list", Transport: bench.Stdio, Metric: "wall time", Unit: "ms", Client: client, Stats: bench.Summarize(walls[client])})
		r.add(Figure{Workload: "cold tools/list", Transport: bench.Stdio, Metric: "peak RSS", Unit: "MiB", Client: client, Stats: bench.Summarize(rss[client]),
			Note: "largest of the client and the server it waited for (wait4)"})
	}
}

// initTime runs "mcpi --help" with GODEBUG=inittrace=1 and sums what its packages' init
// took: the clock in milliseconds, and the allocations.
func initTime(ctx context.Context, mcpi string) (ms, allocs float64, err error) {
	cmd := exec.CommandContext(ctx, mcpi, "--help")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var trace bytes.Buffer
	cmd.Stderr = &trace
	if err := cmd.Run(); err != nil {
		return 0, 0, err
	}
	// "init PKG @T ms, CLOCK ms clock, BYTES bytes, ALLOCS allocs"
	for line := range strings.Lines(trace.String()) {
		f := strings.Fields(line)
		if len(f) < 11 || f[0] != "init" || f[6] != "clock," {
			continue
		}
		c, err1 := strconv.ParseFloat(f[4], 64)
		a, err2 := strconv.ParseFloat(f[9], 64)
		if err1 == nil && err2 == nil {
			ms += c
			allocs += a
		}
	}
	return ms, allocs, nil
}

func shellJoin(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		if strings.ContainsAny(a, " \t'\"\\$") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		q[i] = a
	}
	return strings.Join(q, " ")
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

// find returns the figure of client for workload, transport and metric.
func (r *runner) find(workload, transport, metric, client string) (Figure, bool) {
	for _, f := range r.figs {
		if f.Workload == workload && f.Transport == transport && f.Metric == metric && f.Client == client && !math.IsNaN(f.Stats.Median) {
			return f, true
		}
	}
	return Figure{}, false
}

// targets checks the targets against this run's figures.
func (r *runner) targets() []Target {
	var ts []Target
	burst := fmt.Sprintf("burst %d×%gs", r.cfg.BurstC, r.cfg.BurstSeconds)
	burstNo := burst + ", no status notifications"
	if q, ok := r.find("task ÷ ping, alternating", bench.Stdio, "task ÷ ping", cMCPI); ok {
		task, _ := r.find("task ÷ ping, alternating", bench.Stdio, "task round trip", cMCPI)
		ping, _ := r.find("task ÷ ping, alternating", bench.Stdio, "ping round trip", cMCPI)
		ts = append(ts, Target{Name: "task round trip over stdio ÷ mcpi's ping over stdio (alternating on one session)", Value: q.Stats.Median, Bound: "≤ 3", Met: q.Stats.Median <= 3,
			Detail: fmt.Sprintf("task %.0f µs, ping %.0f µs; passes %.2f–%.2f", task.Stats.Median, ping.Stats.Median, q.Stats.Min, q.Stats.Max)})
	}
	for _, era := range []string{"", era2026} {
		for _, tr := range []string{bench.Stdio, bench.HTTP} {
			if q, ok := r.find(ratioName(era), tr, "task ÷ ping", cMCPI); ok {
				ts = append(ts, Target{Name: fmt.Sprintf("task round trip ÷ ping over %s, %s (alternating; issue 17)", tr, cmp.Or(era, mcp.LatestProtocolVersion)), Value: q.Stats.Median, Bound: "≤ 2.2", Met: q.Stats.Median <= 2.2,
					Detail: fmt.Sprintf("passes %.2f–%.2f", q.Stats.Min, q.Stats.Max)})
			}
		}
	}
	for _, w := range []string{burst, fmt.Sprintf("burst %d×0s", r.cfg.BurstC)} {
		m, ok1 := r.find(w, bench.Stdio, "throughput (higher is better)", cMCPI)
		t, ok2 := r.find(w, bench.Stdio, "throughput (higher is better)", cTS)
		if ok1 && ok2 {
			v := m.Stats.Median / t.Stats.Median
			detail := fmt.Sprintf("mcpi %.0f tasks/s, TS SDK %.0f tasks/s", m.Stats.Median, t.Stats.Median)
			mo, ok1 := r.find(w, bench.Stdio, "wall time beyond the task's own duration", cMCPI)
			to, ok2 := r.find(w, bench.Stdio, "wall time beyond the task's own duration", cTS)
			if ok1 && ok2 && mo.Stats.Median > 0 {
				detail += fmt.Sprintf("; beyond the task's own time: mcpi %.0f ms, TS SDK %.0f ms (%.2f×)", mo.Stats.Median, to.Stats.Median, to.Stats.Median/mo.Stats.Median)
			}
			ts = append(ts, Target{Name: "task throughput, mcpi ÷ TS SDK client (" + w + ")", Value: v, Bound: "≥ 5", Met: v >= 5, Detail: detail})
		}
	}
	bursts := []string{burst}
	if r.cfg.BurstSmall > 0 {
		bursts = append(bursts, fmt.Sprintf("burst %d×%gs", r.cfg.BurstSmall, r.cfg.BurstSeconds))
	}
	for _, b := range bursts {
		g, ok1 := r.find(b, bench.Stdio, "tasks/get received per task", cMCPI)
		w, ok2 := r.find(b, bench.Stdio, "wall time to the last result", cMCPI)
		if ok1 && ok2 {
			life := w.Stats.Median / 1000
			allowed := life / 10
			ts = append(ts, Target{Name: "with status notifications: tasks/get per task per 10 s of task life (" + b + ")", Value: g.Stats.Max / allowed, Bound: "≤ 1", Met: g.Stats.Max <= allowed,
				Detail: fmt.Sprintf("at most %.3f tasks/get per task over a life of %.2f s (allowed %.3f)", g.Stats.Max, life, allowed)})
		}
	}
	if g, ok := r.find(burstNo, bench.Stdio, "tasks/get received per task", cMCPI); ok {
		if w, ok := r.find(burstNo, bench.Stdio, "wall time to the last result", cMCPI); ok {
			life := w.Stats.Median / 1000
			allowed := life / 1 // the demo server's pollInterval is 1 s
			ts = append(ts, Target{Name: "without status notifications: tasks/get per task ÷ (task life ÷ pollInterval)", Value: g.Stats.Max / allowed, Bound: "≤ 1", Met: g.Stats.Max <= allowed,
				Detail: fmt.Sprintf("at most %.3f tasks/get per task over a life of %.2f s at a pollInterval of 1 s (allowed %.2f)", g.Stats.Max, life, allowed)})
		}
	}
	for _, era := range []string{"", era2026} {
		name := r.httpBurstName(era)
		label := cmp.Or(era, mcp.LatestProtocolVersion)
		if w, ok := r.find(name, bench.HTTP, "wall time to the last result", cMCPI); ok {
			ts = append(ts, Target{Name: fmt.Sprintf("%s over Streamable HTTP, %s: wall time", burst, label), Value: w.Stats.Median, Bound: "≤ 1300 ms", Met: w.Stats.Median <= 1300,
				Detail: fmt.Sprintf("passes %.0f–%.0f ms", w.Stats.Min, w.Stats.Max)})
		}
		m, ok1 := r.find(name, bench.HTTP, "client peak RSS", cMCPI)
		t, ok2 := r.find(r.httpBurstName(""), bench.HTTP, "client peak RSS", cTS)
		if ok1 && ok2 {
			v := m.Stats.Median / t.Stats.Median
			ts = append(ts, Target{Name: fmt.Sprintf("%s over Streamable HTTP: mcpi's client peak RSS (%s) ÷ the TS SDK client's (2025-11-25)", burst, label), Value: v, Bound: "≤ 0.333", Met: v <= 1.0/3,
				Detail: fmt.Sprintf("mcpi %.1f MiB, TS SDK %.1f MiB", m.Stats.Median, t.Stats.Median)})
		}
	}
	recv := fmt.Sprintf("receiver %d tasks", r.cfg.RecvTasks)
	if h, ok := r.find(recv, bench.Pipe, "heap per pending task", cMCPI); ok {
		ts = append(ts, Target{Name: "heap per pending receiver task", Value: h.Stats.Median, Bound: "≤ 2048 B", Met: h.Stats.Max <= 2048,
			Detail: fmt.Sprintf("median %.0f B, max %.0f B", h.Stats.Median, h.Stats.Max)})
	}
	if a, ok := r.find(recv, bench.Pipe, "heap after expiry ÷ baseline", cMCPI); ok {
		ts = append(ts, Target{Name: "heap after all receiver tasks expired ÷ baseline", Value: a.Stats.Max, Bound: "≤ 1.10", Met: a.Stats.Max <= 1.10,
			Detail: fmt.Sprintf("median %.3f, max %.3f", a.Stats.Median, a.Stats.Max)})
	}
	if m, ok := r.find("cold tools/list", bench.Stdio, "wall time", cMCPI); ok {
		if i, ok := r.find("cold tools/list", bench.Stdio, "wall time", cInspector); ok {
			v := m.Stats.Median / i.Stats.Median
			ts = append(ts, Target{Name: "mcpi tools list cold start ÷ MCP Inspector CLI's", Value: v, Bound: "≤ 0.2", Met: v <= 0.2,
				Detail: fmt.Sprintf("mcpi %.0f ms, Inspector %.0f ms", m.Stats.Median, i.Stats.Median)})
		}
	}
	return ts
}

func machine(node string) map[string]string {
	m := map[string]string{
		"go":     runtime.Version(),
		"os":     runtime.GOOS + "/" + runtime.GOARCH,
		"cpus":   strconv.Itoa(runtime.NumCPU()),
		"kernel": strings.TrimSpace(readFirst("/proc/sys/kernel/osrelease")),
	}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, "model name") {
				m["cpu"] = strings.TrimSpace(l[strings.IndexByte(l, ':')+1:])
				break
			}
		}
	}
	if node != "" {
		if out, err := exec.Command(node, "--version").Output(); err == nil {
			m["node"] = strings.TrimSpace(string(out))
		}
	}
	return m
}

func readFirst(path string) string {
	b, _ := os.ReadFile(path)
	return string(b)
}

// printReport writes the figures as a Markdown table, each peer as a ratio to mcpi.
func printReport(w io.Writer, rep *Report) {
	type key struct{ workload, transport, metric, unit string }
	var keys []key
	by := map[key]map[string]Figure{}
	for _, f := range rep.Figures {
		k := key{f.Workload, f.Transport, f.Metric, f.Unit}
		if by[k] == nil {
			by[k] = map[string]Figure{}
			keys = append(keys, k)
		}
		by[k][f.Client] = f
	}
	var peers []string
	for _, p := range peerOrder {
		for _, f := range rep.Figures {
			if f.Client == p {
				peers = append(peers, p)
				break
			}
		}
	}
	fmt.Fprintf(w, "\n## mcpi benchmark, %s (%s CPUs, %s, %s)\n\n", rep.Started.Format("2006-01-02 15:04 UTC"),
		rep.Machine["cpus"], rep.Machine["go"], rep.Machine["node"])
	fmt.Fprintf(w, "Median [min–max] over passes; ratio = peer ÷ mcpi from this run.\n\n")
	fmt.Fprint(w, "| workload | transport | metric | mcpi |")
	for _, p := range peers {
		fmt.Fprintf(w, " %s | ratio |", clientTitle[p])
	}
	fmt.Fprint(w, "\n|---|---|---|---|")
	for range peers {
		fmt.Fprint(w, "---|---|")
	}
	fmt.Fprintln(w)
	for _, k := range keys {
		fs := by[k]
		metric := k.metric
		if k.unit != "" {
			metric += " (" + k.unit + ")"
		}
		m, hasM := fs[cMCPI]
		fmt.Fprintf(w, "| %s | %s | %s | %s |", k.workload, k.transport, metric, cell(m, hasM))
		for _, p := range peers {
			f, ok := fs[p]
			ratio := ""
			if ok && hasM && !math.IsNaN(f.Stats.Median) && !math.IsNaN(m.Stats.Median) && m.Stats.Median != 0 {
				ratio = fmt.Sprintf("%.2f×", f.Stats.Median/m.Stats.Median)
			}
			fmt.Fprintf(w, " %s | %s |", cell(f, ok), ratio)
		}
		fmt.Fprintln(w)
	}
	if len(rep.Skipped) > 0 {
		fmt.Fprintln(w, "\nSkipped:")
		for p, why := range rep.Skipped {
			fmt.Fprintf(w, "- %s: %s\n", clientTitle[p], why)
		}
	}
	if len(rep.Targets) > 0 {
		fmt.Fprintln(w, "\n| target | this run | bound | met |")
		fmt.Fprintln(w, "|---|---|---|---|")
		for _, t := range rep.Targets {
			met := "no"
			if t.Met {
				met = "yes"
			}
			fmt.Fprintf(w, "| %s | %s (%s) | %s | %s |\n", t.Name, num(t.Value), t.Detail, t.Bound, met)
		}
	}
	if len(rep.Failures) > 0 {
		fmt.Fprintln(w, "\nFailed:")
		for _, f := range rep.Failures {
			fmt.Fprintf(w, "- %s\n", f)
		}
	}
	fmt.Fprintf(w, "\nRun took %.0f s.\n", rep.Seconds)
}

func cell(f Figure, ok bool) string {
	if !ok {
		return ""
	}
	if math.IsNaN(f.Stats.Median) {
		if f.Note != "" {
			return f.Note
		}
		return "n/a"
	}
	if len(f.Stats.Passes) == 1 {
		return num(f.Stats.Median)
	}
	return fmt.Sprintf("%s [%s–%s]", num(f.Stats.Median), num(f.Stats.Min), num(f.Stats.Max))
}

func num(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case a >= 1:
		return strconv.FormatFloat(v, 'f', 2, 64)
	default:
		return strconv.FormatFloat(v, 'f', 3, 64)
	}
}
