package conformance_test

// taskExtensionTools are the fixtures of the tasks-* scenarios.
var taskExtensionTools = []string{"confirm_delete", "failing_job", "greet", "multi_input", "protocol_error_job", "slow_compute", "test_tool_with_task"}
