package interpodantiaffinity

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/strategies/framework"
)

// interPodAntiAffinity moves pods whose required pod anti-affinity is
// broken: two pods share a topology domain while a required anti-affinity
// term of one selects the other (a label added or changed after they were
// scheduled). Each broken pair is a conflict; the strategy moves the fewest
// pods that clear every conflict, taking first the pod in the most
// conflicts, then the least important. The scheduler's InterPodAffinity
// filter, which checks both directions, keeps the replacements clear of
// new conflicts.
type interPodAntiAffinity struct{}

// Name is the strategy's key under strategies: in a policy.
const Name = "RemovePodsViolatingInterPodAntiAffinity"

func (interPodAntiAffinity) Name() string { return Name }

func (s interPodAntiAffinity) Run(in *framework.Cycle) {
	g := conflicts(in)
	tried := make(map[*cluster.Pod]bool)
	// Each conflict needs one of its two pods gone: when one is refused,
	// the other is tried too.
	need := in.Need(s.Name(), 0)
	for {
		p := g.next(in, s.Name(), tried)
		if p == nil {
			break
		}
		tried[p] = true
		if o := need.Move(framework.Candidate{Pod: p, Reason: g.describe(p)}); o.Moved {
			g.remove(p)
		}
	}
	g.report(need)
}

// report records the refused pods that conflicts still need moved: in the
// order they were tried, each one that would clear a remaining conflict no
// pod recorded before it clears. A refused pod whose conflicts all went
// with the other pod of each pair was an alternative.
func (g *conflictGraph) report(w *framework.Need) {
	recorded := make(map[*cluster.Pod]bool)
	for _, r := range w.Refused {
		for _, q := range g.live(r.Pod) {
			if !recorded[q] {
				recorded[r.Pod] = true
				w.Skip(r)
				break
			}
		}
	}
}

// antiTerm is a parsed required anti-affinity term. By the API's rule, a
// term with neither namespaces nor namespaceSelector means the namespace of
// the pod that carries it.
type antiTerm struct {
	key   string
	query cluster.PodQuery
	// bucket names the pods the term selects, by their domain of key: every
	// pod with the term asks for the same ones.
	bucket string
}

// antiTerms parses a pod's required anti-affinity terms, once per spec.
func antiTerms(in *framework.Cycle, p *cluster.Pod) []antiTerm {
	if in.NoCache {
		return parseAntiTermsOf(p.Namespace, p.Spec.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution)
	}
	return cycleCaches.Of(in).antiTermsOf.Get(in.Snapshot, p, func(p *cluster.Pod) []antiTerm { return parseAntiTerms(in, p) })
}

func parseAntiTerms(in *framework.Cycle, p *cluster.Pod) []antiTerm {
	terms := p.Spec.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution
	// Replicas come in a row: the previous pod's answer is this one's
	// without writing a key.
	last := &cycleCaches.Of(in).lastAntiTerms
	if last.spec != 0 && last.namespace == p.Namespace && last.spec == p.PlacementSpecID() {
		return last.parsed
	}
	out := parseAntiTermsByKey(in, p, terms)
	last.namespace, last.spec, last.parsed = p.Namespace, p.PlacementSpecID(), out
	return out
}

func parseAntiTermsByKey(in *framework.Cycle, p *cluster.Pod, terms []corev1.PodAffinityTerm) []antiTerm {
	b, _ := json.Marshal(terms)
	key := p.Namespace + "\x00" + string(b)
	caches := cycleCaches.Of(in)
	if t, ok := caches.antiTerms[key]; ok {
		return t
	}
	out := parseAntiTermsOf(p.Namespace, terms)
	if caches.antiTerms == nil {
		caches.antiTerms = make(map[string][]antiTerm)
	}
	caches.antiTerms[key] = out
	return out
}

func parseAntiTermsOf(namespace string, terms []corev1.PodAffinityTerm) []antiTerm {
	var out []antiTerm
	for i := range terms {
		if t, ok := parseAntiTerm(namespace, &terms[i]); ok {
			out = append(out, t)
		}
	}
	return out
}

// parseAntiTerm parses a term; one that does not parse is left out, as the
// scheduler could not have placed the pod with it.
func parseAntiTerm(namespace string, t *corev1.PodAffinityTerm) (antiTerm, bool) {
	sel, err := metav1.LabelSelectorAsSelector(t.LabelSelector)
	if err != nil {
		return antiTerm{}, false
	}
	q := cluster.PodQuery{Namespaces: slices.Clone(t.Namespaces), Selector: sel}
	if t.NamespaceSelector != nil {
		nsSel, err := metav1.LabelSelectorAsSelector(t.NamespaceSelector)
		if err != nil {
			return antiTerm{}, false
		}
		q.NamespaceSelector = nsSel
	} else if len(q.Namespaces) == 0 {
		q.Namespaces = []string{namespace}
	}
	slices.Sort(q.Namespaces)
	q.Namespaces = slices.Compact(q.Namespaces)
	return antiTerm{key: t.TopologyKey, query: q, bucket: q.Key() + "\x00" + t.TopologyKey}, true
}

// conflictGraph holds the broken pairs: pods are vertices, conflicts edges.
type conflictGraph struct {
	pods      []*cluster.Pod // every pod in a conflict, by key
	neighbors map[*cluster.Pod][]*cluster.Pod
	// domain names, per pair, the "key=value" domain the pair shares.
	domain  map[[2]*cluster.Pod]string
	removed map[*cluster.Pod]bool
	// degree counts each pod's conflicts that remain.
	degree map[*cluster.Pod]int
}

