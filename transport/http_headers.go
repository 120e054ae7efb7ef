package transport

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/mcpi-dev/mcpi/jsonrpc"
)

// Headers of revision 2026-07-28 that mirror a request's body, so that proxies and
// load balancers can route without reading it.
const (
	HeaderMethod = "Mcp-Method"
	HeaderName   = "Mcp-Name"
	// HeaderParamPrefix starts the name of a header that carries a tool argument
	// marked x-mcp-header.
	HeaderParamPrefix = "Mcp-Param-"
)

// EncodeHeaderValue returns v as a header value: as it is when it is plain ASCII with no
// control character and no space or tab at either end, and otherwise (or when it would
// read as the marker itself) as =?base64?...?= around the standard, padded base64 of its
// UTF-8 bytes.
func EncodeHeaderValue(v string) string {
	if headerSafe(v) {
		return v
	}
	return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(v)) + "?="
}

func headerSafe(v string) bool {
	if strings.HasPrefix(v, "=?base64?") && strings.HasSuffix(v, "?=") {
		return false
	}
	if v != "" && (v[0] == ' ' || v[0] == '\t' || v[len(v)-1] == ' ' || v[len(v)-1] == '\t') {
		return false
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; c < 0x20 || c >= 0x7f {
			return false
		}
	}
	return true
}

type headerKey struct{}

// WithHeader returns a context whose requests, written by an [HTTPClientConn], carry h
// as well (the Mcp-Param-* headers of one tool call, for instance). Values are sent as
// they are: encode them with [EncodeHeaderValue].
func WithHeader(ctx context.Context, h http.Header) context.Context {
	return context.WithValue(ctx, headerKey{}, h)
}

// metaVersionKey marks the params of a 2026-07-28 request.
var metaVersionKey = []byte(`"io.modelcontextprotocol/protocolVersion"`)

// mirrorHeaders returns h (which it does not change) with the headers of revision
// 2026-07-28 that mirror r's body: the protocol version of its _meta, its method, and
// the name of what it addresses (params.name of tools/call and prompts/get, params.uri
// of resources/read, params.taskId of tasks/*). A request of an earlier revision gets
// none: h is returned as it is. modern reports whether r is of 2026-07-28.
func mirrorHeaders(h http.Header, r *jsonrpc.Request) (_ http.Header, modern bool) {
	if !bytes.Contains(r.Params, metaVersionKey) {
		return h, false
	}
	var probe struct {
		Name   *string `json:"name"`
		URI    *string `json:"uri"`
		TaskID *string `json:"taskId"`
		Meta   struct {
			Version string `json:"io.modelcontextprotocol/protocolVersion"`
		} `json:"_meta"`
	}
	if json.Unmarshal(r.Params, &probe) != nil || probe.Meta.Version == "" {
		return h, false
	}
	h = h.Clone()
	if h == nil {
		h = http.Header{}
	}
	h.Set(HeaderProtocolVersion, probe.Meta.Version)
	h.Set(HeaderMethod, r.Method)
	var name *string
	switch {
	case r.Method == "tools/call" || r.Method == "prompts/get":
		name = probe.Name
	case r.Method == "resources/read":
		name = probe.URI
	case strings.HasPrefix(r.Method, "tasks/"):
		name = probe.TaskID
	}
	if name != nil {
		h.Set(HeaderName, EncodeHeaderValue(*name))
	}
	return h, true
}
