package transport

import (
	"bytes"
	"context"
	"encoding/base64"
	"net/http"
	"strings"

	"github.com/mcpi-dev/mcpi/internal/jsonwire"
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
	// One pass of the scanner over the params, without decoding the arguments or the
	// rest of _meta: every request of 2026-07-28 a client sends comes through here. As
	// the server reads them, the last _meta counts; a member of the wrong type makes the
	// request none of 2026-07-28's, as a decoding error would.
	var version, reading, nameRaw, uriRaw, taskRaw []byte
	err := jsonwire.MembersWithin(r.Params, `"_meta"`, func(name, value []byte) {
		switch string(name) {
		case `"_meta"`:
			version, reading = reading, nil
		case `"name"`:
			nameRaw = value
		case `"uri"`:
			uriRaw = value
		case `"taskId"`:
			taskRaw = value
		}
	}, func(name, value []byte) {
		if string(name) == string(metaVersionKey) {
			reading = value
		}
	})
	if err != nil {
		return h, false
	}
	v, _, ok1 := optionalString(version)
	name, hasName, ok2 := optionalString(nameRaw)
	uri, hasURI, ok3 := optionalString(uriRaw)
	taskID, hasTask, ok4 := optionalString(taskRaw)
	if !ok1 || !ok2 || !ok3 || !ok4 || v == "" {
		return h, false
	}
	h = h.Clone()
	if h == nil {
		h = http.Header{}
	}
	h.Set(HeaderProtocolVersion, v)
	h.Set(HeaderMethod, r.Method)
	switch {
	case (r.Method == "tools/call" || r.Method == "prompts/get") && hasName:
		h.Set(HeaderName, EncodeHeaderValue(name))
	case r.Method == "resources/read" && hasURI:
		h.Set(HeaderName, EncodeHeaderValue(uri))
	case strings.HasPrefix(r.Method, "tasks/") && hasTask:
		h.Set(HeaderName, EncodeHeaderValue(taskID))
	}
	return h, true
}

// optionalString reads raw, a member's value, as a string that may be missing (nil) or
// null: set says it is a string, ok that it is one of the three.
func optionalString(raw []byte) (s string, set, ok bool) {
	if raw == nil || string(raw) == "null" {
		return "", false, true
	}
	s, ok = jsonwire.String(raw)
	return s, ok, ok
}
