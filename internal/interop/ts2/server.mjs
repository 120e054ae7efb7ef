// A TypeScript SDK v2 (@modelcontextprotocol/server 2.4.x) MCP server speaking protocol
// revision 2026-07-28, the peer of mcpi's 2026-07-28 interop tests. Plain ESM, no build step.
//
//   node server.mjs http [PORT]    Streamable HTTP on 127.0.0.1, served by
//                                  createMcpHandler(factory, {legacy: 'reject'}) (strict:
//                                  2025-era requests such as `initialize` are refused) and
//                                  wrapped for node:http by toNodeHandler. PORT (argv, else
//                                  $PORT, else 0 = any free port). Once listening it prints
//                                  one line on stdout, the endpoint URL:
//                                    http://127.0.0.1:PORT/mcp
//                                  Every path is served (/mcp is only the advertised one).
//   node server.mjs stdio          serveStdio(factory, {legacy: 'reject'}): newline-delimited
//                                  JSON-RPC on stdin/stdout.
//
//   --legacy                       (either mode) serve 2025-era traffic too instead of
//                                  rejecting it: legacy 'stateless' over HTTP, 'serve' on stdio.
//
// Diagnostics go to stderr only.
//
// Tools (arguments in braces):
//   echo {text}      returns text
//   add {a, b}       returns a+b as text, and {sum} as structuredContent
//   ask_name {}      multi-round-trip (MRTR): the first call returns an input_required result
//                    (resultType "input_required") with inputRequests {name: elicitation/create,
//                    form mode, schema {name: string}} and an HMAC-signed requestState
//                    (createRequestStateCodec); the retry with inputResponses {name: ElicitResult}
//                    and that requestState returns "Hello, <name>!". A declined or cancelled
//                    elicitation gives an isError result; a forged or expired requestState is
//                    refused by the SDK with -32602.
//
// The v2 SDK (2.4.0) has no runtime for the Tasks extension (io.modelcontextprotocol/tasks):
// task methods are 2025-11-25 wire vocabulary it only parses, so there is no slow_task here.

import { randomBytes } from 'node:crypto';
import http from 'node:http';

import {
  McpServer,
  acceptedContent,
  createMcpHandler,
  createRequestStateCodec,
  inputRequired,
  inputResponse,
} from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { toNodeHandler } from '@modelcontextprotocol/node';
import * as z from 'zod';

const args = process.argv.slice(2);
const legacy = args.includes('--legacy');
const positional = args.filter((a) => !a.startsWith('--'));
const mode = positional[0] ?? 'http';

const log = (...xs) => console.error('ts2-server:', ...xs);

// One key per process: under HTTP each request gets a fresh McpServer, so the codec (and its
// key) lives here, outside the factory. Every round of a flow reaches this same process.
const stateCodec = createRequestStateCodec({ key: randomBytes(32), ttlSeconds: 600 });

const nameSchema = z.object({ name: z.string().describe('Your name') });

function newServer() {
  const server = new McpServer(
    { name: 'ts2-interop-server', version: '1.0.0' },
    {
      capabilities: { tools: {} },
      requestState: { verify: stateCodec.verify },
    },
  );

  server.registerTool(
    'echo',
    { description: 'Returns its text argument.', inputSchema: { text: z.string() } },
    async ({ text }) => ({ content: [{ type: 'text', text }] }),
  );

  server.registerTool(
    'add',
    {
      description: 'Adds two numbers.',
      inputSchema: { a: z.number(), b: z.number() },
      outputSchema: { sum: z.number() },
    },
    async ({ a, b }) => ({
      content: [{ type: 'text', text: String(a + b) }],
      structuredContent: { sum: a + b },
    }),
  );

  server.registerTool(
    'ask_name',
    { description: 'Asks the user for their name (multi-round-trip elicitation) and greets them.' },
    async (ctx) => {
      const state = ctx.mcpReq.requestState(); // verified and decoded by stateCodec.verify
      const answer = inputResponse(ctx.mcpReq.inputResponses, 'name');
      if (state?.step === 'ask_name' && answer.kind === 'elicit') {
        if (answer.action !== 'accept') {
          return { content: [{ type: 'text', text: `No name given (${answer.action}).` }], isError: true };
        }
        const got = acceptedContent(ctx.mcpReq.inputResponses, 'name', nameSchema);
        if (got) {
          return { content: [{ type: 'text', text: `Hello, ${got.name}!` }] };
        }
      }
      return inputRequired({
        inputRequests: {
          name: inputRequired.elicit({ message: 'What is your name?', requestedSchema: nameSchema }),
        },
        requestState: await stateCodec.mint({ step: 'ask_name' }),
      });
    },
  );

  return server;
}

const onerror = (err) => log('onerror:', err?.message ?? err);

if (mode === 'stdio') {
  serveStdio(() => newServer(), { legacy: legacy ? 'serve' : 'reject', onerror });
} else if (mode === 'http') {
  const port = Number(positional[1] ?? process.env.PORT ?? 0);
  const handler = createMcpHandler(() => newServer(), {
    legacy: legacy ? 'stateless' : 'reject',
    onerror,
  });
  const nodeHandler = toNodeHandler(handler, { onerror });
  const httpServer = http.createServer((req, res) => {
    nodeHandler(req, res).catch((err) => {
      onerror(err);
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  httpServer.listen(port, '127.0.0.1', () => {
    const { port: bound } = httpServer.address();
    process.stdout.write(`http://127.0.0.1:${bound}/mcp\n`);
  });
  const stop = () => {
    handler.close().finally(() => httpServer.close(() => process.exit(0)));
    setTimeout(() => process.exit(0), 1000).unref();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
} else {
  log(`unknown mode ${JSON.stringify(mode)}: use http [PORT] or stdio`);
  process.exit(2);
}
