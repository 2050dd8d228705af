package extender

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	extenderv1 "k8s.io/kube-scheduler/extender/v1"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/kube-rebalancer/rebalancer/cluster"
)

var (
	now = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	web = cluster.Workload{Kind: "Deployment", Namespace: "shop", Name: "web"}
)

// replacement is a pending pod of shop/web's ReplicaSet.
func replacement(name string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name, UID: types.UID("uid-" + name),
		OwnerReferences: []metav1.OwnerReference{{Kind: "ReplicaSet", Name: "web-7d9f8", Controller: ptr(true)}}}}
}

func ptr[T any](v T) *T { return &v }

// testServer steers the replacements of two evictions of shop/web: to
// node-c (the older) and node-d.
func testServer() *Server {
	in := NewIntents(10 * time.Minute)
	in.Set([]cluster.Eviction{
		{Pod: "shop/web-7d9f8-aaaaa", Workload: web, From: "node-a", To: "node-c", At: now.Add(-2 * time.Minute)},
		{Pod: "shop/web-7d9f8-bbbbb", Workload: web, From: "node-a", To: "node-d", At: now.Add(-time.Minute)},
		{Pod: "shop/bare", From: "node-a", To: "node-c", At: now}, // a bare pod has no replacement
	}, now)
	return &Server{Intents: in, Metrics: NewMetrics(), Now: func() time.Time { return now },
		Workload: func(p *corev1.Pod) cluster.Workload {
			return cluster.WorkloadOfPod(p, func(string, string) *metav1.OwnerReference {
				return &metav1.OwnerReference{Kind: "Deployment", Name: "web"}
			})
		}}
}

func call(t *testing.T, h http.Handler, path string, body any) *httptest.ResponseRecorder {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, path, bytes.NewReader(b)))
	return rec
}

func TestFilter(t *testing.T) {
	other := replacement("x")
	other.OwnerReferences = nil // a bare pod rebalancer did not move
	tests := []struct {
		name         string
		pod          *corev1.Pod
		candidates   []string
		wantNodes    []string
		wantFailed   []string
		wantSteered  float64
		wantDeclined float64
	}{
		{name: "a pod rebalancer did not move passes unchanged", pod: other,
			candidates: []string{"node-a", "node-b", "node-c"}, wantNodes: []string{"node-a", "node-b", "node-c"}},
		{name: "the first replacement goes to the older intent's node", pod: replacement("web-7d9f8-new01"),
			candidates: []string{"node-a", "node-b", "node-c", "node-d"}, wantNodes: []string{"node-c"},
			wantFailed: []string{"node-a", "node-b", "node-d"}, wantSteered: 1},
		{name: "a replacement whose planned node is not feasible passes unchanged", pod: replacement("web-7d9f8-new01"),
			candidates: []string{"node-a", "node-b"}, wantNodes: []string{"node-a", "node-b"}, wantDeclined: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := testServer()
			rec := call(t, s.Handler(), FilterPath, extenderv1.ExtenderArgs{Pod: tt.pod, NodeNames: &tt.candidates})
			if rec.Code != http.StatusOK {
				t.Fatalf("status %d: %s", rec.Code, rec.Body)
			}
			var res extenderv1.ExtenderFilterResult
			if err := json.Unmarshal(rec.Body.Bytes(), &res); err != nil {
				t.Fatal(err)
			}
			if res.NodeNames == nil || !reflect.DeepEqual(*res.NodeNames, tt.wantNodes) {
				t.Errorf("nodes %v, want %v", res.NodeNames, tt.wantNodes)
			}
			var failed []string
			for _, n := range tt.candidates {
				if why, ok := res.FailedNodes[n]; ok {
					failed = append(failed, n)
					if why == "" {
						t.Errorf("node %s failed without a reason", n)
					}
				}
			}
			if !reflect.DeepEqual(failed, tt.wantFailed) {
				t.Errorf("failed nodes %v, want %v", failed, tt.wantFailed)
			}
			if got := testutil.ToFloat64(s.Metrics.steered); got != tt.wantSteered {
				t.Errorf("steered %v, want %v", got, tt.wantSteered)
			}
			if got := testutil.ToFloat64(s.Metrics.declined.WithLabelValues(declinedInfeasible)); got != tt.wantDeclined {
				t.Errorf("declined %v, want %v", got, tt.wantDeclined)
			}
		})
	}
}

