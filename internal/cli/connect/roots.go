package connect

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/mcpi-dev/mcpi/mcp"
)

// rootFlag is the repeatable --root: a directory (or file) given as a path, or as a
// file: URI, served to the server's roots/list. A path is made absolute and must
// exist, so that a misspelt one is said at once rather than served as a root that
// names nothing; a URI is taken as it is (it may name a place on another machine),
// its dot segments resolved.
type rootFlag struct{ p *[]mcp.Root }

func (r rootFlag) Set(s string) error {
	if s == "" {
		return errors.New("it is empty")
	}
	if strings.HasPrefix(s, "file:") {
		u, err := url.Parse(s)
		if err != nil || u.Path == "" {
			return errors.New("want a directory, or a URI file:///PATH")
		}
		// A server that checks a path against its roots by prefix would take
		// file:///srv/x/../etc for a place under /srv/x.
		u.Path = path.Clean(u.Path)
		u.RawPath = ""
		*r.p = append(*r.p, mcp.Root{URI: u.String(), Name: filepath.Base(u.Path)})
		return nil
	}
	if u, err := url.Parse(s); err == nil && len(u.Scheme) > 1 {
		// Roots are file: URIs; one letter is a Windows drive.
		return fmt.Errorf("a root is a file: URI, not %s:", u.Scheme)
	}
	abs, err := filepath.Abs(s)
	if err != nil {
		return err
	}
	if _, err := os.Stat(abs); err != nil {
		return fmt.Errorf("%s does not exist", abs)
	}
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}
	if !strings.HasPrefix(u.Path, "/") {
		u.Path = "/" + u.Path // file:///C:/dir
	}
	*r.p = append(*r.p, mcp.Root{URI: u.String(), Name: filepath.Base(abs)})
	return nil
}

func (r rootFlag) String() string {
	if r.p == nil {
		return ""
	}
	uris := make([]string, len(*r.p))
	for i, root := range *r.p {
		uris[i] = root.URI
	}
	return strings.Join(uris, ",")
}

func (r rootFlag) Type() string { return "root" }
