package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"time"

	"github.com/mcpi-dev/mcpi/auth"
)

// clientMetadataURL is the client id the auth scenarios expect of a client that uses a
// Client ID Metadata Document (auth/basic-cimd): the suite's authorization server takes
// it as it is, without fetching it.
const clientMetadataURL = "https://conformance-test.local/client-metadata.json"

// authContext is what MCP_CONFORMANCE_CONTEXT holds for the auth scenarios that pass
// credentials: auth/pre-registration and auth/client-credentials-basic a client id and
// secret, auth/client-credentials-jwt a client id and a PEM private key.
type authContext struct {
	Name             string `json:"name"`
	ClientID         string `json:"client_id"`
	ClientSecret     string `json:"client_secret"`
	PrivateKeyPEM    string `json:"private_key_pem"`
	SigningAlgorithm string `json:"signing_algorithm"`
}

// authFlow returns the authorization flow of an auth/* scenario and the function that
// releases it. The user's part is played by an HTTP client that follows the
// authorization server's redirect to the loopback redirect URL, as a browser would.
func authFlow(scenario, serverURL string, logger *slog.Logger) (*auth.Flow, func(), error) {
	var ac authContext
	if raw := os.Getenv(envContext); raw != "" {
		if err := json.Unmarshal([]byte(raw), &ac); err != nil {
			return nil, nil, fmt.Errorf("$%s: %w", envContext, err)
		}
	}
	browser := &auth.Loopback{Open: followRedirects}
	cfg := &auth.Config{
		Browser:           browser,
		ClientName:        "mcpi-conformance-client",
		ClientMetadataURL: clientMetadataURL,
		ClientID:          ac.ClientID,
		ClientSecret:      ac.ClientSecret,
		AuthorizeTimeout:  10 * time.Second,
		Logger:            logger,
	}
	if scenario == "auth/client-credentials-basic" || scenario == "auth/client-credentials-jwt" {
		cfg.Grant = auth.ClientCredentials
	}
	if ac.PrivateKeyPEM != "" {
		key, err := auth.ParsePrivateKey([]byte(ac.PrivateKeyPEM))
		if err != nil {
			return nil, nil, fmt.Errorf("$%s: %w", envContext, err)
		}
		cfg.PrivateKey, cfg.SigningAlg = key, ac.SigningAlgorithm
	}
	flow, err := auth.New(serverURL, cfg)
	if err != nil {
		return nil, nil, err
	}
	logf("authorization: client id %q, grant %v", ac.ClientID, cfg.Grant)
	return flow, func() { browser.Close() }, nil
}

// followRedirects plays the user: it opens the authorization URL and follows the
// redirects to the loopback redirect URL, where the flow receives the answer. A page
// that does not redirect is an authorization the user could not complete.
func followRedirects(ctx context.Context, authURL string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("the authorization page %s answered HTTP %d", resp.Request.URL, resp.StatusCode)
	}
	return nil
}
