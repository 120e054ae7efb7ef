package auth_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/mcpi-dev/mcpi/auth"
)

// checkNoSecret fails t if s (an error, a log) holds the password or the token of a
// secret URL.
func checkNoSecret(t *testing.T, s string) {
	t.Helper()
	if strings.Contains(s, "hunter2") || strings.Contains(s, "tok123") {
		t.Errorf("%q holds a URL's password or token", s)
	}
}

// TestErrorsRedactURLs: the flow's errors name the URLs of a server's metadata, its
// endpoints and its authorization server with their password and the values of their
// query as xxxxx, as the transport's do, since a library user logs err.Error(); the
// authorization page of a [auth.TimeoutError] is named in full, for the user to open.
func TestErrorsRedactURLs(t *testing.T) {
	const (
		raw   = "https://user:hunter2@as.example/x?token=tok123"
		shown = "https://user:xxxxx@as.example/x?token=xxxxx"
	)
	for _, c := range []struct {
		err  error
		want string
	}{
		{&auth.IssuerError{Where: "metadata", URL: raw, Want: raw, Got: raw + "&y=tok123"},
			`the authorization server metadata at ` + shown + ` names issuer "` + shown + `&y=xxxxx", not "` + shown + `", and is not used`},
		{&auth.IssuerError{Where: "client", Want: raw, Got: raw},
			`the pre-registered client belongs to the authorization server "` + shown + `", but the server now names "` + shown + `"`},
		{&auth.IssuerError{Where: "authorization response", Want: raw},
			`the authorization response carries no iss, though the authorization server "` + shown + `" promises one (RFC 9207)`},
		{&auth.IssuerError{Where: "authorization response", Want: raw, Got: raw},
			`the authorization response comes from issuer "` + shown + `", not "` + shown + `" (RFC 9207)`},
		{&auth.InsecureURLError{What: "redirect", URL: raw, From: raw},
			shown + ` redirects to ` + shown + `, which does not use HTTPS (only loopback addresses may use plain HTTP)`},
		{&auth.InsecureURLError{What: "token endpoint", URL: raw},
			`the token endpoint ` + shown + ` does not use HTTPS (only loopback addresses may use plain HTTP)`},
		{&auth.ResourceMismatchError{Resource: raw, Server: raw},
			`the protected resource metadata is for ` + shown + `, not for the server ` + shown},
		{&auth.ResponseError{What: "token endpoint", URL: raw, StatusCode: 200, ContentType: "text/html"},
			`the token endpoint ` + shown + ` answered HTTP 200 with a text/html document, not JSON`},
		{&auth.ResponseError{What: "token endpoint", URL: raw, StatusCode: 200, ContentType: "application/json", Err: errors.New("bad")},
			`the token endpoint ` + shown + ` answered HTTP 200 with a application/json document that is not valid JSON: bad`},
		{&auth.MetadataError{What: "authorization server metadata", Tried: []string{raw, raw}},
			`no authorization server metadata found at ` + shown + `, ` + shown},
		{&auth.AssumedError{Tried: []string{raw, raw}, Issuer: raw, Err: auth.ErrNoRegistration},
			auth.ErrNoRegistration.Error() + ` (the server publishes no protected resource metadata at ` + shown + ` or ` + shown +
				`, so its origin ` + shown + ` was assumed to be its authorization server, as in revision 2025-03-26)`},
		// The page the user is to open, and may open again from the sentence.
		{&auth.TimeoutError{URL: raw, Timeout: time.Minute},
			`the authorization at ` + raw + ` was not completed within 1m0s; retrying starts it again`},
	} {
		if got := c.err.Error(); got != c.want {
			t.Errorf("%T:\n got %s\nwant %s", c.err, got, c.want)
		}
	}

	t.Run("resource_metadata", func(t *testing.T) {
		// The 401 names a metadata URL with a key in its query, which answers a page.
		mux := http.NewServeMux()
		srv := httptest.NewServer(mux)
		t.Cleanup(srv.Close)
		prm := srv.URL + "/prm?key=tok123"
		mux.HandleFunc("/mcp", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+prm+`"`)
			w.WriteHeader(http.StatusUnauthorized)
		})
		mux.HandleFunc("GET /prm", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, "<html>Sign in</html>")
		})
		err := get(t, srv.URL+"/mcp", &auth.Config{Grant: auth.ClientCredentials, ClientID: "c", ClientSecret: "s"})
		var re *auth.ResponseError
		if !errors.As(err, &re) {
			t.Fatalf("err = %v, want an *auth.ResponseError", err)
		}
		want := "the protected resource metadata " + srv.URL + "/prm?key=xxxxx answered HTTP 200 with a text/html document, not JSON"
		if re.Error() != want {
			t.Errorf("error %q, want %q", re.Error(), want)
		}
		checkNoSecret(t, err.Error())
	})

	t.Run("token endpoint unreachable", func(t *testing.T) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		closed := l.Addr().String()
		l.Close()
		u := withTokenEndpoint(t, func(string) string { return "http://user:hunter2@" + closed + "/token?key=tok123" }, nil)
		err = get(t, u, &auth.Config{Grant: auth.ClientCredentials, ClientID: "c", ClientSecret: "s"})
		shown := "http://user:xxxxx@" + closed + "/token?key=xxxxx"
		if want := "requesting a token from " + shown + `: Post "` + shown + `": dial tcp `; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v, want it to hold %q", err, want)
		}
		checkNoSecret(t, err.Error())
	})

	t.Run("token endpoint redirected away", func(t *testing.T) {
		var base string
		u := withTokenEndpoint(t, func(b string) string { base = b; return b + "/token?key=tok123" }, func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "http://127.0.0.1:9/token", http.StatusTemporaryRedirect)
		})
		err := get(t, u, &auth.Config{Grant: auth.ClientCredentials, ClientID: "c", ClientSecret: "s"})
		if want := "POST " + base + "/token?key=xxxxx redirects to another origin (http://127.0.0.1:9), where its body would go: not followed"; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v, want it to hold %q", err, want)
		}
		checkNoSecret(t, err.Error())
	})

	t.Run("server URL", func(t *testing.T) {
		// The store's errors name the server by its URL, whose query may hold its key.
		mux := http.NewServeMux()
		srv := httptest.NewServer(mux)
		t.Cleanup(srv.Close)
		mux.HandleFunc("/mcp", func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(http.StatusUnauthorized)
		})
		err := get(t, srv.URL+"/mcp?token=tok123", &auth.Config{Store: failingStore{}})
		if want := "loading the stored authorization of " + srv.URL + "/mcp?token=xxxxx: the disk is gone"; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v, want it to hold %q", err, want)
		}
		checkNoSecret(t, err.Error())
		_, err = auth.New("ftp://user:hunter2@host/mcp?token=tok123", nil)
		if want := `invalid server URL "ftp://user:xxxxx@host/mcp?token=xxxxx": want http:// or https:// and a host`; err == nil || err.Error() != want {
			t.Errorf("error %v, want %q", err, want)
		}
	})
}

