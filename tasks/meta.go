package tasks

import (
	"encoding/json"
	"fmt"

	"github.com/mcpi-dev/mcpi/internal/jsonwire"
	"github.com/mcpi-dev/mcpi/mcp"
)

// WithRelatedTaskMeta returns result with _meta["io.modelcontextprotocol/related-task"]
// set to id, keeping every other member as it was: tasks/result must carry the key.
//
// A result without _meta, the usual case, gets the member spliced in at the front, every
// other byte kept, rather than a round through maps; one with _meta is merged through maps.
func WithRelatedTaskMeta(result json.RawMessage, id string) (json.RawMessage, error) {
	open := 0
	for open < len(result) && isSpace(result[open]) {
		open++
	}
	if open == len(result) || result[open] != '{' || !jsonwire.Valid(result) {
		return withRelatedTaskMetaSlow(result, id) // null, or the error of a non-object
	}
	hasMeta, unsure := topLevelMeta(result[open:])
	if hasMeta || unsure {
		return withRelatedTaskMetaSlow(result, id)
	}
	empty := true
	for _, c := range result[open+1:] {
		if !isSpace(c) {
			empty = c == '}'
			break
		}
	}
	out := make([]byte, 0, len(result)+len(id)+len(relatedMetaOpen)+len(relatedMetaClose)+8)
	out = append(out, result[:open+1]...)
	out = append(out, relatedMetaOpen...)
	out = jsonwire.AppendString(out, id)
	out = append(out, relatedMetaClose...)
	if !empty {
		out = append(out, ',')
	}
	return append(out, result[open+1:]...), nil
}

const (
	relatedMetaOpen  = `"_meta":{"` + mcp.MetaRelatedTask + `":{"taskId":`
	relatedMetaClose = `}}`
)

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// topLevelMeta reports whether obj, a valid JSON object, has a member named _meta.
// unsure is set when a member name has escapes, which only a decoder reads right.
func topLevelMeta(obj []byte) (hasMeta, unsure bool) {
	depth, key := 0, true
	for i := 1; i < len(obj); i++ {
		switch obj[i] {
		case '"':
			start, escaped := i+1, false
			for i++; obj[i] != '"'; i++ {
				if obj[i] == '\\' {
					escaped = true
					i++
				}
			}
			if depth == 0 && key {
				if escaped {
					return false, true
				}
				if string(obj[start:i]) == "_meta" {
					return true, false
				}
				key = false
			}
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		case ',':
			key = depth == 0
		}
	}
	return false, false
}

func withRelatedTaskMetaSlow(result json.RawMessage, id string) (json.RawMessage, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(result, &obj); err != nil {
		return nil, fmt.Errorf("tasks: stored result is not an object: %w", err)
	}
	if obj == nil {
		obj = map[string]json.RawMessage{}
	}
	meta := map[string]json.RawMessage{}
	if raw, ok := obj["_meta"]; ok {
		if err := json.Unmarshal(raw, &meta); err != nil || meta == nil {
			meta = map[string]json.RawMessage{}
		}
	}
	meta[mcp.MetaRelatedTask] = marshal(mcp.RelatedTaskMetadata{TaskID: id})
	obj["_meta"] = marshal(meta)
	return marshal(obj), nil
}

// marshal encodes v, which cannot fail to encode, without HTML escaping: a result goes
// on the wire as the tool wrote it.
func marshal(v any) []byte {
	b, _ := jsonwire.Marshal(v)
	return b
}
