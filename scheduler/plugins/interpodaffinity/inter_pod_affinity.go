// Package interpodaffinity is kube-scheduler's InterPodAffinity plugin:
// the pod's affinity and anti-affinity to other pods, and theirs to it.
package interpodaffinity

import (
	"math"

	"k8s.io/apimachinery/pkg/labels"
	configv1 "k8s.io/kube-scheduler/config/v1"
	"k8s.io/utils/ptr"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/scheduler/framework"
)

// Name is the plugin's name in a profile.
const Name = "InterPodAffinity"

// kube-scheduler's InterPodAffinity reasons.
const (
	ErrReasonAffinityRulesNotMatch             = "node(s) didn't match pod affinity rules"
	ErrReasonAntiAffinityRulesNotMatch         = "node(s) didn't match pod anti-affinity rules"
	ErrReasonExistingAntiAffinityRulesNotMatch = "node(s) didn't satisfy existing pods anti-affinity rules"
)

var (
	reasonPodAffinity          = []string{ErrReasonAffinityRulesNotMatch}
	reasonPodAntiAffinity      = []string{ErrReasonAntiAffinityRulesNotMatch}
	reasonExistingAntiAffinity = []string{ErrReasonExistingAntiAffinityRulesNotMatch}
)

// interPodAffinity enforces required pod affinity and anti-affinity (the
// pod's own terms, and the existing pods' anti-affinity terms that select
// the pod) and prefers nodes by preferred pod affinity and anti-affinity.
type interPodAffinity struct {
	key  framework.StateKey
	args *configv1.InterPodAffinityArgs
}

var (
	_ framework.FilterPlugin = (*interPodAffinity)(nil)
	_ framework.ScorePlugin  = (*interPodAffinity)(nil)
)

func New(args any, h framework.Handle) (framework.Plugin, error) {
	return &interPodAffinity{key: h.StateKey(), args: args.(*configv1.InterPodAffinityArgs)}, nil
}

// interPodAffinityArgs decodes, defaults and validates InterPodAffinityArgs.
var Args = framework.TypedArgs(Name+"Args", func(a *configv1.InterPodAffinityArgs) {
	if a.HardPodAffinityWeight == nil {
		a.HardPodAffinityWeight = ptr.To[int32](1)
	}
}, func(a *configv1.InterPodAffinityArgs, _ string, bad func(string, string, ...any)) {
	if w := *a.HardPodAffinityWeight; w < 0 || w > 100 {
		bad("hardPodAffinityWeight", "%d is not in [0, 100]", w)
	}
})

func (*interPodAffinity) Name() string { return Name }

// domainCounts counts pods per domain of one topology key.
type domainCounts struct {
	key     string
	domains *cluster.TopologyDomains
	counts  []int32
}

// countsFor returns the entry for key, adding it when missing. Topology keys
// in play are few, so a slice beats a map and keeps order fixed.
func countsFor(list *[]domainCounts, c *framework.Cycle, key string) *domainCounts {
	for i := range *list {
		if (*list)[i].key == key {
			return &(*list)[i]
		}
	}
	d := c.TopologyDomains(key)
	*list = append(*list, domainCounts{key: key, domains: d, counts: c.Int32Buffer(len(d.Values))})
	return &(*list)[len(*list)-1]
}

// podAffinityState is InterPodAffinity's PreFilter state.
type podAffinityState struct {
	affinity []affinityTerm
	anti     []affinityTerm
	// affinityCounts counts, per key of the pod's affinity terms, the pods
	// that match all of those terms; any says whether there is one at all.
	affinityCounts []domainCounts
	affinityAny    bool
	// selfMatch: the pod matches all its own affinity terms, which lets the
	// first pod of a group that wants to be with its own kind start anywhere.
	selfMatch  bool
	antiCounts []domainCounts
	// existing counts, per key, the existing pods whose required
	// anti-affinity terms select the pod.
	existing []domainCounts
}

