package e2e

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kube-rebalancer/rebalancer/cluster/kube"
	"github.com/kube-rebalancer/rebalancer/test/harness"
)

// TestWrongFilesStayOutOfTheCluster: a policy whose scheduler.configFile
// names a file of secrets (a password file named by mistake) fails the run
// with exit 2, and neither its error nor the last-run record the run
// leaves in the state ConfigMap quotes a line of that file.
func TestWrongFilesStayOutOfTheCluster(t *testing.T) {
	cp := sharedControlPlane(t)
	f := newFixture(t, cp, "wrongfile", 1, harness.NodeSpec{CPU: "4", Memory: "16Gi"})
	const secret = "$6$saltsalt$secrethashsecrethash"
	shadow := writeFile(t, "shadow", "root:"+secret+":19000:0:99999:7:::\ndaemon:*:19000:0:99999:7:::\n")
	pol := f.policy("scheduler: {configFile: " + shadow + "}\n" + balancing)

	r := rebalancer(t, "run", "--kubeconfig", cp.Kubeconfig, "--policy", pol, "--state-configmap", f.ns+"/rebalancer-state")
	if r.code != 2 {
		t.Errorf("exit code %d, want 2", r.code)
	}
	want := pol + ": scheduler.configFile: " + shadow + ": apiVersion: required: the file is no KubeSchedulerConfiguration"
	if !strings.Contains(r.stderr, want) {
		t.Errorf("stderr does not say %q", want)
	}
	if strings.Contains(r.stderr, secret) {
		t.Error("stderr quotes the file's secret")
	}
	last := lastRunRecord(t, cp, f.ns)
	if last.Succeeded || !strings.Contains(last.Error, "the file is no KubeSchedulerConfiguration") {
		t.Errorf("last-run record = %+v, want a failed run that names the configuration", last)
	}
	cm, err := cp.Client.CoreV1().ConfigMaps(f.ns).Get(t.Context(), "rebalancer-state", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for key, value := range cm.Data {
		if strings.Contains(value, secret) || strings.Contains(value, "daemon:*") {
			t.Errorf("state ConfigMap key %s quotes the file: %s", key, value)
		}
	}
	if _, ok := cm.Data[kube.RunRecordKey]; !ok {
		t.Errorf("state ConfigMap has no %s", kube.RunRecordKey)
	}
}

// TestStateFlagIsUsage: a --state-configmap the API server would refuse is
// bad usage (exit 2), found before the run reads the cluster, not a failed
// request (exit 1).
func TestStateFlagIsUsage(t *testing.T) {
	cp := sharedControlPlane(t)
	f := newFixture(t, cp, "stateflag", 1, harness.NodeSpec{CPU: "4", Memory: "16Gi"})
	pol := f.policy(balancing)
	for _, flag := range []string{f.ns + "/a/b", "Stateflag/rebalancer-state", f.ns + "/State_"} {
		// The namespace has no pod: a run that went on would evict nothing.
		for _, mode := range [][]string{{"--dry-run"}, nil} {
			args := append([]string{"run", "--kubeconfig", cp.Kubeconfig, "--policy", pol, "--state-configmap", flag}, mode...)
			r := rebalancer(t, args...)
			if r.code != 2 || !strings.Contains(r.stderr, `--state-configmap "`+flag+`"`) {
				t.Errorf("run %v --state-configmap %s: exit code %d, want 2 with an error naming the flag", mode, flag, r.code)
			}
		}
	}
}
