package app

import (
	"strings"
	"testing"
)

// A real run from a laptop needs to know where the in-cluster runs keep
// their state, or to be told to go without; a dry run, or a run in a pod
// (where the chart sets $POD_NAMESPACE), needs neither.
func TestRealRunNeedsState(t *testing.T) {
	// The kubeconfig names no cluster: a run that gets past the check of
	// its state fails there instead, with another message.
	noCluster := writeFile(t, "kubeconfig", "apiVersion: v1\nkind: Config\n")
	const refused = "--state-configmap rebalancer/rebalancer-state"
	tests := []struct {
		name      string
		args      []string
		podNS     string
		wantCode  int
		wantError string
	}{
		{name: "real run from a laptop, no state named: refused", args: []string{"run"}, wantCode: exitUsage, wantError: refused},
		{name: "the same with --no-state", args: []string{"run", "--no-state"}, wantCode: exitUsage, wantError: "no cluster to talk to"},
		{name: "the same with --state-configmap", args: []string{"run", "--state-configmap", "rebalancer/rebalancer-state"}, wantCode: exitUsage, wantError: "no cluster to talk to"},
		{name: "a dry run from a laptop needs no state", args: []string{"run", "--dry-run"}, wantCode: exitUsage, wantError: "no cluster to talk to"},
		{name: "a real run in a pod finds the chart's state", args: []string{"run"}, podNS: "rebalancer", wantCode: exitUsage, wantError: "no cluster to talk to"},
		{name: "--no-state with --state-configmap", args: []string{"run", "--no-state", "--state-configmap", "rebalancer/rebalancer-state"}, wantCode: exitUsage, wantError: "exclude each other"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("POD_NAMESPACE", tt.podNS)
			_, code, err := execute(t, append(tt.args, "--kubeconfig", noCluster)...)
			if code != tt.wantCode || err == nil || !strings.Contains(err.Error(), tt.wantError) {
				t.Errorf("exit code %d (%v), want %d with %q", code, err, tt.wantCode, tt.wantError)
			}
			if tt.wantError == refused && !strings.Contains(err.Error(), "--no-state") {
				t.Errorf("the refusal %q does not offer --no-state", err)
			}
		})
	}
}

// The run Lease is moved only as a whole: a namespace without a name, or a
// name without a namespace, would leave a run alone on a Lease no other run
// takes. Bad usage, before any call to the cluster.
func TestRunLeaseFlag(t *testing.T) {
	noCluster := writeFile(t, "kubeconfig", "apiVersion: v1\nkind: Config\n")
	tests := []struct {
		lease     string
		wantError string
	}{
		{lease: "kube-system/rebalancer-run-lock", wantError: "no cluster to talk to"},
		{lease: "ops/rebalancer-run-lock", wantError: "no cluster to talk to"},
		{lease: "kube-system", wantError: `--run-lease "kube-system": want NAMESPACE/NAME, both given`},
		{lease: "/rebalancer-run-lock", wantError: "want NAMESPACE/NAME, both given"},
		{lease: "ops/", wantError: "want NAMESPACE/NAME, both given"},
		{lease: "a/b/c", wantError: "want NAMESPACE/NAME, both given"},
		{lease: "Ops/lock", wantError: `--run-lease "Ops/lock": namespace "Ops"`},
		{lease: "ops/Lock_1", wantError: `--run-lease "ops/Lock_1": name "Lock_1"`},
	}
	for _, tt := range tests {
		t.Run(tt.lease, func(t *testing.T) {
			_, code, err := execute(t, "run", "--no-state", "--run-lease", tt.lease, "--kubeconfig", noCluster)
			if code != exitUsage || err == nil || !strings.Contains(err.Error(), tt.wantError) {
				t.Errorf("exit code %d (%v), want %d with %q", code, err, exitUsage, tt.wantError)
			}
		})
	}
}
