// Package auth is the MCP authorization flow (revisions 2025-11-25 and 2026-07-28, with
// the fallbacks of 2025-03-26), for the client side of the Streamable HTTP transport.
//
// A [Flow] serves one MCP server. Put in front of its HTTP requests with [Flow.Wrap]
// (the transport's Auth option does that), it answers the server's 401 by:
//
//  1. discovering the server's protected resource metadata (RFC 9728): from the
//     resource_metadata of the WWW-Authenticate challenge, else from the well-known
//     URLs, path-aware first; a server with none is one of 2025-03-26, whose
//     authorization server is its own origin;
//  2. discovering the authorization server's metadata (RFC 8414, then OpenID Connect
//     Discovery), whose issuer must be the one the URL was built from; a 2025-03-26
//     server without metadata gets the default endpoints /authorize, /token,
//     /register;
//  3. getting a client id: pre-registered credentials ([Config.ClientID]), else a
//     Client ID Metadata Document ([Config.ClientMetadataURL]) where the authorization
//     server takes one, else Dynamic Client Registration (RFC 7591);
//  4. running the authorization code grant with PKCE S256 through a [Browser]: the
//     resource indicator (RFC 8707) in both requests, the scopes of the challenge, else
//     the metadata's scopes_supported, else none (with offline_access where the
//     authorization server offers it), the state and the issuer of the response
//     (RFC 9207) checked before the code goes anywhere; or the client credentials
//     grant ([ClientCredentials]), with a secret or a private key JWT (RFC 7523);
//  5. authenticating at the token endpoint as the registration and the metadata say
//     (client_secret_basic, client_secret_post, none, private_key_jwt).
//
// Tokens are refreshed before they expire, re-requested with more scope when the server
// answers 403 insufficient_scope (within [Config.MaxStepUps]), discovered again when
// the server moves to another authorization server (whose tokens and client
// registrations are never presented to the new one), sent only to the server's origin,
// and never logged. A [Store] keeps them between runs.
//
// The errors' messages name each URL (the server's, a metadata document's, an endpoint's,
// an authorization server's) with its password and the values of its query as xxxxx,
// as the transport's do, since they are logged; their fields keep the URL as found. The
// authorization page of a [TimeoutError] is named in full, for the user to open it.
//
// golang.org/x/oauth2 does the token requests and PKCE; what it lacks is here: the
// discovery, the registration, the issuer checks, the resource indicator on refresh,
// private key JWTs, and clear errors for token endpoints that answer HTML.
package auth