func (p *interPodAffinity) PreFilter(c *framework.Cycle) framework.PreFilterResult {
	st := framework.State[podAffinityState](c, p.key)
	if a := c.Pod().Spec.Affinity; a != nil {
		var err error
		if a.PodAffinity != nil {
			if st.affinity, err = newAffinityTerms(c.Pod().Namespace, a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution); err != nil {
				return framework.PreFilterResult{Reject: "parsing pod: " + err.Error()}
			}
		}
		if a.PodAntiAffinity != nil {
			if st.anti, err = newAffinityTerms(c.Pod().Namespace, a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution); err != nil {
				return framework.PreFilterResult{Reject: "parsing pod: " + err.Error()}
			}
		}
	}

	existing := p.existingMatches(c)
	if len(existing.anti) > 0 {
		tg := p.terms(c)
		for _, m := range existing.anti {
			for _, p := range tg.groups[m.group].pods {
				n := c.PlacedOn(p)
				if n < 0 {
					continue
				}
				for _, key := range m.antiKeys {
					dc := countsFor(&st.existing, c, key)
					if d := dc.domains.Of[n]; d >= 0 {
						dc.counts[d]++
					}
				}
			}
		}
	}
	existingAny := false
	for _, dc := range st.existing {
		for _, n := range dc.counts {
			existingAny = existingAny || n > 0
		}
	}
	if !existingAny && len(st.affinity) == 0 && len(st.anti) == 0 {
		return framework.PreFilterResult{Skip: true}
	}

	g := c.PodGroups()
	if len(st.affinity) > 0 {
		nsLabels := c.NamespaceLabels()
		st.selfMatch = true
		for i := range st.affinity {
			st.selfMatch = st.selfMatch && st.affinity[i].matches(c.Pod().Namespace, nsLabels, labels.Set(c.Pod().Labels))
			countsFor(&st.affinityCounts, c, st.affinity[i].topologyKey)
		}
		for _, id := range c.SelectPodGroups(st.affinity[0].query()) {
			grp := &g.Groups[id]
			if !p.matchesAll(c, st.affinity[1:], grp) {
				continue
			}
			for _, p := range grp.Pods {
				n := c.PlacedOn(p)
				if n < 0 {
					continue
				}
				for i := range st.affinity {
					dc := countsFor(&st.affinityCounts, c, st.affinity[i].topologyKey)
					if d := dc.domains.Of[n]; d >= 0 {
						dc.counts[d]++
						st.affinityAny = true
					}
				}
			}
		}
	}
	for i := range st.anti {
		dc := countsFor(&st.antiCounts, c, st.anti[i].topologyKey)
		p.eachPodOf(c, st.anti[i].query(), func(_ *cluster.Pod, n int32) {
			if d := dc.domains.Of[n]; d >= 0 {
				dc.counts[d]++
			}
		})
	}

	return framework.PreFilterResult{}
}

// matchesAll reports whether a pod group matches every term.
func (p *interPodAffinity) matchesAll(c *framework.Cycle, terms []affinityTerm, grp *cluster.PodGroup) bool {
	if len(terms) == 0 {
		return true
	}
	nsLabels := labels.Set(c.Snapshot().NamespaceLabels(grp.Namespace))
	for i := range terms {
		if !terms[i].matches(grp.Namespace, nsLabels, grp.Labels) {
			return false
		}
	}
	return true
}

// eachPodOf calls fn for every pod a query selects that holds a node.
func (p *interPodAffinity) eachPodOf(c *framework.Cycle, q cluster.PodQuery, fn func(p *cluster.Pod, node int32)) {
	g := c.PodGroups()
	for _, id := range c.SelectPodGroups(q) {
		for _, p := range g.Groups[id].Pods {
			if n := c.PlacedOn(p); n >= 0 {
				fn(p, n)
			}
		}
	}
}

func lookup(list []domainCounts, key string) *domainCounts {
	for i := range list {
		if list[i].key == key {
			return &list[i]
		}
	}
	return nil
}

func (p *interPodAffinity) Filter(c *framework.Cycle, i int) []string {
	st := framework.State[podAffinityState](c, p.key)
	if len(st.affinity) > 0 {
		podsExist := true
		for k := range st.affinity {
			dc := lookup(st.affinityCounts, st.affinity[k].topologyKey)
			d := dc.domains.Of[i]
			if d < 0 {
				return reasonPodAffinity
			}
			if dc.counts[d] <= 0 {
				podsExist = false
			}
		}
		if !podsExist && (st.affinityAny || !st.selfMatch) {
			return reasonPodAffinity
		}
	}
	for k := range st.anti {
		dc := lookup(st.antiCounts, st.anti[k].topologyKey)
		if d := dc.domains.Of[i]; d >= 0 && dc.counts[d] > 0 {
			return reasonPodAntiAffinity
		}
	}
	for k := range st.existing {
		dc := &st.existing[k]
		if d := dc.domains.Of[i]; d >= 0 && dc.counts[d] > 0 {
			return reasonExistingAntiAffinity
		}
	}
	return nil
}