// conflicts finds every broken pair among the pods that hold a node. The
// pods a term selects are bucketed by domain once per distinct term, so a
// pod's conflicts are the bucket of its own domain.
func conflicts(in *framework.Cycle) *conflictGraph {
	snap := in.Snapshot
	g := &conflictGraph{neighbors: make(map[*cluster.Pod][]*cluster.Pod), domain: make(map[[2]*cluster.Pod]string),
		removed: make(map[*cluster.Pod]bool), degree: make(map[*cluster.Pod]int)}
	buckets := make(map[string]map[string][]*cluster.Pod)
	for _, x := range snap.Pods() {
		if !x.HasRequiredAntiAffinity() || x.IsTerminating() {
			continue
		}
		nx := snap.NodeOf(x)
		if nx == nil {
			continue
		}
		for _, t := range antiTerms(in, x) {
			value, ok := nx.Labels[t.key]
			if !ok {
				continue
			}
			b, ok := buckets[t.bucket]
			if !ok {
				b = make(map[string][]*cluster.Pod)
				in.EachPod(t.query, func(y *cluster.Pod) {
					if y.IsTerminating() {
						return
					}
					if ny := snap.NodeOf(y); ny != nil {
						if v, ok := ny.Labels[t.key]; ok {
							b[v] = append(b[v], y)
						}
					}
				})
				buckets[t.bucket] = b
			}
			for _, y := range b[value] {
				if y != x {
					g.add(x, y, t.key+"="+value)
				}
			}
		}
	}
	slices.SortFunc(g.pods, func(a, b *cluster.Pod) int { return strings.Compare(a.Key, b.Key) })
	return g
}

func pairOf(a, b *cluster.Pod) [2]*cluster.Pod {
	if a.Key > b.Key {
		a, b = b, a
	}
	return [2]*cluster.Pod{a, b}
}

func (g *conflictGraph) add(a, b *cluster.Pod, domain string) {
	pair := pairOf(a, b)
	if _, seen := g.domain[pair]; seen {
		return
	}
	g.domain[pair] = domain
	for _, p := range pair {
		if _, known := g.neighbors[p]; !known {
			g.pods = append(g.pods, p)
		}
	}
	g.neighbors[a] = append(g.neighbors[a], b)
	g.neighbors[b] = append(g.neighbors[b], a)
	g.degree[a]++
	g.degree[b]++
}

// live returns the pod's conflicts that remain, sorted by key.
func (g *conflictGraph) live(p *cluster.Pod) []*cluster.Pod {
	var out []*cluster.Pod
	for _, q := range g.neighbors[p] {
		if !g.removed[q] {
			out = append(out, q)
		}
	}
	slices.SortFunc(out, func(a, b *cluster.Pod) int { return strings.Compare(a.Key, b.Key) })
	return out
}

func (g *conflictGraph) remove(p *cluster.Pod) {
	g.removed[p] = true
	for _, q := range g.neighbors[p] {
		g.degree[q]--
	}
}

// next chooses the pod to move next: one the strategy applies to, not yet
// tried, in a conflict that remains; pods that can be evicted now before
// those that cannot (which are proposed last, so that the plan says why the
// conflict stays); then the cheapest (framework.ByCost), the most
// conflicts, the lowest priority, the lowest QoS class, the youngest.
func (g *conflictGraph) next(in *framework.Cycle, strategy string, tried map[*cluster.Pod]bool) *cluster.Pod {
	var best *cluster.Pod
	var bestDegree int
	var bestEvictable bool
	for _, p := range g.pods {
		if g.removed[p] || tried[p] || in.Args(strategy, p) == nil {
			continue
		}
		degree := g.degree[p]
		if degree == 0 {
			continue
		}
		evictable := in.Evictable(Name, p)
		if best == nil || better(evictable, degree, p, bestEvictable, bestDegree, best) {
			best, bestDegree, bestEvictable = p, degree, evictable
		}
	}
	return best
}

func better(evictable bool, degree int, p *cluster.Pod, bestEvictable bool, bestDegree int, best *cluster.Pod) bool {
	switch {
	case evictable != bestEvictable:
		return evictable
	case p.DeletionCost != best.DeletionCost:
		return framework.ByCost(p, best) < 0
	case degree != bestDegree:
		return degree > bestDegree
	case p.Priority != best.Priority:
		return p.Priority < best.Priority
	case framework.QoSRank(p.QoS) != framework.QoSRank(best.QoS):
		return framework.QoSRank(p.QoS) < framework.QoSRank(best.QoS)
	case !p.CreationTimestamp.Equal(&best.CreationTimestamp):
		return p.CreationTimestamp.After(best.CreationTimestamp.Time)
	}
	return false // g.pods is in key order: the first wins ties
}

// describe says which conflicts moving the pod clears.
func (g *conflictGraph) describe(p *cluster.Pod) string {
	others := g.live(p)
	var domains []string
	names := make([]string, 0, 3)
	for i, q := range others {
		if d := g.domain[pairOf(p, q)]; !slices.Contains(domains, d) {
			domains = append(domains, d)
		}
		if i < 3 {
			names = append(names, q.Key)
		}
	}
	more := ""
	if len(others) > 3 {
		more = fmt.Sprintf(" and %d more", len(others)-3)
	}
	return fmt.Sprintf("required pod anti-affinity broken in %s: shares it with %s%s", strings.Join(domains, ", "), strings.Join(names, ", "), more)
}
