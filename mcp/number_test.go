package mcp

import (
	"encoding/json"
	"math"
	"testing"
)

// The integers a peer sends take any JSON number, rounded and bounded to int64, through
// every decoder that holds one (the hand-written fast paths and encoding/json behind
// them); a value of another type is still an error.
func TestIntegersTakeAnyNumber(t *testing.T) {
	const task = `"taskId":"t","status":"working","createdAt":"c","lastUpdatedAt":"l"`
	i := func(v int64) *int64 { return &v }
	for _, tc := range []struct {
		name, data string
		into       func() any
		got        func(v any) []*int64
		want       []*int64
	}{
		{"task", `{` + task + `,"ttl":2000.0,"pollInterval":1.5}`, func() any { return new(Task) },
			func(v any) []*int64 { return []*int64{v.(*Task).TTL, v.(*Task).PollInterval} }, []*int64{i(2000), i(2)}},
		{"task, huge", `{` + task + `,"ttl":1e300,"pollInterval":-1e300}`, func() any { return new(Task) },
			func(v any) []*int64 { return []*int64{v.(*Task).TTL, v.(*Task).PollInterval} }, []*int64{i(math.MaxInt64), i(math.MinInt64)}},
		{"task, beyond float64", `{` + task + `,"ttl":1e400,"pollInterval":-2.5}`, func() any { return new(Task) },
			func(v any) []*int64 { return []*int64{v.(*Task).TTL, v.(*Task).PollInterval} }, []*int64{i(math.MaxInt64), i(-3)}},
		{"task, the fallback path", `{` + task + `,"Extra":1,"TTL":1.5,"pollInterval":99999999999999999999}`, func() any { return new(Task) },
			func(v any) []*int64 { return []*int64{v.(*Task).TTL, v.(*Task).PollInterval} }, []*int64{i(2), i(math.MaxInt64)}},
		{"create task result", `{"task":{` + task + `,"ttl":null,"pollInterval":2000.0}}`, func() any { return new(CreateTaskResult) },
			func(v any) []*int64 {
				return []*int64{v.(*CreateTaskResult).Task.TTL, v.(*CreateTaskResult).Task.PollInterval}
			}, []*int64{nil, i(2000)}},
		{"create task probe", `{"task":{` + task + `,"ttl":1.5,"pollInterval":2000.0},"_meta":{}}`, func() any { return new(CreateTaskProbe) },
			func(v any) []*int64 {
				return []*int64{v.(*CreateTaskProbe).Task.TTL, v.(*CreateTaskProbe).Task.PollInterval}
			}, []*int64{i(2), i(2000)}},
		{"task list", `{"tasks":[{` + task + `,"ttl":-5,"pollInterval":1e300},{` + task + `,"ttl":null}]}`, func() any { return new(ListTasksResult) },
			func(v any) []*int64 {
				return []*int64{v.(*ListTasksResult).Tasks[0].PollInterval, v.(*ListTasksResult).Tasks[1].TTL}
			}, []*int64{i(math.MaxInt64), nil}},
		{"status notification, fallback", `{` + task + `,"ttl":1.5,"_meta":{},"taskId":"u"}`, func() any { return new(TaskStatusNotificationParams) },
			func(v any) []*int64 { return []*int64{v.(*TaskStatusNotificationParams).TTL} }, []*int64{i(2)}},
		{"ext create", `{"resultType":"task",` + task + `,"ttlMs":60000.0,"pollIntervalMs":1.5}`, func() any { return new(ExtCreateTaskResult) },
			func(v any) []*int64 {
				return []*int64{v.(*ExtCreateTaskResult).TTLMs, v.(*ExtCreateTaskResult).PollIntervalMs}
			}, []*int64{i(60000), i(2)}},
		{"ext get, failed (fallback)", `{"resultType":"complete",` + task + `,"ttlMs":1.5,"pollIntervalMs":2.5,"error":{"code":-32603,"message":"x"}}`, func() any { return new(ExtGetTaskResult) },
			func(v any) []*int64 {
				return []*int64{v.(*ExtGetTaskResult).TTLMs, v.(*ExtGetTaskResult).PollIntervalMs}
			}, []*int64{i(2), i(3)}},
		{"ext notification, input (fallback)", `{` + task + `,"ttlMs":1e300,"inputRequests":{}}`, func() any { return new(TasksNotificationParams) },
			func(v any) []*int64 { return []*int64{v.(*TasksNotificationParams).TTLMs} }, []*int64{i(math.MaxInt64)}},
		{"detailed task", `{` + task + `,"ttlMs":1.5,"error":{"code":1,"message":"m"}}`, func() any { return new(DetailedTask) },
			func(v any) []*int64 { return []*int64{v.(*DetailedTask).TTLMs} }, []*int64{i(2)}},
		{"resource", `{"resources":[{"uri":"u","name":"n","size":1000.0},{"uri":"v","name":"m","size":1e300}]}`, func() any { return new(ListResourcesResult) },
			func(v any) []*int64 {
				return []*int64{v.(*ListResourcesResult).Resources[0].Size, v.(*ListResourcesResult).Resources[1].Size}
			}, []*int64{i(1000), i(math.MaxInt64)}},
		{"resource link", `{"content":[{"type":"resource_link","uri":"u","name":"n","size":1.5}]}`, func() any { return new(CallToolResult) },
			func(v any) []*int64 { return []*int64{v.(*CallToolResult).Content[0].Size} }, []*int64{i(2)}},
		{"requested ttl", `{"name":"x","task":{"ttl":60000.0}}`, func() any { return new(CallToolParams) },
			func(v any) []*int64 { return []*int64{v.(*CallToolParams).Task.TTL} }, []*int64{i(60000)}},
		{"requested ttl of an elicitation", `{"message":"m","requestedSchema":{"type":"object"},"task":{"ttl":1.5}}`, func() any { return new(ElicitParams) },
			func(v any) []*int64 { return []*int64{v.(*ElicitParams).Task.TTL} }, []*int64{i(2)}},
		{"sampling", `{"messages":[],"maxTokens":100.0,"task":{"ttl":1e300}}`, func() any { return new(CreateMessageParams) },
			func(v any) []*int64 { p := v.(*CreateMessageParams); return []*int64{&p.MaxTokens, p.Task.TTL} }, []*int64{i(100), i(math.MaxInt64)}},
		{"discover", `{"supportedVersions":[],"capabilities":{},"ttlMs":1.5}`, func() any { return new(DiscoverResult) },
			func(v any) []*int64 { return []*int64{v.(*DiscoverResult).TTLMs} }, []*int64{i(2)}},
		{"completion", `{"completion":{"values":[],"total":2.0}}`, func() any { return new(CompleteResult) },
			func(v any) []*int64 { return []*int64{v.(*CompleteResult).Completion.Total} }, []*int64{i(2)}},
	} {
		v := tc.into()
		if err := json.Unmarshal([]byte(tc.data), v); err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		for k, got := range tc.got(v) {
			if want := tc.want[k]; (got == nil) != (want == nil) || got != nil && *got != *want {
				t.Errorf("%s: integer %d is %v, want %v", tc.name, k, deref(got), deref(want))
			}
		}
	}
	for _, data := range []string{`{"taskId":"t","ttl":"100"}`, `{"taskId":"t","pollInterval":true}`} {
		var tk Task
		if err := json.Unmarshal([]byte(data), &tk); err == nil {
			t.Errorf("%s: no error, want a type error", data)
		}
	}
	var tk Task
	err := json.Unmarshal([]byte(`{"taskId":"t","ttl":"100"}`), &tk)
	if want := "json: cannot unmarshal string into Go struct field Task.ttl of type int64"; err == nil || err.Error() != want {
		t.Errorf("a string ttl: %v, want %s", err, want)
	}
}

func deref(p *int64) any {
	if p == nil {
		return nil
	}
	return *p
}
