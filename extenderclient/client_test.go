package extenderclient

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	configv1 "k8s.io/kube-scheduler/config/v1"
	extenderv1 "k8s.io/kube-scheduler/extender/v1"

	"github.com/kube-rebalancer/rebalancer/cluster"
	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
	"github.com/kube-rebalancer/rebalancer/scheduler/engine"
	"github.com/kube-rebalancer/rebalancer/scheduler/profile"
)

// fakeExtender is an extender's HTTP server: its filter passes the nodes
// in allow and fails the others with reason; its prioritize gives scores.
type fakeExtender struct {
	allow  []string
	reason string
	// unresolvable fails nodes as FailedAndUnresolvable instead.
	unresolvable bool
	scores       map[string]int64
	// status, when set, is the answer to every call; errorText is put in
	// the filter's and bind's Error.
	status    int
	errorText string

	mu    sync.Mutex
	calls []string
	args  []extenderv1.ExtenderArgs
	binds []extenderv1.ExtenderBindingArgs
}

func (f *fakeExtender) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	verb := r.URL.Path[strings.LastIndex(r.URL.Path, "/")+1:]
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, verb)
	if f.status != 0 {
		w.WriteHeader(f.status)
		return
	}
	if verb == "bind" {
		var b extenderv1.ExtenderBindingArgs
		_ = json.NewDecoder(r.Body).Decode(&b)
		f.binds = append(f.binds, b)
		_ = json.NewEncoder(w).Encode(extenderv1.ExtenderBindingResult{Error: f.errorText})
		return
	}
	var a extenderv1.ExtenderArgs
	if err := json.NewDecoder(r.Body).Decode(&a); err != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	f.args = append(f.args, a)
	names := slices.Clone(ptrOr(a.NodeNames))
	if a.Nodes != nil {
		for _, n := range a.Nodes.Items {
			names = append(names, n.Name)
		}
	}
	switch verb {
	case "filter":
		res := extenderv1.ExtenderFilterResult{Error: f.errorText, FailedNodes: map[string]string{}, FailedAndUnresolvableNodes: map[string]string{}}
		var passed []string
		for _, n := range names {
			switch {
			case slices.Contains(f.allow, n):
				passed = append(passed, n)
			case f.unresolvable:
				res.FailedAndUnresolvableNodes[n] = f.reason
			default:
				res.FailedNodes[n] = f.reason
			}
		}
		if a.NodeNames != nil {
			res.NodeNames = &passed
		} else {
			res.Nodes = &corev1.NodeList{}
			for _, n := range passed {
				res.Nodes.Items = append(res.Nodes.Items, corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: n}})
			}
		}
		_ = json.NewEncoder(w).Encode(res)
	case "prioritize":
		var list extenderv1.HostPriorityList
		for _, n := range names {
			list = append(list, extenderv1.HostPriority{Host: n, Score: f.scores[n]})
		}
		_ = json.NewEncoder(w).Encode(list)
	}
}

func ptrOr(p *[]string) []string {
	if p == nil {
		return nil
	}
	return *p
}

func (f *fakeExtender) called() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.calls)
}

// serve starts f and returns its configuration with the given verbs.
func serve(t *testing.T, f http.Handler, cfg configv1.Extender) configv1.Extender {
	t.Helper()
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	cfg.URLPrefix = srv.URL + "/scheduler"
	if cfg.HTTPTimeout.Duration == 0 {
		cfg.HTTPTimeout.Duration = 5 * time.Second
	}
	return cfg
}

// threeNodes is a cluster of three equal nodes a, b and c, and the
// pending pod default/incoming, which fits on each.
func threeNodes(t *testing.T, pod corev1.Pod) (*cluster.Snapshot, *cluster.Pod) {
	t.Helper()
	var nodes []corev1.Node
	for _, n := range []string{"a", "b", "c"} {
		nodes = append(nodes, ct.Node(n).CPU("4").Memory("8Gi").Allocatable("example.com/gpu", "1").Obj())
	}
	snap, err := cluster.New(cluster.Objects{Nodes: nodes, Pods: []corev1.Pod{pod}}, ct.Now)
	if err != nil {
		t.Fatal(err)
	}
	return snap, snap.Pod("default/incoming")
}

func incoming() *ct.PodBuilder { return ct.Pod("default", "incoming").Pending().Requests("1", "1Gi") }

