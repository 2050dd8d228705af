package e2e

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kube-rebalancer/rebalancer/evictor"
	"github.com/kube-rebalancer/rebalancer/test/harness"
)

// TestRunRefusesAPriorityClassTheClusterLacks: whether the class a
// priorityThreshold names exists is the API server's to say. Without it, a
// real run exits 2 naming the field and evicts nothing; once the class is
// created, the same policy runs.
func TestRunRefusesAPriorityClassTheClusterLacks(t *testing.T) {
	cp := sharedControlPlane(t)
	ctx := t.Context()
	f := newFixture(t, cp, "prioclass", 3, harness.NodeSpec{CPU: "4", Memory: "16Gi"})
	before := f.pile(harness.WorkloadSpec{Name: "web", Replicas: 6, CPU: "500m"}, f.nodes[0])
	class := f.ns + "-protected"
	pol := f.policy("evictable: {priorityThreshold: {name: " + class + "}}\n" + balancing)
	args := []string{"run", "--kubeconfig", cp.Kubeconfig, "--policy", pol, "--state-configmap", f.ns + "/rebalancer-state", "-o", "json"}

	r := rebalancer(t, args...)
	if r.code != 2 {
		t.Fatalf("run exited %d, want 2", r.code)
	}
	want := `evictable.priorityThreshold.name: "` + class + `" names no PriorityClass in the cluster`
	if line := errorLine(r); !strings.Contains(line, want) {
		t.Errorf("error %q, want it to say %q", line, want)
	}
	if problems := unchanged(before, pods(t, cp, f.ns, "app=web")); len(problems) > 0 {
		t.Errorf("a refused policy disturbed pods: %v", problems)
	}

	if _, err := cp.Client.SchedulingV1().PriorityClasses().Create(ctx, &schedulingv1.PriorityClass{
		ObjectMeta: metav1.ObjectMeta{Name: class}, Value: 1000000}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cp.Client.SchedulingV1().PriorityClasses().Delete(t.Context(), class, metav1.DeleteOptions{})
	})
	r = rebalancer(t, args...)
	if r.code != 0 {
		t.Fatalf("with the class created, run exited %d, want 0", r.code)
	}
	if rep := decode(t, r); rep.Summary.Results[evictor.Evicted] == 0 {
		t.Errorf("with the class created, nothing was evicted: %+v", rep.Summary)
	}
}

// TestRunLeavesPodsTheAutoscalersProtect: on a real cluster, the replicas
// annotated for the cluster autoscaler or Karpenter stay where they are,
// while unannotated replicas piled up beside them are spread.
func TestRunLeavesPodsTheAutoscalersProtect(t *testing.T) {
	cp := sharedControlPlane(t)
	f := newFixture(t, cp, "donotdisrupt", 3, harness.NodeSpec{CPU: "8", Memory: "32Gi"})
	annotate := func(key, value string) func(*corev1.PodTemplateSpec) {
		return func(tmpl *corev1.PodTemplateSpec) { tmpl.Annotations = map[string]string{key: value} }
	}
	kept := map[string]corev1.Pod{}
	for name, p := range f.pile(harness.WorkloadSpec{Name: "ca", Replicas: 3, CPU: "500m",
		PodTemplate: annotate("cluster-autoscaler.kubernetes.io/safe-to-evict", "false")}, f.nodes[0]) {
		kept[name] = p
	}
	for name, p := range f.pile(harness.WorkloadSpec{Name: "karpenter", Replicas: 3, CPU: "500m",
		PodTemplate: annotate("karpenter.sh/do-not-disrupt", "true")}, f.nodes[0]) {
		kept[name] = p
	}
	f.pile(harness.WorkloadSpec{Name: "web", Replicas: 3, CPU: "500m"}, f.nodes[0])

	pol := f.policy("strategies:\n  RemoveDuplicates: {}\n")
	r := rebalancer(t, "run", "--kubeconfig", cp.Kubeconfig, "--policy", pol, "--state-configmap", f.ns+"/rebalancer-state", "-o", "json")
	if r.code != 0 {
		t.Fatalf("run exited %d, want 0", r.code)
	}
	rep := decode(t, r)
	for _, m := range rep.Moves {
		if !strings.HasPrefix(m.Pod, f.ns+"/web-") {
			t.Errorf("moved %s, a pod an autoscaler's annotation protects", m.Pod)
		}
	}
	if rep.Summary.Results[evictor.Evicted] == 0 {
		t.Errorf("no web replica evicted: the fixture is built so that RemoveDuplicates moves them")
	}
	after := pods(t, cp, f.ns, "app in (ca, karpenter)")
	if problems := unchanged(kept, after); len(problems) > 0 {
		t.Errorf("protected pods disturbed: %v", problems)
	}
	for _, k := range rep.Skipped {
		if strings.HasPrefix(k.Pod, f.ns+"/web-") {
			continue
		}
		if !strings.Contains(k.Reason, "cluster-autoscaler.kubernetes.io/safe-to-evict") && !strings.Contains(k.Reason, "karpenter.sh/do-not-disrupt") {
			t.Errorf("%s skipped for %q, want the annotation named", k.Pod, k.Reason)
		}
	}
}
