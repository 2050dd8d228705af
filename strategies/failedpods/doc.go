// Package failedpods is RemoveFailedPods: it deletes pods in the Failed
// phase through the Eviction API, the oldest first, so that their
// controllers replace them.
package failedpods
