// A TypeScript SDK (@modelcontextprotocol/sdk 1.32.x) MCP server on stdio that acts as the
// REQUESTOR of client-hosted tasks: its tools send task-augmented sampling/createMessage
// and elicitation/create to the client, poll the client with tasks/get, fetch tasks/result,
// list and cancel the client's tasks, and return what came back as JSON text.
//
// Driven by interop/ts_server_test.go against mcpi's client (receiver tasks on). Every
// tool returns one text item holding a JSON document, so the Go side can check exactly
// what the SDK saw. Nothing here sleeps: the SDK's own polling runs at the pollInterval
// the client suggests.
//
// Tools (arguments in braces):
//   sample {prompt, maxTokens?, ttl?}   createMessageStream(..., {task:{ttl}}): the stream's
//                                       messages; when it ends in an error after the task
//                                       was created, the real outcome fetched with tasks/result
//   elicit {message, ttl?}              the same with elicitInputStream (a small form)
//   start_elicit {message, ttl?}        elicitation/create with params.task; returns the
//                                       CreateTaskResult at once (no polling)
//   get_client_task {taskId}            tasks/get
//   client_task_result {taskId}         tasks/result
//   cancel_client_task {taskId}         tasks/cancel
//   list_client_tasks {}                tasks/list, every page
//   observed {taskId?, status?}         notifications/tasks/status received so far, every
//                                       error the SDK reported (onerror), and the errors of
//                                       ts_task work that ended late (lateErrors); with
//                                       taskId and status, first waits (5 s at most) for
//                                       that notification
//
// Every call result is {"ok": RESULT} or {"error": {code, message, data?}}.
//
// It also runs tool tasks itself (the SDK as RECEIVER, mcpi's client as requestor):
//   ts_task {mode, timeoutMs?}          taskSupport optional; complete, isError, ask (an
//                                       elicitation through the tasks/result side channel,
//                                       with that request timeout) or hold (works until
//                                       release)
//   release {taskId}                    lets a held ts_task store its result; returns what
//                                       that did (the SDK throws once the task is cancelled)

import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { InMemoryTaskMessageQueue, InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/index.js';
import {
  CallToolRequestSchema,
  CreateTaskResultSchema,
  ElicitResultSchema,
  GetTaskPayloadResultSchema,
  ListToolsRequestSchema,
  TaskStatusNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';

const observed = { statusNotifications: [], errors: [], lateErrors: [] };

const server = new Server(
  { name: 'ts-sdk-interop-server', version: '1.0.0' },
  {
    capabilities: {
      tools: {},
      tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
    },
    taskStore: new InMemoryTaskStore(),
    taskMessageQueue: new InMemoryTaskMessageQueue(),
  },
);

server.onerror = (err) => {
  observed.errors.push(String(err?.stack ?? err));
  process.stderr.write(`ts-server: onerror: ${err?.stack ?? err}\n`);
};

// Waiters of the observed tool: each resolves once a status notification matches.
const notificationWaiters = new Set();

server.setNotificationHandler(TaskStatusNotificationSchema, (n) => {
  observed.statusNotifications.push(n.params);
  for (const w of notificationWaiters) w();
});

// awaitNotification resolves once a status notification for taskId with status has
// arrived, or after ms.
function awaitNotification(taskId, status, ms) {
  const seen = () => observed.statusNotifications.some((p) => p.taskId === taskId && p.status === status);
  if (!taskId || seen()) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      notificationWaiters.delete(check);
      resolve();
    };
    const check = () => seen() && done();
    const timer = setTimeout(done, ms);
    notificationWaiters.add(check);
  });
}

const obj = (properties, required = []) => ({ type: 'object', properties, required });

