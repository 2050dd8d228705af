package extender

import (
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/kube-rebalancer/rebalancer/cluster"
)

// Intents are the planned placements of the replacements still expected:
// the evictions of the state ConfigMap that name a target node and are
// younger than TTL. A replacement pod claims the oldest unclaimed intent of
// its workload, as the live scheduler's hand-off does, and keeps it for
// every later request about it, so that filter and prioritize, and a retry
// after a failed binding, agree. A claim lasts as long as its intent: a
// replacement deleted before it was bound keeps its intent from the next
// one, which kube-scheduler then places on its own.
type Intents struct {
	// TTL is how long after an eviction its replacement is expected.
	TTL time.Duration

	mu        sync.Mutex
	intents   []cluster.Eviction             // oldest first
	claimedBy map[string]types.UID           // intent ID -> pod
	claims    map[types.UID]cluster.Eviction // pod -> intent
	loaded    bool
}

// NewIntents returns an empty set that expects replacements for ttl.
func NewIntents(ttl time.Duration) *Intents {
	return &Intents{TTL: ttl, claimedBy: map[string]types.UID{}, claims: map[types.UID]cluster.Eviction{}}
}

// Set replaces the intents with the evictions the state holds now. Claims
// of intents that are gone from it (retracted, expired) are dropped.
func (in *Intents) Set(evictions []cluster.Eviction) {
	live := make([]cluster.Eviction, 0, len(evictions))
	ids := make(map[string]bool, len(evictions))
	for _, e := range evictions {
		if e.To != "" && !e.Workload.IsZero() {
			live = append(live, e)
			ids[e.ID()] = true
		}
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	in.intents, in.loaded = live, true
	for id, uid := range in.claimedBy {
		if !ids[id] {
			delete(in.claimedBy, id)
			delete(in.claims, uid)
		}
	}
}

// Loaded tells whether the state has been read once: until then every pod
// is passed through, and the extender is not ready.
func (in *Intents) Loaded() bool {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.loaded
}

// Claim returns the intent the pod replaces: the one it claimed before, or
// the oldest unclaimed live intent of its workload.
func (in *Intents) Claim(uid types.UID, w cluster.Workload, now time.Time) (cluster.Eviction, bool) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if e, ok := in.claims[uid]; ok {
		if now.Sub(e.At) <= in.TTL {
			return e, true
		}
		return cluster.Eviction{}, false
	}
	if w.IsZero() {
		return cluster.Eviction{}, false
	}
	for _, e := range in.intents {
		if e.Workload != w || now.Sub(e.At) > in.TTL {
			continue
		}
		if _, taken := in.claimedBy[e.ID()]; taken {
			continue
		}
		in.claimedBy[e.ID()] = uid
		in.claims[uid] = e
		return e, true
	}
	return cluster.Eviction{}, false
}
