package scheduler

import (
	"math"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/kube-rebalancer/rebalancer/cluster"
)

// kube-scheduler's PodTopologySpread reasons.
var (
	reasonSpread             = []string{"node(s) didn't match pod topology spread constraints"}
	reasonSpreadMissingLabel = []string{"node(s) didn't match pod topology spread constraints (missing required label)"}
)

// systemDefaultConstraints are kube-scheduler's defaults for pods without
// constraints of their own: spread over nodes (maxSkew 3) and zones
// (maxSkew 5), as a preference.
var systemDefaultConstraints = []corev1.TopologySpreadConstraint{
	{TopologyKey: corev1.LabelHostname, WhenUnsatisfiable: corev1.ScheduleAnyway, MaxSkew: 3},
	{TopologyKey: corev1.LabelTopologyZone, WhenUnsatisfiable: corev1.ScheduleAnyway, MaxSkew: 5},
}

// spreadConstraint is a topology spread constraint as the plugin applies it.
type spreadConstraint struct {
	maxSkew    int32
	key        string
	domains    *cluster.TopologyDomains
	minDomains int32
	// selector selects the pods that count; with sameController the pods
	// that count are instead those of the pod's own controller.
	selector       labels.Selector
	sameController bool
	honorAffinity  bool
	honorTaints    bool
}

// spreadState is PodTopologySpread's PreFilter state: for each constraint,
// the matching pods per domain over the eligible nodes, and the minimum.
type spreadState struct {
	constraints []spreadConstraint
	counts      [][]int32
	minMatch    []int32
	self        []int32
}

// spreadConstraints returns the pod's constraints with the given action, or
// when it has none, the profile's default constraints with that action. The
// defaults apply, as in kube-scheduler, to pods that a ReplicaSet,
// ReplicationController or StatefulSet controls; kube-scheduler also applies
// them to pods a Service selects, which a snapshot does not know.
func (c *cycle) spreadConstraints(args *configv1.PodTopologySpreadArgs, action corev1.UnsatisfiableConstraintAction) ([]spreadConstraint, error) {
	var out []spreadConstraint
	own := c.pod.Spec.TopologySpreadConstraints
	if len(own) > 0 {
		for _, tc := range own {
			if tc.WhenUnsatisfiable != action {
				continue
			}
			sel, err := metav1.LabelSelectorAsSelector(tc.LabelSelector)
			if err != nil {
				return nil, err
			}
			sel = withMatchLabelKeys(sel, tc.MatchLabelKeys, c.pod.Labels)
			sc := spreadConstraint{
				maxSkew:       tc.MaxSkew,
				key:           tc.TopologyKey,
				selector:      sel,
				minDomains:    1,
				honorAffinity: tc.NodeAffinityPolicy == nil || *tc.NodeAffinityPolicy == corev1.NodeInclusionPolicyHonor,
				honorTaints:   tc.NodeTaintsPolicy != nil && *tc.NodeTaintsPolicy == corev1.NodeInclusionPolicyHonor,
			}
			if tc.MinDomains != nil {
				sc.minDomains = *tc.MinDomains
			}
			out = append(out, sc)
		}
	} else if defaultSpreadController(c.pod) {
		defaults := args.DefaultConstraints
		if args.DefaultingType == configv1.SystemDefaulting {
			defaults = systemDefaultConstraints
		}
		for _, tc := range defaults {
			if tc.WhenUnsatisfiable != action {
				continue
			}
			out = append(out, spreadConstraint{maxSkew: tc.MaxSkew, key: tc.TopologyKey, sameController: true, minDomains: 1, honorAffinity: true})
		}
	}
	for i := range out {
		out[i].domains = c.t.domainsOf(out[i].key)
	}
	return out, nil
}

// withMatchLabelKeys adds key=value for each matchLabelKeys key the pod has
// a label for. The API server merges them into the selector of pods it
// admits; doing it again changes nothing and covers pods written by hand.
func withMatchLabelKeys(sel labels.Selector, keys []string, podLabels map[string]string) labels.Selector {
	set := labels.Set{}
	for _, k := range keys {
		if v, ok := podLabels[k]; ok {
			set[k] = v
		}
	}
	if len(set) == 0 {
		return sel
	}
	reqs, selectable := sel.Requirements()
	if !selectable {
		return sel
	}
	return labels.SelectorFromSet(set).Add(reqs...)
}

