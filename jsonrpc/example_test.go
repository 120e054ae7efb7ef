package jsonrpc_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"

	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/transport"
)

// Two peers over an in-memory pipe: one serves a method, the other calls it. The Tap
// sees every message, as an inspector's raw traffic view does.
func ExampleConn_Call() {
	a, b := transport.Pipe()
	server := jsonrpc.NewConn(b, jsonrpc.Options{Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		if req.Method != "add" {
			// ErrMethodNotFound is for errors.Is: an answer says what went wrong.
			return nil, jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "no method %q", req.Method)
		}
		var args [2]int
		if err := json.Unmarshal(req.Params, &args); err != nil {
			return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "want two numbers: %v", err)
		}
		return args[0] + args[1], nil
	})})
	defer server.Close()
	client := jsonrpc.NewConn(a, jsonrpc.Options{Tap: func(dir jsonrpc.Direction, m jsonrpc.Message) {
		raw, _ := jsonrpc.EncodeMessage(m)
		fmt.Println(dir, string(raw))
	}})
	defer client.Close()

	ctx := context.Background()
	var sum int
	if err := client.Call(ctx, "add", []int{2, 3}, &sum); err != nil {
		log.Fatal(err)
	}
	err := client.Call(ctx, "subtract", []int{2, 3}, nil)
	fmt.Println(sum, errors.Is(err, jsonrpc.ErrMethodNotFound))
	// Output:
	// out {"jsonrpc":"2.0","id":1,"method":"add","params":[2,3]}
	// in {"jsonrpc":"2.0","id":1,"result":5}
	// out {"jsonrpc":"2.0","id":2,"method":"subtract","params":[2,3]}
	// in {"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"no method \"subtract\""}}
	// 5 true
}
