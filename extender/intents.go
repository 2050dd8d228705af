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
// its workload whose pod has left, or that marks a surge, as the live
// scheduler's hand-off does, and keeps it for every later request about
// it, so that filter and
// prioritize, and a retry after a failed binding, agree. A claim lasts as
// long as its intent: a replacement deleted before it was bound keeps its
// intent from the next one, which kube-scheduler then places on its own.
type Intents struct {
	// TTL is how long after an eviction its replacement is expected.
	TTL time.Duration

	mu        sync.Mutex
	intents   []intent             // oldest first
	claimedBy map[string]types.UID // intent ID -> pod
	claims    map[types.UID]intent // pod -> intent
	// firstSeen holds when each intent was first read, by what it is
	// about rather than its date, which a run may rewrite.
	firstSeen map[string]time.Time
	loaded    bool
	// holds are the nodes runs hold for pending pods.
	holds []cluster.Hold
}

// intent is an eviction and the moment its TTL runs from: its date, or
// when the extender first read it if that was earlier (an entry dated
// ahead of the clock).
type intent struct {
	cluster.Eviction
	start time.Time
}

// Departed tells whether the pod an intent evicts has left: gone, replaced
// under its name by another UID, or terminating.
type Departed func(cluster.Eviction) bool

// NewIntents returns an empty set that expects replacements for ttl.
func NewIntents(ttl time.Duration) *Intents {
	return &Intents{TTL: ttl, claimedBy: map[string]types.UID{}, claims: map[types.UID]intent{}, firstSeen: map[string]time.Time{}}
}

// about identifies an intent apart from its date: a run that heals the
// state re-dates an entry it found ahead of its clock.
func about(e cluster.Eviction) string {
	return e.Pod + "|" + string(e.UID) + "|" + e.From + "|" + e.To
}

// Set replaces the intents with the evictions the state holds at now.
// Claims of intents that are gone from it (retracted, expired) are
// dropped.
func (in *Intents) Set(evictions []cluster.Eviction, now time.Time) {
	in.mu.Lock()
	defer in.mu.Unlock()
	live := make([]intent, 0, len(evictions))
	ids := make(map[string]bool, len(evictions))
	seen := make(map[string]time.Time, len(evictions))
	for _, e := range evictions {
		if e.To == "" || e.Workload.IsZero() {
			continue
		}
		first, ok := in.firstSeen[about(e)]
		if !ok {
			first = now
		}
		seen[about(e)] = first
		start := e.At
		if first.Before(start) {
			start = first
		}
		live = append(live, intent{Eviction: e, start: start})
		ids[e.ID()] = true
	}
	in.intents, in.firstSeen, in.loaded = live, seen, true
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
// the oldest unclaimed live intent of its workload whose pod has departed
// or that marks a surge. A surge's pod runs until its replacement is
// Ready, so waiting for it to leave would never steer the replacement.
// waiting tells that an intent of the workload was passed over only because
// its pod is still there: the pod may be a replacement the watch has not
// caught up with, or a new pod beside an eviction that never happened.
func (in *Intents) Claim(uid types.UID, w cluster.Workload, now time.Time, departed Departed) (e cluster.Eviction, ok, waiting bool) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if it, ok := in.claims[uid]; ok {
		if in.live(it, now) {
			return it.Eviction, true, false
		}
		return cluster.Eviction{}, false, false
	}
	if w.IsZero() {
		return cluster.Eviction{}, false, false
	}
	for _, it := range in.intents {
		if it.Workload != w || !in.live(it, now) {
			continue
		}
		if _, taken := in.claimedBy[it.ID()]; taken {
			continue
		}
		if !it.Surge && !departed(it.Eviction) {
			waiting = true
			continue
		}
		in.claimedBy[it.ID()] = uid
		in.claims[uid] = it
		return it.Eviction, true, false
	}
	return cluster.Eviction{}, false, waiting
}

// live tells whether an intent still steers at now: within TTL of its
// start, whatever date it carries.
func (in *Intents) live(it intent, now time.Time) bool {
	return now.Sub(it.start) <= in.TTL
}
