// A TypeScript SDK (@modelcontextprotocol/sdk 1.32.x) MCP client that calls the task
// tools of mcpi's demo server with client.experimental.tasks.callToolStream, and prints one
// JSON line on stdout for everything it receives.
//
//   node client.mjs --stdio COMMAND [ARG...]   spawn the server (e.g. `mcpi serve demo`)
//   node client.mjs --http URL                 connect over Streamable HTTP
//
// Driven by interop/ts_client_test.go. The cases run at once (each on its own task), so
// that the server's pollInterval is waited out once, not once per case. Every line names
// its case:
//
//   {"case":C,"type":"taskCreated"|"taskStatus","task":{...}}   from the stream
//   {"case":C,"type":"result","result":{...}}                    from the stream
//   {"case":C,"type":"error","error":{code,message,data?}}       from the stream
//   {"case":C,"type":"progress","progress":{...}}                onprogress of the call
//   {"case":C,"type":"cancel","outcome":{"ok"|"error":...}}      tasks/cancel's answer
//   {"case":C,"type":"fetched","outcome":{"ok"|"error":...}}     tasks/result asked after
//                                                                 the stream ended in error
//   {"case":C,"taskId":T,"type":"elicitation"|"sampling",        side-channel requests (C is
//    "params":{...}}                                             null when they overtake
//                                                                 taskCreated; T is the
//                                                                 related task)
//   {"type":"wire","dir":"in"|"out","message":{...}}             every JSON-RPC message
//   {"type":"sdkError","detail":"..."}                           the SDK's onerror
//   {"case":C,"type":"crash","detail":"..."}                     a case threw
//   {"type":"done"}                                              last line
//
// Cases: instant (instant_task), slow (slow_task with progress), fail_isError and
// fail_error (fail_task in both modes), cancel (slow_task cancelled once created), ask
// (ask_task: input_required, side-channel elicitation then sampling).

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  GetTaskPayloadResultSchema,
} from '@modelcontextprotocol/sdk/types.js';

// What the test user answers to ask_task's side-channel requests.
const ELICIT_ANSWER = { action: 'accept', content: { name: 'Grace Hopper' } };
const SAMPLING_ANSWER = {
  role: 'assistant',
  content: { type: 'text', text: 'Hello, Grace Hopper!' },
  model: 'ts-interop-model',
  stopReason: 'endTurn',
};

const out = (line) => process.stdout.write(JSON.stringify(line) + '\n');

const wireError = (e) => {
  const o = { code: e?.code ?? null, message: e?.message ?? String(e) };
  if (e?.data !== undefined) o.data = e.data;
  return o;
};

async function attempt(fn) {
  try {
    return { ok: await fn() };
  } catch (e) {
    return { error: wireError(e) };
  }
}

// A transport wrapper that prints every message, both ways.
function tap(transport) {
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    out({ type: 'wire', dir: 'out', message });
    return send(message, options);
  };
  let handler;
  Object.defineProperty(transport, 'onmessage', {
    configurable: true,
    get: () => handler,
    set: (h) => {
      handler = (message, extra) => {
        out({ type: 'wire', dir: 'in', message });
        return h(message, extra);
      };
    },
  });
  return transport;
}

const argv = process.argv.slice(2);
let transport;
if (argv[0] === '--stdio' && argv.length >= 2) {
  transport = new StdioClientTransport({ command: argv[1], args: argv.slice(2), stderr: 'inherit' });
} else if (argv[0] === '--http' && argv.length === 2) {
  transport = new StreamableHTTPClientTransport(new URL(argv[1]));
} else {
  process.stderr.write('usage: node client.mjs --stdio COMMAND [ARG...] | --http URL\n');
  process.exit(2);
}

const client = new Client(
  { name: 'ts-sdk-interop-client', version: '1.0.0' },
  { capabilities: { elicitation: { form: {} }, sampling: {} } },
);
client.onerror = (err) => out({ type: 'sdkError', detail: String(err?.stack ?? err) });

// Side-channel requests of ask_task; the case is the related task's.
// Such a request can arrive before the stream has yielded taskCreated, so its line also
// names the related task.
const caseOfTask = new Map();
const related = (params) => params?._meta?.['io.modelcontextprotocol/related-task']?.taskId ?? null;
client.setRequestHandler(ElicitRequestSchema, async (req) => {
  const taskId = related(req.params);
  out({ case: caseOfTask.get(taskId) ?? null, taskId, type: 'elicitation', params: req.params });
  return ELICIT_ANSWER;
});
client.setRequestHandler(CreateMessageRequestSchema, async (req) => {
  const taskId = related(req.params);
  out({ case: caseOfTask.get(taskId) ?? null, taskId, type: 'sampling', params: req.params });
  return SAMPLING_ANSWER;
});

await client.connect(tap(transport));
// callToolStream adds params.task only for tools it has seen in tools/list.
await client.listTools();

const t = client.experimental.tasks;

// run drains one callToolStream, printing each message. onCreated runs once the task
// exists. When the stream ends in an error after the task was created (the SDK does that
// for failed and cancelled tasks, without fetching the outcome), tasks/result is asked.
async function run(name, params, { progress = false, onCreated } = {}) {
  const options = progress ? { onprogress: (p) => out({ case: name, type: 'progress', progress: p }) } : {};
  let taskId;
  let last;
  for await (const m of t.callToolStream(params, undefined, options)) {
    last = m.type;
    switch (m.type) {
      case 'taskCreated':
        taskId = m.task.taskId;
        caseOfTask.set(taskId, name);
        out({ case: name, type: m.type, task: m.task });
        if (onCreated) await onCreated(taskId);
        break;
      case 'taskStatus':
        out({ case: name, type: m.type, task: m.task });
        break;
      case 'result':
        out({ case: name, type: m.type, result: m.result });
        break;
      case 'error':
        out({ case: name, type: m.type, error: wireError(m.error) });
        break;
      default:
        out({ case: name, type: m.type });
    }
  }
  if (taskId && last === 'error') {
    out({ case: name, type: 'fetched', outcome: await attempt(() => t.getTaskResult(taskId, GetTaskPayloadResultSchema)) });
  }
}

const cases = {
  instant: () => run('instant', { name: 'instant_task', arguments: {} }),
  slow: () => run('slow', { name: 'slow_task', arguments: { seconds: 0.2, steps: 2 } }, { progress: true }),
  fail_isError: () => run('fail_isError', { name: 'fail_task', arguments: { mode: 'isError' } }),
  fail_error: () => run('fail_error', { name: 'fail_task', arguments: { mode: 'error' } }),
  cancel: () =>
    run('cancel', { name: 'slow_task', arguments: { seconds: 600, steps: 2 } }, {
      onCreated: async (taskId) => out({ case: 'cancel', type: 'cancel', outcome: await attempt(() => t.cancelTask(taskId)) }),
    }),
  ask: () => run('ask', { name: 'ask_task', arguments: {} }),
};

const results = await Promise.allSettled(Object.values(cases).map((f) => f()));
for (const [i, r] of results.entries()) {
  if (r.status === 'rejected') out({ case: Object.keys(cases)[i], type: 'crash', detail: String(r.reason?.stack ?? r.reason) });
}
out({ type: 'done' });
await client.close();
process.exit(0);
