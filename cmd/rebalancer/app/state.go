package app

import (
	"fmt"
	"os"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"

	"github.com/kube-rebalancer/rebalancer/cluster/kube"
	"github.com/kube-rebalancer/rebalancer/policy"
)

// defaultStateName is the ConfigMap that remembers recent evictions.
const defaultStateName = "rebalancer-state"

// historyKeep is how long evictions are remembered: the cooldown, and at
// least long enough for the scheduler to place the replacements.
const historyKeep = time.Hour

// historyStore resolves --state-configmap. Outside a pod, with no flag, there
// is nowhere agreed to keep state: the run then sees no earlier cycle.
func historyStore(flag string, client kubernetes.Interface) (*kube.HistoryStore, error) {
	ns, name := "", defaultStateName
	switch {
	case flag != "":
		var err error
		if ns, name, err = parseStateFlag(flag); err != nil {
			return nil, err
		}
	case inPod():
		ns = os.Getenv("POD_NAMESPACE")
	default:
		klog.V(1).InfoS("No --state-configmap: this run does not know earlier runs' evictions")
		return nil, nil
	}
	return &kube.HistoryStore{Client: client, Namespace: ns, Name: name, Keep: historyKeep}, nil
}

// parseStateFlag splits --state-configmap into a namespace and a
// ConfigMap name that the API server admits, its Lease's name too, so
// that a mistyped flag is bad usage (exit 2) before anything is read,
// not a failed request (exit 1) after the run has begun.
func parseStateFlag(flag string) (namespace, name string, err error) {
	namespace, name, ok := strings.Cut(flag, "/")
	if !ok || namespace == "" || name == "" {
		return "", "", fmt.Errorf("--state-configmap %q: want NAMESPACE/NAME", flag)
	}
	if errs := validation.IsDNS1123Label(namespace); len(errs) > 0 {
		return "", "", fmt.Errorf("--state-configmap %q: namespace %q: %s", flag, namespace, strings.Join(errs, "; "))
	}
	if strings.Contains(name, "/") {
		return "", "", fmt.Errorf("--state-configmap %q: want NAMESPACE/NAME, with one slash", flag)
	}
	if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
		return "", "", fmt.Errorf("--state-configmap %q: name %q: %s", flag, name, strings.Join(errs, "; "))
	}
	return namespace, name, nil
}

// checkStateFlag checks --state-configmap, when it is given, before a
// command connects to anything.
func checkStateFlag(flag string) error {
	if flag == "" {
		return nil
	}
	_, _, err := parseStateFlag(flag)
	return err
}

// inPod tells whether the process runs in a pod that the chart or the
// kustomize overlays made, which set POD_NAMESPACE from the downward API.
func inPod() bool { return os.Getenv("POD_NAMESPACE") != "" }

// keepEvictions makes the store remember each eviction for the policy's
// cooldown, and at least historyKeep.
func keepEvictions(h *kube.HistoryStore, pol *policy.Policy) {
	if h != nil && pol.Cooldown.Duration > h.Keep {
		h.Keep = pol.Cooldown.Duration
	}
}

// The run Lease: one per cluster, in a namespace every cluster has, so that
// every run that evicts finds the same one without being told where it is
// (the CronJob, its next tick, a laptop run with or without a state), and
// two runs never evict at once whatever their state settings.
const (
	defaultRunLeaseNamespace = metav1.NamespaceSystem
	defaultRunLeaseName      = "rebalancer-run-lock"
	defaultRunLease          = defaultRunLeaseNamespace + "/" + defaultRunLeaseName
)

// runLockDuration is how long a run's Lease outlives its last renewal: a
// crashed run holds off the next ones this long.
const runLockDuration = 30 * time.Second

// parseRunLease reads --run-lease, NAMESPACE/NAME: both or none, since a
// name alone would move the Lease away from the one the other runs take.
func parseRunLease(flag string) (namespace, name string, err error) {
	namespace, name, ok := strings.Cut(flag, "/")
	if !ok || namespace == "" || name == "" || strings.Contains(name, "/") {
		return "", "", fmt.Errorf("--run-lease %q: want NAMESPACE/NAME, both given (default %s)", flag, defaultRunLease)
	}
	if errs := validation.IsDNS1123Label(namespace); len(errs) > 0 {
		return "", "", fmt.Errorf("--run-lease %q: namespace %q: %s", flag, namespace, strings.Join(errs, "; "))
	}
	if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
		return "", "", fmt.Errorf("--run-lease %q: name %q: %s", flag, name, strings.Join(errs, "; "))
	}
	return namespace, name, nil
}

// runLock is the Lease that every run that evicts takes turns on.
func runLock(client kubernetes.Interface, namespace, name string) *kube.RunLock {
	host, err := os.Hostname()
	if err != nil {
		host = "unknown-host"
	}
	return &kube.RunLock{Client: client, Namespace: namespace, Name: name,
		// In a pod the hostname is the pod's name.
		Identity: fmt.Sprintf("%s_%d", host, os.Getpid()), Duration: runLockDuration}
}
