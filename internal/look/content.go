package look

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpi-dev/mcpi/internal/cut"
	"github.com/mcpi-dev/mcpi/internal/plural"
	"github.com/mcpi-dev/mcpi/mcp"
)

// How a content block (of a tool result, a prompt message, a sampling message) reads to
// a person, for every front end alike: text as text, and every other block as one line
// that says what it is, in brackets. The lines are made safe here ([Safe]); a block's text
// is returned as it is, for the front end to show as [SafeLines] does.

// ContentHeader is the line a content block shows as, or above its text: "[image
// image/png, 55 bytes]", "[audio audio/wav, 1.2 KiB]", "[resource link URI "name"]",
// "[resource URI, MIME, 56 bytes]" for an embedded blob, "[resource URI, MIME]" for an
// embedded text (whose text follows, so that it is not taken for the block's own),
// "[empty embedded resource]", and "[TYPE content] JSON" for a type mcpi does not know.
// A text block has none: "".
func ContentHeader(c mcp.Content) string {
	switch c.Type {
	case mcp.ContentTypeText:
		return ""
	case mcp.ContentTypeImage, mcp.ContentTypeAudio:
		return fmt.Sprintf("[%s %s, %s]", Safe(c.Type), Safe(c.MimeType), Size(Base64Size(c.Data)))
	case mcp.ContentTypeResourceLink:
		if c.Name != "" {
			return fmt.Sprintf("[resource link %s %q]", Safe(c.URI), c.Name)
		}
		return fmt.Sprintf("[resource link %s]", Safe(c.URI))
	case mcp.ContentTypeResource:
		if c.Resource == nil {
			return "[empty embedded resource]"
		}
		what := "resource " + Safe(c.Resource.URI)
		if c.Resource.IsBlob() {
			return "[" + describe(what, c.Resource.MimeType, Size(Base64Size(c.Resource.Blob))) + "]"
		}
		return "[" + describe(what, c.Resource.MimeType, "") + "]"
	}
	b, _ := json.Marshal(c)
	return fmt.Sprintf("[%s content] %s", Safe(c.Type), Safe(string(b)))
}

// ContentText is the text a content block shows (under its header, if it has one): a
// text block's, an embedded text resource's; ok is false for a block with no text of
// its own to show. It is the server's text as it is.
func ContentText(c mcp.Content) (text string, ok bool) {
	switch {
	case c.Type == mcp.ContentTypeText:
		return c.Text, true
	case c.Type == mcp.ContentTypeResource && c.Resource != nil && !c.Resource.IsBlob():
		return c.Resource.Text, true
	}
	return "", false
}

// describe joins what a content block is, its MIME type and its size, leaving out those
// that are empty: "resource file:///a.png, image/png, 56 bytes".
func describe(what, mime, size string) string {
	parts := []string{what}
	if mime != "" {
		parts = append(parts, Safe(mime))
	}
	if size != "" {
		parts = append(parts, size)
	}
	return strings.Join(parts, ", ")
}

// Annotations describes the annotations of a content block worth a mark: an audience
// without the user ("audience: assistant"), and a priority ("priority 0.25"); "" for
// none. A front end shows it before the block, in brackets.
func Annotations(a *mcp.Annotations) string {
	if a == nil {
		return ""
	}
	var parts []string
	if len(a.Audience) > 0 && !slices.Contains(a.Audience, mcp.RoleUser) {
		var roles []string
		for i, r := range a.Audience {
			if i == 4 { // a server's list can be of any length
				roles = append(roles, "…")
				break
			}
			roles = append(roles, Safe(cut.Bytes(string(r), 32)))
		}
		parts = append(parts, "audience: "+strings.Join(roles, ", "))
	}
	if a.Priority != nil {
		parts = append(parts, "priority "+strconv.FormatFloat(*a.Priority, 'g', 3, 64))
	}
	return strings.Join(parts, "; ")
}

// Base64Size is the number of bytes that the base64 text s encodes, its padding left
// out (its length times 3/4 counts one byte too many for each "="), without decoding it.
func Base64Size(s string) int {
	s = strings.TrimRight(s, "=")
	return len(s) * 3 / 4
}

// Size says a number of bytes: "56 bytes", "1.5 KiB", "2.0 MiB".
func Size(n int) string {
	switch {
	case n < 1024:
		return plural.Count(n, "byte", "bytes")
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/1024)
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}
