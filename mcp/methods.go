package mcp

import "github.com/mcpi-dev/mcpi/jsonrpc"

// Protocol revisions.
const (
	// LatestProtocolVersion is the revision this package describes and the
	// one a client proposes in [InitializeParams.ProtocolVersion].
	LatestProtocolVersion = "2025-11-25"

	// ProtocolVersion20260728 is the revision that moved Tasks into the
	// [ExtensionTasks] extension. It has no initialize handshake, so it is
	// not part of [SupportedProtocolVersions]; see tasks_ext.go.
	ProtocolVersion20260728 = "2026-07-28"
)

// SupportedProtocolVersions lists the revisions negotiable through
// initialize, newest first. Treat it as read-only.
var SupportedProtocolVersions = []string{
	"2025-11-25",
	"2025-06-18",
	"2025-03-26",
	"2024-11-05",
}

// IsSupportedProtocolVersion reports whether v is one of
// [SupportedProtocolVersions].
func IsSupportedProtocolVersion(v string) bool {
	for _, s := range SupportedProtocolVersions {
		if s == v {
			return true
		}
	}
	return false
}

// HasCoreTasks reports whether revision v, negotiated through initialize, has the core
// Tasks of 2025-11-25 (tasks capabilities, execution.taskSupport, params.task, tasks/*).
// The earlier revisions have no Tasks: there a task field is unknown, and ignored.
func HasCoreTasks(v string) bool {
	return IsSupportedProtocolVersion(v) && v >= "2025-11-25"
}

// Request method names.
const (
	MethodInitialize             = "initialize"
	MethodPing                   = "ping"
	MethodToolsList              = "tools/list"
	MethodToolsCall              = "tools/call"
	MethodPromptsList            = "prompts/list"
	MethodPromptsGet             = "prompts/get"
	MethodResourcesList          = "resources/list"
	MethodResourcesRead          = "resources/read"
	MethodResourcesTemplatesList = "resources/templates/list"
	MethodResourcesSubscribe     = "resources/subscribe"
	MethodResourcesUnsubscribe   = "resources/unsubscribe"
	MethodLoggingSetLevel        = "logging/setLevel"
	MethodCompletionComplete     = "completion/complete"
	MethodRootsList              = "roots/list"
	MethodSamplingCreateMessage  = "sampling/createMessage"
	MethodElicitationCreate      = "elicitation/create"

	// Task methods of 2025-11-25. They run in both directions: whoever
	// received the task-augmented request answers them.
	MethodTasksGet    = "tasks/get"
	MethodTasksResult = "tasks/result"
	MethodTasksList   = "tasks/list"
	MethodTasksCancel = "tasks/cancel"

	// Methods of revision 2026-07-28 used by the [ExtensionTasks] dialect.
	MethodServerDiscover      = "server/discover"
	MethodTasksUpdate         = "tasks/update"
	MethodSubscriptionsListen = "subscriptions/listen"
)

// Notification method names.
const (
	NotificationInitialized          = "notifications/initialized"
	NotificationCancelled            = "notifications/cancelled"
	NotificationProgress             = "notifications/progress"
	NotificationMessage              = "notifications/message"
	NotificationResourcesUpdated     = "notifications/resources/updated"
	NotificationResourcesListChanged = "notifications/resources/list_changed"
	NotificationToolsListChanged     = "notifications/tools/list_changed"
	NotificationPromptsListChanged   = "notifications/prompts/list_changed"
	NotificationRootsListChanged     = "notifications/roots/list_changed"
	NotificationTasksStatus          = "notifications/tasks/status"
	NotificationElicitationComplete  = "notifications/elicitation/complete"

	// Notifications of revision 2026-07-28 used by the [ExtensionTasks]
	// dialect. NotificationTasks carries a [DetailedTask].
	NotificationTasks                     = "notifications/tasks"
	NotificationSubscriptionsAcknowledged = "notifications/subscriptions/acknowledged"
)

// IsTaskAugmentable reports whether a request with this method may carry
// params.task in revision 2025-11-25. Only these three may.
func IsTaskAugmentable(method string) bool {
	switch method {
	case MethodToolsCall, MethodSamplingCreateMessage, MethodElicitationCreate:
		return true
	}
	return false
}

// Keys of `_meta` objects. See [Meta] for typed accessors.
const (
	// MetaProgressToken asks for notifications/progress for a request.
	MetaProgressToken = "progressToken"

	// MetaRelatedTask ties a message to a task; its value is a
	// [RelatedTaskMetadata].
	MetaRelatedTask = "io.modelcontextprotocol/related-task"

	// MetaModelImmediateResponse is an optional string in a
	// [CreateTaskResult] that a host may hand to the model at once, as an
	// interim tool result.
	MetaModelImmediateResponse = "io.modelcontextprotocol/model-immediate-response"

	// Per-request keys of revision 2026-07-28, which replace initialize.
	MetaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	MetaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	MetaClientInfo         = "io.modelcontextprotocol/clientInfo"
	MetaSubscriptionID     = "io.modelcontextprotocol/subscriptionId"
	// MetaLogLevel asks for notifications/message at or above a level for one
	// request (revision 2026-07-28 has no logging/setLevel).
	MetaLogLevel = "io.modelcontextprotocol/logLevel"
	// MetaServerInfo is where a 2026-07-28 server names itself: an
	// [Implementation] in a result's _meta.
	MetaServerInfo = "io.modelcontextprotocol/serverInfo"
)

// JSON-RPC error codes, as the jsonrpc package defines them, so that MCP code can name
// every code it uses from one place.
const (
	CodeParseError     = jsonrpc.CodeParseError
	CodeInvalidRequest = jsonrpc.CodeInvalidRequest
	CodeMethodNotFound = jsonrpc.CodeMethodNotFound
	CodeInvalidParams  = jsonrpc.CodeInvalidParams
	CodeInternalError  = jsonrpc.CodeInternalError

	// CodeURLElicitationRequired says the server needs a URL-mode
	// elicitation first; the data is a [URLElicitationRequiredData].
	CodeURLElicitationRequired = -32042

	// Codes of revision 2026-07-28 (each sent with HTTP 400).

	// CodeHeaderMismatch: an MCP HTTP header is missing or disagrees with
	// the body (for example Mcp-Name versus params.taskId).
	CodeHeaderMismatch = -32020
	// CodeMissingRequiredClientCapability: the request did not declare a
	// capability the server needs; data is a [MissingCapabilityData].
	CodeMissingRequiredClientCapability = -32021
	// CodeUnsupportedProtocolVersion: data is an
	// [UnsupportedProtocolVersionData].
	CodeUnsupportedProtocolVersion = -32022
)

// ErrParamsArray answers a request whose params are an array: JSON-RPC allows
// positional params, MCP names every one. Client and server send this one error, so
// that a peer reads the same sentence from either; errors.Is matches it in a decoded
// answer too, by code and message.
var ErrParamsArray = jsonrpc.NewError(CodeInvalidParams, "invalid params: MCP params must be a JSON object, not an array")