// engineWith returns the default profile's engine calling cfgs.
func engineWith(t *testing.T, cfgs ...configv1.Extender) *engine.Engine {
	t.Helper()
	e, err := engine.New(profile.DefaultProfile())
	if err != nil {
		t.Fatal(err)
	}
	cs, err := NewAll(cfgs)
	if err != nil {
		t.Fatal(err)
	}
	e.SetExtenders(Extenders(cs))
	return e
}

func TestFilterKeepsTheNodesTheExtenderAllows(t *testing.T) {
	f := &fakeExtender{allow: []string{"b"}, reason: "no GPU left"}
	cfg := serve(t, f, configv1.Extender{FilterVerb: "filter"})
	snap, pod := threeNodes(t, incoming().Obj())
	res := engineWith(t, cfg).Schedule(snap, pod, engine.Options{Explain: true})
	if res.Node != "b" || res.Feasible != 1 {
		t.Fatalf("got node %q (%d feasible); want b, the only node the extender allows", res.Node, res.Feasible)
	}
	// place names the extender that turned a node down.
	by := `extender "` + cfg.URLPrefix + `"`
	if n := res.Nodes[0]; n.Name != "a" || n.Feasible || n.Plugin != by || n.Reason != "no GPU left" {
		t.Errorf("node a: %+v; want turned down by %s: no GPU left", n, by)
	}
}

func TestFilterReasonsMakeTheMessage(t *testing.T) {
	for _, unresolvable := range []bool{false, true} {
		f := &fakeExtender{reason: "no GPU left", unresolvable: unresolvable}
		cfg := serve(t, f, configv1.Extender{FilterVerb: "filter"})
		snap, pod := threeNodes(t, incoming().Obj())
		res := engineWith(t, cfg).Schedule(snap, pod, engine.Options{})
		if want := "0/3 nodes are available: 3 no GPU left."; res.Node != "" || res.Message != want || res.Error != "" {
			t.Errorf("unresolvable %v: got %q, %q (error %q); want %q", unresolvable, res.Node, res.Message, res.Error, want)
		}
	}
}

func TestExtendersFilterInTurn(t *testing.T) {
	first := &fakeExtender{allow: []string{"a", "b"}, reason: "first says no"}
	second := &fakeExtender{allow: []string{"a", "c"}, reason: "second says no"}
	c1 := serve(t, first, configv1.Extender{FilterVerb: "filter", NodeCacheCapable: true})
	c2 := serve(t, second, configv1.Extender{FilterVerb: "filter", NodeCacheCapable: true})
	snap, pod := threeNodes(t, incoming().Obj())
	res := engineWith(t, c1, c2).Schedule(snap, pod, engine.Options{})
	if res.Node != "a" {
		t.Fatalf("got %q; want a, the only node both allow", res.Node)
	}
	if got := *second.args[0].NodeNames; !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("the second extender saw %v; want the first one's survivors [a b]", got)
	}
}

func TestPrioritizeScoresAreScaledAndWeighted(t *testing.T) {
	f := &fakeExtender{scores: map[string]int64{"c": 10, "a": 3}}
	cfg := serve(t, f, configv1.Extender{PrioritizeVerb: "prioritize", Weight: 2})
	snap, pod := threeNodes(t, incoming().Obj())
	plain := engineWith(t).Schedule(snap, pod, engine.Options{Explain: true})
	res := engineWith(t, cfg).Schedule(snap, pod, engine.Options{Explain: true})
	if res.Node != "c" {
		t.Fatalf("got %q; want c, the extender's favourite", res.Node)
	}
	// score × weight × (100/10) is added to the plugins' total.
	for i, want := range []int64{3 * 2 * 10, 0, 10 * 2 * 10} {
		if got := res.Nodes[i].Score - plain.Nodes[i].Score; got != want {
			t.Errorf("node %s: the extender added %d; want %d", res.Nodes[i].Name, got, want)
		}
	}
	if got := res.Nodes[2].Scores[`extender "`+cfg.URLPrefix+`"`]; got != 100 {
		t.Errorf("node c's extender score %d; want 100 (10 scaled to 0..100, before the weight)", got)
	}
}

