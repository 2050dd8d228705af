package strategies

import (
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/policy"
)

// tables holds what a cycle derives once from the parts of the snapshot
// that moves do not change: labels, taints, node affinity, images. Indexes
// are node positions (cluster.Node.Index), the same in every fork. Every
// per-node table is shared by all the pods with the same spec, so that a
// cluster of many replicas of few workloads computes each once.
type tables struct {
	podGroups   *cluster.PodGroups
	selections  map[string][]int32
	domains     map[string]*cluster.TopologyDomains
	placements  map[string]*placement
	placementOf cluster.PodTable[*placement]
	preferred   map[string][]int64
	antiTerms   map[string][]antiTerm
	antiTermsOf cluster.PodTable[[]antiTerm]
	spreadSpecs map[string]*spreadSpec
	spreadNodes map[spreadNodesKey]*spreadNodes
	specOf      cluster.PodTable[*spreadSpec]
	images      cluster.PodTable[string]
	usable      []bool
	duplicates  duplicateCounts
	keyBuf      []byte
	// groupOf is each pod's group in the snapshot's PodGroups, by pod
	// index, and groupArgs each strategy's Args by group (see Args).
	groupOf       []int32
	groupArgs     map[string][]groupArgs
	lastGroupArgs struct {
		strategy string
		byGroup  []groupArgs
	}
	// lastPlacement, lastAntiTerms and lastSpread are the answers for the
	// last pod asked about: a workload's pods come in a row.
	lastPlacement struct {
		pod *cluster.Pod
		pl  *placement
	}
	lastAntiTerms struct {
		pod    *cluster.Pod
		terms  []corev1.PodAffinityTerm
		parsed []antiTerm
	}
	lastSpread struct {
		pod   *cluster.Pod
		args  *policy.RemovePodsViolatingTopologySpreadConstraintArgs
		keyed []labels.Set
		spec  *spreadSpec
	}
}

// sameSchedulingSpec reports whether two pods' node selector, node
// affinity and tolerations are one and the same, without writing their
// keys: the replicas a decoder, the API reader or a generator made share
// these values (cluster.PodSharer), and pod objects never change.
func sameSchedulingSpec(a, b *cluster.Pod) bool {
	return a.Spec.Affinity == b.Spec.Affinity && sameSlice(a.Spec.Tolerations, b.Spec.Tolerations) &&
		maps.Equal(a.Spec.NodeSelector, b.Spec.NodeSelector)
}

// sameSlice reports whether two slices are the same elements in memory.
func sameSlice[T any](a, b []T) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// duplicateCounts counts one group of duplicates by node index; set lists
// the nodes whose count is not zero.
type duplicateCounts struct {
	counts []int32
	set    []int32
}

// eachPod calls fn for every pod, of any phase and placement, that the
// query selects, in snapshot order within each label group.
func (in *Input) eachPod(q cluster.PodQuery, fn func(p *cluster.Pod)) {
	if in.tables.podGroups == nil {
		in.tables.podGroups = in.Snapshot.PodGroups()
		in.tables.selections = make(map[string][]int32)
	}
	g := in.tables.podGroups
	key := q.Key()
	ids, ok := in.tables.selections[key]
	if !ok {
		ids = g.Select(q, in.Snapshot.NamespaceLabels)
		in.tables.selections[key] = ids
	}
	for _, id := range ids {
		for _, p := range g.Groups[id].Pods {
			fn(p)
		}
	}
}

// domains numbers the values of one topology key over the snapshot's nodes,
// once per cycle (node labels do not change with moves).
func (in *Input) domains(key string) *cluster.TopologyDomains {
	if d, ok := in.tables.domains[key]; ok {
		return d
	}
	d := cluster.NewTopologyDomains(in.Snapshot.Nodes(), key)
	if in.tables.domains == nil {
		in.tables.domains = make(map[string]*cluster.TopologyDomains)
	}
	in.tables.domains[key] = d
	return d
}

