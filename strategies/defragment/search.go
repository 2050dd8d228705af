package defragment

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apiresource "k8s.io/apimachinery/pkg/api/resource"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/scheduler/engine"
	"github.com/kube-rebalancer/rebalancer/strategies/framework"
)

// visitLimit bounds the subsets the search walks on one node for one set
// size: below it the search is exact; a node with so many movable pods
// that it is reached is reported, not searched further.
const visitLimit = 1 << 18

// trialLimit bounds the sets whose moves the search places, for one
// pending pod: each asks the scheduler engine about every node, so a
// cluster where set after set frees enough and the pods fit nowhere else
// stops the search there, and the note says so.
const trialLimit = 1 << 12

// resource is one resource the pending pod asks for.
type resource struct {
	name corev1.ResourceName
	kind int
}

const (
	kindCPU = iota
	kindMemory
	kindStorage
	kindPods
	kindScalar
)

func (r resource) of(x cluster.Resources) int64 {
	switch r.kind {
	case kindCPU:
		return x.MilliCPU
	case kindMemory:
		return x.Memory
	case kindStorage:
		return x.EphemeralStorage
	case kindPods:
		return x.Pods
	}
	return x.Scalar[r.name]
}

func (r resource) format(v int64) string {
	switch r.kind {
	case kindCPU:
		return apiresource.NewMilliQuantity(v, apiresource.DecimalSI).String()
	case kindMemory, kindStorage:
		return apiresource.NewQuantity(v, apiresource.BinarySI).String()
	}
	return fmt.Sprint(v)
}

// resourcesOf lists the resources the pod asks for, the pod slot always.
func resourcesOf(p *cluster.Pod) []resource {
	req := p.SpecRequests
	var out []resource
	if req.MilliCPU > 0 {
		out = append(out, resource{corev1.ResourceCPU, kindCPU})
	}
	if req.Memory > 0 {
		out = append(out, resource{corev1.ResourceMemory, kindMemory})
	}
	if req.EphemeralStorage > 0 {
		out = append(out, resource{corev1.ResourceEphemeralStorage, kindStorage})
	}
	out = append(out, resource{corev1.ResourcePods, kindPods})
	var scalars []resource
	for name, v := range req.Scalar {
		if v > 0 {
			scalars = append(scalars, resource{name, kindScalar})
		}
	}
	slices.SortFunc(scalars, func(a, b resource) int { return strings.Compare(string(a.name), string(b.name)) })
	return append(out, scalars...)
}

// search finds, for one pending pod, the fewest pods to move off one node
// for the pod to fit there. It simulates on a fork of the working snapshot
// and leaves the fork as it found it after each trial.
type search struct {
	in       *framework.Cycle
	p        *cluster.Pod
	maxMoves int
	res      []resource
	fork     *cluster.Snapshot
	exclude  []string
	accept   func(*cluster.Node) (bool, string)

	hosts []host
	// cands holds every host's movable pods, host by host, each host's in
	// rank order; vals their requests, len(res) a pod.
	cands []candidate
	vals  []int64
	// needs holds, len(res) a host, how much more of each resource the
	// pending pod needs than the host has free.
	needs []int64

	// tops[(i*len(res)+r)*maxMoves+m] is the sum of the m largest values
	// of resource r among the current host's first i candidates.
	tops []int64
	sums []int64

	moving []*cluster.Pod
	movers *movers
	// trials counts the sets placed (feasible).
	trials int
}

// host is a node the pending pod fails on for resources only.
type host struct {
	node   *cluster.Node
	lo, hi int
	// covered: some set of at most maxMoves of the pods the planner lets
	// move frees enough (known once the search has walked the host).
	covered bool
	// inexact: the walk stopped at visitLimit.
	inexact bool
	// narrowed: the pods the planner would not let move are dropped.
	narrowed bool
	lb       []int32
}

// candidate is a pod the strategy may move, with its rank among all the
// candidates of the search: a lower rank is a pod the strategy would
// rather move.
type candidate struct {
	pod  *cluster.Pod
	rank int32
	host int32
}

