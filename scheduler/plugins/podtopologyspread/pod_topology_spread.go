// Package podtopologyspread is kube-scheduler's PodTopologySpread plugin:
// the pod's spread constraints, or the profile's default ones.
package podtopologyspread

import (
	"fmt"
	"math"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation"
	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/scheduler/framework"
)

// Name is the plugin's name in a profile.
const Name = "PodTopologySpread"

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
	key  framework.StateKey
	args *configv1.PodTopologySpreadArgs
}

var (
	_ framework.FilterPlugin = (*podTopologySpread)(nil)
	_ framework.ScorePlugin  = (*podTopologySpread)(nil)
)

func New(args any, h framework.Handle) (framework.Plugin, error) {
	return &podTopologySpread{key: h.StateKey(), args: args.(*configv1.PodTopologySpreadArgs)}, nil
}

// podTopologySpreadArgs decodes, defaults and validates
// PodTopologySpreadArgs.
var Args = framework.TypedArgs(Name+"Args", func(a *configv1.PodTopologySpreadArgs) {
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

// spreadState is PodTopologySpread's PreFilter state: for each constraint,
// the matching pods per domain over the eligible nodes, and the minimum;
// and Score's buffers, kept from cycle to cycle.
type spreadState struct {
	constraints []cluster.SpreadConstraint
	counts      [][]int32
	minMatch    []int32
	self        []int32

	// perNode is Score's raw score per feasible node; byNode its count of
	// matching pods per node for the hostname key.
	perNode []float64
	byNode  []int32
}

// familyState keeps, for a snapshot family, the pods of each controller.
type familyState struct {
	controlled framework.Memo[string, []*cluster.Pod]
}

// Reset keeps Score's buffers.
func (s *spreadState) Reset() {
	*s = spreadState{perNode: s.perNode, byNode: s.byNode}
}

// spreadConstraints returns the pod's constraints with the given action, or
// when it has none, the profile's default constraints with that action;
// byController is true for the defaults, which count the pods of the pod's
// own controller rather than those a selector selects. The defaults apply,
// as in kube-scheduler, to pods that a ReplicaSet, ReplicationController or
// StatefulSet controls; kube-scheduler also applies them to pods a Service
// selects, which a snapshot does not know.
func (p *podTopologySpread) spreadConstraints(c *framework.Cycle, args *configv1.PodTopologySpreadArgs, action corev1.UnsatisfiableConstraintAction) (out []cluster.SpreadConstraint, byController bool, err error) {
	own := c.Pod().Spec.TopologySpreadConstraints
	if len(own) > 0 {
		for k := range own {
			if own[k].WhenUnsatisfiable != action {
				continue
			}
			sc, err := cluster.CompileSpreadConstraint(&own[k], c.Pod().Labels)
			if err != nil {
				return nil, false, err
			}
			out = append(out, sc)
		}
	} else if defaultSpreadController(c.Pod()) {
		byController = true
		defaults := args.DefaultConstraints
		if args.DefaultingType == configv1.SystemDefaulting {
			defaults = systemDefaultConstraints
		}
		for _, tc := range defaults {
			if tc.WhenUnsatisfiable != action {
				continue
			}
			// Only maxSkew and the key of a default constraint count
			// here: its selector is the controller's, and its policies
			// and minDomains keep their defaults.
			out = append(out, cluster.SpreadConstraint{TopologyKey: tc.TopologyKey, MaxSkew: tc.MaxSkew, WhenUnsatisfiable: action, MinDomains: 1, HonorsNodeAffinity: true})
		}
	}
	for i := range out {
		out[i].Domains = c.TopologyDomains(out[i].TopologyKey)
	}
	return out, byController, nil
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
// holds a node: same namespace as the pod, not terminating, selected (or of
// the pod's controller, byController).
func (p *podTopologySpread) eachMatchingPod(c *framework.Cycle, sc *cluster.SpreadConstraint, byController bool, fn func(node int32)) {
	visit := func(p *cluster.Pod) {
		if p.DeletionTimestamp != nil {
			return
		}
		if n := c.PlacedOn(p); n >= 0 {
			fn(n)
		}
	}
	if byController {
		for _, q := range p.controlledBy(c) {
			visit(q)
		}
		return
	}
	if sc.Selector.Empty() {
		// kube-scheduler counts no pod for a selector that selects
		// everything.
		return
	}
	g := c.PodGroups()
	for _, id := range c.SelectPodGroups(cluster.PodQuery{Namespaces: []string{c.Pod().Namespace}, Selector: sc.Selector}) {
		for _, p := range g.Groups[id].Pods {
			visit(p)
		}
	}
}

// controlledBy returns the pods of the snapshot family that share the pod's
// controller (kind, name and namespace), kept per controller: pods of a
// workload keep their owner whatever edits move them.
func (p *podTopologySpread) controlledBy(c *framework.Cycle) []*cluster.Pod {
	snap, pod := c.Snapshot(), c.Pod()
	ctrl := pod.Controller()
	key := pod.Namespace + "/" + ctrl.APIVersion + "/" + ctrl.Kind + "/" + ctrl.Name
	return framework.FamilyState[familyState](c, p.key).controlled.Get(key, func() []*cluster.Pod {
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
		g := c.PodGroups()
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
func (p *podTopologySpread) selfMatch(c *framework.Cycle, sc *cluster.SpreadConstraint, byController bool) int32 {
	if byController || sc.Selector.Matches(labels.Set(c.Pod().Labels)) {
		return 1
	}
	return 0
}

// includes applies a constraint's nodeAffinityPolicy and nodeTaintsPolicy to
// node i, asking for the pod's node selection and untolerated taints only
// when the constraint honours them.
func (p *podTopologySpread) includes(c *framework.Cycle, sc *cluster.SpreadConstraint, i int32) bool {
	if sc.HonorsNodeAffinity {
		if sel, _ := c.NodeAffinitySelection(); sel != nil && !sel[i] {
			return false
		}
	}
	if sc.HonorsNodeTaints {
		u := c.UntoleratedTaints()
		if u.First[u.Groups.Of[i]] != nil {
			return false
		}
	}
	return true
}

func (*podTopologySpread) Name() string { return Name }

// PreFilter counts, for each DoNotSchedule constraint, the matching pods in
// each domain; Filter turns a node down when the pod would make the skew
// exceed maxSkew: the matching pods in the node's domain, plus the pod
// itself, minus the fewest in any domain (0 when there are fewer eligible
// domains than minDomains).
func (p *podTopologySpread) PreFilter(c *framework.Cycle) framework.PreFilterResult {
	cons, byController, err := p.spreadConstraints(c, p.args, corev1.DoNotSchedule)
	if err != nil {
		return framework.PreFilterResult{Reject: "parsing pod topology spread constraints: " + err.Error()}
	}
	if len(cons) == 0 {
		return framework.PreFilterResult{Skip: true}
	}
	st := framework.State[spreadState](c, p.key)
	*st = spreadState{perNode: st.perNode, byNode: st.byNode, constraints: cons, counts: make([][]int32, len(cons)), minMatch: make([]int32, len(cons)), self: make([]int32, len(cons))}
	for k := range cons {
		sc := &cons[k]
		// A domain counts when some eligible node is in it; once every
		// domain has one, the other nodes cannot add any.
		present := make([]bool, len(sc.Domains.Values))
		found := 0
		for i := range c.Nodes() {
			if found == len(present) {
				break
			}
			if n := int32(i); cluster.HasAllTopologyKeys(cons, i) && p.includes(c, sc, n) && !present[sc.Domains.Of[n]] {
				present[sc.Domains.Of[n]] = true
				found++
			}
		}
		counts := c.Int32Buffer(len(sc.Domains.Values))
		p.eachMatchingPod(c, sc, byController, func(n int32) {
			if cluster.HasAllTopologyKeys(cons, int(n)) && p.includes(c, sc, n) {
				counts[sc.Domains.Of[n]]++
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
		if sc.BelowMinDomains(domains) {
			minMatch = 0
		}
		st.counts[k], st.minMatch[k], st.self[k] = counts, minMatch, p.selfMatch(c, sc, byController)
	}
	return framework.PreFilterResult{}
}

func (p *podTopologySpread) Filter(c *framework.Cycle, i int) []string {
	st := framework.State[spreadState](c, p.key)
	for k := range st.constraints {
		sc := &st.constraints[k]
		d := sc.Domains.Of[i]
		if d < 0 {
			return reasonSpreadMissingLabel
		}
		if int64(st.counts[k][d])+int64(st.self[k])-int64(st.minMatch[k]) > int64(sc.MaxSkew) {
			return reasonSpread
		}
	}
	return nil
}

// Score prefers, for ScheduleAnyway constraints (or the default ones), the
// feasible nodes whose domains hold fewer matching pods, each constraint
// weighted by the log of its number of domains.
func (p *podTopologySpread) Score(c *framework.Cycle, feasible []int32, out []int64) bool {
	cons, byController, err := p.spreadConstraints(c, p.args, corev1.ScheduleAnyway)
	if err != nil || len(cons) == 0 {
		return false
	}
	// With the system defaults a node without a zone label still scores by
	// hostname; with constraints of the pod's or the profile's own, a node
	// missing any key scores 0.
	requireAll := len(c.Pod().Spec.TopologySpreadConstraints) > 0 || p.args.DefaultingType != configv1.SystemDefaulting
	ignored := make([]bool, len(feasible))
	var numIgnored int
	for k, i := range feasible {
		if requireAll && !cluster.HasAllTopologyKeys(cons, int(i)) {
			ignored[k] = true
			numIgnored++
		}
	}

	st := framework.State[spreadState](c, p.key)
	perNode := framework.Zeroed(&st.perNode, len(feasible))
	for ci := range cons {
		sc := &cons[ci]
		var counts []int32 // by node for hostname, by domain otherwise
		var size int
		if sc.TopologyKey == corev1.LabelHostname {
			size = len(feasible) - numIgnored
			counts = framework.Zeroed(&st.byNode, len(c.Nodes()))
			p.eachMatchingPod(c, sc, byController, func(n int32) { counts[n]++ })
		} else {
			present := make([]bool, len(sc.Domains.Values))
			missing := false
			for k, i := range feasible {
				if ignored[k] {
					continue
				}
				if d := sc.Domains.Of[i]; d >= 0 {
					if !present[d] {
						present[d] = true
						size++
					}
				} else if !missing {
					missing = true
					size++
				}
			}
			counts = c.Int32Buffer(len(sc.Domains.Values))
			p.eachMatchingPod(c, sc, byController, func(n int32) {
				if requireAll && !cluster.HasAllTopologyKeys(cons, int(n)) || !p.includes(c, sc, n) {
					return
				}
				if d := sc.Domains.Of[n]; d >= 0 && present[d] {
					counts[d]++
				}
			})
		}
		weight := math.Log(float64(size + 2))
		for k, i := range feasible {
			if ignored[k] {
				continue
			}
			d := sc.Domains.Of[i]
			if d < 0 {
				continue
			}
			cnt := counts[d]
			if sc.TopologyKey == corev1.LabelHostname {
				cnt = counts[i]
			}
			perNode[k] += float64(cnt)*weight + float64(sc.MaxSkew-1)
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
			out[k] = framework.MaxNodeScore
		default:
			out[k] = framework.MaxNodeScore * (highest + lowest - out[k]) / highest
		}
	}
	return true
}

// Unresolvable: a node without a constraint's topology key stays without
// it; skew changes as pods leave.
func (p *podTopologySpread) Unresolvable(_ *framework.Cycle, _ int, reasons []string) bool {
	return len(reasons) > 0 && reasons[0] == ErrReasonNodeLabelNotMatch
}
