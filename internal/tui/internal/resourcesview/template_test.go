package resourcesview

import (
	"slices"
	"testing"
)

// A URI template's variables are found whatever their operator and modifiers, and
// expanded as RFC 6570 says for string values.
func TestTemplateExpansion(t *testing.T) {
	values := map[string]string{"name": "Ada Lovelace", "path": "a/b c", "x": "1", "y": "", "lang": "français"}
	for _, c := range []struct {
		tmpl string
		vars []string
		uri  string
	}{
		{"demo://greetings/{name}", []string{"name"}, "demo://greetings/Ada%20Lovelace"},
		{"file:///{+path}", []string{"path"}, "file:///a/b%20c"},
		{"s://h{/path}{?x,y,name:3}", []string{"path", "x", "y", "name"}, "s://h/a%2Fb%20c?x=1&name=Ada"},
		{"s://{lang}{.x}{;x}{#x}{&x}", []string{"lang", "x"}, "s://fran%C3%A7ais.1;x=1#1&x=1"},
		{"s://{list*}/{x}{x}", []string{"list", "x"}, "s:///11"},
		{"s://{unclosed", nil, "s://{unclosed"},
	} {
		if got := templateVars(c.tmpl); !slices.Equal(got, c.vars) {
			t.Errorf("templateVars(%q) = %q, want %q", c.tmpl, got, c.vars)
		}
		if got := expand(c.tmpl, values); got != c.uri {
			t.Errorf("expand(%q) = %q, want %q", c.tmpl, got, c.uri)
		}
	}
}
