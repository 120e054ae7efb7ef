package auth

import (
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

func TestParseChallenges(t *testing.T) {
	for _, tc := range []struct {
		in   []string
		want []Challenge
	}{
		{[]string{`Bearer resource_metadata="https://a.example/.well-known/oauth-protected-resource", scope="files:read files:write"`},
			[]Challenge{{"bearer", map[string]string{"resource_metadata": "https://a.example/.well-known/oauth-protected-resource", "scope": "files:read files:write"}}}},
		// Unquoted values, odd spacing, upper-case names.
		{[]string{`bearer  Scope=mcp:basic ,RESOURCE_METADATA=https://a.example/prm`},
			[]Challenge{{"bearer", map[string]string{"scope": "mcp:basic", "resource_metadata": "https://a.example/prm"}}}},
		// Two challenges in one header, the second with a token68, and one in another.
		{[]string{`Basic realm="x", Bearer error="insufficient_scope", scope="a b"`, `Negotiate dXNlcjpwYXNz==, DPoP algs="ES256"`},
			[]Challenge{
				{"basic", map[string]string{"realm": "x"}},
				{"bearer", map[string]string{"error": "insufficient_scope", "scope": "a b"}},
				{"negotiate", map[string]string{}},
				{"dpop", map[string]string{"algs": "ES256"}},
			}},
		// Escapes in a quoted string, a comma inside it, and no parameters at all.
		{[]string{`Bearer error_description="say \"no\", twice"`, `Bearer`},
			[]Challenge{{"bearer", map[string]string{"error_description": `say "no", twice`}}, {"bearer", map[string]string{}}}},
		// Garbage ends the header, not the parse.
		{[]string{`=oops`, `Bearer scope="x"`}, []Challenge{{"bearer", map[string]string{"scope": "x"}}}},
	} {
		if got := ParseChallenges(tc.in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ParseChallenges(%q)\n got %v\nwant %v", tc.in, got, tc.want)
		}
	}
}

// TestBearerChallengeOfHostileSize: a WWW-Authenticate header of megabytes (net/http
// reads 10 MiB of headers) costs less memory than its own size to look through: the
// challenges before the Bearer one are skipped without keeping their parameters (a
// header of "a," repeated made a map for each, a gigabyte for 10 MiB), and a challenge
// keeps at most maxChallengeParams of its parameters.
func TestBearerChallengeOfHostileSize(t *testing.T) {
	var many strings.Builder
	many.WriteString("Bearer scope=x")
	for i := 0; many.Len() < 1<<20; i++ {
		fmt.Fprintf(&many, ",p%x=y", i)
	}
	for _, tc := range []struct {
		name, header string
	}{
		{"many challenges", strings.Repeat("a,", 1<<19) + `Bearer scope="x"`},
		{"many parameters", many.String()},
	} {
		h := http.Header{"Www-Authenticate": {tc.header}}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		p := BearerChallenge(h)
		runtime.ReadMemStats(&after)
		if p["scope"] != "x" {
			t.Errorf("%s: scope %q, want x", tc.name, p["scope"])
		}
		if n := after.TotalAlloc - before.TotalAlloc; n > uint64(len(tc.header)) {
			t.Errorf("%s: %d bytes allocated for a header of %d", tc.name, n, len(tc.header))
		}
	}
}

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func TestWellKnownURLs(t *testing.T) {
	if got, want := prmURLs(mustURL(t, "https://a.example/public/mcp/")), []string{
		"https://a.example/.well-known/oauth-protected-resource/public/mcp",
		"https://a.example/.well-known/oauth-protected-resource",
	}; !reflect.DeepEqual(got, want) {
		t.Errorf("prmURLs = %q, want %q", got, want)
	}
	if got, want := prmURLs(mustURL(t, "https://a.example")), []string{"https://a.example/.well-known/oauth-protected-resource"}; !reflect.DeepEqual(got, want) {
		t.Errorf("prmURLs at the root = %q, want %q", got, want)
	}
	if got, want := asMetadataURLs(mustURL(t, "https://auth.example/tenant1")), []string{
		"https://auth.example/.well-known/oauth-authorization-server/tenant1",
		"https://auth.example/.well-known/openid-configuration/tenant1",
		"https://auth.example/tenant1/.well-known/openid-configuration",
	}; !reflect.DeepEqual(got, want) {
		t.Errorf("asMetadataURLs = %q, want %q", got, want)
	}
	if got, want := asMetadataURLs(mustURL(t, "https://auth.example/")), []string{
		"https://auth.example/.well-known/oauth-authorization-server",
		"https://auth.example/.well-known/openid-configuration",
	}; !reflect.DeepEqual(got, want) {
		t.Errorf("asMetadataURLs at the root = %q, want %q", got, want)
	}
}

func TestResourceAllowed(t *testing.T) {
	server := mustURL(t, "https://mcp.example/api/mcp")
	for resource, want := range map[string]bool{
		"https://mcp.example/api/mcp":     true,
		"https://MCP.example:443/api/mcp": true,
		"https://mcp.example":             true, // metadata at the root covers the origin
		"https://mcp.example/api":         true,
		"https://mcp.example/ap":          false, // not at a segment boundary
		"https://mcp.example/api/mcp/sub": false,
		"http://mcp.example/api/mcp":      false,
		"https://mcp.example:8443/api":    false,
		"https://evil.example/api/mcp":    false,
		"https://mcp.example/api/mcp#x":   false,
		"/api/mcp":                        false,
	} {
		if got := resourceAllowed(resource, server); got != want {
			t.Errorf("resourceAllowed(%q) = %v, want %v", resource, got, want)
		}
	}
}

func TestCanonicalResource(t *testing.T) {
	for in, want := range map[string]string{
		"HTTPS://MCP.Example/Api/":   "https://mcp.example/Api",
		"https://mcp.example/":       "https://mcp.example",
		"https://mcp.example/mcp#x":  "https://mcp.example/mcp",
		"http://127.0.0.1:8080/mcp?": "http://127.0.0.1:8080/mcp",
	} {
		if got := canonicalResource(mustURL(t, in)); got != want {
			t.Errorf("canonicalResource(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCheckSecure(t *testing.T) {
	for raw, ok := range map[string]bool{
		"https://auth.example":          true,
		"http://127.0.0.1:9000":         true,
		"http://localhost:9000/x":       true,
		"http://[::1]:9000":             true,
		"http://auth.example":           false,
		"http://127.0.0.1.nip.io":       false,
		"ftp://auth.example":            false,
		"auth.example/.well-known/x":    false,
		"http://app.localhost:3000/cb":  true,
		"http://10.0.0.1/authorization": false,
	} {
		_, err := checkSecure("authorization server", raw)
		if (err == nil) != ok {
			t.Errorf("checkSecure(%q) = %v, want ok %v", raw, err, ok)
		}
	}
}

func TestScopeUnion(t *testing.T) {
	if got := scopeUnion("a b", "", "b  c", "a"); got != "a b c" {
		t.Errorf("scopeUnion = %q", got)
	}
	if got := scopeUnion("", " "); got != "" {
		t.Errorf("scopeUnion of nothing = %q", got)
	}
}

func TestAuthMethods(t *testing.T) {
	f := &Flow{}
	secret := &ClientInfo{ID: "c", Secret: "s", Kind: ClientDynamic}
	public := &ClientInfo{ID: "c", Kind: ClientDynamic}
	for _, tc := range []struct {
		c         *ClientInfo
		supported []string
		want      string
	}{
		{secret, nil, AuthMethodBasic}, // RFC 8414's default
		{public, nil, AuthMethodNone},
		{secret, []string{AuthMethodPost, AuthMethodBasic}, AuthMethodBasic},
		{secret, []string{AuthMethodPost}, AuthMethodPost},
		{secret, []string{AuthMethodNone}, AuthMethodNone},
		{public, []string{AuthMethodBasic, AuthMethodNone}, AuthMethodNone},
		// The registration's word goes first, where the server supports it.
		{&ClientInfo{ID: "c", Secret: "s", AuthMethod: AuthMethodPost}, []string{AuthMethodBasic, AuthMethodPost}, AuthMethodPost},
		{&ClientInfo{ID: "c", Secret: "s", AuthMethod: AuthMethodPost}, []string{AuthMethodBasic}, AuthMethodBasic},
		// A secret method with no secret is no method.
		{&ClientInfo{ID: "c", AuthMethod: AuthMethodBasic}, []string{AuthMethodBasic, AuthMethodNone}, AuthMethodNone},
	} {
		if got := f.tokenAuthMethod(tc.c, tc.supported); got != tc.want {
			t.Errorf("tokenAuthMethod(%+v, %q) = %q, want %q", tc.c, tc.supported, got, tc.want)
		}
	}
	for _, tc := range []struct {
		supported []string
		want      string
	}{
		{nil, AuthMethodNone},
		{[]string{AuthMethodBasic, AuthMethodNone}, AuthMethodNone},
		{[]string{AuthMethodPost, AuthMethodBasic}, AuthMethodBasic},
		{[]string{AuthMethodPost}, AuthMethodPost},
		{[]string{AuthMethodPrivateKeyJWT}, ""},
	} {
		if got := registrationAuthMethod(tc.supported); got != tc.want {
			t.Errorf("registrationAuthMethod(%q) = %q, want %q", tc.supported, got, tc.want)
		}
	}
	for redirect, want := range map[string]string{
		"http://127.0.0.1:4567/callback": "native",
		"http://localhost/cb":            "native",
		"com.example.app:/oauth":         "native",
		"https://app.example/callback":   "web",
	} {
		if got := applicationType(redirect); got != want {
			t.Errorf("applicationType(%q) = %q, want %q", redirect, got, want)
		}
	}
}

func TestCheckResponse(t *testing.T) {
	d := &discovery{issuer: "https://auth.example", asm: &ServerMetadata{Issuer: "https://auth.example"}}
	promising := &discovery{issuer: d.issuer, asm: &ServerMetadata{Issuer: d.issuer, AuthorizationResponseIssParameterSupported: true}}
	legacy := &discovery{issuer: "https://mcp.example", asm: &ServerMetadata{}, legacy: true}
	q := func(kv ...string) url.Values {
		v := url.Values{}
		for i := 0; i < len(kv); i += 2 {
			v.Add(kv[i], kv[i+1])
		}
		return v
	}
	for _, tc := range []struct {
		name string
		resp url.Values
		d    *discovery
		ok   bool
	}{
		{"iss matches", q("state", "s", "code", "c", "iss", "https://auth.example"), d, true},
		{"no iss, none promised", q("state", "s", "code", "c"), d, true},
		{"no iss, promised", q("state", "s", "code", "c"), promising, false},
		{"iss with a trailing slash", q("state", "s", "code", "c", "iss", "https://auth.example/"), d, false},
		{"iss upper case", q("state", "s", "code", "c", "iss", "https://AUTH.example"), d, false},
		{"two iss", q("state", "s", "code", "c", "iss", "https://auth.example", "iss", "https://auth.example"), d, false},
		{"state differs", q("state", "t", "code", "c", "iss", "https://auth.example"), d, false},
		{"an error, iss wrong", q("state", "s", "error", "access_denied", "iss", "https://evil.example"), d, false},
		{"an error", q("state", "s", "error", "access_denied", "iss", "https://auth.example"), d, false},
		{"no code", q("state", "s", "iss", "https://auth.example"), d, false},
		{"legacy: no metadata, no issuer to compare", q("state", "s", "code", "c", "iss", "https://else.example"), legacy, true},
	} {
		code, err := checkResponse(tc.resp, "s", tc.d)
		if (err == nil) != tc.ok || (tc.ok && code != "c") {
			t.Errorf("%s: checkResponse = %q, %v; want ok %v", tc.name, code, err, tc.ok)
		}
	}
}

// FuzzParseChallenges: a server's WWW-Authenticate header of any shape parses without a
// panic, and every challenge found has a scheme made of token characters, in lower case.
func FuzzParseChallenges(f *testing.F) {
	for _, s := range []string{
		`Bearer resource_metadata="https://a.example/prm", scope="a b"`,
		`Basic realm="x", Bearer error="insufficient_scope"`,
		`Negotiate dXNlcjpwYXNz==, DPoP algs="ES256"`,
		`Bearer error_description="say \"no\", twice`,
		`=,,"`, ``,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, h string) {
		for _, c := range ParseChallenges([]string{h}) {
			if c.Scheme == "" || c.Scheme != strings.ToLower(c.Scheme) {
				t.Fatalf("scheme %q from %q", c.Scheme, h)
			}
			for i := 0; i < len(c.Scheme); i++ {
				if !isTChar(c.Scheme[i]) {
					t.Fatalf("scheme %q from %q", c.Scheme, h)
				}
			}
		}
	})
}
