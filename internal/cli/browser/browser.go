// Package browser opens URLs in the user's web browser: the page of "mcpi web", and the
// authorization page of an OAuth login.
package browser

import (
	"os/exec"
	"runtime"
)

// Open opens url with the platform's opener (open, rundll32, xdg-open), without
// waiting for the browser: the opener may live as long as the browser does.
func Open(url string) error {
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.Command("open", url)
	case "windows":
		cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", url)
	default:
		cmd = exec.Command("xdg-open", url)
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	go cmd.Wait() //nolint:errcheck // reaps the opener; its exit says nothing of the browser
	return nil
}
