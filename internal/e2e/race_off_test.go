//go:build !race

package e2e

// raceDetector says whether the tests run with the race detector, which makes each byte
// a test pushes through JSON many times slower.
const raceDetector = false
