package auth

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"strings"
	"testing"
	"time"
)

// verifyJWT checks a JWS compact serialization's signature with pub and returns its
// header and claims.
func verifyJWT(t *testing.T, jwt string, pub crypto.PublicKey) (header, claims map[string]any) {
	t.Helper()
	parts := strings.Split(jwt, ".")
	if len(parts) != 3 {
		t.Fatalf("%d parts in the JWT", len(parts))
	}
	for i, v := range []*map[string]any{&header, &claims} {
		b, err := base64.RawURLEncoding.DecodeString(parts[i])
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, v); err != nil {
			t.Fatal(err)
		}
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil {
		t.Fatal(err)
	}
	digest := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	switch k := pub.(type) {
	case *ecdsa.PublicKey:
		if len(sig) != 64 {
			t.Fatalf("an ES256 signature of %d bytes, want 64 (R and S)", len(sig))
		}
		r, s := new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])
		if !ecdsa.Verify(k, digest[:], r, s) {
			t.Fatal("the ES256 signature does not verify")
		}
	case *rsa.PublicKey:
		if err := rsa.VerifyPKCS1v15(k, crypto.SHA256, digest[:], sig); err != nil {
			t.Fatalf("the RS256 signature does not verify: %v", err)
		}
	}
	return header, claims
}

func TestClientAssertion(t *testing.T) {
	ec, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	rk, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1_800_000_000, 0)
	for _, tc := range []struct {
		key crypto.Signer
		alg string
	}{{ec, "ES256"}, {rk, "RS256"}} {
		jwt, err := clientAssertion(tc.key, "", "client-1", "https://auth.example", now)
		if err != nil {
			t.Fatal(err)
		}
		header, claims := verifyJWT(t, jwt, tc.key.Public())
		if header["alg"] != tc.alg || header["typ"] != "JWT" {
			t.Errorf("header %v, want alg %s", header, tc.alg)
		}
		if claims["iss"] != "client-1" || claims["sub"] != "client-1" || claims["aud"] != "https://auth.example" {
			t.Errorf("claims %v", claims)
		}
		if claims["iat"] != float64(now.Unix()) || claims["exp"] != float64(now.Add(assertionLifetime).Unix()) || claims["jti"] == "" {
			t.Errorf("times or jti: %v", claims)
		}
	}
	if _, err := clientAssertion(ec, "HS256", "c", "a", now); err == nil {
		t.Error("HS256 was accepted")
	}
}

func TestParsePrivateKey(t *testing.T) {
	ec, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	pkcs8, err := x509.MarshalPKCS8PrivateKey(ec)
	if err != nil {
		t.Fatal(err)
	}
	sec1, err := x509.MarshalECPrivateKey(ec)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range []*pem.Block{{Type: "PRIVATE KEY", Bytes: pkcs8}, {Type: "EC PRIVATE KEY", Bytes: sec1}} {
		k, err := ParsePrivateKey(pem.EncodeToMemory(b))
		if err != nil {
			t.Fatalf("%s: %v", b.Type, err)
		}
		if !k.Public().(*ecdsa.PublicKey).Equal(&ec.PublicKey) {
			t.Errorf("%s: another key came back", b.Type)
		}
	}
	if _, err := ParsePrivateKey([]byte("not a key")); err == nil {
		t.Error("garbage parsed")
	}
}
