// Package toomanyrestarts is RemovePodsHavingTooManyRestarts: it moves
// pods whose containers restarted more than a threshold, the most
// restarted first.
package toomanyrestarts
