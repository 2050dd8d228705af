package framework

import (
	"iter"
	"maps"
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

// MaxCachedQueries bounds a Memo that sets no Limit: when full it is
// emptied, which costs recomputation, never correctness.
const MaxCachedQueries = 4096

// Family holds what the engine and its plugins derive, lazily, from the
// unchanging parts of one snapshot family: the facts several plugins
// share (see the Cycle methods) and each plugin's FamilyState. The engine
// keeps the families of the last snapshots it saw, by generation.
type Family struct {
	generation uint64

	mu    sync.Mutex
	slots []any // by StateKey, see FamilyState

	taints         Lazy[TaintGroups]
	untolerated    Memo[string, []*corev1.Taint]
	affinityKeys   Memo[*cluster.Pod, string]
	nodeSelections Memo[string, []bool]
	domains        Memo[string, *cluster.TopologyDomains]
	podGroups      Lazy[cluster.PodGroups]
	selections     Memo[string, []int32]
}

// NewFamily is the engine's: the family of s, for an engine of plugins
// plugins.
func NewFamily(s *cluster.Snapshot, plugins int) *Family {
	return &Family{generation: s.Generation(), slots: make([]any, plugins)}
}

// Generation is the generation of the family's snapshots.
func (f *Family) Generation() uint64 { return f.generation }

// Memo is a bounded map of answers for one snapshot family, safe for
// concurrent use; the zero value is empty and holds at most
// MaxCachedQueries answers.
type Memo[K comparable, V any] struct {
	// Limit, when set before first use, replaces MaxCachedQueries.
	Limit int

	mu sync.Mutex
	m  map[K]V
}

// Get returns the answer for key, computing and storing it on a miss. It
// computes without the lock, so that compute may use other memos; two
// concurrent misses compute the same value twice, which is harmless.
func (m *Memo[K, V]) Get(key K, compute func() V) V {
	m.mu.Lock()
	v, ok := m.m[key]
	m.mu.Unlock()
	if ok {
		return v
	}
	v = compute()
	m.mu.Lock()
	limit := m.Limit
	if limit == 0 {
		limit = MaxCachedQueries
	}
	if m.m == nil {
		m.m = make(map[K]V)
	} else if len(m.m) >= limit {
		clear(m.m)
	}
	m.m[key] = v
	m.mu.Unlock()
	return v
}

// Lazy is a value built once per snapshot family, on first use, safe for
// concurrent use.
type Lazy[V any] struct {
	mu sync.Mutex
	v  *V
}

// Get returns the value, building it on first use, with Memo's locking
// rule.
func (l *Lazy[V]) Get(build func() *V) *V {
	l.mu.Lock()
	v := l.v
	l.mu.Unlock()
	if v != nil {
		return v
	}
	v = build()
	l.mu.Lock()
	if l.v == nil {
		l.v = v
	}
	v = l.v
	l.mu.Unlock()
	return v
}

// All returns the answers the memo holds, for tests and diagnostics.
func (m *Memo[K, V]) All() iter.Seq2[K, V] {
	return func(yield func(K, V) bool) {
		m.mu.Lock()
		kept := maps.Clone(m.m)
		m.mu.Unlock()
		for k, v := range kept {
			if !yield(k, v) {
				return
			}
		}
	}
}

// Len returns how many answers the memo holds.
func (m *Memo[K, V]) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.m)
}
