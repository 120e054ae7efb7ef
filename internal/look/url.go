package look

import (
	"errors"
	"net/url"
	"strings"

	"github.com/mcpi-dev/mcpi/internal/redact"
)

// RedactURL returns u as a listing or a sentence shows it: a password in it as "xxxxx"
// ([url.URL.Redacted]), and so each value of its query (?token=xxxxx&api_key=xxxxx),
// the names kept, as a server's key is often passed there; u as it is when it has
// neither. A u that does not parse is redacted as text, since it is quoted in the
// sentence that says it is invalid. It is [redact.URL], which the transport's errors use
// too.
func RedactURL(u string) string { return redact.URL(u) }

// redactURLErrors returns s, a sentence for err, with the URL of each [*url.Error] in
// err redacted ([RedactURL]): net/http's errors quote the whole URL of the request
// ("Post \"https://host/mcp?token=...\": ..."), hiding only a password, as "***". The
// HTTP transport redacts those it returns; an error of another origin (a caller's own
// round tripper, an Authorizer) may not be.
func redactURLErrors(err error, s string) string {
	var ue *url.Error
	for errors.As(err, &ue) {
		if r := RedactURL(ue.URL); r != ue.URL {
			s = strings.ReplaceAll(s, ue.URL, r)
		}
		err = ue.Err
	}
	return s
}