// defaultSpreadController reports whether the pod's controller is a kind
// kube-scheduler derives a default spreading selector from.
func defaultSpreadController(p *cluster.Pod) bool {
	ctrl := p.Controller()
	if ctrl == nil {
		return false
	}
	switch ctrl.APIVersion + "/" + ctrl.Kind {
	case "apps/v1/ReplicaSet", "apps/v1/StatefulSet", "v1/ReplicationController":
		return true
	}
	return false
}

// eachMatchingPod calls fn for every pod that a constraint counts and that
// holds a node: same namespace as the pod, not terminating, selected.
func (c *cycle) eachMatchingPod(sc *spreadConstraint, fn func(node int32)) {
	visit := func(p *cluster.Pod) {
		if p.DeletionTimestamp != nil {
			return
		}
		if n := c.placedOn(p); n >= 0 {
			fn(n)
		}
	}
	if sc.sameController {
		for _, p := range c.t.controlledBy(c.snap, c.pod) {
			visit(p)
		}
		return
	}
	if sc.selector.Empty() {
		// kube-scheduler counts no pod for a selector that selects
		// everything.
		return
	}
	g := c.t.groups()
	for _, id := range c.t.selectGroups(c.snap, cluster.PodQuery{Namespaces: []string{c.pod.Namespace}, Selector: sc.selector}) {
		for _, p := range g.Groups[id].Pods {
			visit(p)
		}
	}
}

// controlledBy returns the pods of the snapshot family that share the pod's
// controller (kind, name and namespace), kept per controller: pods of a
// workload keep their owner whatever edits move them.
func (t *tables) controlledBy(snap *cluster.Snapshot, pod *cluster.Pod) []*cluster.Pod {
	ctrl := pod.Controller()
	key := pod.Namespace + "/" + ctrl.APIVersion + "/" + ctrl.Kind + "/" + ctrl.Name
	return memo(t, t.controlled, key, func() []*cluster.Pod {
		same := func(p *cluster.Pod) bool {
			o := p.Controller()
			return o != nil && p.Namespace == pod.Namespace && o.Kind == ctrl.Kind && o.Name == ctrl.Name && o.APIVersion == ctrl.APIVersion
		}
		var out []*cluster.Pod
		if !pod.Workload.IsZero() {
			for _, p := range snap.PodsOf(pod.Workload) {
				if same(p) {
					out = append(out, p)
				}
			}
			return out
		}
		g := t.groups()
		for _, id := range g.InNamespace(pod.Namespace) {
			for _, p := range g.Groups[id].Pods {
				if same(p) {
					out = append(out, p)
				}
			}
		}
		return out
	})
}

// selfMatch is 1 when the pod itself is one of the pods its constraint
// counts.
func (c *cycle) selfMatch(sc *spreadConstraint) int32 {
	if sc.sameController || sc.selector.Matches(labels.Set(c.pod.Labels)) {
		return 1
	}
	return 0
}

// hasAllKeys reports whether node i has every constraint's topology key:
// a node missing one is not a domain of any of them.
func hasAllKeys(cons []spreadConstraint, i int32) bool {
	for k := range cons {
		if cons[k].domains.Of[i] < 0 {
			return false
		}
	}
	return true
}

// includes applies a constraint's nodeAffinityPolicy and nodeTaintsPolicy to
// node i.
func (c *cycle) includes(sc *spreadConstraint, i int32) bool {
	if sc.honorAffinity {
		if sel := c.requiredAffinitySelection(); sel != nil && !sel[i] {
			return false
		}
	}
	if sc.honorTaints {
		untolerated, g := c.untoleratedReasons()
		if untolerated[g.of[i]] != nil {
			return false
		}
	}
	return true
}

// spreadFilter keeps a pod off nodes where placing it would make a
// DoNotSchedule constraint's skew exceed maxSkew: the matching pods in the
// node's domain, plus the pod itself, minus the fewest in any domain (0 when
// there are fewer eligible domains than minDomains).
type spreadFilter struct {
	defaults *configv1.PodTopologySpreadArgs
}

func (spreadFilter) name() string { return PodTopologySpread }

