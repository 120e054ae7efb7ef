// drive.mjs runs mcpi's benchmark workloads with the TypeScript SDK v1.x client, the
// client a user would pick instead of mcpi, and prints one JSON object (the shape of
// `mcpibench drive`) on stdout.
//
//   node drive.mjs --workload ping|call|task|ratio|burst --transport stdio|http
//                  (--server '["cmd","arg"]' | --url http://127.0.0.1:PORT/mcp)
//                  [--n 1000] [--warmup 100] [--passes 5] [--c 1000] [--seconds 1]
//
// Tasks go through client.experimental.tasks.callToolStream, the SDK's task API; plain
// calls through client.callTool and client.ping. The ratio workload times task and ping
// round trips in alternating blocks of 50 on one session, as mcpibench's does.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { setMaxListeners } from 'node:events';
import { readFileSync } from 'node:fs';

// Over HTTP each request of the SDK's transport adds a listener to one AbortSignal, and a
// burst of 1,000 tasks passes Node's warning threshold: without this, Node prints a
// MaxListenersExceededWarning for every request above 1,500, which is not the client's work.
setMaxListeners(Infinity);

// The SDK's exports map hides its package.json; read it from node_modules.
const sdkVersion = JSON.parse(
  readFileSync(new URL('./node_modules/@modelcontextprotocol/sdk/package.json', import.meta.url), 'utf8'),
).version;

function args() {
  const a = { workload: 'ping', transport: 'stdio', n: 1000, warmup: 100, passes: 5, c: 1000, seconds: 1, timeout: 300 };
  const v = process.argv.slice(2);
  for (let i = 0; i < v.length; i += 2) {
    const k = v[i].replace(/^--?/, '');
    a[k] = ['n', 'warmup', 'passes', 'c', 'seconds', 'timeout'].includes(k) ? Number(v[i + 1]) : v[i + 1];
  }
  return a;
}

async function connect(a) {
  const client = new Client({ name: 'ts-sdk-bench', version: sdkVersion }, { capabilities: {} });
  let transport;
  if (a.transport === 'stdio') {
    const argv = JSON.parse(a.server);
    transport = new StdioClientTransport({ command: argv[0], args: argv.slice(1), stderr: 'ignore' });
  } else if (a.transport === 'http') {
    transport = new StreamableHTTPClientTransport(new URL(a.url));
  } else {
    throw new Error(`unknown transport ${a.transport}`);
  }
  await client.connect(transport);
  return client;
}

async function stats(client, reset) {
  const r = await client.callTool({ name: 'bench_stats', arguments: reset ? { reset: true } : {} });
  return JSON.parse(r.content[0].text);
}

// task calls a tool as a task through callToolStream and returns its result.
async function task(client, name, args) {
  const stream = client.experimental.tasks.callToolStream({ name, arguments: args }, undefined, { task: { ttl: 600000 } });
  let result;
  for await (const m of stream) {
    if (m.type === 'result') result = m.result;
    if (m.type === 'error') throw m.error;
  }
  if (!result) throw new Error('the task stream ended without a result');
  return result;
}

function op(client, workload) {
  switch (workload) {
    case 'ping':
      return () => client.ping();
    case 'call':
      return async () => {
        const r = await client.callTool({ name: 'echo', arguments: { text: 'hello' } });
        if (r.content?.[0]?.text !== 'hello') throw new Error(`echo returned ${JSON.stringify(r)}`);
      };
    case 'task':
      return async () => {
        const r = await task(client, 'instant_task', {});
        if (r.content?.[0]?.text !== 'done') throw new Error(`instant_task returned ${JSON.stringify(r)}`);
      };
  }
  throw new Error(`unknown workload ${workload}`);
}

async function burst(client, a, out) {
  await client.listTools();
  await stats(client, true);
  let ok = 0;
  let firstError;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: a.c }, () =>
      task(client, 'sleep_task', { seconds: a.seconds }).then(
        () => { ok++; },
        (e) => { firstError ??= String(e?.message ?? e); },
      ),
    ),
  );
  const wall = performance.now() - start;
  const st = await stats(client, false);
  const gets = st.counts['tasks/get'] ?? 0;
  out.burst = {
    tasks: a.c,
    ok,
    wallMs: wall,
    tasksGet: gets,
    tasksResult: st.counts['tasks/result'] ?? 0,
    getsPerTask: a.c > 0 ? gets / a.c : 0,
    serverMaxRssKiB: st.maxRssKiB,
    firstError,
  };
}

// ratio times a.n task and a.n ping round trips per pass, in alternating blocks of 50.
async function ratio(client, a, out) {
  const t = op(client, 'task');
  const p = op(client, 'ping');
  for (let i = 0; i < a.warmup; i++) await t();
  for (let i = 0; i < a.warmup; i++) await p();
  out.perOpUs = [];
  out.taskUs = [];
  out.pingUs = [];
  const block = 50;
  for (let pass = 0; pass < a.passes; pass++) {
    let taskT = 0;
    let pingT = 0;
    for (let done = 0; done < a.n; done += block) {
      const k = Math.min(block, a.n - done);
      let start = performance.now();
      for (let i = 0; i < k; i++) await p();
      pingT += performance.now() - start;
      start = performance.now();
      for (let i = 0; i < k; i++) await t();
      taskT += performance.now() - start;
    }
    out.taskUs.push((taskT * 1000) / a.n);
    out.pingUs.push((pingT * 1000) / a.n);
    out.perOpUs.push(taskT / pingT);
  }
}

async function main() {
  const a = args();
  const out = { client: 'ts-sdk', version: sdkVersion, node: process.version, workload: a.workload, transport: a.transport, n: a.n };
  const timer = setTimeout(() => {
    out.error = `timed out after ${a.timeout} s`;
    finish(out, 1);
  }, a.timeout * 1000);
  let client;
  try {
    client = await connect(a);
    if (a.workload === 'burst') {
      await burst(client, a, out);
    } else if (a.workload === 'ratio') {
      await ratio(client, a, out);
    } else {
      const f = op(client, a.workload);
      for (let i = 0; i < a.warmup; i++) await f();
      out.perOpUs = [];
      for (let p = 0; p < a.passes; p++) {
        const start = performance.now();
        for (let i = 0; i < a.n; i++) await f();
        out.perOpUs.push(((performance.now() - start) * 1000) / a.n);
      }
    }
  } catch (e) {
    out.error = String(e?.stack ?? e);
  }
  clearTimeout(timer);
  try {
    await client?.close();
  } catch {}
  finish(out, 0);
}

function finish(out, code) {
  out.maxRssKiB = process.resourceUsage().maxRSS;
  if (out.burst) out.burst.clientMaxRssKiB = out.maxRssKiB;
  process.stdout.write(JSON.stringify(out) + '\n', () => process.exit(code));
}

main();
