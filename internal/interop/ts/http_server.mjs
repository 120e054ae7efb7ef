// A TypeScript SDK (@modelcontextprotocol/sdk 1.32.x) MCP server on Streamable HTTP that
// runs tool tasks, routed as the SDK's examples and @modelcontextprotocol/server-everything
// route them: one Server and StreamableHTTPServerTransport per session, kept by session id,
// and a request whose Mcp-Session-Id is unknown answered 400 (not the 404 the transport
// specifies). The task store is one InMemoryTaskStore for every session, which binds a
// task to the session that created it: another session cannot see it.
//
// Driven by interop/ts_http_test.go against the mcpi CLI.
//
//   node http_server.mjs     listens on 127.0.0.1 (any free port) and prints
//                              http://127.0.0.1:PORT/mcp
//
// Tools:
//   slow_task {ms}   a task (taskSupport required) that completes after ms milliseconds
//                    (1000 by default) with the text "slow_task done after MS ms"

import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { InMemoryTaskMessageQueue, InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const taskStore = new InMemoryTaskStore();
const taskMessageQueue = new InMemoryTaskMessageQueue();
const log = (...a) => process.stderr.write(`ts-http-server: ${a.join(' ')}\n`);

function newServer() {
  const server = new Server(
    { name: 'ts-sdk-http-interop-server', version: '1.0.0' },
    {
      capabilities: { tools: {}, tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } },
      taskStore,
      taskMessageQueue,
    },
  );
  server.onerror = (err) => log('onerror:', err?.stack ?? err);
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [
      {
        name: 'slow_task',
        description: 'Completes after ms milliseconds.',
        inputSchema: { type: 'object', properties: { ms: { type: 'integer' } } },
        execution: { taskSupport: 'required' },
      },
    ],
  }));
  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    if (req.params.name !== 'slow_task' || !req.params.task) {
      return { content: [{ type: 'text', text: 'call slow_task as a task' }], isError: true };
    }
    const ms = req.params.arguments?.ms ?? 1000;
    const store = extra.taskStore;
    const task = await store.createTask({ ttl: extra.taskRequestedTtl ?? 60000, pollInterval: 50 });
    setTimeout(() => {
      store
        .storeTaskResult(task.taskId, 'completed', { content: [{ type: 'text', text: `slow_task done after ${ms} ms` }] })
        .catch((e) => log('storing the result:', e?.message ?? e));
    }, ms);
    return { task };
  });
  return server;
}

const transports = new Map(); // session id -> transport

async function readBody(req) {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? JSON.parse(text) : undefined;
}

function badSession(res) {
  res.writeHead(400, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'Bad Request: No valid session ID provided' }, id: null }));
}

const httpServer = http.createServer(async (req, res) => {
  try {
    const sid = req.headers['mcp-session-id'];
    const body = req.method === 'POST' ? await readBody(req) : undefined;
    if (sid && transports.has(sid)) {
      await transports.get(sid).handleRequest(req, res, body);
      return;
    }
    if (!sid && req.method === 'POST') {
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => transports.set(id, transport),
      });
      transport.onclose = () => transport.sessionId && transports.delete(transport.sessionId);
      await newServer().connect(transport);
      await transport.handleRequest(req, res, body);
      return;
    }
    badSession(res);
  } catch (err) {
    log('request failed:', err?.stack ?? err);
    if (!res.headersSent) res.writeHead(500);
    res.end();
  }
});

httpServer.listen(0, '127.0.0.1', () => {
  process.stdout.write(`http://127.0.0.1:${httpServer.address().port}/mcp\n`);
});
const stop = () => {
  for (const t of transports.values()) t.close().catch(() => {});
  httpServer.close(() => process.exit(0));
  httpServer.closeAllConnections?.();
  setTimeout(() => process.exit(0), 1000).unref();
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