// Each replacement claims its own intent, the oldest unclaimed first, and
// keeps it for every later call: filter and prioritize agree, and so does a
// retry after a failed binding.
func TestReplacementsClaimTheirOwnIntents(t *testing.T) {
	s := testServer()
	h := s.Handler()
	nodes := []string{"node-a", "node-b", "node-c", "node-d"}
	want := map[string]string{"web-7d9f8-new01": "node-c", "web-7d9f8-new02": "node-d", "web-7d9f8-new03": ""}
	for _, name := range []string{"web-7d9f8-new01", "web-7d9f8-new02", "web-7d9f8-new03", "web-7d9f8-new01"} {
		var prio extenderv1.HostPriorityList
		rec := call(t, h, PrioritizePath, extenderv1.ExtenderArgs{Pod: replacement(name), NodeNames: &nodes})
		if err := json.Unmarshal(rec.Body.Bytes(), &prio); err != nil {
			t.Fatal(err)
		}
		top := ""
		for _, hp := range prio {
			switch hp.Score {
			case extenderv1.MaxExtenderPriority:
				top = hp.Host
			case 0:
			default:
				t.Errorf("%s: %s scored %d, want 0 or %d", name, hp.Host, hp.Score, extenderv1.MaxExtenderPriority)
			}
		}
		if len(prio) != len(nodes) || top != want[name] {
			t.Errorf("%s: scores %v; want %q on top, the rest 0", name, prio, want[name])
		}
	}
	// Past the hand-off's lifetime nothing is steered.
	s.Now = func() time.Time { return now.Add(time.Hour) }
	if e, ok, _ := s.planned(replacement("web-7d9f8-new01")); ok {
		t.Errorf("an hour later the replacement is still steered to %s", e.To)
	}
}

// Intents gone from the state (retracted by the run, expired) free their
// claims; the state not read yet makes the extender unready, never slow.
func TestIntentsFollowTheState(t *testing.T) {
	s := &Server{Intents: NewIntents(10 * time.Minute), Metrics: NewMetrics(), Now: func() time.Time { return now },
		Workload: func(*corev1.Pod) cluster.Workload { return web }}
	h := s.Handler()
	ready := func() int {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/readyz", nil))
		return rec.Code
	}
	if code := ready(); code != http.StatusServiceUnavailable {
		t.Errorf("/readyz before the state was read: %d, want 503", code)
	}
	nodes := []string{"node-a", "node-c"}
	if rec := call(t, h, FilterPath, extenderv1.ExtenderArgs{Pod: replacement("p"), NodeNames: &nodes}); rec.Code != http.StatusOK {
		t.Errorf("filter before the state was read: %d, want an answer that passes every node", rec.Code)
	}
	s.Intents.Set([]cluster.Eviction{{Pod: "shop/web-1", Workload: web, From: "node-a", To: "node-c", At: now}}, now)
	if code := ready(); code != http.StatusOK {
		t.Errorf("/readyz after the state was read: %d, want 200", code)
	}
	if e, ok, _ := s.planned(replacement("p")); !ok || e.To != "node-c" {
		t.Fatalf("planned %v %v, want node-c", e, ok)
	}
	s.Intents.Set(nil, now) // the run retracted it: the eviction did not happen
	if e, ok, _ := s.planned(replacement("p")); ok {
		t.Errorf("still steered to %s after the intent was retracted", e.To)
	}
}

func TestBadRequests(t *testing.T) {
	h := testServer().Handler()
	for _, path := range []string{FilterPath, PrioritizePath} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, path, bytes.NewReader([]byte("{not json"))))
		if rec.Code != http.StatusBadRequest {
			t.Errorf("%s with a bad body: %d, want 400", path, rec.Code)
		}
	}
	rec := call(t, h, FilterPath, extenderv1.ExtenderArgs{})
	var res extenderv1.ExtenderFilterResult
	_ = json.Unmarshal(rec.Body.Bytes(), &res)
	if rec.Code != http.StatusBadRequest || res.Error == "" {
		t.Errorf("filter without a pod: %d %+v, want 400 with an error", rec.Code, res)
	}
}

