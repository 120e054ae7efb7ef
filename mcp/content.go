package mcp

import (
	"encoding/base64"
	"encoding/json"

	"github.com/mcpi-dev/mcpi/internal/jsonwire"
)

// Content block types (the "type" discriminator of [Content]).
const (
	ContentTypeText         = "text"
	ContentTypeImage        = "image"
	ContentTypeAudio        = "audio"
	ContentTypeResourceLink = "resource_link"
	ContentTypeResource     = "resource"
	// Sampling-only blocks (sampling with tools).
	ContentTypeToolUse    = "tool_use"
	ContentTypeToolResult = "tool_result"
)

// Content is one content block, in tool results, prompt messages and
// sampling messages. A single struct covers every block type: Type selects
// which fields are meaningful, and encoding writes the fields its type
// requires (even when empty) followed by those that are set. This keeps
// every 2025-11-25 block lossless without an interface hierarchy.
//
// Fields by type:
//   - "text": Text.
//   - "image", "audio": Data (base64) and MimeType.
//   - "resource_link": the [Resource] fields URI, Name, Title, Description,
//     MimeType, Size, Icons.
//   - "resource": Resource (an embedded [ResourceContents]).
//   - "tool_use": ID, Name, Input.
//   - "tool_result": ToolUseID, Content, StructuredContent, IsError.
//
// Annotations and Meta apply to every type.
type Content struct {
	Type string `json:"type"`

	Text string `json:"text,omitempty"`

	// Data is base64; see [Content.DecodeData].
	Data     string `json:"data,omitempty"`
	MimeType string `json:"mimeType,omitempty"`

	URI         string `json:"uri,omitempty"`
	Name        string `json:"name,omitempty"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Size        *int64 `json:"size,omitempty"`
	Icons       []Icon `json:"icons,omitempty"`

	Resource *ResourceContents `json:"resource,omitempty"`

	ID    string          `json:"id,omitempty"`
	Input json.RawMessage `json:"input,omitempty"`

	ToolUseID         string          `json:"toolUseId,omitempty"`
	Content           []Content       `json:"content,omitempty"`
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
	IsError           bool            `json:"isError,omitempty"`

	Annotations *Annotations `json:"annotations,omitempty"`
	Meta        Meta         `json:"_meta,omitempty"`
}

// TextContent returns a text block.
func TextContent(text string) Content {
	return Content{Type: ContentTypeText, Text: text}
}

// ImageContent returns an image block, base64-encoding data.
func ImageContent(data []byte, mimeType string) Content {
	return Content{Type: ContentTypeImage, Data: base64.StdEncoding.EncodeToString(data), MimeType: mimeType}
}

// AudioContent returns an audio block, base64-encoding data.
func AudioContent(data []byte, mimeType string) Content {
	return Content{Type: ContentTypeAudio, Data: base64.StdEncoding.EncodeToString(data), MimeType: mimeType}
}

// ResourceLinkContent returns a resource_link block pointing at r.
func ResourceLinkContent(r Resource) Content {
	return Content{
		Type:        ContentTypeResourceLink,
		URI:         r.URI,
		Name:        r.Name,
		Title:       r.Title,
		Description: r.Description,
		MimeType:    r.MimeType,
		Size:        r.Size,
		Icons:       r.Icons,
		Annotations: r.Annotations,
		Meta:        r.Meta,
	}
}

// EmbeddedResourceContent returns a resource block embedding rc.
func EmbeddedResourceContent(rc ResourceContents) Content {
	return Content{Type: ContentTypeResource, Resource: &rc}
}

// ToolUseContent returns a tool_use block for sampling with tools.
func ToolUseContent(id, name string, input json.RawMessage) Content {
	return Content{Type: ContentTypeToolUse, ID: id, Name: name, Input: input}
}

// ToolResultContent returns a tool_result block answering the tool_use id.
func ToolResultContent(toolUseID string, content []Content, isError bool) Content {
	return Content{Type: ContentTypeToolResult, ToolUseID: toolUseID, Content: content, IsError: isError}
}

// DecodeData decodes the base64 Data of an image or audio block.
func (c Content) DecodeData() ([]byte, error) {
	return base64.StdEncoding.DecodeString(c.Data)
}

// AsResource returns the [Resource] a resource_link block describes.
func (c Content) AsResource() Resource {
	return Resource{
		URI:         c.URI,
		Name:        c.Name,
		Title:       c.Title,
		Description: c.Description,
		MimeType:    c.MimeType,
		Size:        c.Size,
		Icons:       c.Icons,
		Annotations: c.Annotations,
		Meta:        c.Meta,
	}
}

// Per-type wire shapes: required keys have no omitempty, and the key order
// follows the schema.
type (
	textWire struct {
		Type        string       `json:"type"`
		Text        string       `json:"text"`
		Annotations *Annotations `json:"annotations,omitempty"`
		Meta        Meta         `json:"_meta,omitempty"`
	}
	binaryWire struct {
		Type        string       `json:"type"`
		Data        string       `json:"data"`
		MimeType    string       `json:"mimeType"`
		Annotations *Annotations `json:"annotations,omitempty"`
		Meta        Meta         `json:"_meta,omitempty"`
	}
	resourceLinkWire struct {
		Type        string       `json:"type"`
		URI         string       `json:"uri"`
		Name        string       `json:"name"`
		Title       string       `json:"title,omitempty"`
		Description string       `json:"description,omitempty"`
		MimeType    string       `json:"mimeType,omitempty"`
		Size        *int64       `json:"size,omitempty"`
		Icons       []Icon       `json:"icons,omitempty"`
		Annotations *Annotations `json:"annotations,omitempty"`
		Meta        Meta         `json:"_meta,omitempty"`
	}
	embeddedWire struct {
		Type        string           `json:"type"`
		Resource    ResourceContents `json:"resource"`
		Annotations *Annotations     `json:"annotations,omitempty"`
		Meta        Meta             `json:"_meta,omitempty"`
	}
	toolUseWire struct {
		Type        string          `json:"type"`
		ID          string          `json:"id"`
		Name        string          `json:"name"`
		Input       json.RawMessage `json:"input"`
		Annotations *Annotations    `json:"annotations,omitempty"`
		Meta        Meta            `json:"_meta,omitempty"`
	}
	toolResultWire struct {
		Type              string          `json:"type"`
		ToolUseID         string          `json:"toolUseId"`
		Content           []Content       `json:"content"`
		StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
		IsError           bool            `json:"isError,omitempty"`
		Annotations       *Annotations    `json:"annotations,omitempty"`
		Meta              Meta            `json:"_meta,omitempty"`
	}
	// contentFields has Content's fields without its methods.
	contentFields Content
)

// MarshalJSON writes the keys c.Type requires, then the optional ones that
// are set. An unknown type writes every non-empty field.
func (c Content) MarshalJSON() ([]byte, error) {
	if c.Type == ContentTypeText {
		if b, err := c.appendText(make([]byte, 0, 32+len(c.Text))); err == nil {
			return b, nil
		}
	}
	return c.marshalWire()
}

// appendJSON appends what MarshalJSON returns to b.
func (c *Content) appendJSON(b []byte) ([]byte, error) {
	if c.Type == ContentTypeText {
		return c.appendText(b)
	}
	raw, err := c.marshalWire()
	return append(b, raw...), err
}

// appendText writes a text block as textWire encodes, without reflection: text blocks
// are most of what tools return.
func (c *Content) appendText(b []byte) ([]byte, error) {
	var err error
	b = append(b, `{"type":"text","text":`...)
	b = jsonwire.AppendString(b, c.Text)
	if c.Annotations != nil {
		b = append(b, `,"annotations":`...)
		if b, err = jsonwire.AppendMarshal(b, c.Annotations); err != nil {
			return nil, err
		}
	}
	return appendMeta(b, c.Meta)
}

func (c *Content) marshalWire() ([]byte, error) {
	switch c.Type {
	case ContentTypeText:
		return jsonwire.Marshal(textWire{c.Type, c.Text, c.Annotations, c.Meta})
	case ContentTypeImage, ContentTypeAudio:
		return jsonwire.Marshal(binaryWire{c.Type, c.Data, c.MimeType, c.Annotations, c.Meta})
	case ContentTypeResourceLink:
		return jsonwire.Marshal(resourceLinkWire{c.Type, c.URI, c.Name, c.Title, c.Description,
			c.MimeType, c.Size, c.Icons, c.Annotations, c.Meta})
	case ContentTypeResource:
		var rc ResourceContents
		if c.Resource != nil {
			rc = *c.Resource
		}
		return jsonwire.Marshal(embeddedWire{c.Type, rc, c.Annotations, c.Meta})
	case ContentTypeToolUse:
		input := c.Input
		if len(input) == 0 {
			input = json.RawMessage("{}")
		}
		return jsonwire.Marshal(toolUseWire{c.Type, c.ID, c.Name, input, c.Annotations, c.Meta})
	case ContentTypeToolResult:
		return jsonwire.Marshal(toolResultWire{c.Type, c.ToolUseID, nonNil(c.Content),
			c.StructuredContent, c.IsError, c.Annotations, c.Meta})
	}
	return jsonwire.Marshal(contentFields(*c))
}

// UnmarshalJSON decodes any content block.
func (c *Content) UnmarshalJSON(data []byte) error {
	// A resource link's size takes any JSON number (see wireInt).
	var f struct {
		*contentFields
		Size *wireInt `json:"size,omitempty"`
	}
	f.contentFields = new(contentFields)
	if err := json.Unmarshal(data, &f); err != nil {
		return err
	}
	f.contentFields.Size = (*int64)(f.Size)
	*c = Content(*f.contentFields)
	return nil
}

// ResourceContents is the content of a resource, as read by resources/read
// or embedded in a "resource" [Content] block. Exactly one of Text and Blob
// is meaningful: a non-empty Blob makes it binary contents, otherwise it is
// text contents and "text" is always written.
type ResourceContents struct {
	URI      string `json:"uri"`
	MimeType string `json:"mimeType,omitempty"`
	Text     string `json:"text,omitempty"`
	// Blob is base64; see [ResourceContents.DecodeBlob].
	Blob string `json:"blob,omitempty"`
	Meta Meta   `json:"_meta,omitempty"`
}

// TextResourceContents returns text contents.
func TextResourceContents(uri, mimeType, text string) ResourceContents {
	return ResourceContents{URI: uri, MimeType: mimeType, Text: text}
}

// BlobResourceContents returns binary contents, base64-encoding data.
func BlobResourceContents(uri, mimeType string, data []byte) ResourceContents {
	return ResourceContents{URI: uri, MimeType: mimeType, Blob: base64.StdEncoding.EncodeToString(data)}
}

// IsBlob reports whether rc holds binary contents.
func (rc ResourceContents) IsBlob() bool { return rc.Blob != "" }

// DecodeBlob decodes the base64 Blob.
func (rc ResourceContents) DecodeBlob() ([]byte, error) {
	return base64.StdEncoding.DecodeString(rc.Blob)
}

// MarshalJSON always writes "text" for text contents, even when empty.
func (rc ResourceContents) MarshalJSON() ([]byte, error) {
	if rc.Blob != "" {
		type blobWire struct {
			URI      string `json:"uri"`
			MimeType string `json:"mimeType,omitempty"`
			Text     string `json:"text,omitempty"`
			Blob     string `json:"blob"`
			Meta     Meta   `json:"_meta,omitempty"`
		}
		return jsonwire.Marshal(blobWire(rc))
	}
	type textRCWire struct {
		URI      string `json:"uri"`
		MimeType string `json:"mimeType,omitempty"`
		Text     string `json:"text"`
		Blob     string `json:"blob,omitempty"`
		Meta     Meta   `json:"_meta,omitempty"`
	}
	return jsonwire.Marshal(textRCWire(rc))
}
