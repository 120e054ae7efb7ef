package mcp

import "github.com/mcpi-dev/mcpi/internal/jsonwire"

// Resource describes a resource a server can read, as listed by
// resources/list (and as carried by a resource_link [Content] block).
type Resource struct {
	URI         string       `json:"uri"`
	Name        string       `json:"name"`
	Title       string       `json:"title,omitempty"`
	Description string       `json:"description,omitempty"`
	MimeType    string       `json:"mimeType,omitempty"`
	Annotations *Annotations `json:"annotations,omitempty"`
	// Size is the raw size in bytes, if known.
	Size  *int64 `json:"size,omitempty"`
	Icons []Icon `json:"icons,omitempty"`
	Meta  Meta   `json:"_meta,omitempty"`
}

// ResourceTemplate describes a family of resources by an RFC 6570 URI
// template, as listed by resources/templates/list.
type ResourceTemplate struct {
	URITemplate string       `json:"uriTemplate"`
	Name        string       `json:"name"`
	Title       string       `json:"title,omitempty"`
	Description string       `json:"description,omitempty"`
	MimeType    string       `json:"mimeType,omitempty"`
	Annotations *Annotations `json:"annotations,omitempty"`
	Icons       []Icon       `json:"icons,omitempty"`
	Meta        Meta         `json:"_meta,omitempty"`
}

// ListResourcesParams are the params of resources/list.
type ListResourcesParams PaginatedParams

// ListResourcesResult is the result of resources/list.
type ListResourcesResult struct {
	Resources  []Resource `json:"resources"`
	NextCursor string     `json:"nextCursor,omitempty"`
	Meta       Meta       `json:"_meta,omitempty"`
}

// MarshalJSON writes a nil Resources as [].
func (r ListResourcesResult) MarshalJSON() ([]byte, error) {
	type wire ListResourcesResult
	w := wire(r)
	w.Resources = nonNil(w.Resources)
	return jsonwire.Marshal(w)
}

// ListResourceTemplatesParams are the params of resources/templates/list.
type ListResourceTemplatesParams PaginatedParams

// ListResourceTemplatesResult is the result of resources/templates/list.
type ListResourceTemplatesResult struct {
	ResourceTemplates []ResourceTemplate `json:"resourceTemplates"`
	NextCursor        string             `json:"nextCursor,omitempty"`
	Meta              Meta               `json:"_meta,omitempty"`
}

// MarshalJSON writes a nil ResourceTemplates as [].
func (r ListResourceTemplatesResult) MarshalJSON() ([]byte, error) {
	type wire ListResourceTemplatesResult
	w := wire(r)
	w.ResourceTemplates = nonNil(w.ResourceTemplates)
	return jsonwire.Marshal(w)
}

// ReadResourceParams are the params of resources/read.
type ReadResourceParams struct {
	URI  string `json:"uri"`
	Meta Meta   `json:"_meta,omitempty"`
}

// ReadResourceResult is the result of resources/read.
type ReadResourceResult struct {
	Contents []ResourceContents `json:"contents"`
	Meta     Meta               `json:"_meta,omitempty"`
}

// MarshalJSON writes a nil Contents as [].
func (r ReadResourceResult) MarshalJSON() ([]byte, error) {
	type wire ReadResourceResult
	w := wire(r)
	w.Contents = nonNil(w.Contents)
	return jsonwire.Marshal(w)
}

// SubscribeParams are the params of resources/subscribe.
type SubscribeParams struct {
	URI  string `json:"uri"`
	Meta Meta   `json:"_meta,omitempty"`
}

// UnsubscribeParams are the params of resources/unsubscribe.
type UnsubscribeParams struct {
	URI  string `json:"uri"`
	Meta Meta   `json:"_meta,omitempty"`
}

// ResourceUpdatedNotificationParams are the params of
// notifications/resources/updated.
type ResourceUpdatedNotificationParams struct {
	URI  string `json:"uri"`
	Meta Meta   `json:"_meta,omitempty"`
}
