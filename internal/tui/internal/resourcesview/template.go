package resourcesview

import (
	"strconv"
	"strings"
)

// maxVariables bounds the variables of a template that get a field: a server's template
// is its text, and a form of thousands of fields helps no one.
const maxVariables = 64

// templateVars returns the names of a URI template's variables (RFC 6570), each once,
// in the order they appear: "{+path}", "{a,b}", "{list*}" and "{name:3}" name path,
// a, b, list and name.
func templateVars(tmpl string) []string {
	var names []string
	seen := map[string]bool{}
	forExpressions(tmpl, func(op byte, vars []varSpec) {
		for _, v := range vars {
			if !seen[v.name] && len(names) < maxVariables {
				seen[v.name] = true
				names = append(names, v.name)
			}
		}
	})
	return names
}

type varSpec struct {
	name   string
	prefix int // the :N modifier, 0 for none
}

// forExpressions calls fn for every {expression} of tmpl with its operator (0 for
// none) and its variables; literal text is not visited.
func forExpressions(tmpl string, fn func(op byte, vars []varSpec)) {
	rest := tmpl
	for {
		i := strings.IndexByte(rest, '{')
		if i < 0 {
			return
		}
		j := strings.IndexByte(rest[i:], '}')
		if j < 0 {
			return
		}
		expr := rest[i+1 : i+j]
		rest = rest[i+j+1:]
		var op byte
		if expr != "" && strings.IndexByte("+#./;?&", expr[0]) >= 0 {
			op, expr = expr[0], expr[1:]
		}
		var vars []varSpec
		for _, v := range strings.Split(expr, ",") {
			v = strings.TrimSuffix(v, "*")
			spec := varSpec{name: v}
			if k := strings.IndexByte(v, ':'); k >= 0 {
				spec.name = v[:k]
				spec.prefix, _ = strconv.Atoi(v[k+1:])
			}
			if spec.name != "" {
				vars = append(vars, spec)
			}
		}
		fn(op, vars)
	}
}

// expand fills a URI template's variables with values (RFC 6570 for string values):
// a variable without a value is left out, and each value is percent-encoded as its
// expression's operator says.
func expand(tmpl string, values map[string]string) string {
	var b strings.Builder
	rest := tmpl
	for {
		i := strings.IndexByte(rest, '{')
		j := -1
		if i >= 0 {
			j = strings.IndexByte(rest[i:], '}')
		}
		if i < 0 || j < 0 {
			b.WriteString(rest)
			return b.String()
		}
		b.WriteString(rest[:i])
		forExpressions(rest[i:i+j+1], func(op byte, vars []varSpec) {
			first, sep, named, reserved := "", ",", false, false
			switch op {
			case '+':
				reserved = true
			case '#':
				first, reserved = "#", true
			case '.':
				first, sep = ".", "."
			case '/':
				first, sep = "/", "/"
			case ';':
				first, sep, named = ";", ";", true
			case '?':
				first, sep, named = "?", "&", true
			case '&':
				first, sep, named = "&", "&", true
			}
			n := 0
			for _, v := range vars {
				val, ok := values[v.name]
				if !ok || val == "" {
					continue
				}
				if v.prefix > 0 {
					if r := []rune(val); len(r) > v.prefix {
						val = string(r[:v.prefix])
					}
				}
				if n == 0 {
					b.WriteString(first)
				} else {
					b.WriteString(sep)
				}
				n++
				if named {
					b.WriteString(v.name + "=")
				}
				b.WriteString(encode(val, reserved))
			}
		})
		rest = rest[i+j+1:]
	}
}

// encode percent-encodes s: all but the unreserved characters, and with reserved the
// reserved characters and percent-encoded triplets stay as they are.
func encode(s string, reserved bool) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', strings.IndexByte("-._~", c) >= 0:
			b.WriteByte(c)
		case reserved && strings.IndexByte(":/?#[]@!$&'()*+,;=", c) >= 0:
			b.WriteByte(c)
		case reserved && c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]):
			b.WriteByte(c)
		default:
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		}
	}
	return b.String()
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}
