package status

import (
	"testing"
	"time"

	"golang.org/x/oauth2"

	mcpiauth "github.com/mcpi-dev/mcpi/auth"
)

// The status says logged in exactly while a command would send the token: a short-lived
// token is so for most of its life, and not in its last quarter.
func TestEntryAgreesWithCommands(t *testing.T) {
	now := time.Now()
	for _, c := range []struct {
		left     time.Duration
		loggedIn bool
		expires  string
	}{
		{19 * time.Second, true, "in 19s"},
		{3 * time.Second, false, "in 3.0s, too soon to be used"},
	} {
		tok := &oauth2.Token{AccessToken: "at", ExpiresIn: 20, Expiry: now.Add(c.left)}
		e := NewEntry("http://127.0.0.1/mcp", &mcpiauth.Record{Token: tok}, now)
		if e.LoggedIn != c.loggedIn || e.LoggedIn != mcpiauth.Usable(tok, now) || Expires(e, now) != c.expires {
			t.Errorf("%v left: logged in %v, expires %q; want %v and %q", c.left, e.LoggedIn, Expires(e, now), c.loggedIn, c.expires)
		}
	}
}
