package mcp_test

import (
	"encoding/json"
	"fmt"
	"log"

	"github.com/mcpi-dev/mcpi/mcp"
)

// The protocol types encode as the spec's wire form; a nil Content is still the [] the
// spec requires, and false isError is left out.
func ExampleCallToolResult() {
	res := mcp.CallToolResult{StructuredContent: json.RawMessage(`{"sum":5}`)}
	b, err := json.Marshal(res)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(string(b))

	res.Content = []mcp.Content{mcp.TextContent("5")}
	if b, err = json.Marshal(res); err != nil {
		log.Fatal(err)
	}
	fmt.Println(string(b))
	// Output:
	// {"content":[],"structuredContent":{"sum":5}}
	// {"content":[{"type":"text","text":"5"}],"structuredContent":{"sum":5}}
}

// In 2026-07-28 every result says what it is; a result of 2025-11-25, which has no
// resultType, is complete.
func ExampleResultTypeOf() {
	for _, raw := range []string{
		`{"content":[]}`,
		`{"resultType":"task","taskId":"t1","status":"working"}`,
		`{"resultType":"input_required","inputRequests":{}}`,
	} {
		fmt.Println(mcp.ResultTypeOf(json.RawMessage(raw)))
	}
	// Output:
	// complete
	// task
	// input_required
}
