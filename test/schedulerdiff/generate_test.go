package schedulerdiff

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// gateName holds each pod back from kube-scheduler until the engine has
// seen the cluster as kube-scheduler will.
const gateName = "rebalancer.test/schedulerdiff"

var (
	apps      = []string{"web", "api", "db", "cache", "batch"}
	pools     = []string{"general", "compute", "gpu", "edge", "storage"}
	disks     = []string{"ssd", "hdd", "nvme"}
	cpus      = []string{"50m", "100m", "200m", "250m", "500m", "750m", "1"}
	memories  = []string{"32Mi", "64Mi", "128Mi", "256Mi", "512Mi", "1Gi"}
	hostPorts = []int32{8080, 8443, 9000}
)

// tolerationChoices mixes tolerations that lift a taint with near misses:
// the wrong effect, the wrong value, and the catch-all that also lifts the
// cordon.
var tolerationChoices = []corev1.Toleration{
	{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "gpu", Effect: corev1.TaintEffectNoSchedule},
	{Key: "dedicated", Operator: corev1.TolerationOpExists},
	{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "gpu", Effect: corev1.TaintEffectNoExecute},
	{Key: "edge", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute},
	{Key: "edge", Operator: corev1.TolerationOpEqual, Value: "true"},
	{Key: "edge", Operator: corev1.TolerationOpEqual, Value: "false", Effect: corev1.TaintEffectNoExecute},
	{Key: "maintenance", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
	{Key: "maintenance", Operator: corev1.TolerationOpEqual, Effect: corev1.TaintEffectNoSchedule},
	{Key: "spot", Operator: corev1.TolerationOpEqual, Value: "true", Effect: corev1.TaintEffectPreferNoSchedule},
	{Key: corev1.TaintNodeUnschedulable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
	{Operator: corev1.TolerationOpExists},
}

// generator makes pods from a seeded source, so that a seed names one
// sequence of pods and a failure can be replayed.
type generator struct {
	r     *rand.Rand
	nodes []string
}

func newGenerator(seed uint64) *generator {
	return &generator{r: rand.New(rand.NewPCG(seed, seed^0x5eed)), nodes: nodeNames()}
}

func (g *generator) chance(percent int) bool { return g.r.IntN(100) < percent }

func pick[T any](g *generator, from []T) T { return from[g.r.IntN(len(from))] }

// spec is a generated pod and what it asks for: kinds names the constraint
// kinds (for the coverage count), summary says what the pod asks in short.
type spec struct {
	pod     *corev1.Pod
	kinds   []string
	summary []string
}

func (s *spec) note(kind, detail string) {
	if !slices.Contains(s.kinds, kind) {
		s.kinds = append(s.kinds, kind)
	}
	if detail != "" {
		s.summary = append(s.summary, detail)
	}
}

// pod generates the i-th pod. Every pod has priority 0 (no class), so that
// kube-scheduler never preempts and its verdict depends on the filters
// alone.
func (g *generator) pod(i int) *spec {
	ns := nsA
	if g.chance(30) {
		ns = nsB
	}
	app := pick(g, apps)
	lbls := map[string]string{"app": app, "rev": pick(g, []string{"1", "2"})}
	if g.chance(50) {
		lbls["tier"] = pick(g, []string{"front", "back"})
	}
	s := &spec{pod: &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("p%03d-%s", i, app), Namespace: ns, Labels: lbls},
		Spec: corev1.PodSpec{
			SchedulingGates: []corev1.PodSchedulingGate{{Name: gateName}},
			// No token volume: nothing runs, and the pod stays as generated.
			AutomountServiceAccountToken:  ptr.To(false),
			TerminationGracePeriodSeconds: ptr.To[int64](0),
		},
	}}
	s.summary = append(s.summary, fmt.Sprintf("ns=%s app=%s", ns, app))
	pod := s.pod

	main := container("app", g.requests(s))
	pod.Spec.Containers = []corev1.Container{main}
	if g.chance(15) {
		helper := container("helper", corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(pick(g, []string{"50m", "200m"}))})
		pod.Spec.Containers = append(pod.Spec.Containers, helper)
		s.note("two app containers", "+helper "+helper.Resources.Requests.Cpu().String())
	}
	if g.chance(15) {
		g.initContainers(s)
	}
	if g.chance(12) {
		g.sidecar(s)
	}
	if g.chance(8) {
		g.gpu(s)
	}
	if g.chance(20) {
		g.nodeSelector(s)
	}
	if g.chance(30) {
		g.requiredNodeAffinity(s)
	}
	if g.chance(20) {
		g.preferredNodeAffinity(s)
	}
	if g.chance(35) {
		for range 1 + g.r.IntN(2) {
			t := pick(g, tolerationChoices)
			pod.Spec.Tolerations = append(pod.Spec.Tolerations, t)
			s.note("tolerations", "tol "+tolerationString(t))
		}
	}
	if g.chance(15) {
		g.hostPort(s)
	}
	if g.chance(18) {
		g.podAffinity(s, true, true)
	}
	if g.chance(14) {
		g.podAffinity(s, false, true)
	}
	if g.chance(12) {
		g.podAffinity(s, g.chance(50), false)
	}
	if g.chance(30) {
		g.spread(s)
	}
	if g.chance(8) {
		g.ephemeralStorage(s)
	}
	if g.chance(6) {
		g.podLevelResources(s)
	}
	if g.chance(10) {
		g.runtimeClass(s)
	}
	return s
}

