package scheduler

import (
	"sync"

	corev1 "k8s.io/api/core/v1"

	"github.com/kube-rebalancer/rebalancer/cluster"
)

// A snapshot family is the snapshots of one generation
// (cluster.Snapshot.Generation): a snapshot, its forks, and the same after
// edits that only move pods. They share their Pod and corev1.Node objects
// and never change them, so everything derived from labels, taints,
// affinity terms and images holds for the whole family. What edits change
// — which node a pod is on, what a node has left — is never cached: it is
// read from the snapshot on every call.

// familiesKept bounds how many snapshot families an engine keeps tables
// for: a planner works on one snapshot and its forks at a time, and a live
// scheduler replaces its snapshot every cycle.
const familiesKept = 2

// maxCachedQueries bounds each per-family memo of per-pod-spec results
// (node selections, selector matches); when full it is emptied, which costs
// recomputation, never correctness.
const maxCachedQueries = 4096

// tables holds what the engine derives, lazily, from the unchanging parts of
// one snapshot family. Every field is built once under mu and never changed
// afterwards, so callers may read what an accessor returned without the lock.
type tables struct {
	generation uint64

	mu    sync.Mutex
	pods  []*cluster.Pod
	nodes []*corev1.Node
	// unschedulable is each node's spec.unschedulable, in a slice so that
	// the filter loop does not reach into every Node object.
	unschedulable   []bool
	podGroups       *cluster.PodGroups
	termGroups      *termGroups
	domains         map[string]*cluster.TopologyDomains
	taints          *taintGroups
	images          *imageTable
	nodeSelections  map[string][]bool
	preferredScores map[string][]int64
	selections      map[string][]int32
	existingTerms   map[string]*existingTermMatches
	controlled      map[string][]*cluster.Pod
	// affinityKeys is each pod's key in nodeSelections, untolerated the
	// TaintToleration reasons per taint group of each list of tolerations,
	// and staticIndexes what each combination of static checks says of
	// every node (see staticIndex).
	affinityKeys  map[*cluster.Pod]string
	untolerated   map[string][][]string
	staticIndexes map[string]*staticIndex
}

func newTables(s *cluster.Snapshot) *tables {
	nodes := make([]*corev1.Node, len(s.Nodes()))
	unschedulable := make([]bool, len(s.Nodes()))
	for i, n := range s.Nodes() {
		nodes[i] = n.Node
		unschedulable[i] = n.Spec.Unschedulable
	}
	return &tables{
		generation:      s.Generation(),
		pods:            s.Pods(),
		nodes:           nodes,
		unschedulable:   unschedulable,
		domains:         make(map[string]*cluster.TopologyDomains),
		nodeSelections:  make(map[string][]bool),
		preferredScores: make(map[string][]int64),
		selections:      make(map[string][]int32),
		existingTerms:   make(map[string]*existingTermMatches),
		controlled:      make(map[string][]*cluster.Pod),
		affinityKeys:    make(map[*cluster.Pod]string),
		untolerated:     make(map[string][][]string),
		staticIndexes:   make(map[string]*staticIndex),
	}
}

// tablesFor returns the tables of the snapshot's family, creating them on
// first use.
func (e *Engine) tablesFor(s *cluster.Snapshot) *tables {
	if e.NoCache {
		return newTables(s)
	}
	g := s.Generation()
	e.mu.Lock()
	defer e.mu.Unlock()
	for i, t := range e.families {
		if t.generation == g {
			// Most recently used first.
			copy(e.families[1:i+1], e.families[:i])
			e.families[0] = t
			return t
		}
	}
	t := newTables(s)
	if len(e.families) < familiesKept {
		e.families = append(e.families, nil)
	}
	copy(e.families[1:], e.families[:len(e.families)-1])
	e.families[0] = t
	return t
}

// memo returns m[key], computing and storing it on a miss. It computes
// without the lock, so that compute may use other tables; two concurrent
// misses compute the same value twice, which is harmless.
func memo[K comparable, V any](t *tables, m map[K]V, key K, compute func() V) V {
	return memoUpTo(t, m, maxCachedQueries, key, compute)
}

// memoUpTo is memo for a map that holds at most limit values.
func memoUpTo[K comparable, V any](t *tables, m map[K]V, limit int, key K, compute func() V) V {
	t.mu.Lock()
	v, ok := m[key]
	t.mu.Unlock()
	if ok {
		return v
	}
	v = compute()
	t.mu.Lock()
	if len(m) >= limit {
		clear(m)
	}
	m[key] = v
	t.mu.Unlock()
	return v
}

// once returns *field, building it on first use, with memo's locking rule.
func once[V any](t *tables, field **V, build func() *V) *V {
	t.mu.Lock()
	v := *field
	t.mu.Unlock()
	if v != nil {
		return v
	}
	v = build()
	t.mu.Lock()
	if *field == nil {
		*field = v
	}
	v = *field
	t.mu.Unlock()
	return v
}