// BenchmarkFilter5000Nodes is one filter request of a replacement as
// kube-scheduler sends it for a 5,000-node cluster (nodeCacheCapable: node
// names only), through the HTTP handler, JSON both ways included, with 1,000
// intents held.
func BenchmarkFilter5000Nodes(b *testing.B) {
	s := testServer()
	var evs []cluster.Eviction
	for i := range 1000 {
		evs = append(evs, cluster.Eviction{Pod: fmt.Sprintf("shop/other-%d", i), Workload: cluster.Workload{Kind: "Deployment", Namespace: "shop", Name: fmt.Sprintf("w%d", i)},
			From: "node-0", To: fmt.Sprintf("node-%d", i), At: now.Add(-time.Minute)})
	}
	evs = append(evs, cluster.Eviction{Pod: "shop/web-7d9f8-aaaaa", Workload: web, From: "node-0", To: "node-4999", At: now.Add(-time.Minute)})
	s.Intents.Set(evs, now)
	nodes := make([]string, 5000)
	for i := range nodes {
		nodes[i] = fmt.Sprintf("node-%d", i)
	}
	body, _ := json.Marshal(extenderv1.ExtenderArgs{Pod: replacement("web-7d9f8-new01"), NodeNames: &nodes})
	h := s.Handler()
	b.ReportAllocs()
	for b.Loop() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, FilterPath, bytes.NewReader(body)))
		if rec.Code != http.StatusOK {
			b.Fatal(rec.Code)
		}
	}
}

// Without nodeCacheCapable kube-scheduler sends whole Node objects, and
// takes them back the same way.
func TestFilterWithNodeObjects(t *testing.T) {
	s := testServer()
	nodes := &corev1.NodeList{}
	for _, n := range []string{"node-a", "node-c", "node-d"} {
		nodes.Items = append(nodes.Items, corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: n}})
	}
	rec := call(t, s.Handler(), FilterPath, extenderv1.ExtenderArgs{Pod: replacement("web-7d9f8-new01"), Nodes: nodes})
	var res extenderv1.ExtenderFilterResult
	if err := json.Unmarshal(rec.Body.Bytes(), &res); err != nil {
		t.Fatal(err)
	}
	if res.NodeNames != nil || res.Nodes == nil || len(res.Nodes.Items) != 1 || res.Nodes.Items[0].Name != "node-c" {
		t.Errorf("filter answered %+v, want the Node node-c alone", res)
	}
	if len(res.FailedNodes) != 2 {
		t.Errorf("failed nodes %v, want node-a and node-d", res.FailedNodes)
	}
}

