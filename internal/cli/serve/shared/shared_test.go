package shared

import (
	"reflect"
	"testing"
)

func TestListenAddr(t *testing.T) {
	tests := []struct {
		in, addr string
		hosts    []string
		warn     bool
	}{
		{"8080", "127.0.0.1:8080", nil, false},
		{":8080", "127.0.0.1:8080", nil, false},
		{"127.0.0.1:0", "127.0.0.1:0", nil, false},
		{"localhost:3001", "localhost:3001", nil, false},
		{"[::1]:3001", "[::1]:3001", nil, false},
		{"0.0.0.0:3001", "0.0.0.0:3001", []string{"*"}, true},
		{"10.1.2.3:3001", "10.1.2.3:3001", []string{"localhost", "127.0.0.1", "::1", "10.1.2.3"}, false},
	}
	for _, tt := range tests {
		addr, opts, warn, err := ListenAddr(tt.in)
		if err != nil || addr != tt.addr || !reflect.DeepEqual(opts.AllowedHosts, tt.hosts) || (warn != "") != tt.warn {
			t.Errorf("ListenAddr(%q) = %q, %v, %q, %v", tt.in, addr, opts.AllowedHosts, warn, err)
		}
	}
	if _, _, _, err := ListenAddr("nonsense"); err == nil {
		t.Error("ListenAddr(nonsense) succeeded")
	}
}