// found is the set of moves chosen: the pods in the order they move, the
// largest first, and the set's key.
type found struct {
	node *cluster.Node
	pods []*cluster.Pod
	key  []int32
}

func newSearch(in *framework.Cycle, m *movers, p *cluster.Pod, maxMoves int) *search {
	// The buffers of the run's last search serve the next one.
	s := &m.last
	*s = search{in: in, movers: m, p: p, maxMoves: maxMoves, res: resourcesOf(p), fork: in.Snapshot.Fork(), exclude: s.exclude,
		cands: s.cands[:0], vals: s.vals[:0], tops: s.tops[:0], moving: s.moving[:0]}
	if s.exclude == nil {
		s.exclude = make([]string, 1)
	}
	usable := in.Usable()
	s.accept = func(n *cluster.Node) (bool, string) {
		if !usable[n.Index()] {
			return false, "node(s) were not selected by the policy's nodeSelector or not Ready"
		}
		return true, ""
	}
	return s
}

// prefer orders the pods the strategy would rather move first: the
// cheaper (framework.Cheaper: deletion cost, then priority), then the
// smaller, then by name.
func prefer(a, b *cluster.Pod) int {
	if c := framework.Cheaper(a, b); c != 0 {
		return c
	}
	if c := cmp.Compare(a.SpecRequests.MilliCPU, b.SpecRequests.MilliCPU); c != 0 {
		return c
	}
	if c := cmp.Compare(a.SpecRequests.Memory, b.SpecRequests.Memory); c != 0 {
		return c
	}
	return strings.Compare(a.Key, b.Key)
}

// movable reports whether the planner lets the strategy move the pod now.
func (s *search) movable(q *cluster.Pod) bool {
	return q != s.p && s.in.Evictable(Name, q)
}

// prepare gathers the hosts' pods a controller replaces, each host's in
// rank order. Whether the planner lets them move is asked only of the
// hosts the search walks (narrow); without it, a host's sets are a
// superset of the true ones, and the first that frees enough a lower
// bound of the true first.
func (s *search) prepare(nodes []*cluster.Node) {
	nr := len(s.res)
	s.hosts = make([]host, len(nodes))
	s.needs = make([]int64, len(nodes)*nr)
	s.cands = s.cands[:0]
	for h, n := range nodes {
		hs := &s.hosts[h]
		hs.node = n
		for r, res := range s.res {
			s.needs[h*nr+r] = res.of(s.p.SpecRequests) - (res.of(n.Allocatable) - res.of(n.Requested))
		}
		hs.lo = len(s.cands)
		for _, q := range s.movers.on(n.Index()) {
			if q != s.p {
				s.cands = append(s.cands, candidate{pod: q, rank: s.movers.rank[q.Index()], host: int32(h)})
			}
		}
		hs.hi = len(s.cands)
	}
	s.vals = slices.Grow(s.vals[:0], len(s.cands)*nr)[:len(s.cands)*nr]
	for i, c := range s.cands {
		for r, res := range s.res {
			s.vals[i*nr+r] = res.of(c.pod.Requests)
		}
	}
	s.sums = make([]int64, (s.maxMoves+1)*nr)
}

// narrow drops the host's pods that the planner would not let the
// strategy move now, once.
func (s *search) narrow(hs *host) {
	if hs.narrowed {
		return
	}
	hs.narrowed = true
	nr := len(s.res)
	j := hs.lo
	for i := hs.lo; i < hs.hi; i++ {
		if !s.movable(s.cands[i].pod) {
			continue
		}
		s.cands[j] = s.cands[i]
		copy(s.vals[j*nr:(j+1)*nr], s.vals[i*nr:(i+1)*nr])
		j++
	}
	hs.hi = j
}