// ephemeralStorage asks for local storage, which only some nodes report.
func (g *generator) ephemeralStorage(s *spec) {
	size := pick(g, []string{"1Gi", "5Gi", "30Gi"})
	c := &s.pod.Spec.Containers[0]
	if c.Resources.Requests == nil {
		c.Resources.Requests = corev1.ResourceList{}
	}
	c.Resources.Requests[corev1.ResourceEphemeralStorage] = resource.MustParse(size)
	s.note("ephemeral-storage", "storage="+size)
}

// podLevelResources moves the app container's cpu and memory to
// spec.resources, which then is the pod's request. Only for pods with a
// single container and no init containers, so that the pod-level request
// is never below the containers' (which validation refuses).
func (g *generator) podLevelResources(s *spec) {
	if len(s.pod.Spec.Containers) > 1 || len(s.pod.Spec.InitContainers) > 0 {
		return
	}
	cpu, mem := pick(g, []string{"300m", "1", "2"}), pick(g, []string{"256Mi", "1Gi", "2Gi"})
	c := &s.pod.Spec.Containers[0]
	delete(c.Resources.Requests, corev1.ResourceCPU)
	delete(c.Resources.Requests, corev1.ResourceMemory)
	s.pod.Spec.Resources = &corev1.ResourceRequirements{Requests: corev1.ResourceList{
		corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(mem),
	}}
	s.note("pod-level resources", "podres="+cpu+"/"+mem)
}

// runtimeClass names a RuntimeClass: admission adds its overhead to the
// pod and, for the pinned class, merges its node selector and tolerations.
// The pinned class is only used where its selector cannot clash with the
// pod's own, which admission would refuse.
func (g *generator) runtimeClass(s *spec) {
	name := runtimeOverhead
	if _, clash := s.pod.Spec.NodeSelector[labelDisk]; !clash && g.chance(50) {
		name = runtimePinned
	}
	s.pod.Spec.RuntimeClassName = ptr.To(name)
	s.note("runtime class overhead", "runtime="+name)
}

func container(name string, req corev1.ResourceList) corev1.Container {
	return corev1.Container{Name: name, Image: "registry.k8s.io/pause:3.10", Resources: corev1.ResourceRequirements{Requests: req}}
}

// requests are mostly modest, so that the cluster fills over the run; a few
// pods ask for nothing (BestEffort) and a few for more than any node has.
func (g *generator) requests(s *spec) corev1.ResourceList {
	switch x := g.r.IntN(100); {
	case x < 8:
		s.note("requests", "besteffort")
		return nil
	case x < 13:
		if g.chance(50) {
			s.note("too large", "cpu=24")
			return corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("24")}
		}
		s.note("too large", "mem=100Gi")
		return corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("100Gi")}
	}
	cpu, mem := pick(g, cpus), pick(g, memories)
	s.note("requests", "req="+cpu+"/"+mem)
	return corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(mem)}
}

