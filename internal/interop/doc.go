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
// Install the SDK with `bash scripts/interop-tools.sh`, then run
// `MCPI_INTEROP=1 go test ./internal/interop/...`. Without MCPI_INTEROP the tests skip when node or
// the SDK is missing; with MCPI_INTEROP=1 (as in CI) they fail. The departures of the TS SDK
// from the spec that these tests observe are written up in docs/ts-sdk-interop.md.
package interop
