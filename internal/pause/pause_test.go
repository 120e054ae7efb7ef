package pause

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"
)

func TestFor(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		if err := For(t.Context(), 3*time.Second); err != nil || time.Since(start) != 3*time.Second {
			t.Errorf("For(3s) = %v after %s, want nil after 3s", err, time.Since(start))
		}
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		start = time.Now()
		if err := For(ctx, time.Hour); !errors.Is(err, context.DeadlineExceeded) || time.Since(start) != time.Second {
			t.Errorf("For(1h) with a 1s deadline = %v after %s", err, time.Since(start))
		}
		if err := For(ctx, 0); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("For(0) with an ended context = %v", err)
		}
		if err := For(t.Context(), -time.Second); err != nil {
			t.Errorf("For(-1s) = %v", err)
		}
	})
}