// placement says, per node index, what the node's fixed properties allow a
// pod of one spec: whether the node matches its nodeSelector and required
// node affinity, whether it tolerates the node's NoSchedule and NoExecute
// taints, and whether the node is one of its possible homes (admits).
type placement struct {
	affinity  []bool
	tolerated []bool
	admits    []bool
	// homes counts the Ready nodes of the policy that admit the pod; -1
	// until asked.
	homes int
}

func (in *Input) placement(p *cluster.Pod) *placement {
	if in.NoCache {
		return in.newPlacement(p)
	}
	return in.tables.placementOf.Get(in.Snapshot, p, in.placementBySpec)
}

func (in *Input) placementBySpec(p *cluster.Pod) *placement {
	if last := &in.tables.lastPlacement; last.pod != nil && sameSchedulingSpec(last.pod, p) {
		return last.pl
	}
	pl := in.placementByKey(p)
	in.tables.lastPlacement.pod, in.tables.lastPlacement.pl = p, pl
	return pl
}

func (in *Input) placementByKey(p *cluster.Pod) *placement {
	var required *corev1.NodeSelector
	if a := p.Spec.Affinity; a != nil && a.NodeAffinity != nil {
		required = a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution
	}
	in.tables.keyBuf = placementKey(in.tables.keyBuf[:0], p.Spec.NodeSelector, required, p.Spec.Tolerations)
	if pl, ok := in.tables.placements[string(in.tables.keyBuf)]; ok {
		return pl
	}
	key := string(in.tables.keyBuf)
	pl := in.newPlacement(p)
	if in.tables.placements == nil {
		in.tables.placements = make(map[string]*placement)
	}
	in.tables.placements[key] = pl
	return pl
}

func (in *Input) newPlacement(p *cluster.Pod) *placement {
	nodes := in.Snapshot.Nodes()
	pl := &placement{affinity: make([]bool, len(nodes)), tolerated: make([]bool, len(nodes)), admits: make([]bool, len(nodes)), homes: -1}
	req := nodeaffinity.GetRequiredNodeAffinity(p.Pod)
	cordonOK := cluster.ToleratesUnschedulable(p.Pod)
	for i, n := range nodes {
		ok, err := req.Match(n.Node)
		pl.affinity[i] = ok && err == nil
		pl.tolerated[i] = cluster.ToleratesHardTaints(p.Pod, n.Node)
		pl.admits[i] = pl.affinity[i] && pl.tolerated[i] && (cordonOK || !n.Unschedulable())
	}
	return pl
}

// placementKey appends to buf a key that tells apart any two pods whose
// node selector, required node affinity or tolerations differ: each string
// with its length before it. It is asked for each pod that a strategy
// looks for a home for, so that it writes the common parts itself; the
// rarer required affinity goes in as JSON.
func placementKey(buf []byte, selector map[string]string, required *corev1.NodeSelector, tolerations []corev1.Toleration) []byte {
	str := func(s string) {
		buf = strconv.AppendInt(buf, int64(len(s)), 10)
		buf = append(buf, ':')
		buf = append(buf, s...)
	}
	var few [8]string
	keys := few[:0]
	for k := range selector {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	buf = strconv.AppendInt(buf, int64(len(keys)), 10)
	for _, k := range keys {
		str(k)
		str(selector[k])
	}
	if required == nil {
		buf = append(buf, '-')
	} else {
		b, _ := json.Marshal(required)
		str(string(b))
	}
	return cluster.AppendTolerationsKey(buf, tolerations)
}

// imageKey identifies the set of images of a pod's containers.
func (in *Input) imageKey(p *cluster.Pod) string {
	if in.NoCache {
		return imagesOf(p)
	}
	return in.tables.images.Get(in.Snapshot, p, imagesOf)
}

func imagesOf(p *cluster.Pod) string {
	images := make([]string, 0, len(p.Spec.Containers))
	for _, c := range p.Spec.Containers {
		images = append(images, c.Image)
	}
	slices.Sort(images)
	return strings.Join(images, ",")
}