// Score prefers nodes by preferred pod affinity and
// anti-affinity: the pod's own preferred terms over the existing pods, and
// the existing pods' preferred terms (and required affinity terms, by
// hardPodAffinityWeight) that select the pod. Each adds or takes its weight
// for the topology domain of the pod it concerns; a node scores the sum over
// its domains, scaled so that the lowest is 0 and the highest 100.
func (p *interPodAffinity) Score(c *framework.Cycle, feasible []int32, out []int64) bool {
	var preferred, preferredAnti []weightedTerm
	if a := c.Pod().Spec.Affinity; a != nil {
		var err error
		if a.PodAffinity != nil {
			if preferred, err = newWeightedTerms(c.Pod().Namespace, a.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution); err != nil {
				return false
			}
		}
		if a.PodAntiAffinity != nil {
			if preferredAnti, err = newWeightedTerms(c.Pod().Namespace, a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution); err != nil {
				return false
			}
		}
	}
	own := len(preferred) > 0 || len(preferredAnti) > 0
	if p.args.IgnorePreferredTermsOfExistingPods && !own {
		return false
	}

	var topo []domainScores
	add := func(key string, n int32, w int64) {
		ds := scoresFor(&topo, c, key)
		if d := ds.domains.Of[n]; d >= 0 {
			ds.scores[d] += w
			ds.used = true
		}
	}
	labelled := func(n int32) bool { return len(c.Nodes()[n].Labels) > 0 }
	for sign, terms := range [2][]weightedTerm{preferred, preferredAnti} {
		for i := range terms {
			t := &terms[i]
			w := int64(t.weight)
			if sign == 1 {
				w = -w
			}
			p.eachPodOf(c, t.query(), func(_ *cluster.Pod, n int32) {
				if labelled(n) {
					add(t.topologyKey, n, w)
				}
			})
		}
	}
	existing := p.existingMatches(c)
	tg := p.terms(c)
	for _, m := range existing.scored {
		for _, p := range tg.groups[m.group].pods {
			n := c.PlacedOn(p)
			if n < 0 || !labelled(n) {
				continue
			}
			for _, kw := range m.scores {
				add(kw.key, n, kw.weight)
			}
		}
	}
	used := false
	for _, ds := range topo {
		used = used || ds.used
	}
	if !used {
		return false
	}

	lowest, highest := int64(math.MaxInt64), int64(math.MinInt64)
	for k, i := range feasible {
		var sum int64
		for _, ds := range topo {
			if d := ds.domains.Of[i]; d >= 0 {
				sum += ds.scores[d]
			}
		}
		out[k] = sum
		lowest, highest = min(lowest, sum), max(highest, sum)
	}
	spread := highest - lowest
	for k := range feasible {
		var v float64
		if spread > 0 {
			v = float64(framework.MaxNodeScore) * (float64(out[k]-lowest) / float64(spread))
		}
		out[k] = int64(v)
	}
	return true
}

// domainScores sums term weights per domain of one topology key.
type domainScores struct {
	key     string
	domains *cluster.TopologyDomains
	scores  []int64
	used    bool
}

func scoresFor(list *[]domainScores, c *framework.Cycle, key string) *domainScores {
	for i := range *list {
		if (*list)[i].key == key {
			return &(*list)[i]
		}
	}
	d := c.TopologyDomains(key)
	*list = append(*list, domainScores{key: key, domains: d, scores: make([]int64, len(d.Values))})
	return &(*list)[len(*list)-1]
}

// Unresolvable: a node that lacks a domain label, or pods that a required
// affinity term needs, stays so; conflicts with pods that are there go with
// them.
func (p *interPodAffinity) Unresolvable(_ *framework.Cycle, _ int, reasons []string) bool {
	return len(reasons) > 0 && reasons[0] == ErrReasonAffinityRulesNotMatch
}