// initContainers may ask for more than the app containers: the pod's
// effective request is then the largest init container's.
func (g *generator) initContainers(s *spec) {
	for k := range 1 + g.r.IntN(2) {
		cpu := pick(g, []string{"300m", "1", "2", "3"})
		mem := pick(g, []string{"128Mi", "1Gi", "3Gi"})
		s.pod.Spec.InitContainers = append(s.pod.Spec.InitContainers, container(fmt.Sprintf("init%d", k), corev1.ResourceList{
			corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(mem),
		}))
		s.note("init containers", "init "+cpu+"/"+mem)
	}
}

// sidecar adds a restartable init container, before or after the others:
// the order changes the effective request.
func (g *generator) sidecar(s *spec) {
	cpu := pick(g, []string{"100m", "250m", "500m"})
	mem := pick(g, []string{"64Mi", "256Mi"})
	c := container("sidecar", corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(mem)})
	c.RestartPolicy = ptr.To(corev1.ContainerRestartPolicyAlways)
	if g.chance(50) {
		s.pod.Spec.InitContainers = append([]corev1.Container{c}, s.pod.Spec.InitContainers...)
		s.note("sidecars", "sidecar(first) "+cpu+"/"+mem)
	} else {
		s.pod.Spec.InitContainers = append(s.pod.Spec.InitContainers, c)
		s.note("sidecars", "sidecar(last) "+cpu+"/"+mem)
	}
}

// gpu asks for the extended resource, which only the tainted gpu nodes
// have; most such pods tolerate the taint.
func (g *generator) gpu(s *spec) {
	n := int64(1 + g.r.IntN(2))
	q := *resource.NewQuantity(n, resource.DecimalSI)
	c := &s.pod.Spec.Containers[0]
	if c.Resources.Limits == nil {
		c.Resources.Limits = corev1.ResourceList{}
	}
	// Extended resources are not overcommitted: the request is the limit.
	c.Resources.Limits[gpu] = q
	if c.Resources.Requests != nil {
		c.Resources.Requests[gpu] = q
	}
	s.note("extended resource", fmt.Sprintf("gpu=%d", n))
	if g.chance(85) {
		t := tolerationChoices[0]
		s.pod.Spec.Tolerations = append(s.pod.Spec.Tolerations, t)
		s.note("tolerations", "tol "+tolerationString(t))
	}
}

func (g *generator) nodeSelector(s *spec) {
	var sel map[string]string
	switch g.r.IntN(6) {
	case 0:
		sel = map[string]string{labelPool: pick(g, pools)}
	case 1:
		sel = map[string]string{labelDisk: pick(g, disks)}
	case 2:
		sel = map[string]string{labelDisk: pick(g, disks), corev1.LabelTopologyZone: pick(g, zones)}
	case 3:
		sel = map[string]string{corev1.LabelHostname: pick(g, g.nodes)}
	case 4:
		sel = map[string]string{labelPool: "general", labelDisk: "ssd"}
	default:
		sel = map[string]string{corev1.LabelTopologyZone: pick(g, zones)}
	}
	s.pod.Spec.NodeSelector = sel
	s.note("nodeSelector", "sel"+mapString(sel))
}

// requirement makes one node selector requirement over this cluster's
// labels, with every operator; Gt and Lt go on the numeric rank label.
func (g *generator) requirement() corev1.NodeSelectorRequirement {
	key := pick(g, []string{labelPool, labelDisk, corev1.LabelTopologyZone, corev1.LabelHostname, labelRank, labelRank})
	values := func() []string {
		var from []string
		switch key {
		case labelPool:
			from = pools
		case labelDisk:
			from = disks
		case corev1.LabelTopologyZone:
			from = zones
		case corev1.LabelHostname:
			from = g.nodes
		default:
			from = []string{"1", "4", "8", "12", "16"}
		}
		out := []string{pick(g, from)}
		if g.chance(40) {
			if v := pick(g, from); v != out[0] {
				out = append(out, v)
			}
		}
		return out
	}
	if key == labelRank && g.chance(70) {
		op := pick(g, []corev1.NodeSelectorOperator{corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt})
		return corev1.NodeSelectorRequirement{Key: key, Operator: op, Values: []string{fmt.Sprint(1 + g.r.IntN(16))}}
	}
	switch g.r.IntN(6) {
	case 0, 1:
		return corev1.NodeSelectorRequirement{Key: key, Operator: corev1.NodeSelectorOpIn, Values: values()}
	case 2, 3:
		return corev1.NodeSelectorRequirement{Key: key, Operator: corev1.NodeSelectorOpNotIn, Values: values()}
	case 4:
		return corev1.NodeSelectorRequirement{Key: key, Operator: corev1.NodeSelectorOpExists}
	}
	return corev1.NodeSelectorRequirement{Key: key, Operator: corev1.NodeSelectorOpDoesNotExist}
}

