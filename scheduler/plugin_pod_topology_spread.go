package scheduler

import (
	"fmt"
	"math"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation"
	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/kube-rebalancer/rebalancer/cluster"
)

// PodTopologySpread is the plugin's name in a profile.
const PodTopologySpread = "PodTopologySpread"

// kube-scheduler's PodTopologySpread reasons.
const (
	ErrReasonConstraintsNotMatch = "node(s) didn't match pod topology spread constraints"
	ErrReasonNodeLabelNotMatch   = ErrReasonConstraintsNotMatch + " (missing required label)"
)

var (
	reasonSpread             = []string{ErrReasonConstraintsNotMatch}
	reasonSpreadMissingLabel = []string{ErrReasonNodeLabelNotMatch}
)

// podTopologySpread keeps a pod off nodes where placing it would make a
// DoNotSchedule constraint's skew exceed maxSkew, and prefers, for
// ScheduleAnyway constraints (or the default ones), the nodes whose domains
// hold fewer matching pods.
type podTopologySpread struct {
	key  StateKey
	args *configv1.PodTopologySpreadArgs
}

var (
	_ FilterPlugin = (*podTopologySpread)(nil)
	_ ScorePlugin  = (*podTopologySpread)(nil)
)

func newPodTopologySpread(args any, h Handle) (Plugin, error) {
	return &podTopologySpread{key: h.StateKey(), args: args.(*configv1.PodTopologySpreadArgs)}, nil
}

// podTopologySpreadArgs decodes, defaults and validates
// PodTopologySpreadArgs.
var podTopologySpreadArgs = typedArgs(PodTopologySpread+"Args", func(a *configv1.PodTopologySpreadArgs) {
	if a.DefaultingType == "" {
		a.DefaultingType = configv1.SystemDefaulting
	}
}, validateSpreadArgs)

func validateSpreadArgs(spread *configv1.PodTopologySpreadArgs, _ string, bad func(string, string, ...any)) {
	switch spread.DefaultingType {
	case configv1.SystemDefaulting:
		if len(spread.DefaultConstraints) > 0 {
			bad("defaultingType", "System does not allow defaultConstraints")
		}
	case configv1.ListDefaulting:
	default:
		bad("defaultingType", "%q is not System or List", spread.DefaultingType)
	}
	for i, c := range spread.DefaultConstraints {
		at := fmt.Sprintf("defaultConstraints[%d]", i)
		if c.MaxSkew <= 0 {
			bad(at+".maxSkew", "%d is not above 0", c.MaxSkew)
		}
		if c.TopologyKey == "" {
			bad(at+".topologyKey", "required")
		} else if msgs := validation.IsQualifiedName(c.TopologyKey); len(msgs) > 0 {
			bad(at+".topologyKey", "%q is not a label name: %s", c.TopologyKey, strings.Join(msgs, "; "))
		}
		if c.WhenUnsatisfiable != corev1.DoNotSchedule && c.WhenUnsatisfiable != corev1.ScheduleAnyway {
			bad(at+".whenUnsatisfiable", "%q is not DoNotSchedule or ScheduleAnyway", c.WhenUnsatisfiable)
		}
		if c.LabelSelector != nil {
			bad(at+".labelSelector", "must be empty: the selector is deduced for each pod")
		}
		for j := range i {
			if o := spread.DefaultConstraints[j]; o.TopologyKey == c.TopologyKey && o.WhenUnsatisfiable == c.WhenUnsatisfiable {
				bad(at, "repeats {%s, %s} of defaultConstraints[%d]", c.TopologyKey, c.WhenUnsatisfiable, j)
			}
		}
	}
}

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
// the matching pods per domain over the eligible nodes, and the minimum;
// and Score's buffers, kept from cycle to cycle.
type spreadState struct {
	constraints []spreadConstraint
	counts      [][]int32
	minMatch    []int32
	self        []int32

	// perNode is Score's raw score per feasible node; byNode its count of
	// matching pods per node for the hostname key.
	perNode []float64
	byNode  []int32
}

// Reset keeps Score's buffers.
func (s *spreadState) Reset() {
	*s = spreadState{perNode: s.perNode, byNode: s.byNode}
}

// spreadConstraints returns the pod's constraints with the given action, or
// when it has none, the profile's default constraints with that action. The
// defaults apply, as in kube-scheduler, to pods that a ReplicaSet,
// ReplicationController or StatefulSet controls; kube-scheduler also applies
// them to pods a Service selects, which a snapshot does not know.
func (c *Cycle) spreadConstraints(args *configv1.PodTopologySpreadArgs, action corev1.UnsatisfiableConstraintAction) ([]spreadConstraint, error) {
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
func (c *Cycle) eachMatchingPod(sc *spreadConstraint, fn func(node int32)) {
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
func (c *Cycle) selfMatch(sc *spreadConstraint) int32 {
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
func (c *Cycle) includes(sc *spreadConstraint, i int32) bool {
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

func (*podTopologySpread) Name() string { return PodTopologySpread }

// PreFilter counts, for each DoNotSchedule constraint, the matching pods in
// each domain; Filter turns a node down when the pod would make the skew
// exceed maxSkew: the matching pods in the node's domain, plus the pod
// itself, minus the fewest in any domain (0 when there are fewer eligible
// domains than minDomains).
func (p *podTopologySpread) PreFilter(c *Cycle) PreFilterResult {
	cons, err := c.spreadConstraints(p.args, corev1.DoNotSchedule)
	if err != nil {
		return PreFilterResult{Reject: "parsing pod topology spread constraints: " + err.Error()}
	}
	if len(cons) == 0 {
		return PreFilterResult{Skip: true}
	}
	st := State[spreadState](c, p.key)
	*st = spreadState{perNode: st.perNode, byNode: st.byNode, constraints: cons, counts: make([][]int32, len(cons)), minMatch: make([]int32, len(cons)), self: make([]int32, len(cons))}
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
		counts := c.Int32Buffer(len(sc.domains.Values))
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
	return PreFilterResult{}
}

func (p *podTopologySpread) Filter(c *Cycle, i int) []string {
	st := State[spreadState](c, p.key)
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

// Score prefers, for ScheduleAnyway constraints (or the default ones), the
// feasible nodes whose domains hold fewer matching pods, each constraint
// weighted by the log of its number of domains.
func (p *podTopologySpread) Score(c *Cycle, feasible []int32, out []int64) bool {
	cons, err := c.spreadConstraints(p.args, corev1.ScheduleAnyway)
	if err != nil || len(cons) == 0 {
		return false
	}
	// With the system defaults a node without a zone label still scores by
	// hostname; with constraints of the pod's or the profile's own, a node
	// missing any key scores 0.
	requireAll := len(c.pod.Spec.TopologySpreadConstraints) > 0 || p.args.DefaultingType != configv1.SystemDefaulting
	ignored := make([]bool, len(feasible))
	var numIgnored int
	for k, i := range feasible {
		if requireAll && !hasAllKeys(cons, i) {
			ignored[k] = true
			numIgnored++
		}
	}

	st := State[spreadState](c, p.key)
	perNode := zeroed(&st.perNode, len(feasible))
	for ci := range cons {
		sc := &cons[ci]
		var counts []int32 // by node for hostname, by domain otherwise
		var size int
		if sc.key == corev1.LabelHostname {
			size = len(feasible) - numIgnored
			counts = zeroed(&st.byNode, len(c.nodes))
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
			counts = c.Int32Buffer(len(sc.domains.Values))
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
