package look

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/mcpi-dev/mcpi/internal/cut"
	"github.com/mcpi-dev/mcpi/jsonrpc"
	"github.com/mcpi-dev/mcpi/mcp"
)

// WebURL returns u as a link the user may be asked to open: an absolute http: or https:
// URL with a host. Any other (javascript:, data:, file:, a relative path) is no web page,
// and ok is false. The web page's request view applies the same rule (webURL in dom.js).
func WebURL(u string) (link string, ok bool) {
	p, err := url.Parse(strings.TrimSpace(u))
	if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
		return "", false
	}
	return p.String(), true
}

// URLElicitation is one page a server asks the user to open before it can answer a
// request (an elicitation of a -32042 error's data).
type URLElicitation struct {
	// Message is the server's, cut to a sentence's worth.
	Message string
	// URL is the server's URL, cut likewise; Web says whether it is a web page
	// ([WebURL]).
	URL string
	Web bool
	// ID is the elicitationId, by which the server tells the page was visited.
	ID string
}

// maxURLElicitations bounds the pages quoted from one error: a server's list can be of
// any length.
const maxURLElicitations = 8

// URLElicitations returns the pages that a URL-elicitation-required error (-32042,
// "URL Elicitation Required" of revision 2025-11-25) in err's tree asks the user to open,
// at most 8 (more counts those left out), or nil when err is no such error or its data
// names no URL-mode elicitation.
func URLElicitations(err error) (list []URLElicitation, more int) {
	var rpc *jsonrpc.Error
	if !errors.As(err, &rpc) || rpc.Code != mcp.CodeURLElicitationRequired || len(rpc.Data) == 0 {
		return nil, 0
	}
	var d mcp.URLElicitationRequiredData
	if json.Unmarshal(rpc.Data, &d) != nil {
		return nil, 0
	}
	for _, e := range d.Elicitations {
		if e.Mode != mcp.ElicitModeURL || e.URL == "" {
			continue
		}
		if len(list) == maxURLElicitations {
			more++
			continue
		}
		link, web := WebURL(e.URL)
		if !web {
			link = cut.Bytes(e.URL, 200)
		}
		list = append(list, URLElicitation{Message: cut.Bytes(strings.TrimSpace(e.Message), 300), URL: link, Web: web,
			ID: cut.Bytes(e.ElicitationID, 100)})
	}
	return list, more
}

// urlElicitationSentence words a -32042 error with the pages it asks for, as "the server
// needs you to open URL first, then try again (JSON-RPC error -32042: MESSAGE)". A page
// the server says something of has it in parentheses, "URL (PAGE MESSAGE)", which then
// stands for mcpi's "then try again" (a page's message tells what to do, and the two
// said it twice); several pages are listed; a URL that is no web page ([WebURL]) is
// quoted after the rest and said not to be opened. The error's message is said once,
// without the "MCP error -32042: " that some servers' libraries put before it. It is ""
// when err names no page.
func urlElicitationSentence(rpc *jsonrpc.Error, err error) string {
	list, more := URLElicitations(err)
	if len(list) == 0 {
		return ""
	}
	var web, other []string
	told := more == 0
	for _, e := range list {
		page := e.URL
		if !e.Web {
			page = fmt.Sprintf("%q", e.URL)
		}
		if e.Message != "" {
			page += " (" + strings.TrimSuffix(e.Message, ".") + ")"
		} else if e.Web {
			told = false
		}
		if e.Web {
			web = append(web, page)
		} else {
			other = append(other, page)
		}
	}
	if more > 0 {
		web = append(web, fmt.Sprintf("%d more", more))
	}
	code := fmt.Sprintf("JSON-RPC error %d", rpc.Code)
	if m := ServerMessage(rpc); m != "" {
		code += ": " + m
	}
	if len(web) == 0 {
		return fmt.Sprintf("the server needs you to open a page first, but names no web address: %s, not to be opened (%s)", strings.Join(other, "; "), code)
	}
	then := ", then try again"
	if told {
		then = ""
	}
	s := fmt.Sprintf("the server needs you to open %s first%s (%s)", strings.Join(web, "; "), then, code)
	if len(other) > 0 {
		s += fmt.Sprintf("; it also names %s, no web address and not to be opened", strings.Join(other, "; "))
	}
	return s
}