// term makes a node selector term: label requirements (ANDed), and now and
// then a matchFields requirement on the node's name, alone or with them.
func (g *generator) term() corev1.NodeSelectorTerm {
	var t corev1.NodeSelectorTerm
	if g.chance(20) {
		op := pick(g, []corev1.NodeSelectorOperator{corev1.NodeSelectorOpIn, corev1.NodeSelectorOpIn, corev1.NodeSelectorOpNotIn})
		t.MatchFields = []corev1.NodeSelectorRequirement{{Key: "metadata.name", Operator: op, Values: []string{pick(g, g.nodes)}}}
		if g.chance(50) {
			return t
		}
	}
	for range 1 + g.r.IntN(2) {
		t.MatchExpressions = append(t.MatchExpressions, g.requirement())
	}
	return t
}

func (g *generator) requiredNodeAffinity(s *spec) {
	sel := &corev1.NodeSelector{}
	for range 1 + g.r.IntN(2) {
		sel.NodeSelectorTerms = append(sel.NodeSelectorTerms, g.term())
	}
	affinity(s.pod).NodeAffinity = &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: sel}
	var terms []string
	for _, t := range sel.NodeSelectorTerms {
		terms = append(terms, termString(t))
	}
	s.note("required node affinity", "nodeAff["+strings.Join(terms, " OR ")+"]")
	for _, t := range sel.NodeSelectorTerms {
		if len(t.MatchFields) > 0 {
			s.note("matchFields", "")
		}
		for _, r := range t.MatchExpressions {
			s.note("node affinity "+string(r.Operator), "")
		}
	}
}

func (g *generator) preferredNodeAffinity(s *spec) {
	a := affinity(s.pod)
	if a.NodeAffinity == nil {
		a.NodeAffinity = &corev1.NodeAffinity{}
	}
	var terms []string
	for range 1 + g.r.IntN(2) {
		w := int32(1 + g.r.IntN(100))
		t := g.term()
		a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution = append(a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution,
			corev1.PreferredSchedulingTerm{Weight: w, Preference: t})
		terms = append(terms, fmt.Sprintf("%d:%s", w, termString(t)))
	}
	s.note("preferred node affinity", "prefNodeAff["+strings.Join(terms, " ")+"]")
}

// hostPort binds a port on every address (0.0.0.0 written or not) or on
// one, over TCP, UDP or SCTP, so that some pairs conflict and some only look
// alike.
func (g *generator) hostPort(s *spec) {
	p := corev1.ContainerPort{ContainerPort: 80, HostPort: pick(g, hostPorts), Protocol: corev1.ProtocolTCP}
	switch g.r.IntN(8) {
	case 0, 1:
		p.Protocol = corev1.ProtocolUDP
	case 2:
		p.Protocol = corev1.ProtocolSCTP
	}
	switch g.r.IntN(10) {
	case 0, 1:
		p.HostIP = "127.0.0.1"
	case 2:
		p.HostIP = "0.0.0.0"
	}
	s.pod.Spec.Containers[0].Ports = append(s.pod.Spec.Containers[0].Ports, p)
	ip := p.HostIP
	if ip == "" {
		ip = "*"
	}
	s.note("hostPorts", fmt.Sprintf("port %s:%d/%s", ip, p.HostPort, p.Protocol))
}

