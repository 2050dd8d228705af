package extenderclient

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/types"
	configv1 "k8s.io/kube-scheduler/config/v1"
	extenderv1 "k8s.io/kube-scheduler/extender/v1"

	"github.com/kube-rebalancer/rebalancer/cluster"
	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
	"github.com/kube-rebalancer/rebalancer/scheduler/engine"
	"github.com/kube-rebalancer/rebalancer/scheduler/preemption"
)

// preemptServer is an extender's preemptVerb: it keeps the node keep,
// with the victims it was sent there, and records each request.
type preemptServer struct {
	keep   string
	status int

	mu       sync.Mutex
	requests []preemptRequest
}

type preemptRequest struct {
	method, path, contentType string
	args                      extenderv1.ExtenderPreemptionArgs
}

func (s *preemptServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	req := preemptRequest{method: r.Method, path: r.URL.Path, contentType: r.Header.Get("Content-Type")}
	if err := json.NewDecoder(r.Body).Decode(&req.args); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	s.requests = append(s.requests, req)
	s.mu.Unlock()
	if s.status != 0 {
		w.WriteHeader(s.status)
		return
	}
	kept := &extenderv1.MetaVictims{NumPDBViolations: 0}
	if mv := req.args.NodeNameToMetaVictims[s.keep]; mv != nil {
		kept.Pods = mv.Pods
	}
	if v := req.args.NodeNameToVictims[s.keep]; v != nil {
		for _, p := range v.Pods {
			kept.Pods = append(kept.Pods, &extenderv1.MetaPod{UID: string(p.UID)})
		}
	}
	_ = json.NewEncoder(w).Encode(extenderv1.ExtenderPreemptionResult{NodeNameToMetaVictims: map[string]*extenderv1.MetaVictims{s.keep: kept}})
}

func (s *preemptServer) sent() []preemptRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

// fullNodes is a cluster of two full 4-CPU nodes, each running one pod of
// priority 1, and the pending pod default/incoming of priority 100 that
// needs 2 CPUs: preemption could take either node, and takes a when left
// alone.
func fullNodes(t *testing.T) (*cluster.Snapshot, *cluster.Pod) {
	t.Helper()
	snap := ct.Snapshot(t, ct.Node("a").CPU("4"), ct.Node("b").CPU("4"),
		ct.Pod("default", "a-low").On("a").Priority(1).Requests("4", "1Gi"),
		ct.Pod("default", "b-low").On("b").Priority(1).Requests("4", "1Gi"),
		ct.Pod("default", "incoming").Pending().Priority(100).Requests("2", "1Gi"))
	return snap, snap.Pod("default/incoming")
}

