package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kube-rebalancer/rebalancer/evictor"
	"github.com/kube-rebalancer/rebalancer/planner"
	"github.com/kube-rebalancer/rebalancer/test/harness"
)

// TestDryRunMatchesPlanOfADump: `run --dry-run` against a live cluster
// changes nothing, and prints exactly the report `plan --snapshot` prints for
// a `kubectl get … -o yaml` dump of that cluster, at the same instant. The
// cluster is built so that the comparison covers moves, PDB, limit and
// age-based skips, and every node's before/after usage.
func TestDryRunMatchesPlanOfADump(t *testing.T) {
	cp := sharedControlPlane(t)
	ctx := t.Context()
	f := newFixture(t, cp, "dryrun", 4, harness.NodeSpec{CPU: "4", Memory: "16Gi"})
	const young = "dryrun-young"
	if _, err := cp.CreateNamespace(ctx, young); err != nil {
		t.Fatal(err)
	}

	// dryrun-0 runs web at 75% cpu: moves, two a step (perNode). dryrun-1 runs
	// api, whose PDB allows nothing, and cache, from a namespace whose
	// override protects pods younger than an hour (all of them): 87.5% cpu
	// that cannot move, so the pdb and protected skips carry ages and budgets
	// through both paths.
	web := harness.WorkloadSpec{Name: "web", Replicas: 6, CPU: "500m"}
	api := harness.WorkloadSpec{Name: "api", Replicas: 3, CPU: "500m"}
	cache := harness.WorkloadSpec{Namespace: young, Name: "cache", Replicas: 4, CPU: "500m"}
	before := map[string]corev1.Pod{}
	for name, p := range f.pile(web, f.nodes[0]) {
		before[f.ns+"/"+name] = p
	}
	for name, p := range f.pile(api, f.nodes[1]) {
		before[f.ns+"/"+name] = p
	}
	for name, p := range f.pile(cache, f.nodes[1]) {
		before[young+"/"+name] = p
	}
	// queue shares dryrun-0 with web, but an earlier run evicted one of its
	// pods a minute ago: the cooldown keeps it, in both paths alike.
	queue := harness.WorkloadSpec{Name: "queue", Replicas: 2, CPU: "250m"}
	for name, p := range f.pile(queue, f.nodes[0]) {
		before[f.ns+"/"+name] = p
	}
	zero := intstr.FromInt32(0)
	if _, err := cp.CreatePDB(ctx, harness.PDBSpec{Namespace: f.ns, Name: "api", Selector: api.PodLabels(), MaxUnavailable: &zero}); err != nil {
		t.Fatal(err)
	}
	pol := f.policy("limits: {perNode: 2, total: 10}\n"+balancing+`overrides:
- namespaces: [`+young+`]
  evictable: {minPodAge: 1h}
`, f.ns, young)
	// Where a CronJob keeps its state, holding what an earlier run did.
	state := f.ns + "/rebalancer-state"
	earlier := fmt.Sprintf(`[{"pod":"%[1]s/queue-gone","workload":{"kind":"Deployment","namespace":"%[1]s","name":"queue"},"from":"%[2]s","to":"%[3]s","strategy":"LowNodeUtilization","at":%[4]q}]`,
		f.ns, f.nodes[0], f.nodes[2], time.Now().Add(-time.Minute).UTC().Format(time.RFC3339))
	stateCM, err := cp.Client.CoreV1().ConfigMaps(f.ns).Create(ctx, &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "rebalancer-state", Labels: map[string]string{"app.kubernetes.io/managed-by": "rebalancer"}},
		Data:       map[string]string{"evictions.json": earlier},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}

	dry := rebalancer(t, "run", "--dry-run", "--kubeconfig", cp.Kubeconfig, "--policy", pol, "--state-configmap", state, "-o", "json")
	if dry.code != 0 {
		t.Fatalf("dry run exited %d", dry.code)
	}
	// The report names the instant it planned for; plan --now reproduces it.
	at := decode(t, dry).At
	if at.IsZero() || at.Before(dry.start.Add(-time.Second)) || at.After(dry.end) {
		t.Fatalf("the dry run planned for %s, outside its run %s–%s", at, dry.start, dry.end)
	}

	// configmaps: the dump carries the state ConfigMap, and with it the
	// cooldown, as users are told to make it.
	dump := writeFile(t, "dump.yaml", kubectl(t, "--kubeconfig", cp.Kubeconfig, "get", "nodes,pods,pdb,namespaces,deployments,replicasets,statefulsets,jobs,priorityclasses,configmaps,pv,pvc,storageclasses,csinodes", "-A", "-o", "yaml"))
	offline := rebalancer(t, "plan", "--snapshot", dump, "--policy", pol, "--now", at.Format(time.RFC3339), "-o", "json")
	if offline.code != 0 {
		t.Fatalf("plan exited %d", offline.code)
	}

	var live, planned any
	if err := json.Unmarshal([]byte(dry.stdout), &live); err != nil {
		t.Fatalf("dry run output: %v", err)
	}
	if err := json.Unmarshal([]byte(offline.stdout), &planned); err != nil {
		t.Fatalf("plan output: %v", err)
	}
	if diffs := diffJSON("", live, planned); len(diffs) > 0 {
		t.Errorf("run --dry-run and plan --snapshot --now %s disagree (dry run first, plan second):\n%s",
			at.Format(time.RFC3339Nano), strings.Join(diffs, "\n"))
	}

	// The comparison is only worth something if the plan exercises what
	// both paths must read alike.
	rep := decode(t, dry)
	if !rep.DryRun {
		t.Errorf("dry run report has dryRun=false")
	}
	if len(rep.Moves) == 0 {
		t.Errorf("the dry run plans no move; want some off %s", f.nodes[0])
	}
	for _, m := range rep.Moves {
		if m.Result != "" {
			t.Errorf("dry run move %s has result %q", m.Pod, m.Result)
		}
		if m.From != f.nodes[0] {
			t.Errorf("dry run moves %s from %s; only web on %s may move", m.Pod, m.From, f.nodes[0])
		}
	}
	cats := countBy(rep.Skipped, func(s planner.Skip) string { return string(s.Category) })
	t.Logf("plan at %s: %d moves, skipped %v", at.Format(time.RFC3339Nano), len(rep.Moves), cats)
	// perNode opens steps rather than skipping pods; the steps are part of
	// the moves compared below.
	for _, c := range []planner.Category{planner.PDBBudget, planner.Protected, planner.Cooldown} {
		if cats[string(c)] == 0 {
			t.Errorf("no %q skip in the plan (skips: %v); the fixture is meant to produce one", c, cats)
		}
	}
	for _, s := range rep.Skipped {
		if strings.HasPrefix(s.Pod, young+"/") && !strings.Contains(s.Reason, "minPodAge") {
			t.Errorf("%s skipped for %q; want its age against the override's minPodAge", s.Pod, s.Reason)
		}
	}
	if len(rep.Nodes) != len(f.nodes) {
		t.Errorf("report lists %d nodes, want the policy's %d", len(rep.Nodes), len(f.nodes))
	}

	// Nothing changed: same pods, no events, no state.
	after := map[string]corev1.Pod{}
	for name, p := range pods(t, cp, f.ns, "") {
		after[f.ns+"/"+name] = p
	}
	for name, p := range pods(t, cp, young, "") {
		after[young+"/"+name] = p
	}
	if problems := unchanged(before, after); len(problems) > 0 {
		t.Errorf("the dry run disturbed pods: %s", strings.Join(problems, "; "))
	}
	if len(after) != len(before) {
		t.Errorf("%d pods after the dry run, %d before", len(after), len(before))
	}
	for _, ns := range []string{f.ns, young} {
		evs, err := cp.Client.CoreV1().Events(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range evs.Items {
			if e.Source.Component == "rebalancer" || e.Reason == evictor.ReasonRebalanced || e.Reason == evictor.ReasonRefused {
				t.Errorf("the dry run recorded an event: %s %s on %s: %s", e.Source.Component, e.Reason, e.InvolvedObject.Name, e.Message)
			}
		}
	}
	if cm, err := cp.Client.CoreV1().ConfigMaps(f.ns).Get(ctx, "rebalancer-state", metav1.GetOptions{}); err != nil || cm.ResourceVersion != stateCM.ResourceVersion {
		t.Errorf("the dry run changed its state ConfigMap %s (get: %v)", state, err)
	}
}

