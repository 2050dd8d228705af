package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// on is a pod of a workload, by UID, on a node ("" for Pending).
type on struct{ uid, workload, node string }

func stateOf(pods ...on) *state {
	s := &state{}
	for _, p := range pods {
		s.pods = append(s.pods, pod{uid: types.UID(p.uid), workload: p.workload, node: p.node, obj: &corev1.Pod{}})
	}
	return s
}

// The figures of one cycle and of a whole arm, from the pods before and
// after: an eviction is a UID that is gone; a replacement landed back when
// it came to a node that lost a pod of its workload in the same cycle.
func TestCycleFigures(t *testing.T) {
	for _, tt := range []struct {
		name               string
		before, after      *state
		evicted, landed    int
		minimal            int
		wastedWhenOneCycle int
	}{{
		name:    "a pod moves from node-a to node-b",
		before:  stateOf(on{"1", "shop/web", "node-a"}, on{"2", "shop/web", "node-a"}),
		after:   stateOf(on{"1", "shop/web", "node-a"}, on{"3", "shop/web", "node-b"}),
		evicted: 1, landed: 0, minimal: 1, wastedWhenOneCycle: 0,
	}, {
		name:    "the replacement lands back on the node its pod left",
		before:  stateOf(on{"1", "shop/web", "node-a"}, on{"2", "shop/web", "node-a"}),
		after:   stateOf(on{"1", "shop/web", "node-a"}, on{"3", "shop/web", "node-a"}),
		evicted: 1, landed: 1, minimal: 0, wastedWhenOneCycle: 1,
	}, {
		name:    "a pod of another workload arriving is no landing back",
		before:  stateOf(on{"1", "shop/web", "node-a"}, on{"2", "shop/api", "node-b"}),
		after:   stateOf(on{"3", "shop/web", "node-b"}, on{"4", "shop/api", "node-a"}),
		evicted: 2, landed: 0, minimal: 2, wastedWhenOneCycle: 0,
	}, {
		name:    "the replacement cannot be placed",
		before:  stateOf(on{"1", "shop/web", "node-a"}),
		after:   stateOf(on{"2", "shop/web", ""}),
		evicted: 1, landed: 0, minimal: 1, wastedWhenOneCycle: 0,
	}} {
		t.Run(tt.name, func(t *testing.T) {
			d := diff(tt.before, tt.after)
			if d.evicted != tt.evicted || d.landedBack != tt.landed {
				t.Errorf("diff = %d evicted, %d landed back; want %d, %d", d.evicted, d.landedBack, tt.evicted, tt.landed)
			}
			if got := minimalMoves(tt.before, tt.after); got != tt.minimal {
				t.Errorf("minimalMoves = %d, want %d", got, tt.minimal)
			}
			r := result{evictions: d.evicted, minimal: minimalMoves(tt.before, tt.after)}
			if got := r.wasted(); got != tt.wastedWhenOneCycle {
				t.Errorf("wasted = %d, want %d", got, tt.wastedWhenOneCycle)
			}
		})
	}
}

// Over several cycles a pod that moves away and later back is two
// evictions for no move at all.
func TestWastedOverCycles(t *testing.T) {
	s0 := stateOf(on{"1", "shop/web", "node-a"})
	s1 := stateOf(on{"2", "shop/web", "node-b"})
	s2 := stateOf(on{"3", "shop/web", "node-a"})
	r := result{evictions: diff(s0, s1).evicted + diff(s1, s2).evicted, minimal: minimalMoves(s0, s2)}
	if r.evictions != 2 || r.minimal != 0 || r.wasted() != 2 {
		t.Errorf("evictions %d, minimal %d, wasted %d; want 2, 0, 2", r.evictions, r.minimal, r.wasted())
	}
}

func TestUntilQuiet(t *testing.T) {
	for _, tt := range []struct {
		cycles []int
		quiet  bool
		want   string
	}{
		{cycles: []int{40, 0}, quiet: true, want: "1"},
		{cycles: []int{0}, quiet: true, want: "0"},
		{cycles: []int{9, 3, 1, 1, 1}, quiet: false, want: "not in 5"},
	} {
		r := result{quiet: tt.quiet}
		for _, n := range tt.cycles {
			r.cycles = append(r.cycles, cycleDiff{evicted: n})
		}
		if got := r.untilQuiet(); got != tt.want {
			t.Errorf("cycles %v: untilQuiet = %q, want %q", tt.cycles, got, tt.want)
		}
	}
}

func node(name, zone string, taints ...corev1.Taint) corev1.Node {
	return corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{corev1.LabelTopologyZone: zone, corev1.LabelHostname: name}},
		Spec:       corev1.NodeSpec{Taints: taints},
		Status:     corev1.NodeStatus{Allocatable: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4")}},
	}
}

func webPod(uid, nodeName string, modify ...func(*corev1.Pod)) pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web-" + uid, Labels: map[string]string{workloadLabel: "web"}},
		Spec: corev1.PodSpec{NodeName: nodeName, Containers: []corev1.Container{{Name: "app", Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}}}}},
	}
	for _, m := range modify {
		m(p)
	}
	return pod{uid: types.UID(uid), workload: "shop/web", node: nodeName, obj: p}
}