func TestExtenderErrors(t *testing.T) {
	tests := []struct {
		name      string
		ext       *fakeExtender
		ignorable bool
		// wantNode is the decision; wantError its error when it fails.
		wantNode, wantError string
	}{
		{name: "an ignorable extender's failure is skipped", ext: &fakeExtender{status: http.StatusInternalServerError}, ignorable: true, wantNode: "a"},
		{name: "an ignorable extender's error is skipped", ext: &fakeExtender{errorText: "quota service down"}, ignorable: true, wantNode: "a"},
		{name: "another extender's failure fails the decision", ext: &fakeExtender{status: http.StatusInternalServerError},
			wantError: "failed filter with extender at URL {url}/filter, code 500"},
		{name: "another extender's error fails the decision", ext: &fakeExtender{errorText: "quota service down"},
			wantError: "quota service down"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := serve(t, tt.ext, configv1.Extender{FilterVerb: "filter", Ignorable: tt.ignorable})
			snap, pod := threeNodes(t, incoming().Obj())
			res := engineWith(t, cfg).Schedule(snap, pod, engine.Options{})
			wantError := strings.ReplaceAll(tt.wantError, "{url}", cfg.URLPrefix)
			if res.Node != tt.wantNode || res.Error != wantError || (wantError != "" && res.Message != wantError) {
				t.Errorf("got node %q, error %q, message %q; want node %q, error %q", res.Node, res.Error, res.Message, tt.wantNode, wantError)
			}
		})
	}
}

func TestIgnorableExtendersRunLast(t *testing.T) {
	ignorable := &fakeExtender{allow: []string{"b"}, reason: "ignorable says no"}
	strict := &fakeExtender{allow: []string{"a", "b"}, reason: "strict says no"}
	ci := serve(t, ignorable, configv1.Extender{FilterVerb: "filter", NodeCacheCapable: true, Ignorable: true})
	cs := serve(t, strict, configv1.Extender{FilterVerb: "filter", NodeCacheCapable: true})
	snap, pod := threeNodes(t, incoming().Obj())
	if res := engineWith(t, ci, cs).Schedule(snap, pod, engine.Options{}); res.Node != "b" {
		t.Fatalf("got %q; want b", res.Node)
	}
	if got := *ignorable.args[0].NodeNames; !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("the ignorable extender saw %v; want [a b], what the other one left", got)
	}
}

func TestManagedResourcesSelectThePods(t *testing.T) {
	tests := []struct {
		name       string
		pod        corev1.Pod
		wantCalled bool
	}{
		{"a pod without the resource is not sent", incoming().Obj(), false},
		{"a pod that requests it is", incoming().Request("example.com/gpu", "1").Obj(), true},
		{"a pod that only limits it is", limitGPU(incoming().Obj()), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeExtender{allow: []string{"c"}, scores: map[string]int64{"c": 10}}
			cfg := serve(t, f, configv1.Extender{FilterVerb: "filter", PrioritizeVerb: "prioritize", Weight: 1,
				ManagedResources: []configv1.ExtenderManagedResource{{Name: "example.com/gpu"}}})
			snap, pod := threeNodes(t, tt.pod)
			res := engineWith(t, cfg).Schedule(snap, pod, engine.Options{})
			if called := len(f.called()) > 0; called != tt.wantCalled {
				t.Errorf("extender called %v (%v); want %v", called, f.called(), tt.wantCalled)
			}
			if tt.wantCalled && res.Node != "c" {
				t.Errorf("got %q; want c", res.Node)
			}
		})
	}
}

// limitGPU gives the pod's container a limit of one example.com/gpu, and
// no request of it.
func limitGPU(p corev1.Pod) corev1.Pod {
	p = *p.DeepCopy()
	p.Spec.Containers[0].Resources.Limits = corev1.ResourceList{"example.com/gpu": resource.MustParse("1")}
	return p
}

func TestNodeCacheCapableSendsNamesOnly(t *testing.T) {
	for _, cacheCapable := range []bool{false, true} {
		f := &fakeExtender{allow: []string{"a", "b", "c"}}
		cfg := serve(t, f, configv1.Extender{FilterVerb: "filter", NodeCacheCapable: cacheCapable})
		snap, pod := threeNodes(t, incoming().Obj())
		engineWith(t, cfg).Schedule(snap, pod, engine.Options{})
		a := f.args[0]
		if a.Pod == nil || a.Pod.Name != "incoming" {
			t.Fatalf("nodeCacheCapable %v: the pod was not sent: %+v", cacheCapable, a.Pod)
		}
		if cacheCapable {
			if a.Nodes != nil || a.NodeNames == nil || !slices.Equal(*a.NodeNames, []string{"a", "b", "c"}) {
				t.Errorf("nodeCacheCapable: sent nodes %v and names %v; want the names only", a.Nodes, a.NodeNames)
			}
			continue
		}
		if a.NodeNames != nil || a.Nodes == nil || len(a.Nodes.Items) != 3 || a.Nodes.Items[0].Status.Allocatable.Cpu().String() != "4" {
			t.Errorf("not nodeCacheCapable: sent names %v and nodes %+v; want the full nodes", a.NodeNames, a.Nodes)
		}
	}
}