// diffJSON lists the paths at which two decoded JSON documents differ.
func diffJSON(path string, a, b any) []string {
	switch a := a.(type) {
	case map[string]any:
		bm, ok := b.(map[string]any)
		if !ok {
			break
		}
		keys := map[string]bool{}
		for k := range a {
			keys[k] = true
		}
		for k := range bm {
			keys[k] = true
		}
		names := make([]string, 0, len(keys))
		for k := range keys {
			names = append(names, k)
		}
		sort.Strings(names)
		var out []string
		for _, k := range names {
			out = append(out, diffJSON(path+"."+k, a[k], bm[k])...)
		}
		return out
	case []any:
		bs, ok := b.([]any)
		if !ok {
			break
		}
		var out []string
		if len(a) != len(bs) {
			out = append(out, fmt.Sprintf("%s: %d items vs %d", path, len(a), len(bs)))
		}
		for i := range min(len(a), len(bs)) {
			out = append(out, diffJSON(fmt.Sprintf("%s[%d]", path, i), a[i], bs[i])...)
		}
		return out
	}
	if reflect.DeepEqual(a, b) {
		return nil
	}
	return []string{fmt.Sprintf("%s: %s vs %s", path, compact(a), compact(b))}
}

func compact(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

var (
	kubectlOnce sync.Once
	kubectlPath string
	kubectlErr  error
)

// kubectl runs the kubectl test/tools/deploy/build.sh builds (and caches,
// shared with test/deploy), so the dump is the one users make.
func kubectl(t *testing.T, args ...string) string {
	t.Helper()
	kubectlOnce.Do(func() {
		// A cold build compiles kubectl, helm and kustomize.
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
		defer cancel()
		var stdout, stderr bytes.Buffer
		cmd := exec.CommandContext(ctx, "bash", filepath.Join(repoRoot, "test", "tools", "deploy", "build.sh"))
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			kubectlErr = fmt.Errorf("test/tools/deploy/build.sh: %w\n%s", err, stderr.String())
			return
		}
		lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
		kubectlPath = filepath.Join(lines[len(lines)-1], "kubectl")
	})
	if kubectlErr != nil {
		t.Fatal(kubectlErr)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, kubectlPath, args...)
	// kubectl keeps a discovery cache under $HOME/.kube.
	cmd.Env = append(childEnv(), "HOME="+t.TempDir())
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.String()
}
