package auth

import (
	"context"
	"io"
	"net/http"
)

// Wrap returns a round tripper that authorizes the requests to the flow's MCP server
// before handing them to base (nil: http.DefaultTransport):
//
//   - a request to the server's origin carries the flow's access token, refreshed first
//     if it has expired; a request to any other origin (a redirect elsewhere, say)
//     carries none, nor does one that has an Authorization header of its own;
//   - a 401 runs the flow (discovery, registration, the grant) and the request is sent
//     again, once, with the new token (except a DELETE, which ends a session: that is
//     not worth a login);
//   - a 403 insufficient_scope runs the grant for the scopes asked for so far and those
//     the challenge names, and the request is sent again, up to [Config.MaxStepUps]
//     times.
//
// When the flow fails, the request fails with its error. This is the method the
// Streamable HTTP transport's Auth option calls.
func (f *Flow) Wrap(base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	return &roundTripper{flow: f, base: base}
}

type roundTripper struct {
	flow *Flow
	base http.RoundTripper
}

// CloseIdleConnections closes the idle connections of the base round tripper, so that
// http.Client.CloseIdleConnections reaches them through this one.
func (t *roundTripper) CloseIdleConnections() {
	if c, ok := t.base.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

func (t *roundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	if origin(req.URL) != origin(t.flow.server) || req.Header.Get("Authorization") != "" {
		return t.base.RoundTrip(req)
	}
	ctx := req.Context()
	tok, gen, err := t.flow.token(ctx)
	if err != nil {
		closeBody(req)
		return nil, err
	}
	resp, err := t.send(req, tok)
	if req.Method == http.MethodDelete {
		// Ending a session is not worth sending the user to the browser.
		return resp, err
	}
	authorized, stepUps := false, 0
	for {
		if err != nil {
			return nil, err
		}
		ch := challenge{status: resp.StatusCode}
		switch resp.StatusCode {
		case http.StatusUnauthorized:
			ch.params = BearerChallenge(resp.Header)
			if authorized {
				discard(resp)
				return nil, ErrTokenRejected
			}
			authorized = true
		case http.StatusForbidden:
			ch.params = BearerChallenge(resp.Header)
			if !ch.insufficientScope() {
				return resp, nil
			}
			if stepUps >= t.flow.cfg.MaxStepUps {
				discard(resp)
				if stepUps > 0 {
					t.flow.markFutile(t.flow.scope())
				}
				return nil, &StepUpError{Scope: ch.params["scope"], Attempts: stepUps}
			}
			stepUps++
		default:
			return resp, nil
		}
		if req.Body != nil && req.GetBody == nil {
			return resp, nil // the body cannot be sent again: the caller sees the answer
		}
		discard(resp)
		if err := t.authorize(ctx, ch, gen, tok != ""); err != nil {
			return nil, err
		}
		if tok, gen, err = t.flow.current(); err != nil {
			return nil, err
		}
		r := req.Clone(ctx)
		if req.GetBody != nil {
			if r.Body, err = req.GetBody(); err != nil {
				return nil, err
			}
		}
		resp, err = t.send(r, tok)
	}
}

// authorize runs the flow for a request's 401 or 403 on a context of its own, bounded
// by the flow's timeouts rather than the request's: a request with a short deadline (a
// probe, say) must not cut the user's authorization short, which would send them to the
// browser again for the next request. The request waits for it until its own context
// ends; the authorization goes on, and the next request that needs it waits for it
// (one authorization runs at a time) and takes its token.
func (t *roundTripper) authorize(ctx context.Context, ch challenge, gen uint64, sent bool) error {
	done := make(chan error, 1)
	go func() { done <- t.flow.authorize(context.WithoutCancel(ctx), ch, gen, sent) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// send sends req with tok, on a copy: a round tripper must not change the request it is
// given.
func (t *roundTripper) send(req *http.Request, tok string) (*http.Response, error) {
	if tok != "" {
		r := req.Clone(req.Context())
		r.Header.Set("Authorization", "Bearer "+tok)
		req = r
	}
	return t.base.RoundTrip(req)
}

// discard reads a little of resp's body, so that its connection can be reused, and
// closes it.
func discard(resp *http.Response) {
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
}

// closeBody closes the body of a request that is not sent, as a round tripper must.
func closeBody(req *http.Request) {
	if req.Body != nil {
		_ = req.Body.Close()
	}
}
