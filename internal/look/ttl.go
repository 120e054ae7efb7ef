package look

import "time"

// DefaultTaskTTL is the ttl the terminal and the web inspector offer for task calls,
// one for both so that a task lives as long whichever started it: long enough to come
// back for its result after a break.
const DefaultTaskTTL = 10 * time.Minute
