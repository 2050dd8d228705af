package interpodaffinity

import (
	"encoding/json"
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/scheduler/framework"
)

// affinityTerm is a parsed inter-pod affinity or anti-affinity term. By the
// API's rule, a term with neither namespaces nor namespaceSelector means the
// namespace of the pod that carries it; an empty namespaceSelector means
// every namespace.
type affinityTerm struct {
	namespaces  []string        // sorted
	nsSelector  labels.Selector // labels.Nothing() when the term has none
	selector    labels.Selector
	topologyKey string
}

type weightedTerm struct {
	affinityTerm
	weight int32
}

func newAffinityTerm(namespace string, t *corev1.PodAffinityTerm) (affinityTerm, error) {
	sel, err := metav1.LabelSelectorAsSelector(t.LabelSelector)
	if err != nil {
		return affinityTerm{}, err
	}
	nsSel, err := metav1.LabelSelectorAsSelector(t.NamespaceSelector)
	if err != nil {
		return affinityTerm{}, err
	}
	namespaces := slices.Clone(t.Namespaces)
	if len(namespaces) == 0 && t.NamespaceSelector == nil {
		namespaces = []string{namespace}
	}
	slices.Sort(namespaces)
	return affinityTerm{namespaces: slices.Compact(namespaces), nsSelector: nsSel, selector: sel, topologyKey: t.TopologyKey}, nil
}

