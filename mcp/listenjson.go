package mcp

import (
	"encoding/json"

	"github.com/mcpi-dev/mcpi/internal/jsonwire"
)

// A 2026-07-28 task round trip opens a subscriptions/listen for its task: the client
// encodes [ListenParams], the server decodes them and encodes the
// [ListenAcknowledgedParams], the client decodes those. Both have hand-written codecs
// under the rules of resultsjson.go: the usual shape directly, anything else through
// encoding/json on the type without its methods, so that outcome and errors are the
// same.

// The types without their JSON methods, for encoding/json.
type (
	plainListenParams             ListenParams
	plainListenAcknowledgedParams ListenAcknowledgedParams
)

// MarshalJSON writes p as encoding/json writes its fields, with HTML escaping off.
func (p ListenParams) MarshalJSON() ([]byte, error) {
	if b, err := appendListen(&p.Notifications, p.Meta); err == nil {
		return b, nil
	}
	type ListenParams plainListenParams
	return jsonwire.Marshal((*ListenParams)(&p)) // and the error encoding/json gives
}

// UnmarshalJSON decodes p as encoding/json decodes its fields.
func (p *ListenParams) UnmarshalJSON(data []byte) error {
	if p.Notifications.isZero() && p.Meta == nil && decodeListen(data, &p.Notifications, &p.Meta) {
		return nil
	}
	type ListenParams plainListenParams
	return json.Unmarshal(data, (*ListenParams)(p))
}

// MarshalJSON writes p as encoding/json writes its fields, with HTML escaping off: as
// the listen's params, which have the same fields (and an encoding error names no type).
func (p ListenAcknowledgedParams) MarshalJSON() ([]byte, error) {
	return ListenParams(p).MarshalJSON()
}

// UnmarshalJSON decodes p as encoding/json decodes its fields.
func (p *ListenAcknowledgedParams) UnmarshalJSON(data []byte) error {
	if p.Notifications.isZero() && p.Meta == nil && decodeListen(data, &p.Notifications, &p.Meta) {
		return nil
	}
	type ListenAcknowledgedParams plainListenAcknowledgedParams
	return json.Unmarshal(data, (*ListenAcknowledgedParams)(p))
}

func (f *ListenFilter) isZero() bool {
	return !f.ToolsListChanged && !f.PromptsListChanged && !f.ResourcesListChanged &&
		f.ResourceSubscriptions == nil && f.TaskIDs == nil
}

// appendListen writes {"notifications":f,"_meta":meta} as encoding/json writes both
// types; an error (in meta) leaves its wording to encoding/json.
func appendListen(f *ListenFilter, meta Meta) ([]byte, error) {
	size := 120
	for _, s := range f.ResourceSubscriptions {
		size += len(s) + 3
	}
	for _, s := range f.TaskIDs {
		size += len(s) + 3
	}
	b := append(make([]byte, 0, size), `{"notifications":{`...)
	open := len(b)
	member := func(name string) {
		if len(b) > open {
			b = append(b, ',')
		}
		b = append(b, name...)
	}
	for _, flag := range []struct {
		name string
		on   bool
	}{
		{`"toolsListChanged":true`, f.ToolsListChanged},
		{`"promptsListChanged":true`, f.PromptsListChanged},
		{`"resourcesListChanged":true`, f.ResourcesListChanged},
	} {
		if flag.on {
			member(flag.name)
		}
	}
	for _, list := range []struct {
		name string
		ss   []string
	}{
		{`"resourceSubscriptions":[`, f.ResourceSubscriptions},
		{`"taskIds":[`, f.TaskIDs},
	} {
		if len(list.ss) == 0 {
			continue
		}
		member(list.name)
		for i, s := range list.ss {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsonwire.AppendString(b, s)
		}
		b = append(b, ']')
	}
	return appendMeta(append(b, '}'), meta)
}

// The member names as encoding/json sees them (see skipMember).
var (
	listenNames       = []string{"notifications", "_meta"}
	listenFilterNames = []string{"toolsListChanged", "promptsListChanged", "resourcesListChanged", "resourceSubscriptions", "taskIds"}
)

// decodeListen decodes {"notifications": {...}, "_meta": ...} into f and *meta, which
// are zero, storing only when all of data is taken.
func decodeListen(data []byte, f *ListenFilter, meta *Meta) bool {
	var (
		q    ListenFilter
		m    Meta
		seen uint8
	)
	d := metaDecoder{data: data}
	if !d.members(func(key []byte) (ok bool) {
		switch string(key) {
		case "notifications":
			return d.listenFilter(&q) && once(&seen, 1)
		case "_meta":
			m, ok = d.metaValue()
			return ok && once(&seen, 2)
		}
		return d.skipMember(key, listenNames)
	}) || !d.atEnd() {
		return false
	}
	*f, *meta = q, m
	return true
}

// listenFilter decodes the object at d.i into f, which is zero; null, a repeated
// member and values of other types are left to encoding/json.
func (d *metaDecoder) listenFilter(f *ListenFilter) bool {
	if d.i >= len(d.data) || d.data[d.i] != '{' {
		return false
	}
	var seen uint8
	return d.members(func(key []byte) (ok bool) {
		switch string(key) {
		case "toolsListChanged":
			f.ToolsListChanged, ok = d.boolValue()
			return ok && once(&seen, 1)
		case "promptsListChanged":
			f.PromptsListChanged, ok = d.boolValue()
			return ok && once(&seen, 2)
		case "resourcesListChanged":
			f.ResourcesListChanged, ok = d.boolValue()
			return ok && once(&seen, 4)
		case "resourceSubscriptions":
			f.ResourceSubscriptions, ok = d.stringArray()
			return ok && once(&seen, 8)
		case "taskIds":
			f.TaskIDs, ok = d.stringArray()
			return ok && once(&seen, 16)
		}
		return d.skipMember(key, listenFilterNames)
	})
}
