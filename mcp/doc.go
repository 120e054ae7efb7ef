// Package mcp holds the wire types and constants of the Model Context
// Protocol, revision 2025-11-25, plus the small set of types that the Tasks
// extension of revision 2026-07-28 adds (see tasks_ext.go).
//
// The package has no behaviour: no I/O, no networking, no goroutines. It only
// describes what travels inside JSON-RPC params and results, so that the
// jsonrpc, client, server and tasks packages agree on one set of shapes.
//
// Conventions used throughout:
//
//   - Every object that may carry `_meta` has a field `Meta Meta` tagged
//     `json:"_meta,omitempty"`; see [Meta] for its helpers.
//   - Values the protocol leaves as arbitrary JSON (schemas, tool arguments,
//     structured content, log data) are [encoding/json.RawMessage], so they
//     pass through byte for byte.
//   - Capability sub-objects whose presence means "supported" are pointers to
//     structs with omitempty, so `{}` and absence survive a round trip.
//   - Arrays the schema requires (for example [CallToolResult.Content] or the
//     list results) always encode as `[]`, never `null`.
//   - Every list result has a NextCursor field (`nextCursor`, omitted when
//     empty); every list request's params have a Cursor field (`cursor`).
package mcp
