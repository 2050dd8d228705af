package profile

import (
	"fmt"
	"time"

	configv1 "k8s.io/kube-scheduler/config/v1"
)

// Backoff is how long a live scheduler waits before it tries again a pod
// that failed: Initial after the first failure, doubling with each further
// one up to Max. A KubeSchedulerConfiguration sets them for every profile
// with podInitialBackoffSeconds and podMaxBackoffSeconds; zero means
// kube-scheduler's defaults, 1 s and 10 s.
type Backoff struct {
	Initial, Max time.Duration
}

// backoffOf reads and checks the configuration's backoff as kube-scheduler
// validates it: both positive, the maximum not below the initial one.
func backoffOf(cfg *configv1.KubeSchedulerConfiguration) (Backoff, error) {
	initial, maximum := int64(1), int64(10)
	if cfg.PodInitialBackoffSeconds != nil {
		initial = *cfg.PodInitialBackoffSeconds
	}
	if cfg.PodMaxBackoffSeconds != nil {
		maximum = *cfg.PodMaxBackoffSeconds
	}
	if initial <= 0 {
		return Backoff{}, fmt.Errorf("podInitialBackoffSeconds: %d must be greater than 0", initial)
	}
	if maximum < initial {
		return Backoff{}, fmt.Errorf("podMaxBackoffSeconds: %d must be greater than or equal to podInitialBackoffSeconds (%d)", maximum, initial)
	}
	if cfg.PodInitialBackoffSeconds == nil && cfg.PodMaxBackoffSeconds == nil {
		return Backoff{}, nil
	}
	return Backoff{Initial: time.Duration(initial) * time.Second, Max: time.Duration(maximum) * time.Second}, nil
}
