package topologyspread

import (
	"encoding/json"
	"maps"
	"math"
	"slices"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/strategies/framework"
)

// spreadConstraint is a topology spread constraint as the strategy counts
// it, by kube-scheduler's rules.
type spreadConstraint struct {
	cluster.SpreadConstraint
	*spreadNodes
}

// spreadNodes is what a constraint says of the nodes and domains. It reads
// the pods' homes (their placement table), the constraint's topology key
// and node policies and the keys of the constraints of its kind, not its
// selector: the specs of one workload's ReplicaSets (whose matchLabelKeys
// take pod-template-hash), and of workloads placed alike, share it.
type spreadNodes struct {
	// eligible says, per node index, whether the node's pods count: it has
	// the topology keys of every constraint of the same kind and passes
	// nodeAffinityPolicy and nodeTaintsPolicy.
	eligible []bool
	// receptive says, per domain, whether pods of the spec can be placed
	// there at all: an eligible node of the domain is usable (Ready and
	// selected by the policy) and one of the pods' homes (not cordoned, taints
	// tolerated, node affinity matched). Only those domains can hold the
	// minimum the skew is measured from: a domain no pod can reach would
	// keep every other domain "too full" forever.
	receptive []bool
	// eligibleDomains counts the domains with an eligible node, for
	// minDomains.
	eligibleDomains int32
}

// spreadNodesKey tells apart what spreadNodes reads.
type spreadNodesKey struct {
	pl                           *framework.Placement
	topologyKey                  string
	honorsAffinity, honorsTaints bool
	// kindKeys are the topology keys of the constraints of its kind, each
	// with its length before it.
	kindKeys string
}

// spreadNodesFor returns c's table for pods of placement pl, kind being the
// constraints of c's kind.
func spreadNodesFor(in *framework.Cycle, pl *framework.Placement, c *cluster.SpreadConstraint, kind []cluster.SpreadConstraint) *spreadNodes {
	k := spreadNodesKey{pl: pl, topologyKey: c.TopologyKey, honorsAffinity: c.HonorsNodeAffinity, honorsTaints: c.HonorsNodeTaints}
	for i := range kind {
		k.kindKeys += strconv.Itoa(len(kind[i].TopologyKey)) + ":" + kind[i].TopologyKey
	}
	caches := cycleCaches.Of(in)
	if t, ok := caches.spreadNodes[k]; ok && !in.NoCache {
		return t
	}
	nodes := in.Snapshot.Nodes()
	t := &spreadNodes{eligible: make([]bool, len(nodes)), receptive: make([]bool, len(c.Domains.Values))}
	eligibleDomain := make([]bool, len(c.Domains.Values))
	usable := in.Usable()
	for ni := range nodes {
		ok := c.IncludesNode(pl.Affinity[ni], pl.Tolerated[ni]) && cluster.HasAllTopologyKeys(kind, ni)
		t.eligible[ni] = ok
		if !ok {
			continue
		}
		d := c.Domains.Of[ni]
		eligibleDomain[d] = true
		if pl.Admits[ni] && usable[ni] {
			t.receptive[d] = true
		}
	}
	for _, e := range eligibleDomain {
		if e {
			t.eligibleDomains++
		}
	}
	if in.NoCache {
		return t
	}
	if caches.spreadNodes == nil {
		caches.spreadNodes = make(map[spreadNodesKey]*spreadNodes)
	}
	caches.spreadNodes[k] = t
	return t
}

// domainOf returns node i's domain for the constraint, or -1 when its pods
// do not count.
func (c *spreadConstraint) domainOf(i int) int32 {
	if !c.eligible[i] {
		return -1
	}
	return c.Domains.Of[i]
}

// spreadSpec is what the pods of one spec share: their namespace, their
// balanced constraints (with matchLabelKeys applied), and what decides
// which nodes count. Pods of a workload share one.
type spreadSpec struct {
	key         string
	namespace   string
	constraints []spreadConstraint
}

// podSpreadSpec returns the spec of the pod's own constraints that the args
// balance, or nil when there are none. kube-scheduler's default
// constraints are not balanced: they are preferences of the scheduler, not
// of the workload.
//
// The args are those of the pod's namespace, the same for all its pods
// during a cycle, which lets the answer be kept per pod.
func podSpreadSpec(in *framework.Cycle, p *cluster.Pod, a *Args) *spreadSpec {
	if in.NoCache {
		return spreadSpecBySpec(in, p, a)
	}
	return cycleCaches.Of(in).specOf.Get(in.Snapshot, p, func(p *cluster.Pod) *spreadSpec { return spreadSpecBySpec(in, p, a) })
}