// podAffinityTerm selects pods by app or tier, within the pod's namespace,
// named namespaces, or a namespaceSelector (all namespaces, or team=beta).
func (g *generator) podAffinityTerm(ownApp string) (corev1.PodAffinityTerm, string) {
	// Some nodes have no disk label: affinity can never be met there,
	// anti-affinity always is.
	key := pick(g, []string{corev1.LabelHostname, corev1.LabelTopologyZone, corev1.LabelHostname, corev1.LabelTopologyZone, labelDisk})
	t := corev1.PodAffinityTerm{TopologyKey: key}
	var what string
	switch g.r.IntN(7) {
	case 5:
		// An empty selector matches every pod, a missing one none.
		t.LabelSelector = &metav1.LabelSelector{}
		what = "all"
	case 6:
		what = "none"
	case 0, 1:
		app := ownApp
		if g.chance(50) {
			app = pick(g, apps)
		}
		t.LabelSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}
		what = "app=" + app
	case 2:
		a, b := pick(g, apps), pick(g, apps)
		t.LabelSelector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: metav1.LabelSelectorOpIn, Values: dedup(a, b)}}}
		what = "app in " + strings.Join(dedup(a, b), ",")
	case 3:
		t.LabelSelector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "tier", Operator: metav1.LabelSelectorOpExists}}}
		what = "tier"
	default:
		app := pick(g, apps)
		t.LabelSelector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: metav1.LabelSelectorOpNotIn, Values: []string{app}}}}
		what = "app!=" + app
	}
	var scope string
	switch g.r.IntN(8) {
	case 0:
		t.Namespaces = []string{nsA}
		scope = " ns=" + nsA
	case 1:
		t.Namespaces = []string{nsA, nsB}
		scope = " ns=" + nsA + "," + nsB
	case 2:
		t.NamespaceSelector = &metav1.LabelSelector{}
		scope = " ns=*"
	case 3:
		t.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"team": "beta"}}
		scope = " ns{team=beta}"
	case 4:
		// Matches no namespace, not even the pod's own.
		t.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"team": "gamma"}}
		scope = " ns{team=gamma}"
	case 5:
		// Both fields: the union of the two.
		t.Namespaces = []string{nsB}
		t.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"team": "alpha"}}
		scope = " ns=" + nsB + "+{team=alpha}"
	}
	if t.LabelSelector != nil && g.chance(15) {
		// The API server merges these into the selector with the pod's
		// own value of the key.
		if g.chance(50) {
			t.MatchLabelKeys = []string{"rev"}
			scope += " matchLabelKeys=rev"
		} else {
			t.MismatchLabelKeys = []string{"rev"}
			scope += " mismatchLabelKeys=rev"
		}
	}
	return t, what + "@" + shortKey(key) + scope
}

// podAffinity adds a required or preferred affinity or anti-affinity term.
func (g *generator) podAffinity(s *spec, anti, required bool) {
	t, desc := g.podAffinityTerm(s.pod.Labels["app"])
	a := affinity(s.pod)
	kind, label := "pod affinity", "aff"
	if anti {
		kind, label = "pod anti-affinity", "anti"
	}
	if required {
		kind = "required " + kind
	} else {
		kind = "preferred " + kind
		label = "pref" + label
	}
	if t.NamespaceSelector != nil || len(t.Namespaces) > 0 {
		s.note("affinity namespaces", "")
	}
	if len(t.MatchLabelKeys)+len(t.MismatchLabelKeys) > 0 {
		s.note("affinity match/mismatchLabelKeys", "")
	}
	w := int32(1 + g.r.IntN(100))
	switch {
	case anti && required:
		if a.PodAntiAffinity == nil {
			a.PodAntiAffinity = &corev1.PodAntiAffinity{}
		}
		a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution = append(a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution, t)
	case anti:
		if a.PodAntiAffinity == nil {
			a.PodAntiAffinity = &corev1.PodAntiAffinity{}
		}
		a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution = append(a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution, corev1.WeightedPodAffinityTerm{Weight: w, PodAffinityTerm: t})
	case required:
		if a.PodAffinity == nil {
			a.PodAffinity = &corev1.PodAffinity{}
		}
		a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution = append(a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution, t)
	default:
		if a.PodAffinity == nil {
			a.PodAffinity = &corev1.PodAffinity{}
		}
		a.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution = append(a.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution, corev1.WeightedPodAffinityTerm{Weight: w, PodAffinityTerm: t})
	}
	s.note(kind, label+"["+desc+"]")
}