const tools = [
  {
    name: 'sample',
    description: 'Task-augmented sampling/createMessage to the client; returns the stream it saw.',
    inputSchema: obj({ prompt: { type: 'string' }, maxTokens: { type: 'integer' }, ttl: { type: 'integer' } }, ['prompt']),
  },
  {
    name: 'elicit',
    description: 'Task-augmented elicitation/create to the client; returns the stream it saw.',
    inputSchema: obj({ message: { type: 'string' }, ttl: { type: 'integer' } }, ['message']),
  },
  {
    name: 'start_elicit',
    description: 'Sends a task-augmented elicitation/create and returns the CreateTaskResult.',
    inputSchema: obj({ message: { type: 'string' }, ttl: { type: 'integer' } }, ['message']),
  },
  { name: 'get_client_task', description: 'tasks/get on the client.', inputSchema: obj({ taskId: { type: 'string' } }, ['taskId']) },
  { name: 'client_task_result', description: 'tasks/result on the client.', inputSchema: obj({ taskId: { type: 'string' } }, ['taskId']) },
  { name: 'cancel_client_task', description: 'tasks/cancel on the client.', inputSchema: obj({ taskId: { type: 'string' } }, ['taskId']) },
  { name: 'list_client_tasks', description: "tasks/list on the client, every page.", inputSchema: obj({}) },
  {
    name: 'ts_task',
    description: 'A tool task the SDK runs as receiver (taskSupport optional). mode: complete, isError, ask, hold.',
    inputSchema: obj({ mode: { type: 'string', enum: ['complete', 'isError', 'ask', 'hold'] }, timeoutMs: { type: 'integer' } }, ['mode']),
    execution: { taskSupport: 'optional' },
  },
  {
    name: 'release',
    description: 'Lets the work of a ts_task {mode: hold} finish; returns what storing its result did.',
    inputSchema: obj({ taskId: { type: 'string' } }, ['taskId']),
  },
  {
    name: 'observed',
    description: 'Status notifications and SDK errors seen so far; first waits (up to 5 s) for a status notification of taskId with status, when given.',
    inputSchema: obj({ taskId: { type: 'string' }, status: { type: 'string' } }),
  },
];

// The form elicit and start_elicit send.
const form = {
  type: 'object',
  properties: {
    name: { type: 'string', title: 'Name' },
    age: { type: 'integer', title: 'Age', minimum: 0 },
  },
  required: ['name'],
};

const wireError = (e) => {
  const out = { code: e?.code ?? null, message: e?.message ?? String(e) };
  if (e?.data !== undefined) out.data = e.data;
  return out;
};

const text = (doc) => ({ content: [{ type: 'text', text: JSON.stringify(doc) }] });

async function attempt(fn) {
  try {
    return { ok: await fn() };
  } catch (e) {
    return { error: wireError(e) };
  }
}

// drain runs one *Stream call to its end and records every message it yields. When the
// stream ends in an error although the task exists (the SDK reports failed and cancelled
// tasks as a local -32603 without fetching the outcome), it also asks tasks/result, so the
// test sees the real outcome the client stored.
async function drain(stream) {
  const messages = [];
  let taskId;
  for await (const m of stream) {
    switch (m.type) {
      case 'taskCreated':
        taskId = m.task.taskId;
        messages.push({ type: m.type, task: m.task });
        break;
      case 'taskStatus':
        messages.push({ type: m.type, task: m.task });
        break;
      case 'result':
        messages.push({ type: m.type, result: m.result });
        break;
      case 'error':
        messages.push({ type: m.type, error: wireError(m.error) });
        break;
      default:
        messages.push({ type: m.type });
    }
  }
  const doc = { messages };
  if (taskId && messages.at(-1)?.type === 'error') {
    doc.fetched = await attempt(() => server.experimental.tasks.getTaskResult(taskId, GetTaskPayloadResultSchema));
  }
  return doc;
}

// ts_task: the SDK as receiver of a task-augmented tools/call, written the way the SDK's
// low-level Server asks (extra.taskStore). The work of mode hold waits for release.
const held = new Map(); // taskId -> function that finishes the work and resolves its outcome