func TestProcessPreemptionRequest(t *testing.T) {
	for _, cacheCapable := range []bool{false, true} {
		s := &preemptServer{keep: "b"}
		c, err := New(serve(t, s, configv1.Extender{PreemptVerb: "preempt", NodeCacheCapable: cacheCapable}))
		if err != nil {
			t.Fatal(err)
		}
		snap, pod := fullNodes(t)
		got, err := c.ProcessPreemption(pod, map[string]engine.Victims{
			"a": {Pods: []*cluster.Pod{snap.Pod("default/a-low")}},
			"b": {Pods: []*cluster.Pod{snap.Pod("default/b-low")}, PDBViolations: 1},
		})
		if err != nil {
			t.Fatalf("nodeCacheCapable %v: %v", cacheCapable, err)
		}
		want := map[string]engine.MetaVictims{"b": {UIDs: []types.UID{"default/b-low"}}}
		if len(got) != 1 || !slices.Equal(got["b"].UIDs, want["b"].UIDs) || got["b"].PDBViolations != 0 {
			t.Errorf("nodeCacheCapable %v: decoded %+v; want %+v", cacheCapable, got, want)
		}
		reqs := s.sent()
		if len(reqs) != 1 {
			t.Fatalf("nodeCacheCapable %v: %d requests; want 1", cacheCapable, len(reqs))
		}
		r := reqs[0]
		if r.method != http.MethodPost || r.path != "/scheduler/preempt" || r.contentType != "application/json" {
			t.Errorf("nodeCacheCapable %v: %s %s (%s); want POST /scheduler/preempt (application/json)", cacheCapable, r.method, r.path, r.contentType)
		}
		if r.args.Pod == nil || r.args.Pod.Name != "incoming" {
			t.Errorf("nodeCacheCapable %v: the pod was not sent: %+v", cacheCapable, r.args.Pod)
		}
		if cacheCapable {
			b := r.args.NodeNameToMetaVictims["b"]
			if r.args.NodeNameToVictims != nil || len(r.args.NodeNameToMetaVictims) != 2 || b == nil ||
				len(b.Pods) != 1 || b.Pods[0].UID != "default/b-low" || b.NumPDBViolations != 1 {
				t.Errorf("nodeCacheCapable: sent victims %+v and meta victims %+v; want b's victim by UID with 1 PDB violation, and no pods", r.args.NodeNameToVictims, r.args.NodeNameToMetaVictims)
			}
			continue
		}
		b := r.args.NodeNameToVictims["b"]
		if r.args.NodeNameToMetaVictims != nil || len(r.args.NodeNameToVictims) != 2 || b == nil || len(b.Pods) != 1 ||
			b.Pods[0].Name != "b-low" || b.Pods[0].Spec.NodeName != "b" || b.Pods[0].Spec.Containers[0].Resources.Requests.Cpu().String() != "4" || b.NumPDBViolations != 1 {
			t.Errorf("not nodeCacheCapable: sent meta victims %+v and victims %+v; want b's whole pod with 1 PDB violation", r.args.NodeNameToMetaVictims, r.args.NodeNameToVictims)
		}
	}
}

// Engine.Preempt asks an extender with a preemptVerb over HTTP, as
// kube-scheduler does, and nominates the node it keeps.
func TestPreemptCallsThePreemptVerb(t *testing.T) {
	tests := []struct {
		name   string
		cfg    configv1.Extender
		status int
		// wantCalls is how often the extender was called.
		wantCalls         int
		wantNode, wantErr string
		wantVictims       []string
	}{
		{name: "the extender's choice is the nomination", cfg: configv1.Extender{PreemptVerb: "preempt", NodeCacheCapable: true},
			wantCalls: 1, wantNode: "b", wantVictims: []string{"default/b-low"}},
		{name: "so it is when the extender is sent whole pods", cfg: configv1.Extender{PreemptVerb: "preempt"},
			wantCalls: 1, wantNode: "b", wantVictims: []string{"default/b-low"}},
		{name: "an extender without a preemptVerb is not asked", cfg: configv1.Extender{FilterVerb: "filter"},
			wantNode: "a", wantVictims: []string{"default/a-low"}},
		{name: "an ignorable extender that fails is skipped", cfg: configv1.Extender{PreemptVerb: "preempt", Ignorable: true}, status: http.StatusInternalServerError,
			wantCalls: 1, wantNode: "a", wantVictims: []string{"default/a-low"}},
		{name: "another extender that fails ends preemption", cfg: configv1.Extender{PreemptVerb: "preempt"}, status: http.StatusInternalServerError,
			wantCalls: 1, wantErr: "failed preempt with extender at URL {url}/preempt, code 500"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &preemptServer{keep: "b", status: tt.status}
			cfg := serve(t, s, tt.cfg)
			snap, pod := fullNodes(t)
			e := engineWith(t, cfg)
			failed := e.Schedule(snap, pod, engine.Options{})
			got := preemption.Decide(e, snap, pod, failed)
			var victims []string
			for _, v := range got.Victims {
				victims = append(victims, v.Key)
			}
			wantErr := strings.ReplaceAll(tt.wantErr, "{url}", cfg.URLPrefix)
			if got.Node != tt.wantNode || !slices.Equal(victims, tt.wantVictims) || got.Error != wantErr {
				t.Errorf("Preempt: node %q, victims %v, error %q; want %q, %v, %q", got.Node, victims, got.Error, tt.wantNode, tt.wantVictims, wantErr)
			}
			if calls := len(s.sent()); calls != tt.wantCalls {
				t.Errorf("the preemptVerb was called %d times; want %d", calls, tt.wantCalls)
			}
		})
	}
}