func spreadSpecBySpec(in *framework.Cycle, p *cluster.Pod, a *Args) *spreadSpec {
	var own []corev1.TopologySpreadConstraint
	for _, tc := range p.Spec.TopologySpreadConstraints {
		if a.Balances(string(tc.WhenUnsatisfiable)) {
			own = append(own, tc)
		}
	}
	if len(own) == 0 {
		return nil
	}
	// matchLabelKeys make the selector depend on the pod's own labels.
	keyed := make([]labels.Set, len(own))
	for i := range own {
		keyed[i] = cluster.MatchLabelKeyValues(&own[i], p.Labels)
	}
	last := &cycleCaches.Of(in).lastSpread
	if !in.NoCache && last.spec != 0 && last.args == a && last.namespace == p.Namespace &&
		last.spec == p.SchedulingSpecID() && slices.EqualFunc(last.keyed, keyed, maps.Equal) {
		return last.counted
	}
	s := spreadSpecByKey(in, p, own, keyed)
	last.namespace, last.spec, last.args, last.keyed, last.counted = p.Namespace, p.SchedulingSpecID(), a, keyed, s
	return s
}

func spreadSpecByKey(in *framework.Cycle, p *cluster.Pod, own []corev1.TopologySpreadConstraint, keyed []labels.Set) *spreadSpec {
	var required *corev1.NodeSelector
	if af := p.Spec.Affinity; af != nil && af.NodeAffinity != nil {
		required = af.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution
	}
	b, _ := json.Marshal([5]any{own, keyed, p.Spec.NodeSelector, required, p.Spec.Tolerations})
	key := p.Namespace + "\x00" + string(b)
	if in.NoCache {
		return newSpreadSpec(in, p, own, key)
	}
	caches := cycleCaches.Of(in)
	if s, ok := caches.spreadSpecs[key]; ok {
		return s
	}
	s := newSpreadSpec(in, p, own, key)
	if caches.spreadSpecs == nil {
		caches.spreadSpecs = make(map[string]*spreadSpec)
	}
	caches.spreadSpecs[key] = s
	return s
}

func newSpreadSpec(in *framework.Cycle, p *cluster.Pod, own []corev1.TopologySpreadConstraint, key string) *spreadSpec {
	pl := in.Placement(p)
	s := &spreadSpec{key: key, namespace: p.Namespace}
	compiled := make([]cluster.SpreadConstraint, len(own))
	valid := make([]bool, len(own))
	sameKind := make(map[corev1.UnsatisfiableConstraintAction][]cluster.SpreadConstraint)
	for i := range own {
		c, err := cluster.CompileSpreadConstraint(&own[i], p.Labels)
		// A selector that does not parse (the API server rejects such a
		// pod) leaves nothing to balance, but the constraint's key still
		// decides which nodes count for the others of its kind.
		valid[i] = err == nil
		c.TopologyKey, c.WhenUnsatisfiable = own[i].TopologyKey, own[i].WhenUnsatisfiable
		c.Domains = in.Domains(c.TopologyKey)
		compiled[i] = c
		sameKind[c.WhenUnsatisfiable] = append(sameKind[c.WhenUnsatisfiable], c)
	}
	for i := range compiled {
		if !valid[i] {
			continue
		}
		c := &compiled[i]
		s.constraints = append(s.constraints, spreadConstraint{SpreadConstraint: *c, spreadNodes: spreadNodesFor(in, pl, c, sameKind[c.WhenUnsatisfiable])})
	}
	return s
}

