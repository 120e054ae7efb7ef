package tasks

import (
	"time"
)

// bucket is a token bucket: tokens refill at the configured rate up to the burst.
type bucket struct {
	tokens float64
	at     time.Time
}

// allowLocked takes one token from owner's bucket.
func (m *Manager) allowLocked(owner string) error {
	rate := m.opts.RatePerSecond
	if rate <= 0 {
		return nil
	}
	burst := float64(m.opts.RateBurst)
	if burst <= 0 {
		burst = 2 * rate
	}
	now := m.opts.Now()
	if m.buckets == nil {
		m.buckets = map[string]*bucket{}
	}
	b := m.buckets[owner]
	if b == nil {
		if len(m.buckets) >= max(m.pruneAt, minPruneAt) {
			m.pruneBuckets(now, rate, burst)
			// The next prune waits until the map has doubled: owners made up faster
			// than their buckets refill (a forged credential a request) would have
			// every request scan them all.
			m.pruneAt = 2 * len(m.buckets)
		}
		b = &bucket{tokens: burst, at: now}
		m.buckets[owner] = b
	}
	b.tokens = min(burst, b.tokens+now.Sub(b.at).Seconds()*rate)
	b.at = now
	if b.tokens < 1 {
		m.opts.Logger.Warn("task requests rate-limited", "owner", owner)
		return ErrRateLimited.WithData(map[string]int64{"retryAfterMs": int64((1 - b.tokens) / rate * 1000)})
	}
	b.tokens--
	return nil
}

// limitedLocked reports whether allowLocked would refuse owner now, changing nothing
// and logging nothing: for the lookups of a connection's reading goroutine, which leave
// a refusal, logged, to the caller that may wait (a client can send requests past its
// rate at will, and the log's writer may be slow).
func (m *Manager) limitedLocked(owner string) bool {
	rate := m.opts.RatePerSecond
	b := m.buckets[owner]
	if rate <= 0 || b == nil {
		return false
	}
	// Time only moves on, so the tokens allowLocked finds after this are as many or more.
	return b.tokens+m.opts.Now().Sub(b.at).Seconds()*rate < 1
}

// minPruneAt is how many owners' buckets are kept before idle ones are forgotten.
const minPruneAt = 4096

// pruneBuckets forgets owners whose bucket has refilled: they have been idle.
func (m *Manager) pruneBuckets(now time.Time, rate, burst float64) {
	for owner, b := range m.buckets {
		if b.tokens+now.Sub(b.at).Seconds()*rate >= burst {
			delete(m.buckets, owner)
		}
	}
}