func (f spreadFilter) prepare(c *cycle) prepared {
	cons, err := c.spreadConstraints(f.defaults, corev1.DoNotSchedule)
	if err != nil {
		return prepared{reject: "parsing pod topology spread constraints: " + err.Error()}
	}
	if len(cons) == 0 {
		return prepared{skip: true}
	}
	st := spreadState{constraints: cons, counts: make([][]int32, len(cons)), minMatch: make([]int32, len(cons)), self: make([]int32, len(cons))}
	for k := range cons {
		sc := &cons[k]
		// A domain counts when some eligible node is in it; once every
		// domain has one, the other nodes cannot add any.
		present := make([]bool, len(sc.domains.Values))
		found := 0
		for i := range c.nodes {
			if found == len(present) {
				break
			}
			if n := int32(i); hasAllKeys(cons, n) && c.includes(sc, n) && !present[sc.domains.Of[n]] {
				present[sc.domains.Of[n]] = true
				found++
			}
		}
		counts := c.int32Buffer(len(sc.domains.Values))
		c.eachMatchingPod(sc, func(n int32) {
			if hasAllKeys(cons, n) && c.includes(sc, n) {
				counts[sc.domains.Of[n]]++
			}
		})
		var domains int32
		minMatch := int32(math.MaxInt32)
		for d, ok := range present {
			if ok {
				domains++
				minMatch = min(minMatch, counts[d])
			}
		}
		if domains < sc.minDomains {
			minMatch = 0
		}
		st.counts[k], st.minMatch[k], st.self[k] = counts, minMatch, c.selfMatch(sc)
	}
	c.spread = st
	return prepared{}
}

func (spreadFilter) filter(c *cycle, i int) []string {
	st := &c.spread
	for k := range st.constraints {
		sc := &st.constraints[k]
		d := sc.domains.Of[i]
		if d < 0 {
			return reasonSpreadMissingLabel
		}
		if int64(st.counts[k][d])+int64(st.self[k])-int64(st.minMatch[k]) > int64(sc.maxSkew) {
			return reasonSpread
		}
	}
	return nil
}

// spreadScore prefers, for ScheduleAnyway constraints (or the default ones),
// the feasible nodes whose domains hold fewer matching pods, each
// constraint weighted by the log of its number of domains.
type spreadScore struct {
	defaults *configv1.PodTopologySpreadArgs
}

func (spreadScore) name() string { return PodTopologySpread }

func (s spreadScore) score(c *cycle, feasible []int32, out []int64) bool {
	cons, err := c.spreadConstraints(s.defaults, corev1.ScheduleAnyway)
	if err != nil || len(cons) == 0 {
		return false
	}
	// With the system defaults a node without a zone label still scores by
	// hostname; with constraints of the pod's or the profile's own, a node
	// missing any key scores 0.
	requireAll := len(c.pod.Spec.TopologySpreadConstraints) > 0 || s.defaults.DefaultingType != configv1.SystemDefaulting
	ignored := make([]bool, len(feasible))
	var numIgnored int
	for k, i := range feasible {
		if requireAll && !hasAllKeys(cons, i) {
			ignored[k] = true
			numIgnored++
		}
	}

	perNode := zeroed(&c.perNode, len(feasible))
	for ci := range cons {
		sc := &cons[ci]
		var counts []int32 // by node for hostname, by domain otherwise
		var size int
		if sc.key == corev1.LabelHostname {
			size = len(feasible) - numIgnored
			counts = zeroed(&c.counts, len(c.nodes))
			c.eachMatchingPod(sc, func(n int32) { counts[n]++ })
		} else {
			present := make([]bool, len(sc.domains.Values))
			missing := false
			for k, i := range feasible {
				if ignored[k] {
					continue
				}
				if d := sc.domains.Of[i]; d >= 0 {
					if !present[d] {
						present[d] = true
						size++
					}
				} else if !missing {
					missing = true
					size++
				}
			}
			counts = c.int32Buffer(len(sc.domains.Values))
			c.eachMatchingPod(sc, func(n int32) {
				if requireAll && !hasAllKeys(cons, n) || !c.includes(sc, n) {
					return
				}
				if d := sc.domains.Of[n]; d >= 0 && present[d] {
					counts[d]++
				}
			})
		}
		weight := math.Log(float64(size + 2))
		for k, i := range feasible {
			if ignored[k] {
				continue
			}
			d := sc.domains.Of[i]
			if d < 0 {
				continue
			}
			cnt := counts[d]
			if sc.key == corev1.LabelHostname {
				cnt = counts[i]
			}
			perNode[k] += float64(cnt)*weight + float64(sc.maxSkew-1)
		}
	}

	lowest, highest := int64(math.MaxInt64), int64(0)
	for k := range feasible {
		if ignored[k] {
			continue
		}
		out[k] = int64(math.Round(perNode[k]))
		lowest, highest = min(lowest, out[k]), max(highest, out[k])
	}
	for k := range feasible {
		switch {
		case ignored[k]:
			out[k] = 0
		case highest == 0:
			out[k] = maxNodeScore
		default:
			out[k] = maxNodeScore * (highest + lowest - out[k]) / highest
		}
	}
	return true
}