// spread adds one or two topology spread constraints over zones, nodes or
// disk types (which some nodes lack),
// counting the pod's own app (or tier) and exercising minDomains and both
// inclusion policies.
func (g *generator) spread(s *spec) {
	for k := range 1 + g.r.IntN(2) {
		key := pick(g, []string{corev1.LabelTopologyZone, corev1.LabelHostname, corev1.LabelTopologyZone, corev1.LabelHostname, labelDisk})
		if k == 1 && s.pod.Spec.TopologySpreadConstraints[0].TopologyKey == key {
			// Two constraints may not share key and action.
			continue
		}
		c := corev1.TopologySpreadConstraint{
			MaxSkew:           int32(1 + g.r.IntN(2)),
			TopologyKey:       key,
			WhenUnsatisfiable: corev1.DoNotSchedule,
			LabelSelector:     &metav1.LabelSelector{MatchLabels: map[string]string{"app": s.pod.Labels["app"]}},
		}
		desc := []string{shortKey(key), fmt.Sprintf("skew%d", c.MaxSkew)}
		if g.chance(35) {
			c.WhenUnsatisfiable = corev1.ScheduleAnyway
			desc = append(desc, "anyway")
			s.note("spread ScheduleAnyway", "")
		} else {
			s.note("spread DoNotSchedule", "")
			if g.chance(35) {
				c.MinDomains = ptr.To(int32(2 + g.r.IntN(3)))
				desc = append(desc, fmt.Sprintf("minDomains%d", *c.MinDomains))
				s.note("spread minDomains", "")
			}
		}
		if tier, ok := s.pod.Labels["tier"]; ok && g.chance(25) {
			c.LabelSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"tier": tier}}
			desc = append(desc, "tier="+tier)
		} else if g.chance(5) {
			// Counts no pod, not even this one.
			c.LabelSelector = nil
			desc = append(desc, "no selector")
		} else {
			desc = append(desc, "app="+s.pod.Labels["app"])
		}
		if c.LabelSelector != nil && g.chance(25) {
			c.MatchLabelKeys = []string{"rev"}
			desc = append(desc, "matchLabelKeys=rev")
			s.note("spread matchLabelKeys", "")
		}
		if g.chance(30) {
			c.NodeAffinityPolicy = ptr.To(corev1.NodeInclusionPolicyIgnore)
			desc = append(desc, "affinity=Ignore")
			s.note("spread nodeAffinityPolicy", "")
		}
		if g.chance(35) {
			c.NodeTaintsPolicy = ptr.To(corev1.NodeInclusionPolicyHonor)
			desc = append(desc, "taints=Honor")
			s.note("spread nodeTaintsPolicy", "")
		}
		s.pod.Spec.TopologySpreadConstraints = append(s.pod.Spec.TopologySpreadConstraints, c)
		s.summary = append(s.summary, "spread["+strings.Join(desc, " ")+"]")
	}
}

func affinity(p *corev1.Pod) *corev1.Affinity {
	if p.Spec.Affinity == nil {
		p.Spec.Affinity = &corev1.Affinity{}
	}
	return p.Spec.Affinity
}

func dedup(a, b string) []string {
	if a == b {
		return []string{a}
	}
	return []string{a, b}
}

func shortKey(key string) string {
	switch key {
	case corev1.LabelHostname:
		return "host"
	case corev1.LabelTopologyZone:
		return "zone"
	}
	return key
}

func mapString(m map[string]string) string {
	var parts []string
	for k, v := range m {
		parts = append(parts, shortKey(k)+"="+v)
	}
	slices.Sort(parts)
	return "{" + strings.Join(parts, ",") + "}"
}

func termString(t corev1.NodeSelectorTerm) string {
	var parts []string
	for _, r := range t.MatchExpressions {
		parts = append(parts, requirementString(r))
	}
	for _, r := range t.MatchFields {
		parts = append(parts, "name "+requirementString(r)[len(r.Key)+1:])
	}
	return strings.Join(parts, "&")
}

func requirementString(r corev1.NodeSelectorRequirement) string {
	return fmt.Sprintf("%s %s %s", shortKey(r.Key), r.Operator, strings.Join(r.Values, ","))
}

func tolerationString(t corev1.Toleration) string {
	key := t.Key
	if key == "" {
		key = "*"
	}
	if t.Operator == corev1.TolerationOpEqual {
		key += "=" + t.Value
	}
	effect := string(t.Effect)
	if effect == "" {
		effect = "*"
	}
	return key + ":" + effect
}
