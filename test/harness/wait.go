package harness

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// pollInterval is short because everything runs locally: the cost of a poll
// is one loopback request, and tests wait on many conditions in sequence.
const pollInterval = 100 * time.Millisecond

// WaitFor calls cond every 100ms until it returns true, returns an error, or
// the deadline passes. timeout 0 means only ctx bounds the wait. On timeout
// the error names description and the last error cond returned, so a failed
// wait says what it waited for.
//
// An error from cond ends the wait at once; a cond that wants to retry on
// errors must return (false, nil) and may record the error itself.
func WaitFor(ctx context.Context, timeout time.Duration, description string, cond func(ctx context.Context) (bool, error)) error {
	return waitFor(ctx, timeout, pollInterval, description, cond)
}

// pollIntervalFor slows polling down for conditions that list many objects:
// listing thousands of pods ten times a second would load the API server
// more than the work being waited for.
func pollIntervalFor(objects int) time.Duration {
	return max(pollInterval, time.Duration(objects/1000)*time.Second)
}

func waitFor(ctx context.Context, timeout, interval time.Duration, description string, cond func(ctx context.Context) (bool, error)) error {
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	start := time.Now()
	ticker := time.NewTicker(interval)
	defer ticker.Stop()
	for {
		ok, err := cond(ctx)
		if err != nil {
			if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
				return fmt.Errorf("timed out after %s waiting for %s: %w", time.Since(start).Round(time.Millisecond), description, err)
			}
			return fmt.Errorf("waiting for %s: %w", description, err)
		}
		if ok {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("timed out after %s waiting for %s: %w", time.Since(start).Round(time.Millisecond), description, ctx.Err())
		case <-ticker.C:
		}
	}
}

// waitState records the last observation of a condition so that a timeout
// can say how far it got ("3 of 4 pods Running").
type waitState struct{ last string }

func (w *waitState) wrap(err error) error {
	if err != nil && w.last != "" {
		return fmt.Errorf("%w (last seen: %s)", err, w.last)
	}
	return err
}
