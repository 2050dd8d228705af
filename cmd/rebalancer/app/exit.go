package app

import (
	"errors"

	"github.com/kube-rebalancer/rebalancer/policy"
)

// Exit codes, as documented in the README.
const (
	exitOK      = 0
	exitRuntime = 1
	exitUsage   = 2
)

// runtimeError marks a failure of the run itself (API server unreachable,
// permission denied, a failed eviction) as opposed to bad input.
type runtimeError struct{ err error }

func (e *runtimeError) Error() string { return e.err.Error() }
func (e *runtimeError) Unwrap() error { return e.err }

func runtimeErr(err error) error {
	if err == nil {
		return nil
	}
	return &runtimeError{err}
}

// exitCode maps an error to the exit code: bad input is the default, so that
// a failure nobody classified never claims the run happened.
func exitCode(err error) int {
	if err == nil {
		return exitOK
	}
	// A policy that the cluster shows to be wrong (a priority class it
	// lacks) is found during the cycle, and is still bad input.
	var bad *policy.Error
	if errors.As(err, &bad) {
		return exitUsage
	}
	var rt *runtimeError
	if errors.As(err, &rt) {
		return exitRuntime
	}
	return exitUsage
}