func TestBinder(t *testing.T) {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web", UID: "uid-1"}}
	gpuPod := limitGPU(ct.Pod("default", "trainer").Obj())
	tests := []struct {
		name      string
		cfg       configv1.Extender
		ext       *fakeExtender
		pod       *corev1.Pod
		wantBound bool
		wantErr   string
	}{
		{name: "the extender binds", cfg: configv1.Extender{BindVerb: "bind"}, pod: pod, wantBound: true},
		{name: "its error is the binding's", cfg: configv1.Extender{BindVerb: "bind"}, ext: &fakeExtender{errorText: "node is full"}, pod: pod, wantBound: true, wantErr: "node is full"},
		{name: "an ignorable extender's error leaves the pod to the Binding API", cfg: configv1.Extender{BindVerb: "bind", Ignorable: true}, ext: &fakeExtender{errorText: "node is full"}, pod: pod},
		{name: "a pod without its managed resources is left to the Binding API", cfg: configv1.Extender{BindVerb: "bind",
			ManagedResources: []configv1.ExtenderManagedResource{{Name: "example.com/gpu"}}}, pod: pod},
		{name: "a pod with them is bound by it", cfg: configv1.Extender{BindVerb: "bind",
			ManagedResources: []configv1.ExtenderManagedResource{{Name: "example.com/gpu"}}}, pod: &gpuPod, wantBound: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ext := tt.ext
			if ext == nil {
				ext = &fakeExtender{}
			}
			cs, err := NewAll([]configv1.Extender{serve(t, ext, tt.cfg)})
			if err != nil {
				t.Fatal(err)
			}
			bound, err := Binder(cs)(context.Background(), tt.pod, "node-2")
			if bound != tt.wantBound || errText(err) != tt.wantErr {
				t.Fatalf("got %v, %v; want %v, %q", bound, err, tt.wantBound, tt.wantErr)
			}
			if len(ext.binds) > 0 {
				b := ext.binds[0]
				if b.PodName != tt.pod.Name || b.PodNamespace != tt.pod.Namespace || b.PodUID != tt.pod.UID || b.Node != "node-2" {
					t.Errorf("bind call %+v", b)
				}
			} else if tt.wantBound {
				t.Error("the extender was not called")
			}
		})
	}
	if Binder(nil) != nil {
		t.Error("a Binder without a binding extender; want nil, so that the Binding API binds")
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestFitsAsksTheExtenders(t *testing.T) {
	f := &fakeExtender{allow: []string{"b"}, reason: "no GPU left"}
	cfg := serve(t, f, configv1.Extender{FilterVerb: "filter", NodeCacheCapable: true})
	snap, pod := threeNodes(t, incoming().Obj())
	e := engineWith(t, cfg)
	if ok, why := e.Fits(snap, pod, snap.Node("b")); !ok {
		t.Errorf("node b: %s; want it to fit, as the extender allows it", why)
	}
	want := `extender "` + cfg.URLPrefix + `": no GPU left`
	if ok, why := e.Fits(snap, pod, snap.Node("a")); ok || why != want {
		t.Errorf("node a: fits %v, %q; want %q", ok, why, want)
	}
	if got := *f.args[len(f.args)-1].NodeNames; !slices.Equal(got, []string{"a"}) {
		t.Errorf("the extender was asked about %v; want only the node in question", got)
	}
}

func TestTheExtenderIsSentAPendingPod(t *testing.T) {
	f := &fakeExtender{allow: []string{"a", "b", "c"}}
	cfg := serve(t, f, configv1.Extender{FilterVerb: "filter", NodeCacheCapable: true})
	// The planner asks where a running pod's replacement would go.
	snap, _ := threeNodes(t, incoming().On("a").Phase(corev1.PodRunning).Obj())
	pod := snap.Pod("default/incoming")
	snap.Remove(pod)
	engineWith(t, cfg).Schedule(snap, pod, engine.Options{})
	if got := f.args[0].Pod.Spec.NodeName; got != "" || pod.Spec.NodeName != "a" {
		t.Errorf("the extender was sent a pod on %q (the snapshot's is on %q); want it unbound, as the replacement is", got, pod.Spec.NodeName)
	}
}
