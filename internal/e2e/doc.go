// Package e2e holds mcpi's end-to-end tests: a [client.Session] driving the demo server
// (package demo) over each real connection: an in-memory pipe, a stdio child process and
// Streamable HTTP on 127.0.0.1. It has no non-test code besides this comment.
//
// [client.Session]: https://pkg.go.dev/github.com/mcpi-dev/mcpi/client#Session
package e2e
