//go:build race

package web_test

// raceDetector says whether the tests run with the race detector, which makes each
// message many times slower to send, take and show.
const raceDetector = true
