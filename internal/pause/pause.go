// Package pause waits for a while unless a context ends first.
package pause

import (
	"context"
	"time"
)

// For waits for d, or until ctx ends, and returns ctx's error in that case. A d of zero
// or less does not wait.
func For(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