// An intent can be claimed only once the pod it evicts has left. A run
// killed between recording an eviction and making it leaves the pod
// running under the UID it recorded: a new pod of the workload (a
// scale-up) is no replacement, and kube-scheduler places it on its own.
// A surge's pod runs until its replacement is Ready: its intent is
// claimed at once.
func TestIntentIsClaimedOnlyOnceItsPodLeft(t *testing.T) {
	evicted := cluster.Eviction{Pod: "shop/web-7d9f8-aaaaa", UID: "uid-aaaaa", Workload: web, From: "node-a", To: "node-c", At: now.Add(-time.Minute)}
	noUID := evicted
	noUID.UID = ""
	surge := evicted
	surge.Surge = true
	surgeLater := surge
	surgeLater.Pod, surgeLater.UID, surgeLater.To, surgeLater.At = "shop/web-7d9f8-bbbbb", "uid-bbbbb", "node-b", now
	tests := []struct {
		name string
		// running: the pod watch holds every intent's pod, running
		// under its recorded UID; after the watch caught up, caughtUp.
		running, caughtUp bool
		intents           []cluster.Eviction
		wantTo            string
		wantDeclined      float64
	}{
		{name: "the evicted pod is gone or terminating: its replacement is steered", intents: []cluster.Eviction{evicted}, wantTo: "node-c"},
		{name: "the evicted pod still runs: a new pod is not steered", intents: []cluster.Eviction{evicted}, running: true, caughtUp: true, wantDeclined: 1},
		{name: "the watch had not seen the eviction yet: steered once it caught up", intents: []cluster.Eviction{evicted}, running: true, wantTo: "node-c"},
		{name: "an intent recorded without a UID cannot be told apart: steered", intents: []cluster.Eviction{noUID}, running: true, caughtUp: true, wantTo: "node-c"},
		{name: "a surge's pod still runs: its replacement is steered at once", intents: []cluster.Eviction{surge}, running: true, caughtUp: true, wantTo: "node-c"},
		{name: "a surge whose pod has left steers as an eviction does", intents: []cluster.Eviction{surge}, wantTo: "node-c"},
		{name: "an older eviction whose pod still runs is passed over for the surge", intents: []cluster.Eviction{evicted, surgeLater},
			running: true, caughtUp: true, wantTo: "node-b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			running := tt.running
			s := testServer()
			s.Intents.Set(tt.intents, now)
			s.Departed = func(e cluster.Eviction) bool { return e.UID == "" || !running }
			s.CatchUp = func(*corev1.Pod) bool {
				running = tt.caughtUp
				return true
			}
			nodes := []string{"node-a", "node-b", "node-c"}
			rec := call(t, s.Handler(), FilterPath, extenderv1.ExtenderArgs{Pod: replacement("web-7d9f8-new01"), NodeNames: &nodes})
			var res extenderv1.ExtenderFilterResult
			if err := json.Unmarshal(rec.Body.Bytes(), &res); err != nil {
				t.Fatal(err)
			}
			want := nodes
			if tt.wantTo != "" {
				want = []string{tt.wantTo}
			}
			if res.NodeNames == nil || !reflect.DeepEqual(*res.NodeNames, want) {
				t.Errorf("nodes %v, want %v", res.NodeNames, want)
			}
			if got := testutil.ToFloat64(s.Metrics.declined.WithLabelValues(declinedStillRunning)); got != tt.wantDeclined {
				t.Errorf("declined (%s) %v, want %v", declinedStillRunning, got, tt.wantDeclined)
			}
		})
	}
}

// --handoff-ttl bounds every steering decision whatever the intent's
// date: one dated in the future steers for the TTL from when the extender
// first read it, also after a run re-dated it on healing the state.
func TestHandoffTTLBoundsEveryIntent(t *testing.T) {
	future := cluster.Eviction{Pod: "shop/web-7d9f8-aaaaa", UID: "uid-aaaaa", Workload: web, From: "node-a", To: "node-c",
		At: time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC)}
	healed := future
	healed.At = now.Add(5 * time.Minute) // a run rewrote the state when it read it
	old := future
	old.At = now.Add(-11 * time.Minute)
	tests := []struct {
		name string
		// states are the state's evictions, read at now and a minute
		// apart after.
		states [][]cluster.Eviction
		at     time.Duration
		want   bool
	}{
		{name: "dated in 2099, within the TTL of when it was first read", states: [][]cluster.Eviction{{future}}, at: 9 * time.Minute, want: true},
		{name: "dated in 2099, past the TTL of when it was first read", states: [][]cluster.Eviction{{future}}, at: 11 * time.Minute},
		{name: "re-dated by a run, past the TTL of when it was first read", states: [][]cluster.Eviction{{future}, {healed}}, at: 11 * time.Minute},
		{name: "older than the TTL when first read", states: [][]cluster.Eviction{{old}}, at: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := testServer()
			for i, evs := range tt.states {
				s.Intents.Set(evs, now.Add(time.Duration(i)*time.Minute))
			}
			s.Now = func() time.Time { return now.Add(tt.at) }
			if e, ok, _ := s.planned(replacement("web-7d9f8-new01")); ok != tt.want {
				t.Errorf("steered %v (to %q), want %v", ok, e.To, tt.want)
			}
		})
	}
}