// spreadCounts counts, per constraint and domain, the pods the constraint
// selects in the spec's namespace that hold an eligible node in view v,
// leaving out skip (the pod being placed) and terminating pods.
func spreadCounts(in *framework.Cycle, v framework.View, s *spreadSpec, skip *cluster.Pod) [][]int32 {
	counts := make([][]int32, len(s.constraints))
	for k := range s.constraints {
		c := &s.constraints[k]
		counts[k] = make([]int32, len(c.Domains.Values))
		if c.Selector.Empty() {
			continue // kube-scheduler counts no pod for a selector that selects everything
		}
		in.EachPod(cluster.PodQuery{Namespaces: []string{s.namespace}, Selector: c.Selector}, func(p *cluster.Pod) {
			if p == skip || p.IsTerminating() {
				return
			}
			if n := v.Snapshot.NodeOf(p); n != nil {
				if d := c.domainOf(n.Index()); d >= 0 {
					counts[k][d]++
				}
			}
		})
	}
	return counts
}

// skew is a constraint's balance: the most matching pods in an eligible
// domain, the fewest in a receptive one (0 when there are fewer eligible
// domains than minDomains), and what the fewest would become if a pod were
// added to its only domain.
type skew struct {
	ok           bool // some domain is receptive
	max, min     int32
	atMin        int
	nextMin      int32
	belowDomains bool
}

func skewOf(c *spreadConstraint, counts []int32) skew {
	s := skew{min: math.MaxInt32, nextMin: math.MaxInt32}
	for d, n := range counts {
		s.max = max(s.max, n)
		if !c.receptive[d] {
			continue
		}
		s.ok = true
		switch {
		case n < s.min:
			s.nextMin, s.min, s.atMin = s.min, n, 1
		case n == s.min:
			s.atMin++
		case n < s.nextMin:
			s.nextMin = n
		}
	}
	s.belowDomains = c.BelowMinDomains(c.eligibleDomains)
	return s
}

// value returns the skew, with one more pod in domain d when d >= 0.
func (s skew) value(c *spreadConstraint, counts []int32, d int32) int32 {
	hi, lo := s.max, s.min
	if s.belowDomains {
		lo = 0
	}
	if d < 0 {
		return hi - lo
	}
	hi = max(hi, counts[d]+1)
	if !s.belowDomains && c.receptive[d] && counts[d] == s.min && s.atMin == 1 {
		lo = min(s.min+1, s.nextMin)
	}
	return hi - lo
}

// floor is the count the skew is measured from.
func (s skew) floor() int32 {
	if s.belowDomains {
		return 0
	}
	return s.min
}

// spreadRule keeps every move from taking one of the moved pod's balanced
// constraints past its maxSkew, or further past it when it already was:
// RemovePodsViolatingTopologySpreadConstraint would move pods again on the
// next run. kube-scheduler's filter checks DoNotSchedule constraints only
// at the target; this also covers the domain the pod leaves, and
// ScheduleAnyway constraints when the strategy balances them.
type spreadRule struct {
	in *framework.Cycle
	// The counts for the last pod asked about, in the last view.
	v      framework.View
	pod    *cluster.Pod
	spec   *spreadSpec
	counts [][]int32
	skews  []skew
}

func (r *spreadRule) Check(v framework.View, _ string, p *cluster.Pod, n *cluster.Node) (bool, string) {
	in := r.in
	if len(p.Spec.TopologySpreadConstraints) == 0 || !in.Policy.AllowsNamespace(p.Namespace) {
		return true, ""
	}
	if r.v != v || r.pod != p {
		r.v, r.pod, r.spec = v, p, nil
		if a, ok := in.Settings(p.Namespace).Args(Name).(*Args); ok {
			r.spec = podSpreadSpec(in, p, a)
		}
		if r.spec != nil {
			r.counts = spreadCounts(in, v, r.spec, p)
			r.skews = make([]skew, len(r.spec.constraints))
			for k := range r.spec.constraints {
				r.skews[k] = skewOf(&r.spec.constraints[k], r.counts[k])
			}
		}
	}
	if r.spec == nil {
		return true, ""
	}
	from := in.Snapshot.Node(p.Spec.NodeName)
	for k := range r.spec.constraints {
		c := &r.spec.constraints[k]
		s := r.skews[k]
		if !s.ok {
			continue
		}
		before := s.value(c, r.counts[k], -1)
		if from != nil {
			before = s.value(c, r.counts[k], c.domainOf(from.Index()))
		}
		after := s.value(c, r.counts[k], c.domainOf(n.Index()))
		if after > max(c.MaxSkew, before) {
			return false, "node(s) would break the pod's topology spread constraint on " + c.TopologyKey + " (" + Name + ")"
		}
	}
	return true, ""
}