// find returns the fewest moves that make room on one of the nodes; among
// equal counts the set whose costliest pod ranks lowest, then the next
// costliest, and so on; nil when no set of at most maxMoves does.
func (s *search) find(nodes []*cluster.Node) *found {
	s.prepare(nodes)
	order := make([]int, 0, len(s.hosts))
	for k := 1; k <= s.maxMoves; k++ {
		order = order[:0]
		for h := range s.hosts {
			if lb, ok := s.walk(h, k, nil, false); ok {
				s.hosts[h].lb = append(s.hosts[h].lb[:0], lb...)
				order = append(order, h)
			}
		}
		slices.SortFunc(order, func(a, b int) int {
			if c := slices.Compare(s.hosts[a].lb, s.hosts[b].lb); c != 0 {
				return c
			}
			return strings.Compare(s.hosts[a].node.Name, s.hosts[b].node.Name)
		})
		var best *found
		for _, h := range order {
			if best != nil && slices.Compare(s.hosts[h].lb, best.key) >= 0 {
				break
			}
			var bound []int32
			if best != nil {
				bound = best.key
			}
			if !s.hosts[h].narrowed {
				s.narrow(&s.hosts[h])
				if _, ok := s.walk(h, k, nil, false); !ok {
					continue
				}
			}
			s.hosts[h].covered = true
			if key, ok := s.walk(h, k, bound, true); ok {
				best = &found{node: s.hosts[h].node, key: slices.Clone(key), pods: slices.Clone(s.moving)}
			}
		}
		if best != nil {
			return best
		}
	}
	return nil
}

// walk visits the sets of k of a host's candidates that free enough, in
// increasing order of key (the ranks, costliest first), and returns the
// first whose moves all fit elsewhere (with check; without, the first
// that frees enough), below bound when it is set.
func (s *search) walk(h, k int, bound []int32, check bool) ([]int32, bool) {
	hs := &s.hosts[h]
	n := hs.hi - hs.lo
	if n < k {
		return nil, false
	}
	s.buildTops(hs, k)
	nr := len(s.res)
	need := s.needs[h*nr : (h+1)*nr]
	var chosen [MaxMaxMovesPerPod]int
	var key [MaxMaxMovesPerPod]int32
	visits := 0
	var rec func(d, upper int, tight bool) bool
	rec = func(d, upper int, tight bool) bool {
		left := k - d - 1
		for i := left; i < upper; i++ {
			if visits++; visits > visitLimit {
				hs.inexact = true
				return false
			}
			c := &s.cands[hs.lo+i]
			childTight := false
			if tight {
				if c.rank > bound[d] {
					return false
				}
				childTight = c.rank == bound[d]
			}
			ok := true
			for r := range nr {
				sum := s.vals[(hs.lo+i)*nr+r]
				if d > 0 {
					sum += s.sums[(d-1)*nr+r]
				}
				s.sums[d*nr+r] = sum
				if need[r] > 0 && sum+s.tops[(i*nr+r)*s.maxMoves+left] < need[r] {
					ok = false
				}
			}
			if !ok {
				continue
			}
			chosen[d], key[d] = i, c.rank
			if left > 0 {
				if rec(d+1, i, childTight) {
					return true
				}
				if hs.inexact {
					return false
				}
				continue
			}
			if childTight {
				continue // the bound itself: not better
			}
			if !check {
				return true
			}
			if s.trials++; s.trials > trialLimit {
				hs.inexact = true
				return false
			}
			if s.feasible(hs, chosen[:k]) {
				return true
			}
		}
		return false
	}
	if !rec(0, n, bound != nil) {
		return nil, false
	}
	return key[:k], true
}

// buildTops fills tops for the host's candidates, for sets of up to k.
func (s *search) buildTops(hs *host, k int) {
	n, nr, mm := hs.hi-hs.lo, len(s.res), s.maxMoves
	if need := (n + 1) * nr * mm; cap(s.tops) < need {
		s.tops = make([]int64, need)
	} else {
		s.tops = s.tops[:need]
	}
	var largest [MaxMaxMovesPerPod]int64
	for r := range nr {
		clear(largest[:])
		for i := 0; i <= n; i++ {
			var sum int64
			for m := range mm {
				s.tops[(i*nr+r)*mm+m] = sum
				sum += largest[m]
			}
			if i == n {
				break
			}
			// Insert the value into the sorted largest values.
			v := s.vals[(hs.lo+i)*nr+r]
			for m := 0; m < k && m < mm; m++ {
				if v > largest[m] {
					v, largest[m] = largest[m], v
				}
			}
		}
	}
}