// withTokenEndpoint starts an MCP server at /mcp that answers 401, and is its own
// authorization server, whose metadata names endpoint(its URL) as token endpoint,
// served by token if not nil; it returns the MCP server's URL.
func withTokenEndpoint(t *testing.T, endpoint func(base string) string, token http.HandlerFunc) string {
	t.Helper()
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+srv.URL+`/.well-known/oauth-protected-resource/mcp"`)
		w.WriteHeader(http.StatusUnauthorized)
	})
	mux.HandleFunc("GET /.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"resource":%q,"authorization_servers":[%q]}`, srv.URL+"/mcp", srv.URL)
	})
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"issuer":%q,"token_endpoint":%q}`, srv.URL, endpoint(srv.URL))
	})
	if token != nil {
		mux.HandleFunc("/token", token)
	}
	return srv.URL + "/mcp"
}

// failingStore is a [auth.Store] that cannot load.
type failingStore struct{}

func (failingStore) Load(context.Context, string) (*auth.Record, error) {
	return nil, errors.New("the disk is gone")
}
func (failingStore) Save(context.Context, string, *auth.Record) error { return nil }
func (failingStore) Delete(context.Context, string) error             { return nil }

// get GETs u through a flow for u made with cfg, and returns the flow's error, without
// the *url.Error of net/http around it, which quotes u as the caller gave it.
func get(t *testing.T, u string, cfg *auth.Config) error {
	t.Helper()
	f, err := auth.New(u, cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	resp, err := (&http.Client{Transport: f.Wrap(nil)}).Do(req)
	if err == nil {
		resp.Body.Close()
		return errors.New("the request succeeded")
	}
	var ue *url.Error
	if !errors.As(err, &ue) {
		t.Fatalf("err = %v, want a *url.Error", err)
	}
	return ue.Err
}

// debugLog is a Debug logger whose records are kept, each a JSON object.
type debugLog struct{ buf bytes.Buffer }

func (l *debugLog) logger() *slog.Logger {
	return slog.New(slog.NewJSONHandler(&l.buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// attrs returns the attributes of the first record of msg, failing t without one.
func (l *debugLog) attrs(t *testing.T, msg string) map[string]any {
	t.Helper()
	for line := range strings.Lines(l.buf.String()) {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		if rec["msg"] == msg {
			return rec
		}
	}
	t.Fatalf("no %q in the log:\n%s", msg, l.buf.String())
	return nil
}

// checkAttr fails t unless the record of msg has key as want (JSON: a string, a list
// of strings, or an object of strings).
func (l *debugLog) checkAttr(t *testing.T, msg, key string, want any) {
	t.Helper()
	got, _ := json.Marshal(l.attrs(t, msg)[key])
	if w, _ := json.Marshal(want); string(got) != string(w) {
		t.Errorf("%s: %s=%s, want %s", msg, key, got, w)
	}
}

// noBrowser is a [auth.Browser] whose user never comes back.
type noBrowser struct{ opened string }

func (*noBrowser) RedirectURL(context.Context) (string, error) {
	return "http://127.0.0.1:9/callback", nil
}

func (b *noBrowser) Authorize(_ context.Context, u string) (url.Values, error) {
	b.opened = u
	return nil, errors.New("the user went away")
}

// TestDebugLogsRedactURLs: the flow's Debug records name URLs (of the server, its
// metadata, the authorization server, the authorization page, a client ID metadata
// document, and those of a record) with their password and the values of their query as
// xxxxx, as its errors do: a log is kept and passed around more than an error.
func TestDebugLogsRedactURLs(t *testing.T) {
	t.Run("metadata and the server", func(t *testing.T) {
		mux := http.NewServeMux()
		srv := httptest.NewServer(mux)
		t.Cleanup(srv.Close)
		mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Authorization") == "Bearer at-1" {
				return
			}
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+srv.URL+`/prm?key=tok123"`)
			w.WriteHeader(http.StatusUnauthorized)
		})
		mux.HandleFunc("POST /token", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"access_token":"at-1","token_type":"Bearer","expires_in":3600}`)
		})
		var log debugLog
		err := get(t, srv.URL+"/mcp?key=tok123", &auth.Config{Grant: auth.ClientCredentials, ClientID: "c", ClientSecret: "s", Logger: log.logger()})
		if err == nil || err.Error() != "the request succeeded" {
			t.Fatalf("the flow failed: %v", err)
		}
		checkNoSecret(t, log.buf.String())
		log.checkAttr(t, "no metadata here", "url", srv.URL+"/prm?key=xxxxx")
		const assumed = "no protected resource metadata; the server's origin is its authorization server"
		log.checkAttr(t, assumed, "tried", []string{srv.URL + "/prm?key=xxxxx",
			srv.URL + "/.well-known/oauth-protected-resource/mcp", srv.URL + "/.well-known/oauth-protected-resource"})
		rec, _ := log.attrs(t, "obtained a token")["record"].(map[string]any)
		if rec["resource"] != srv.URL+"/mcp?key=xxxxx" || rec["client_id"] != "c" {
			t.Errorf("obtained a token: record=%v, want resource %s/mcp?key=xxxxx and client_id c", rec, srv.URL)
		}
	})

	t.Run("record", func(t *testing.T) {
		const (
			raw   = "https://user:hunter2@as.example/x?token=tok123"
			shown = "https://user:xxxxx@as.example/x?token=xxxxx"
		)
		var log debugLog
		log.logger().Debug("stored", "record", &auth.Record{Resource: raw, Issuer: raw, Scope: "s",
			Client: &auth.ClientInfo{ID: raw, Kind: auth.ClientMetadataDocument}})
		log.checkAttr(t, "stored", "record", map[string]string{
			"resource": shown, "issuer": shown, "scope": "s", "client_id": shown, "client": auth.ClientMetadataDocument})
	})

	t.Run("authorization server", func(t *testing.T) {
		mux := http.NewServeMux()
		srv := httptest.NewServer(mux)
		t.Cleanup(srv.Close)
		issuer := strings.Replace(srv.URL, "http://", "http://user:hunter2@", 1)
		shownIssuer := strings.Replace(srv.URL, "http://", "http://user:xxxxx@", 1)
		mux.HandleFunc("/mcp", func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(http.StatusUnauthorized)
		})
		mux.HandleFunc("GET /.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"resource":%q,"authorization_servers":[%q]}`, srv.URL+"/mcp", issuer)
		})
		mux.HandleFunc("GET /.well-known/oauth-authorization-server", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"issuer":%q,"authorization_endpoint":%q,"token_endpoint":%q,"code_challenge_methods_supported":["S256"],"client_id_metadata_document_supported":true}`,
				issuer, srv.URL+"/authorize?tenant=tok123", srv.URL+"/token")
		})
		var log debugLog
		browser := &noBrowser{}
		err := get(t, srv.URL+"/mcp", &auth.Config{Browser: browser, Logger: log.logger(),
			ClientMetadataURL: "https://user:hunter2@client.example/mcpi.json?k=tok123"})
		if err == nil || !strings.Contains(err.Error(), "the user went away") {
			t.Fatalf("the flow ended with %v, want the browser's error", err)
		}
		checkNoSecret(t, log.buf.String())
		log.checkAttr(t, "authorization server found", "issuer", shownIssuer)
		log.checkAttr(t, "authorization server found", "metadata", srv.URL+"/.well-known/oauth-authorization-server")
		log.checkAttr(t, "using the client ID metadata document as client id", "client_id", "https://user:xxxxx@client.example/mcpi.json?k=xxxxx")
		// The page the browser opens has a state and a code challenge, which the log
		// must not give away either.
		opened, err := url.Parse(browser.opened)
		if err != nil || opened.Query().Get("state") == "" {
			t.Fatalf("the browser opened %q", browser.opened)
		}
		q := url.Values{}
		for k := range opened.Query() {
			q.Set(k, "xxxxx")
		}
		shown := log.attrs(t, "authorizing in the browser")["url"].(string)
		got, err := url.Parse(shown)
		if err != nil || got.Scheme+"://"+got.Host+got.Path != srv.URL+"/authorize" || got.Query().Encode() != q.Encode() {
			t.Errorf("authorizing in the browser: url=%s, want %s/authorize with the values of %s as xxxxx", shown, srv.URL, browser.opened)
		}
		if strings.Contains(log.buf.String(), opened.Query().Get("state")) {
			t.Errorf("the log holds the authorization's state:\n%s", log.buf.String())
		}
	})
}