// The balance figures of three nodes in two zones, one tainted.
func TestMeasureBalance(t *testing.T) {
	spread := func(p *corev1.Pod) {
		p.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: corev1.LabelTopologyZone,
			WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{workloadLabel: "web"}}}}
	}
	s := &state{
		nodes: []corev1.Node{
			node("node-a", "zone-a"),
			node("node-b", "zone-a", corev1.Taint{Key: "dedicated", Value: "infra", Effect: corev1.TaintEffectNoSchedule}),
			node("node-c", "zone-b"),
		},
		pods: []pod{webPod("1", "node-a", spread), webPod("2", "node-a", spread), webPod("3", "node-b", spread), webPod("4", "", spread)},
	}
	b := measureBalance(s)
	want := balance{cpuMax: 50, cpuMin: 0, empty: 1, skew: 3, violations: 1, pending: 1}
	if b.cpuMax != want.cpuMax || b.cpuMin != want.cpuMin || b.empty != want.empty || b.skew != want.skew ||
		b.violations != want.violations || b.pending != want.pending {
		t.Errorf("measureBalance = %+v, want %+v", b, want)
	}
	if b.cpuStdDev < 20.4 || b.cpuStdDev > 20.5 {
		t.Errorf("CPU standard deviation %.2f, want 20.41 (of 50, 25 and 0)", b.cpuStdDev)
	}
}

func TestPDBRefusals(t *testing.T) {
	log := filepath.Join(t.TempDir(), "audit.log")
	lines := []string{
		`{"stage":"ResponseComplete","objectRef":{"resource":"pods","subresource":"eviction"},"responseStatus":{"code":201}}`,
		`{"stage":"ResponseComplete","objectRef":{"resource":"pods","subresource":"eviction"},"responseStatus":{"code":429}}`,
		`{"stage":"ResponseStarted","objectRef":{"resource":"pods","subresource":"eviction"},"responseStatus":{"code":429}}`,
		`{"stage":"ResponseComplete","objectRef":{"resource":"pods","subresource":"eviction"},"responseStatus":{"code":429}}`,
	}
	if err := os.WriteFile(log, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if n, err := pdbRefusals(log); err != nil || n != 2 {
		t.Errorf("pdbRefusals = %d, %v; want 2", n, err)
	}
}

// Every scenario's DeschedulerPolicy is one `rebalancer convert` accepts:
// both tools run the same strategies with the same arguments.
func TestPoliciesConvert(t *testing.T) {
	bin := buildRebalancer(t)
	for _, sc := range append(scenarios(), binPacking(6)) {
		for _, nodeFit := range []bool{false, true} {
			f := filepath.Join(t.TempDir(), "policy.yaml")
			if err := os.WriteFile(f, []byte(deschedulerPolicy(sc, nodeFit)), 0o644); err != nil {
				t.Fatal(err)
			}
			if out, err := exec.Command(bin, "convert", f).CombinedOutput(); err != nil {
				t.Errorf("%s, nodeFit %v: rebalancer convert: %v\n%s", sc.key, nodeFit, err, out)
			}
		}
	}
}

// The smoke run `make test` makes: bin-packing on six nodes, rebalancer
// with its extender, on a control plane of its own. What the issue asks
// of rebalancer there holds: no wasted eviction, nothing Pending, quiet
// after one cycle.
func TestSmokeBinPackingSteered(t *testing.T) {
	bin := buildRebalancer(t)
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()
	cfg := config{rebalancer: bin, cycles: 3, settle: time.Minute, toolTimeout: 2 * time.Minute, out: t.TempDir(), logf: t.Logf}
	steered, _ := armByKey("steered")
	r, err := runArm(ctx, cfg, binPacking(6), steered)
	if err != nil {
		t.Fatal(err)
	}
	if r.evictions == 0 {
		t.Fatalf("rebalancer evicted nothing: the scenario has three nodes under 25%% and three above")
	}
	if r.wasted() != 0 || r.landedBack != 0 {
		t.Errorf("%d wasted evictions, %d replacements landed back; want none", r.wasted(), r.landedBack)
	}
	if r.after.pending != 0 {
		t.Errorf("%d pods Pending at the end", r.after.pending)
	}
	if got := r.untilQuiet(); got != "1" {
		t.Errorf("cycles until quiet: %s, want 1 (evictions by cycle %v)", got, r.cycles)
	}
}

// rebalancerBin is built once for the package's tests, the way a user
// builds it, from the module root.
var rebalancerBin = sync.OnceValues(func() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp("", "rebalancer-outcome-test-")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "rebalancer")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/rebalancer")
	cmd.Dir = filepath.Dir(strings.TrimSpace(string(out)))
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./cmd/rebalancer: %w\n%s", err, out)
	}
	return bin, nil
})

func TestMain(m *testing.M) {
	code := m.Run()
	if bin, err := rebalancerBin(); err == nil {
		_ = os.RemoveAll(filepath.Dir(bin))
	}
	os.Exit(code)
}

func buildRebalancer(t *testing.T) string {
	t.Helper()
	bin, err := rebalancerBin()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// One before row when every arm started alike; one more for an arm whose
// cluster kube-scheduler placed otherwise.
func TestPrintScenarioBeforeRows(t *testing.T) {
	sc := scenario{title: "a taint added to nodes"}
	alike := balance{violations: 9}
	for _, tt := range []struct {
		name   string
		before []balance
		want   []string
	}{
		{name: "every arm alike", before: []balance{alike, alike}, want: []string{"| (before) |"}},
		{name: "the second otherwise", before: []balance{alike, {violations: 11}}, want: []string{"| (before) |", "| (before, descheduler nodeFit) |"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var rs []result
			for i, b := range tt.before {
				rs = append(rs, result{arm: arms[i], before: b, quiet: true})
			}
			var out strings.Builder
			printScenario(&out, sc, rs)
			var got []string
			for _, l := range strings.Split(out.String(), "\n") {
				if strings.HasPrefix(l, "| (before") {
					got = append(got, l[:strings.Index(l, ") |")+3])
				}
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("before rows %q, want %q\n%s", got, tt.want, out.String())
			}
		})
	}
}
