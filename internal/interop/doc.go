// Package interop holds mcpi's interoperability tests against a peer no one here wrote:
// the TypeScript SDK (@modelcontextprotocol/sdk 1.32.x, pinned in ts/package.json and
// locked in ts/package-lock.json).
//
//   - ts_server_test.go runs ts/server.mjs, a TS SDK server that sends task-augmented
//     sampling and elicitation to mcpi's client (receiver tasks) and polls it, and that
//     runs tool tasks of its own for mcpi's client to follow (requestor tasks).
//   - ts_client_test.go runs ts/client.mjs, a TS SDK client that calls the demo server's
//     task tools with callToolStream, over stdio (the mcpi binary, `mcpi serve demo`) and
//     over Streamable HTTP (a demo server in the test process), and compares the outcome
//     with what mcpi's own client gets.
//
// The peers of protocol revision 2026-07-28 (docs/interop-2026.md), helpers in
// peers2026_test.go:
//
//   - ts2_test.go runs ts2/server.mjs, a TypeScript SDK v2 (@modelcontextprotocol/server 2.4.x)
//     server, over Streamable HTTP and stdio, strict and with --legacy.
//   - gosdk_test.go runs .tools/bin/gosdk-server, a go-sdk v1.8.0 server on stateless
//     Streamable HTTP, with and without -strict and -json.
//
// Both answer mcpi's client in either era; the tests check era negotiation, the tools, the
// multi-round-trip elicitation of ask_name answered every way, and the HTTP headers.
//
// The other way round, gosdk_client_test.go runs two client peers against mcpi's demo
// server: .tools/bin/gosdk-client, a go-sdk v1.8.0 client (gosdk/client), and ts2/client.mjs,
// a TypeScript SDK v2 client (@modelcontextprotocol/client 2.4.0); each in 2026-07-28 over
// Streamable HTTP and stdio (ask_user answered through MRTR), and in 2025-11-25.
//
// Install the SDK with `bash scripts/interop-tools.sh`, then run
// `MCPI_INTEROP=1 go test ./internal/interop/...`. Without MCPI_INTEROP the tests skip when node or
// the SDK is missing; with MCPI_INTEROP=1 (as in CI) they fail. The departures of the TS SDK
// from the spec that these tests observe are written up in docs/ts-sdk-interop.md.
package interop
