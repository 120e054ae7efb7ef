package auth

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/asn1"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"time"
)

// clientAssertionType is the client_assertion_type of a private_key_jwt (RFC 7523).
const clientAssertionType = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"

// assertionLifetime is how long a client assertion is valid.
const assertionLifetime = 5 * time.Minute

// ParsePrivateKey parses a PEM private key (PKCS #8, SEC 1 EC or PKCS #1 RSA) for
// [Config.PrivateKey].
func ParsePrivateKey(pemBytes []byte) (crypto.Signer, error) {
	block, _ := pem.Decode(pemBytes)
	if block == nil {
		return nil, errors.New("no PEM block in the private key")
	}
	var key any
	var err error
	switch block.Type {
	case "EC PRIVATE KEY":
		key, err = x509.ParseECPrivateKey(block.Bytes)
	case "RSA PRIVATE KEY":
		key, err = x509.ParsePKCS1PrivateKey(block.Bytes)
	default:
		key, err = x509.ParsePKCS8PrivateKey(block.Bytes)
	}
	if err != nil {
		return nil, fmt.Errorf("parsing the private key: %w", err)
	}
	s, ok := key.(crypto.Signer)
	if !ok {
		return nil, fmt.Errorf("a %T cannot sign", key)
	}
	return s, nil
}

// signingAlg returns the JWS algorithm for key: alg if given, else the one its type
// implies (ES256, ES384, ES512 by curve; RS256).
func signingAlg(key crypto.Signer, alg string) (string, error) {
	if alg != "" {
		return alg, nil
	}
	switch k := key.Public().(type) {
	case *ecdsa.PublicKey:
		switch k.Curve {
		case elliptic.P256():
			return "ES256", nil
		case elliptic.P384():
			return "ES384", nil
		case elliptic.P521():
			return "ES512", nil
		}
	case *rsa.PublicKey:
		return "RS256", nil
	}
	return "", fmt.Errorf("no JWS algorithm for a %T key", key.Public())
}

// clientAssertion returns a JWT that authenticates clientID to the authorization server
// audience (its issuer identifier, RFC 7523 section 3), signed with key.
func clientAssertion(key crypto.Signer, alg, clientID, audience string, now time.Time) (string, error) {
	alg, err := signingAlg(key, alg)
	if err != nil {
		return "", err
	}
	jti := make([]byte, 16)
	if _, err := rand.Read(jti); err != nil {
		return "", err
	}
	header, err := json.Marshal(map[string]string{"alg": alg, "typ": "JWT"})
	if err != nil {
		return "", err
	}
	claims, err := json.Marshal(map[string]any{
		"iss": clientID,
		"sub": clientID,
		"aud": audience,
		"iat": now.Unix(),
		"exp": now.Add(assertionLifetime).Unix(),
		"jti": base64.RawURLEncoding.EncodeToString(jti),
	})
	if err != nil {
		return "", err
	}
	input := base64.RawURLEncoding.EncodeToString(header) + "." + base64.RawURLEncoding.EncodeToString(claims)
	sig, err := signJWS(key, alg, []byte(input))
	if err != nil {
		return "", err
	}
	return input + "." + base64.RawURLEncoding.EncodeToString(sig), nil
}

// signJWS signs input with key as JWS alg (RFC 7518 section 3): ECDSA signatures are the
// fixed-size R and S, not the ASN.1 that crypto.Signer returns.
func signJWS(key crypto.Signer, alg string, input []byte) ([]byte, error) {
	var h crypto.Hash
	var opts crypto.SignerOpts
	switch alg {
	case "ES256", "RS256", "PS256":
		h = crypto.SHA256
	case "ES384", "RS384", "PS384":
		h = crypto.SHA384
	case "ES512", "RS512", "PS512":
		h = crypto.SHA512
	default:
		return nil, fmt.Errorf("the JWS algorithm %q is not supported", alg)
	}
	opts = h
	if alg[0] == 'P' {
		opts = &rsa.PSSOptions{SaltLength: rsa.PSSSaltLengthEqualsHash, Hash: h}
	}
	d := h.New()
	d.Write(input)
	sig, err := key.Sign(rand.Reader, d.Sum(nil), opts)
	if err != nil {
		return nil, fmt.Errorf("signing the client assertion: %w", err)
	}
	if alg[0] != 'E' {
		return sig, nil
	}
	pub, ok := key.Public().(*ecdsa.PublicKey)
	if !ok {
		return nil, fmt.Errorf("%s needs an ECDSA key, not a %T", alg, key.Public())
	}
	var rs struct{ R, S *big.Int }
	if _, err := asn1.Unmarshal(sig, &rs); err != nil {
		return nil, fmt.Errorf("signing the client assertion: %w", err)
	}
	n := (pub.Curve.Params().BitSize + 7) / 8
	out := make([]byte, 2*n)
	rs.R.FillBytes(out[:n])
	rs.S.FillBytes(out[n:])
	return out, nil
}