// feasible reports whether the pending pod fits on the host once the
// chosen candidates are off it, every one of them fitting on another
// node, placed in turn, the largest first; it records them in s.moving in
// that order. The fork is left as it was.
func (s *search) feasible(hs *host, chosen []int) bool {
	s.moving = s.moving[:0]
	for _, i := range chosen {
		s.moving = append(s.moving, s.cands[hs.lo+i].pod)
	}
	slices.SortFunc(s.moving, func(a, b *cluster.Pod) int {
		if c := cmp.Compare(b.SpecRequests.MilliCPU, a.SpecRequests.MilliCPU); c != 0 {
			return c
		}
		if c := cmp.Compare(b.SpecRequests.Memory, a.SpecRequests.Memory); c != 0 {
			return c
		}
		return strings.Compare(a.Key, b.Key)
	})
	name := hs.node.Name
	for _, q := range s.moving {
		s.fork.Remove(q)
	}
	ok, _ := s.in.Placer.Fits(s.fork, s.p, s.fork.Node(name))
	if ok {
		s.exclude[0] = name
		for _, q := range s.moving {
			res := s.in.Placer.Schedule(s.fork, q, engine.Options{Exclude: s.exclude, Accept: s.accept})
			if res.Node == "" {
				ok = false
				break
			}
			if err := s.fork.Place(q, res.Node); err != nil {
				panic(err) // the engine only returns nodes of the snapshot
			}
		}
	}
	for _, q := range s.moving {
		if err := s.fork.Place(q, name); err != nil {
			panic(err)
		}
	}
	return ok
}

// preemptable returns a host where kube-scheduler's preemption would make
// room for the pending pod (it fits once every pod of lower priority is
// off), or "" when there is none or the pod never preempts.
func (s *search) preemptable(hosts []*cluster.Node) string {
	if pp := s.p.Spec.PreemptionPolicy; pp != nil && *pp == corev1.PreemptNever {
		return ""
	}
	var lower []*cluster.Pod
	for _, n := range hosts {
		lower = lower[:0]
		covers := true
		for _, r := range s.res {
			free := r.of(n.Allocatable) - r.of(n.Requested)
			for _, q := range n.Pods() {
				if q.Priority < s.p.Priority {
					free += r.of(q.Requests)
				}
			}
			covers = covers && free >= r.of(s.p.SpecRequests)
		}
		if !covers {
			continue
		}
		for _, q := range n.Pods() {
			if q.Priority < s.p.Priority {
				lower = append(lower, q)
			}
		}
		for _, q := range lower {
			s.fork.Remove(q)
		}
		ok, _ := s.in.Placer.Fits(s.fork, s.p, s.fork.Node(n.Name))
		for _, q := range lower {
			if err := s.fork.Place(q, n.Name); err != nil {
				panic(err)
			}
		}
		if ok {
			return n.Name
		}
	}
	return ""
}

// whyNone says why no set of moves makes room, from what the search saw
// of each host, and the engine's message for the pod.
func (s *search) whyNone(message string) string {
	var noPods, short, nowhere, inexact int
	for _, h := range s.hosts {
		switch {
		case h.inexact:
			inexact++
		case h.hi == h.lo:
			noPods++
		case !h.covered:
			short++
		default:
			nowhere++
		}
	}
	var parts []string
	if noPods > 0 {
		parts = append(parts, fmt.Sprintf("%d node(s) had no pod this strategy may move", noPods))
	}
	if short > 0 {
		parts = append(parts, fmt.Sprintf("%d node(s) would not free enough by moving %d of their pods", short, s.maxMoves))
	}
	if nowhere > 0 {
		parts = append(parts, fmt.Sprintf("%d node(s) would, but the pods to move fit on no other node", nowhere))
	}
	if inexact > 0 {
		parts = append(parts, fmt.Sprintf("%d node(s) had too many sets of pods to try them all", inexact))
	}
	return fmt.Sprintf("no set of at most %d moves makes room for it: %s (%s)", s.maxMoves, strings.Join(parts, ", "), message)
}