async function tsTask(req, extra) {
  const mode = req.params.arguments?.mode;
  const payload = (text, isError) => ({ content: [{ type: 'text', text }], ...(isError ? { isError: true } : {}) });
  if (!req.params.task) return payload(`ts_task ${mode} ran without a task`);
  const store = extra.taskStore;
  const task = await store.createTask({ ttl: extra.taskRequestedTtl, pollInterval: 50 });
  const id = task.taskId;
  switch (mode) {
    case 'complete':
      // Stored before the CreateTaskResult is sent: the completed status notification
      // goes out first.
      await store.storeTaskResult(id, 'completed', payload('ts_task done'));
      break;
    case 'isError':
      await store.storeTaskResult(id, 'failed', payload('ts_task failed on purpose', true));
      break;
    case 'ask':
      (async () => {
        // sendRequest sets input_required and queues the request for tasks/result; the
        // handler has to set working again itself.
        const answer = await extra.sendRequest(
          { method: 'elicitation/create', params: { mode: 'form', message: 'Your name?', requestedSchema: form } },
          ElicitResultSchema,
          // timeoutMs shortens the request timeout (60 s by default), which the SDK
          // never clears for a side-channel request: it fires after the answer.
          { relatedTask: { taskId: id }, ...(req.params.arguments?.timeoutMs ? { timeout: req.params.arguments.timeoutMs } : {}) },
        );
        await store.updateTaskStatus(id, 'working');
        await store.storeTaskResult(id, 'completed', payload(`ts_task got ${JSON.stringify(answer)}`));
      })().catch((e) => observed.lateErrors.push(`ask ${id}: ${e?.message ?? e}`));
      break;
    case 'hold':
      held.set(id, () =>
        store.storeTaskResult(id, 'completed', payload('ts_task released')).then(
          () => ({ ok: 'stored' }),
          (e) => {
            observed.lateErrors.push(`hold ${id}: ${e?.message ?? e}`);
            return { error: wireError(e) };
          },
        ),
      );
      break;
  }
  return { task };
}

const taskOpt = (args) => ({ task: args.ttl !== undefined ? { ttl: args.ttl } : {} });

server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));

server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
  const args = req.params.arguments ?? {};
  const t = server.experimental.tasks;
  switch (req.params.name) {
    case 'ts_task':
      return tsTask(req, extra);
    case 'release': {
      const finish = held.get(args.taskId);
      held.delete(args.taskId);
      return text(finish ? await finish() : { error: { code: null, message: 'no held work with that task id' } });
    }
    case 'sample':
      return text(
        await drain(
          t.createMessageStream(
            {
              messages: [{ role: 'user', content: { type: 'text', text: args.prompt } }],
              maxTokens: args.maxTokens ?? 64,
            },
            taskOpt(args),
          ),
        ),
      );
    case 'elicit':
      return text(await drain(t.elicitInputStream({ mode: 'form', message: args.message, requestedSchema: form }, taskOpt(args))));
    case 'start_elicit':
      return text(
        await attempt(() =>
          server.request(
            { method: 'elicitation/create', params: { mode: 'form', message: args.message, requestedSchema: form } },
            CreateTaskResultSchema,
            taskOpt(args),
          ),
        ),
      );
    case 'get_client_task':
      return text(await attempt(() => t.getTask(args.taskId)));
    case 'client_task_result':
      return text(await attempt(() => t.getTaskResult(args.taskId, GetTaskPayloadResultSchema)));
    case 'cancel_client_task':
      return text(await attempt(() => t.cancelTask(args.taskId)));
    case 'list_client_tasks':
      return text(
        await attempt(async () => {
          const pages = [];
          let cursor;
          do {
            const page = await t.listTasks(cursor);
            pages.push(page);
            cursor = page.nextCursor;
          } while (cursor && pages.length < 100);
          return pages;
        }),
      );
    case 'observed':
      await awaitNotification(args.taskId, args.status, 5000);
      return text(observed);
    default:
      return { content: [{ type: 'text', text: `unknown tool ${req.params.name}` }], isError: true };
  }
});

await server.connect(new StdioServerTransport());
// The SDK's stdio transport does not end when stdin does, and its timers (a side-channel
// request's timeout, for one) would keep the process alive: exit with the input.
process.stdin.on('end', () => process.exit(0));
process.stderr.write('ts-server: ready\n');
