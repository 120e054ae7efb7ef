// A TypeScript SDK v2 (@modelcontextprotocol/client 2.4.0) client for mcpi's interop tests:
// node client.mjs URL | --stdio CMD [ARG...]. Lists the tools, calls echo {"text":"hi"} and
// ask_user {} (answering its elicitation), and prints one JSON object.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const args = process.argv.slice(2);
const transport = args[0] === '--stdio'
  ? new StdioClientTransport({ command: args[1], args: args.slice(2) })
  : new StreamableHTTPClientTransport(new URL(args[0]));
const client = new Client({ name: 'ts2-interop-client', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: process.env.TS2_MODE === 'legacy' ? 'legacy' : 'auto' } });
client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { name: 'Ada', color: 'green' } }));
await client.connect(transport);
const out = { protocolVersion: client.getNegotiatedProtocolVersion?.() ?? null };
const tools = await client.listTools();
out.tools = tools.tools.map((t) => t.name);
for (const [name, a] of [['echo', { text: 'hi' }], ['ask_user', {}]]) {
  const r = await client.callTool({ name, arguments: a });
  out[name] = { text: (r.content ?? []).filter((c) => c.type === 'text').map((c) => c.text).join(''), isError: !!r.isError };
}
console.log(JSON.stringify(out));
await client.close();