func newAffinityTerms(namespace string, terms []corev1.PodAffinityTerm) ([]affinityTerm, error) {
	out := make([]affinityTerm, 0, len(terms))
	for i := range terms {
		t, err := newAffinityTerm(namespace, &terms[i])
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

func newWeightedTerms(namespace string, terms []corev1.WeightedPodAffinityTerm) ([]weightedTerm, error) {
	out := make([]weightedTerm, 0, len(terms))
	for i := range terms {
		t, err := newAffinityTerm(namespace, &terms[i].PodAffinityTerm)
		if err != nil {
			return nil, err
		}
		out = append(out, weightedTerm{affinityTerm: t, weight: terms[i].Weight})
	}
	return out, nil
}

// matches reports whether a pod in namespace ns, whose namespace has
// nsLabels, with podLabels, is selected by the term.
func (t *affinityTerm) matches(ns string, nsLabels, podLabels labels.Set) bool {
	if _, ok := slices.BinarySearch(t.namespaces, ns); !ok && !t.nsSelector.Matches(nsLabels) {
		return false
	}
	return t.selector.Matches(podLabels)
}

// query returns the pod query that finds the pods the term selects.
func (t *affinityTerm) query() cluster.PodQuery {
	q := cluster.PodQuery{Namespaces: t.namespaces, Selector: t.selector}
	if _, selectable := t.nsSelector.Requirements(); selectable {
		q.NamespaceSelector = t.nsSelector
	}
	return q
}

// termGroup is the pods of one namespace that carry exactly the same
// inter-pod affinity section, with its terms parsed once.
type termGroup struct {
	pods              []*cluster.Pod
	requiredAffinity  []affinityTerm
	requiredAnti      []affinityTerm
	preferredAffinity []weightedTerm
	preferredAnti     []weightedTerm
}

// termGroups holds the term groups, indexed by the label each group's
// terms require: most terms select "app=x", so an incoming pod is checked
// only against the groups whose terms could select one of its labels (and
// the few whose terms require no single label).
type termGroups struct {
	groups     []termGroup
	byLabel    map[string][]int32
	unanchored []int32
}

func buildTermGroups(pods []*cluster.Pod) *termGroups {
	g := &termGroups{}
	byKey := make(map[string]int)
	// Replicas share their affinity object (cluster.PodSharer): its JSON is
	// written once per namespace, not once per pod.
	type shared struct {
		namespace string
		affinity  *corev1.Affinity
	}
	byObject := make(map[shared]int)
	for _, p := range pods {
		if !p.HasAffinity() {
			continue
		}
		a := p.Spec.Affinity
		if i, ok := byObject[shared{p.Namespace, a}]; ok {
			g.groups[i].pods = append(g.groups[i].pods, p)
			continue
		}
		spec, err := json.Marshal([2]any{a.PodAffinity, a.PodAntiAffinity})
		if err != nil {
			continue
		}
		key := p.Namespace + "\x00" + string(spec)
		i, ok := byKey[key]
		if ok {
			g.groups[i].pods = append(g.groups[i].pods, p)
		} else {
			i = len(g.groups)
			byKey[key] = i
			g.groups = append(g.groups, newTermGroup(p))
		}
		byObject[shared{p.Namespace, a}] = i
	}
	g.byLabel = make(map[string][]int32)
	for id := range g.groups {
		anchors, all := g.groups[id].anchors()
		if !all {
			g.unanchored = append(g.unanchored, int32(id))
			continue
		}
		for _, a := range anchors {
			if list := g.byLabel[a]; len(list) == 0 || list[len(list)-1] != int32(id) {
				g.byLabel[a] = append(list, int32(id))
			}
		}
	}
	return g
}

// anchors returns, for each term of the group, a "key=value" label the term
// requires of the pods it selects; all is false when some term requires no
// single label and so could select any pod.
func (tg *termGroup) anchors() (anchors []string, all bool) {
	add := func(t *affinityTerm) bool {
		reqs, _ := t.selector.Requirements()
		for _, r := range reqs {
			switch r.Operator() {
			case selection.Equals, selection.DoubleEquals, selection.In:
				if vals := r.Values(); vals.Len() == 1 {
					anchors = append(anchors, r.Key()+"="+vals.UnsortedList()[0])
					return true
				}
			}
		}
		return false
	}
	for i := range tg.requiredAnti {
		if !add(&tg.requiredAnti[i]) {
			return nil, false
		}
	}
	for i := range tg.requiredAffinity {
		if !add(&tg.requiredAffinity[i]) {
			return nil, false
		}
	}
	for i := range tg.preferredAffinity {
		if !add(&tg.preferredAffinity[i].affinityTerm) {
			return nil, false
		}
	}
	for i := range tg.preferredAnti {
		if !add(&tg.preferredAnti[i].affinityTerm) {
			return nil, false
		}
	}
	return anchors, true
}

// candidates returns, in index order, the groups whose terms may select a
// pod with these labels.
func (g *termGroups) candidates(podLabels map[string]string) []int32 {
	ids := slices.Clone(g.unanchored)
	for k, v := range podLabels {
		ids = append(ids, g.byLabel[k+"="+v]...)
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}

// newTermGroup parses the terms of an existing pod. A term that does not
// parse is left out: kube-scheduler could not have placed the pod with it.
func newTermGroup(p *cluster.Pod) termGroup {
	tg := termGroup{pods: []*cluster.Pod{p}}
	a := p.Spec.Affinity
	keep := func(ts []affinityTerm, err error) []affinityTerm {
		if err != nil {
			return nil
		}
		return ts
	}
	keepWeighted := func(ts []weightedTerm, err error) []weightedTerm {
		if err != nil {
			return nil
		}
		return ts
	}
	if pa := a.PodAffinity; pa != nil {
		tg.requiredAffinity = keep(newAffinityTerms(p.Namespace, pa.RequiredDuringSchedulingIgnoredDuringExecution))
		tg.preferredAffinity = keepWeighted(newWeightedTerms(p.Namespace, pa.PreferredDuringSchedulingIgnoredDuringExecution))
	}
	if pa := a.PodAntiAffinity; pa != nil {
		tg.requiredAnti = keep(newAffinityTerms(p.Namespace, pa.RequiredDuringSchedulingIgnoredDuringExecution))
		tg.preferredAnti = keepWeighted(newWeightedTerms(p.Namespace, pa.PreferredDuringSchedulingIgnoredDuringExecution))
	}
	return tg
}

// familyState is what the plugin keeps for a snapshot family: the
// existing pods' terms, and which of them select a pod, by its namespace
// and labels.
type familyState struct {
	termGroups    framework.Lazy[termGroups]
	existingTerms framework.Memo[string, *existingTermMatches]
}

func (p *interPodAffinity) terms(c *framework.Cycle) *termGroups {
	return framework.FamilyState[familyState](c, p.key).termGroups.Get(func() *termGroups { return buildTermGroups(c.Snapshot().Pods()) })
}

// keyWeight is a score an existing pod's term gives to the pods of its
// topology domain.
type keyWeight struct {
	key    string
	weight int64
}

// groupMatch is what one term group's terms say about an incoming pod.
type groupMatch struct {
	group int32
	// antiKeys are the topology keys of the group's required anti-affinity
	// terms that select the incoming pod: the incoming pod may not share
	// those domains with the group's pods.
	antiKeys []string
	// scores are the group's terms that select the incoming pod and score
	// the domains of the group's pods: required affinity (by
	// hardPodAffinityWeight), preferred affinity (+weight), preferred
	// anti-affinity (-weight).
	scores []keyWeight
}

// existingTermMatches is, for one incoming pod's namespace and labels, every
// term group whose terms select it.
type existingTermMatches struct {
	anti   []groupMatch
	scored []groupMatch
}

// existingMatches returns which existing pods' terms select the pod, by
// its namespace and labels. The answer depends only on the family and the
// profile's hardPodAffinityWeight, so it is kept per label set.
func (p *interPodAffinity) existingMatches(c *framework.Cycle) *existingTermMatches {
	namespace, podLabels, hardWeight := c.Pod().Namespace, c.Pod().Labels, *p.args.HardPodAffinityWeight
	tg := p.terms(c)
	return framework.FamilyState[familyState](c, p.key).existingTerms.Get(cluster.LabelKey(namespace, podLabels), func() *existingTermMatches {
		nsLabels := labels.Set(c.Snapshot().NamespaceLabels(namespace))
		pl := labels.Set(podLabels)
		m := &existingTermMatches{}
		for _, gi := range tg.candidates(podLabels) {
			g := &tg.groups[gi]
			var anti []string
			for i := range g.requiredAnti {
				if g.requiredAnti[i].matches(namespace, nsLabels, pl) {
					anti = append(anti, g.requiredAnti[i].topologyKey)
				}
			}
			if len(anti) > 0 {
				m.anti = append(m.anti, groupMatch{group: gi, antiKeys: anti})
			}
			var scores []keyWeight
			if hardWeight > 0 {
				for i := range g.requiredAffinity {
					if g.requiredAffinity[i].matches(namespace, nsLabels, pl) {
						scores = append(scores, keyWeight{g.requiredAffinity[i].topologyKey, int64(hardWeight)})
					}
				}
			}
			for i := range g.preferredAffinity {
				if g.preferredAffinity[i].matches(namespace, nsLabels, pl) {
					scores = append(scores, keyWeight{g.preferredAffinity[i].topologyKey, int64(g.preferredAffinity[i].weight)})
				}
			}
			for i := range g.preferredAnti {
				if g.preferredAnti[i].matches(namespace, nsLabels, pl) {
					scores = append(scores, keyWeight{g.preferredAnti[i].topologyKey, -int64(g.preferredAnti[i].weight)})
				}
			}
			if len(scores) > 0 {
				m.scored = append(m.scored, groupMatch{group: gi, scores: scores})
			}
		}
		return m
	})
}
