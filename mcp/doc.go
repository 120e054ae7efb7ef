// Package mcp holds the wire types and constants of the Model Context
// Protocol, revision 2025-11-25, plus the small set of types that the Tasks
// extension of revision 2026-07-28 adds (see tasks_ext.go).
//
// The package is types only: no I/O, no networking, no goroutines, and no
// codec functions of its own. It describes what travels inside JSON-RPC
// params and results, so that the jsonrpc, client, server and tasks packages
// agree on one set of shapes. Encode and decode its values with encoding/json
// (or any code that calls MarshalJSON and UnmarshalJSON).
//
// Where the wire form is not the plain one of the fields, or a hand-written
// codec is quicker than reflection (the params and results of every tool call
// and task round trip of both eras: [CallToolParams], [CallToolResult], [Task],
// [CreateTaskResult], [GetTaskResult], [ExtCreateTaskResult], [DetailedTask],
// [TasksNotificationParams], [ListenParams], ...), it sits behind the type's
// MarshalJSON and UnmarshalJSON methods. They give what encoding/json gives
// for the fields, errors included, write no HTML escapes (json.Marshal still
// adds them), and accept any input, so they may be called directly. To tell a
// [CreateTaskResult] from a plain result in one decode, decode into a
// [CreateTaskProbe]. As with any type that has such methods, a struct that
// embeds one of these types inherits them, and encoding/json then calls them
// for the whole struct: give such a struct methods of its own.
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
