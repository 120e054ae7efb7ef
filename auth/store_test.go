package auth

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"golang.org/x/oauth2"
)

func TestMemoryStore(t *testing.T) {
	ctx := context.Background()
	var s MemoryStore
	if r, err := s.Load(ctx, "https://a.example/mcp"); r != nil || err != nil {
		t.Fatalf("Load of nothing = %v, %v", r, err)
	}
	want := &Record{Resource: "https://a.example/mcp", Issuer: "https://auth.example",
		Client: &ClientInfo{ID: "c", Secret: "s", Kind: ClientDynamic, Issuer: "https://auth.example", RedirectURIs: []string{"http://127.0.0.1:1/cb"}},
		Token:  &oauth2.Token{AccessToken: "at", RefreshToken: "rt", TokenType: "Bearer", Expiry: time.Unix(1_800_000_000, 0).UTC()},
		Scope:  "a b", GrantedScope: "a"}
	if err := s.Save(ctx, "https://a.example/mcp", want); err != nil {
		t.Fatal(err)
	}
	want.Client.RedirectURIs[0] = "changed after saving"
	got, err := s.Load(ctx, "https://a.example/mcp")
	if err != nil {
		t.Fatal(err)
	}
	if got.Token.AccessToken != "at" || got.Token.RefreshToken != "rt" || !got.Token.Expiry.Equal(want.Token.Expiry) ||
		got.Client.Secret != "s" || got.Client.RedirectURIs[0] != "http://127.0.0.1:1/cb" || got.GrantedScope != "a" {
		t.Errorf("Load = %+v", got)
	}
	if err := s.Delete(ctx, "https://a.example/mcp"); err != nil {
		t.Fatal(err)
	}
	if r, _ := s.Load(ctx, "https://a.example/mcp"); r != nil {
		t.Error("Load after Delete found a record")
	}
}

// TestRecordLogValue: a record in a log shows what it is about and no secret.
func TestRecordLogValue(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, nil))
	r := &Record{Resource: "https://a.example/mcp", Issuer: "https://auth.example",
		Client: &ClientInfo{ID: "client-1", Secret: "SECRET-1", Kind: ClientDynamic},
		Token:  &oauth2.Token{AccessToken: "ACCESS-1", RefreshToken: "REFRESH-1"}}
	log.Info("x", "record", r)
	out := buf.String()
	for _, secret := range []string{"SECRET-1", "ACCESS-1", "REFRESH-1"} {
		if strings.Contains(out, secret) {
			t.Errorf("the log shows %s: %s", secret, out)
		}
	}
	if !strings.Contains(out, "client-1") || !strings.Contains(out, "https://auth.example") {
		t.Errorf("the log does not say what the record is about: %s", out)
	}
}
