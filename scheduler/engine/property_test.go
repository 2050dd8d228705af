package engine

import (
	"fmt"
	"math/rand/v2"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"

	"github.com/kube-rebalancer/rebalancer/cluster"
	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
)

// TestFeasibilityMatchesAReferenceImplementation generates clusters and pods
// from fixed seeds and checks that the engine's feasible nodes are exactly
// the nodes a plain, slow implementation of every hard constraint accepts:
// each node the engine accepts satisfies every constraint, and each node it
// rejects violates one, for the reasons that the filter turning it down
// gives when asked about that node alone.
func TestFeasibilityMatchesAReferenceImplementation(t *testing.T) {
	checked, feasible := 0, 0
	for seed := uint64(1); seed <= 40; seed++ {
		r := rand.New(rand.NewPCG(seed, 7))
		s, incomingNames := generateCluster(t, r)
		e := defaultEngine(t)
		for _, name := range incomingNames {
			p := s.Pod(name)
			res := e.Schedule(s, p, Options{Explain: true})
			for i, nr := range res.Nodes {
				n := s.Nodes()[i]
				want, why := referenceFits(s, p, n)
				if nr.Feasible != want {
					t.Fatalf("seed %d, pod %s, node %s: engine feasible=%v (%s), reference %v (%s)", seed, name, n.Name, nr.Feasible, nr.Reason, want, why)
				}
				// The reasons the search recorded are those of the first
				// filter that turns the node down, asked alone.
				if fits, reason := e.Fits(s, p, n); fits != nr.Feasible || !fits && reason != nr.Reason {
					t.Fatalf("seed %d, pod %s, node %s: searched %v (%s), asked alone %v (%s)", seed, name, n.Name, nr.Feasible, nr.Reason, fits, reason)
				}
				checked++
				if want {
					feasible++
				}
			}
			// Place the pod as the planner would, so that later pods see it.
			if res.Node != "" {
				if err := s.Place(p, res.Node); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	// The generator must produce both outcomes in quantity, or the test
	// proves little.
	t.Logf("%d of %d feasible", feasible, checked)
	if feasible < checked/10 || feasible > checked*9/10 {
		t.Errorf("%d of %d node checks were feasible: the generated cases are too one-sided", feasible, checked)
	}
}

func generateCluster(t *testing.T, r *rand.Rand) (*cluster.Snapshot, []string) {
	zones := []string{"z1", "z2", "z3"}
	apps := []string{"a", "b", "c"}
	var nodes []corev1.Node
	numNodes := 8 + r.IntN(10)
	for i := range numNodes {
		b := ct.Node(fmt.Sprintf("node-%02d", i)).
			Allocatable(corev1.ResourceCPU, fmt.Sprintf("%d", 2+r.IntN(6))).
			Allocatable(corev1.ResourceMemory, fmt.Sprintf("%dGi", 4+r.IntN(12))).
			Allocatable(corev1.ResourcePods, fmt.Sprintf("%d", 4+r.IntN(8))).
			Label("pool", []string{"general", "compute"}[r.IntN(2)])
		if r.IntN(8) > 0 {
			b.Zone(zones[r.IntN(len(zones))])
		}
		if r.IntN(5) == 0 {
			b.Taint("dedicated", []string{"gpu", "db"}[r.IntN(2)], []corev1.TaintEffect{corev1.TaintEffectNoSchedule, corev1.TaintEffectNoExecute, corev1.TaintEffectPreferNoSchedule}[r.IntN(3)])
		}
		if r.IntN(10) == 0 {
			b.Unschedulable()
		}
		if r.IntN(6) == 0 {
			b.Allocatable("example.com/gpu", "2")
		}
		nodes = append(nodes, b.Obj())
	}

	randomPod := func(b *ct.PodBuilder) *ct.PodBuilder {
		app := apps[r.IntN(len(apps))]
		b.Label("app", app).
			Requests(fmt.Sprintf("%dm", 100*(1+r.IntN(15))), fmt.Sprintf("%dMi", 256*(1+r.IntN(8))))
		if r.IntN(10) == 0 {
			b.Request("example.com/gpu", "1")
		}
		if r.IntN(4) == 0 {
			b.Toleration(corev1.Toleration{Key: "dedicated", Operator: corev1.TolerationOpExists})
		}
		if r.IntN(8) == 0 {
			b.HostPort(int32(8080+r.IntN(2)), corev1.ProtocolTCP, "")
		}
		if r.IntN(5) == 0 {
			b.AntiAffinityTerm(ct.AffinityTerm([]string{corev1.LabelHostname, corev1.LabelTopologyZone}[r.IntN(2)], ct.Selector("app", app)))
		}
		return b
	}

	var pods []corev1.Pod
	for i := range 3 * numNodes {
		b := randomPod(ct.Pod("default", fmt.Sprintf("existing-%03d", i)))
		b.On(nodes[r.IntN(len(nodes))].Name)
		if r.IntN(20) == 0 {
			b.Edit(func(p *corev1.Pod) { p.Namespace = "other" })
		}
		pods = append(pods, b.Obj())
	}

	var incomingNames []string
	for i := range 12 {
		name := fmt.Sprintf("incoming-%02d", i)
		b := randomPod(ct.Pod("default", name).Pending())
		switch r.IntN(4) {
		case 0:
			b.NodeSelector("pool", "compute")
		case 1:
			b.RequireNodeAffinity(ct.NodeSelectorTerm(corev1.LabelTopologyZone, corev1.NodeSelectorOpIn, zones[:2]...))
		}
		if r.IntN(3) == 0 {
			app := apps[r.IntN(len(apps))]
			tc := corev1.TopologySpreadConstraint{
				MaxSkew:           int32(1 + r.IntN(2)),
				TopologyKey:       []string{corev1.LabelHostname, corev1.LabelTopologyZone}[r.IntN(2)],
				WhenUnsatisfiable: corev1.DoNotSchedule,
				LabelSelector:     ct.Selector("app", app),
			}
			if r.IntN(3) == 0 {
				tc.MinDomains = ptr.To(int32(2 + r.IntN(3)))
			}
			if r.IntN(3) == 0 {
				tc.NodeAffinityPolicy = ptr.To(corev1.NodeInclusionPolicyIgnore)
			}
			if r.IntN(3) == 0 {
				tc.NodeTaintsPolicy = ptr.To(corev1.NodeInclusionPolicyHonor)
			}
			b.SpreadConstraint(tc)
		}
		if r.IntN(6) == 0 {
			b.RequirePodAffinity(ct.AffinityTerm(corev1.LabelTopologyZone, ct.Selector("app", apps[r.IntN(len(apps))])))
		}
		pods = append(pods, b.Obj())
		incomingNames = append(incomingNames, "default/"+name)
	}
	return newSnapshot(t, nodes, pods), incomingNames
}

// referenceFits checks every hard constraint of the default profile for one
// pod and node the slow, obvious way.
func referenceFits(s *cluster.Snapshot, p *cluster.Pod, n *cluster.Node) (bool, string) {
	log := klog.Background()
	pod := p.Pod
	if n.Spec.Unschedulable && !corev1helpers.TolerationsTolerateTaint(log, pod.Spec.Tolerations, &corev1.Taint{Key: corev1.TaintNodeUnschedulable, Effect: corev1.TaintEffectNoSchedule}, false) {
		return false, "cordoned"
	}
	hardTaint := func(t *corev1.Taint) bool {
		return t.Effect == corev1.TaintEffectNoSchedule || t.Effect == corev1.TaintEffectNoExecute
	}
	untolerated := func(n *cluster.Node) bool {
		_, bad := corev1helpers.FindMatchingUntoleratedTaint(log, n.Spec.Taints, pod.Spec.Tolerations, hardTaint, false)
		return bad
	}
	if untolerated(n) {
		return false, "taint"
	}
	affinity := nodeaffinity.GetRequiredNodeAffinity(pod)
	if ok, _ := affinity.Match(n.Node); !ok {
		return false, "node affinity"
	}

	free := func(alloc, used, want int64) bool { return want == 0 || want <= alloc-used }
	req := p.Requests
	if n.Requested.Pods+1 > n.Allocatable.Pods || !free(n.Allocatable.MilliCPU, n.Requested.MilliCPU, req.MilliCPU) ||
		!free(n.Allocatable.Memory, n.Requested.Memory, req.Memory) {
		return false, "resources"
	}
	for name, v := range req.Scalar {
		if !free(n.Allocatable.Scalar[name], n.Requested.Scalar[name], v) {
			return false, "scalar resources"
		}
	}

	for _, want := range cluster.PodHostPorts(pod) {
		for _, other := range n.Pods() {
			for _, used := range cluster.PodHostPorts(other.Pod) {
				if used.Port == want.Port && used.Protocol == want.Protocol && (used.IP == "0.0.0.0" || want.IP == "0.0.0.0" || used.IP == want.IP) {
					return false, "host port"
				}
			}
		}
	}

	// placed lists every pod on a node with the node it is on.
	type placedPod struct {
		pod  *cluster.Pod
		node *cluster.Node
	}
	var placed []placedPod
	for _, q := range s.Pods() {
		if q == p {
			continue
		}
		if qn := s.NodeOf(q); qn != nil {
			placed = append(placed, placedPod{q, qn})
		}
	}
	sameDomain := func(a, b *cluster.Node, key string) bool {
		va, oka := a.Labels[key]
		vb, okb := b.Labels[key]
		return oka && okb && va == vb
	}

	// Spread: brute force over every domain value.
	for _, tc := range pod.Spec.TopologySpreadConstraints {
		if tc.WhenUnsatisfiable != corev1.DoNotSchedule {
			continue
		}
		sel, _ := metav1.LabelSelectorAsSelector(tc.LabelSelector)
		eligible := func(m *cluster.Node) bool {
			for _, other := range pod.Spec.TopologySpreadConstraints {
				if other.WhenUnsatisfiable != corev1.DoNotSchedule {
					continue
				}
				if _, ok := m.Labels[other.TopologyKey]; !ok {
					return false
				}
			}
			if tc.NodeAffinityPolicy == nil || *tc.NodeAffinityPolicy == corev1.NodeInclusionPolicyHonor {
				if ok, _ := affinity.Match(m.Node); !ok {
					return false
				}
			}
			if tc.NodeTaintsPolicy != nil && *tc.NodeTaintsPolicy == corev1.NodeInclusionPolicyHonor && untolerated(m) {
				return false
			}
			return true
		}
		counts := map[string]int{}
		for _, m := range s.Nodes() {
			if eligible(m) {
				counts[m.Labels[tc.TopologyKey]] += 0
			}
		}
		for _, pp := range placed {
			if pp.pod.Namespace == pod.Namespace && pp.pod.DeletionTimestamp == nil && sel.Matches(labels.Set(pp.pod.Labels)) && eligible(pp.node) {
				counts[pp.node.Labels[tc.TopologyKey]]++
			}
		}
		value, ok := n.Labels[tc.TopologyKey]
		if !ok {
			return false, "spread: missing label"
		}
		lowest := -1
		for _, c := range counts {
			if lowest < 0 || c < lowest {
				lowest = c
			}
		}
		minDomains := 1
		if tc.MinDomains != nil {
			minDomains = int(*tc.MinDomains)
		}
		if len(counts) < minDomains || lowest < 0 {
			lowest = 0
		}
		self := 0
		if sel.Matches(labels.Set(pod.Labels)) {
			self = 1
		}
		if counts[value]+self-lowest > int(tc.MaxSkew) {
			return false, "spread: skew"
		}
	}

	// Inter-pod affinity, all in the pods' own namespace, as generated.
	termSelects := func(term corev1.PodAffinityTerm, owner *corev1.Pod, q *corev1.Pod) bool {
		sel, _ := metav1.LabelSelectorAsSelector(term.LabelSelector)
		return q.Namespace == owner.Namespace && sel.Matches(labels.Set(q.Labels))
	}
	if a := pod.Spec.Affinity; a != nil && a.PodAffinity != nil {
		for _, term := range a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
			anywhere, here := false, false
			for _, pp := range placed {
				if termSelects(term, pod, pp.pod.Pod) {
					if _, ok := pp.node.Labels[term.TopologyKey]; ok {
						anywhere = true
					}
					here = here || sameDomain(pp.node, n, term.TopologyKey)
				}
			}
			if _, ok := n.Labels[term.TopologyKey]; !ok {
				return false, "affinity: missing label"
			}
			if !here && (anywhere || !termSelects(term, pod, pod)) {
				return false, "affinity"
			}
		}
	}
	if a := pod.Spec.Affinity; a != nil && a.PodAntiAffinity != nil {
		for _, term := range a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
			for _, pp := range placed {
				if termSelects(term, pod, pp.pod.Pod) && sameDomain(pp.node, n, term.TopologyKey) {
					return false, "anti-affinity"
				}
			}
		}
	}
	for _, pp := range placed {
		a := pp.pod.Spec.Affinity
		if a == nil || a.PodAntiAffinity == nil {
			continue
		}
		for _, term := range a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
			if termSelects(term, pp.pod.Pod, pod) && sameDomain(pp.node, n, term.TopologyKey) {
				return false, "existing anti-affinity"
			}
		}
	}
	return true, ""
}
