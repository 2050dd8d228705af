package engine

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/scheduler/framework"
	"github.com/kube-rebalancer/rebalancer/scheduler/profile"
)

// Names under which Options.Exclude and Options.Accept report a node they
// turn down, in NodeResult.Plugin.
const (
	ExcludedBy = "Exclude"
	AcceptedBy = "Accept"
)

// DefaultExcludeReason is counted in "0/N nodes are available" for each node
// Options.Exclude names, unless Options.ExcludeReason says otherwise.
const DefaultExcludeReason = "node(s) were excluded as the node the pod leaves"

// defaultAcceptReason stands in for an empty reason from Options.Accept.
const defaultAcceptReason = "node(s) were not accepted by the strategy"

type weightedScorer struct {
	plugin framework.ScorePlugin
	weight int64
}

// Engine places pods on snapshots with the filters and scores of one
// profile. It is safe for concurrent use. It keeps tables derived from the
// unchanging parts of the last snapshots it saw (labels, taints, affinity
// terms, images; see tables.go); everything edits change is read anew
// on each call.
type Engine struct {
	profile profile.Profile
	enabled profile.EnabledPlugins
	// plugins are the simulated plugins the profile enables, each built
	// once; a plugin's StateKey is its position here.
	plugins []framework.Plugin
	filters []framework.FilterPlugin
	scores  []weightedScorer
	// extenders are called after the plugins (SetExtenders).
	extenders []Extender
	// postFilters and permits are the out-of-tree plugins of those points.
	postFilters []framework.PostFilterPlugin
	permits     []framework.PermitPlugin
	waiting     *WaitingPods
	preBind     preBindSettings

	// NoCache makes every decision derive its tables afresh from the
	// snapshot, keeping none between decisions; decisions must not change.
	// Set it before the first decision.
	NoCache bool

	mu       sync.Mutex
	families []*family
	cycles   sync.Pool
}

// New builds the engine of a profile. outOfTree registers plugins
// besides the in-tree ones, which the profile may enable and configure as
// kube-scheduler's own. Plugins the engine does not simulate are accepted
// and listed in EnabledPlugins().NotSimulated.
func New(p profile.Profile, outOfTree ...framework.Registry) (*Engine, error) {
	reg, err := profile.MergeRegistries(outOfTree)
	if err != nil {
		return nil, err
	}
	enabled, err := profile.Resolve(p.Plugins, "plugins", reg)
	if err != nil {
		return nil, err
	}
	e := &Engine{profile: p, enabled: enabled, waiting: &WaitingPods{}}
	built := make(map[string]framework.Plugin)
	build := func(name string) (framework.Plugin, error) {
		if pl, ok := built[name]; ok {
			return pl, nil
		}
		x := reg[name]
		if x.New == nil {
			return nil, nil
		}
		args, err := profile.PluginArgs(reg, name, p.RawArgs(name), name+".args")
		if err != nil {
			return nil, err
		}
		pl, err := x.New(args, framework.NewHandle(framework.StateKey(len(e.plugins)), e.waiting.get))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		built[name] = pl
		e.plugins = append(e.plugins, pl)
		return pl, nil
	}
	for _, name := range enabled.Filter {
		pl, err := build(name)
		if err != nil || pl == nil {
			if err != nil {
				return nil, err
			}
			continue
		}
		f, ok := pl.(framework.FilterPlugin)
		if !ok {
			return nil, fmt.Errorf("plugin %q is enabled at filter but is not a FilterPlugin", name)
		}
		e.filters = append(e.filters, f)
	}
	for _, sp := range enabled.Score {
		pl, err := build(sp.Name)
		if err != nil || pl == nil {
			if err != nil {
				return nil, err
			}
			continue
		}
		s, ok := pl.(framework.ScorePlugin)
		if !ok {
			return nil, fmt.Errorf("plugin %q is enabled at score but is not a ScorePlugin", sp.Name)
		}
		e.scores = append(e.scores, weightedScorer{plugin: s, weight: int64(sp.Weight)})
	}
	if err := e.buildLaterPoints(build); err != nil {
		return nil, err
	}
	e.readPreBindSettings()
	return e, nil
}

// Profile returns the profile the engine runs.
func (e *Engine) Profile() profile.Profile { return e.profile }

// EnabledPlugins returns the plugins the engine's profile enables.
func (e *Engine) EnabledPlugins() profile.EnabledPlugins { return e.enabled }

var _ Placer = (*Engine)(nil)

// Reserve puts the pod on the node in the working snapshot, so that the
// next decision sees the capacity, ports, spread and affinity it takes, as
// kube-scheduler's Reserve does in its cache.
func (e *Engine) Reserve(snap *cluster.Snapshot, pod *cluster.Pod, node string) error {
	return snap.Place(pod, node)
}

// Unreserve takes back what Reserve did.
func (e *Engine) Unreserve(snap *cluster.Snapshot, pod *cluster.Pod) {
	snap.Remove(pod)
}

// Schedule chooses a node for pod in snap as it is now. Nodes are filtered
// until the profile's percentageOfNodesToScore of them (kube-scheduler's
// adaptive share by default, every node below 100 nodes or at 100%) are
// found feasible; those are scored and the best total wins, ties going to
// the node that sorts first by name.
func (e *Engine) Schedule(snap *cluster.Snapshot, pod *cluster.Pod, opts Options) Result {
	c := e.newCycle(snap, pod)
	defer e.putCycle(c)

	only, rejected := c.preFilter(opts)
	if rejected != nil {
		c.logRejectedByPreFilter(rejected)
		c.postFilter(rejected)
		return *rejected
	}
	c.setExcluded(opts)
	c.setNominated()
	if node, ok := c.nominatedFirst(only, opts); ok {
		return Result{Node: node, Feasible: 1, Evaluated: 1}
	}
	evaluated := c.filterNodes(only, opts)
	c.logRejections()
	if err := c.filterExtenders(); err != nil {
		return c.extenderFailed(err, Result{Evaluated: evaluated}, opts)
	}

	res := Result{Feasible: len(c.feasible), Evaluated: evaluated}
	if len(c.feasible) == 0 {
		res.Message = c.message()
		c.postFilter(&res)
		if opts.Explain {
			res.Nodes = c.explain(nil, nil)
			c.explainExtenders(res.Nodes)
		}
		return res
	}
	totals, perPlugin := c.scoreNodes(opts.Explain)
	c.prioritizeExtenders(totals, opts.Explain)

	// The best total wins; on a tie, the node that sorts first by name
	// (nodes are in name order, and feasible may start mid-way).
	feasible := c.feasible
	better := func(a, b int) bool {
		return totals[a] > totals[b] || totals[a] == totals[b] && feasible[a] < feasible[b]
	}
	best, second := -1, -1
	for k := range feasible {
		switch {
		case best < 0 || better(k, best):
			best, second = k, best
		case second < 0 || better(k, second):
			second = k
		}
	}
	res.Node, res.Score = c.Nodes()[feasible[best]].Name, totals[best]
	if second >= 0 {
		res.RunnerUp, res.RunnerUpScore = c.Nodes()[feasible[second]].Name, totals[second]
	}
	if opts.Explain {
		res.Nodes = c.explain(totals, perPlugin)
		c.explainExtenders(res.Nodes)
	}
	return res
}

// preFilter runs every filter plugin's PreFilter and keeps the plugins
// that have something to check in c.active. It returns the node names a
// PreFilterResult limits the search to (nil for all), or the result of a
// PreFilter that rejects every node.
func (c *cycle) preFilter(opts Options) (map[string]bool, *Result) {
	var only map[string]bool
	var onlyBy []string
	for _, f := range c.e.filters {
		p := f.PreFilter(&c.Cycle)
		switch {
		case p.Reject != "":
			res := c.rejectAll(p.Reject, f.Name(), opts)
			return nil, &res
		case p.Skip:
			continue
		case p.Only != nil:
			only = intersect(only, p.Only)
			onlyBy = append(onlyBy, f.Name())
			if len(only) == 0 {
				msg := fmt.Sprintf("node(s) didn't satisfy plugin(s) %v simultaneously", onlyBy)
				if len(onlyBy) == 1 {
					msg = "node(s) didn't satisfy plugin " + onlyBy[0]
				}
				res := c.rejectAll(msg, f.Name(), opts)
				return nil, &res
			}
		}
		c.active = append(c.active, f)
	}
	if only != nil {
		c.onlyBy = strings.Join(onlyBy, ",")
		c.onlyReason = []string{fmt.Sprintf("node(s) didn't satisfy plugin(s) %v", onlyBy)}
	}
	return only, nil
}

func (c *cycle) setExcluded(opts Options) {
	for _, name := range opts.Exclude {
		if n := c.Snapshot().Node(name); n != nil {
			c.excluded[n.Index()] = true
		}
	}
	c.excludeReason = []string{DefaultExcludeReason}
	if opts.ExcludeReason != "" {
		c.excludeReason = []string{opts.ExcludeReason}
	}
}

// filterNodes runs the filters node by node, recording each node's verdict
// and collecting the feasible ones in c.feasible, and returns how many nodes
// it examined.
//
// kube-scheduler stops looking once it has found enough feasible nodes
// (percentageOfNodesToScore) and starts where its previous cycle stopped;
// the engine starts at a place derived from the pod's name instead, so that
// the same calls give the same answers.
//
// With Options.AcceptOnly the nodes Accept refuses anyway are passed by:
// the candidates are visited in the order of the full search, so the same
// nodes are found feasible and the search stops at the same one. Only when
// none is feasible are all nodes looked at, for the message's reasons.
func (c *cycle) filterNodes(only map[string]bool, opts Options) int {
	numNodes := len(c.Nodes())
	toFind := numFeasibleNodesToFind(c.e.profile.PercentageOfNodesToScore, numNodes)
	start := 0
	if toFind < numNodes {
		start = SearchStart(c.Pod(), numNodes)
	}
	static, dynamic := c.staticFilters(c.active)
	c.index = c.staticIndexFor(static, only)
	if opts.AcceptOnly != nil && !opts.Explain {
		cands := opts.AcceptOnly
		first, _ := slices.BinarySearch(cands, int32(start))
		evaluated := 0
		c.feasible = c.feasible[:0]
		for j := range cands {
			k := first + j
			if k >= len(cands) {
				k -= len(cands)
			}
			if len(c.feasible) >= toFind {
				break
			}
			evaluated++
			if i := int(cands[k]); c.filterNode(i, only, static, dynamic, opts) {
				c.feasible = append(c.feasible, int32(i))
			}
		}
		if len(c.feasible) > 0 {
			return evaluated
		}
		// Every candidate has its verdict already, and none is feasible:
		// the full search finds no node either, so that it examines every
		// node, and need not filter the candidates again.
		if c.filterOthers(cands, only, static, dynamic, opts) {
			return numNodes
		}
	}
	feasible := c.feasible[:0]
	evaluated := 0
	for j := range numNodes {
		i := start + j
		if i >= numNodes {
			i -= numNodes
		}
		if len(feasible) >= toFind {
			c.verdict[i] = verdictNotEvaluated
			continue
		}
		evaluated++
		if !c.excluded[i] && c.rejectsStatically(i) {
			continue
		}
		if c.filterNode(i, only, static, dynamic, opts) {
			feasible = append(feasible, int32(i))
		}
	}
	c.feasible = feasible
	return evaluated
}

// filterOthers records the verdict of every node that is not a candidate,
// after the candidates were filtered and none was feasible, and reports
// whether none of them is feasible either, as Options.AcceptOnly promises.
// When one is, the caller searches every node as if there were no
// candidates.
func (c *cycle) filterOthers(cands []int32, only map[string]bool, static []framework.NodeCheck, dynamic []int, opts Options) bool {
	k := 0
	for i := range c.Nodes() {
		for k < len(cands) && int(cands[k]) < i {
			k++
		}
		if k < len(cands) && int(cands[k]) == i {
			continue
		}
		if !c.excluded[i] && c.rejectsStatically(i) {
			continue
		}
		if c.filterNode(i, only, static, dynamic, opts) {
			return false
		}
	}
	return true
}

// filterNode runs the filters and Accept on node i, records its verdict and
// reports whether it is feasible.
func (c *cycle) filterNode(i int, only map[string]bool, static []framework.NodeCheck, dynamic []int, opts Options) bool {
	node := c.Nodes()[i]
	switch {
	case c.excluded[i]:
		c.verdict[i] = verdictExcluded
		return false
	case only != nil && !only[node.Name]:
		c.verdict[i] = verdictOnly
		return false
	}
	if c.index != nil {
		if c.rejectsStatically(i) {
			return false
		}
	} else {
		for k := range static {
			if static[k].Rejects(i) {
				c.verdict[i] = verdictStatic
				c.staticBy[i] = uint8(k)
				return false
			}
		}
	}
	for _, k := range dynamic {
		if r := c.active[k].Filter(&c.Cycle, i); r != nil {
			c.verdict[i] = verdictFilter + uint8(k)
			c.filterReasons[i] = r
			return false
		}
	}
	if c.nominated != nil && c.failsWithNominated(i) {
		c.verdict[i] = verdictNominated
		return false
	}
	if opts.Accept != nil {
		if ok, why := opts.Accept(node); !ok {
			if why == "" {
				why = defaultAcceptReason
			}
			if len(c.acceptReasons) < len(c.Nodes()) {
				c.acceptReasons = make([]string, len(c.Nodes()))
			}
			c.verdict[i] = verdictAccept
			c.acceptReasons[i] = why
			return false
		}
	}
	c.verdict[i] = verdictFeasible
	return true
}

// scoreNodes runs the score plugins on the feasible nodes and returns each
// node's weighted total and, when explaining, each plugin's scores (nil for
// a plugin that skipped the pod).
func (c *cycle) scoreNodes(explain bool) ([]int64, [][]int64) {
	feasible := c.feasible
	totals := zeroed(&c.totals, len(feasible))
	var perPlugin [][]int64
	for _, ws := range c.e.scores {
		var out []int64
		if explain {
			out = make([]int64, len(feasible))
		} else {
			out = zeroed(&c.scratch, len(feasible))
		}
		ran := ws.plugin.Score(&c.Cycle, feasible, out)
		if ran {
			for k, s := range out {
				totals[k] += ws.weight * s
			}
		}
		if explain {
			if !ran {
				out = nil
			}
			perPlugin = append(perPlugin, out)
		}
	}
	return totals, perPlugin
}

// Fits reports whether pod could run on node in snap as it is now, by every
// filter of the profile, and if not, the first failing filter's reasons.
func (e *Engine) Fits(snap *cluster.Snapshot, pod *cluster.Pod, node *cluster.Node) (bool, string) {
	c := e.newCycle(snap, pod)
	defer e.putCycle(c)
	i := -1
	if n := snap.Node(node.Name); n != nil {
		i = n.Index()
	}
	if i < 0 {
		return false, fmt.Sprintf("node %q is not in the snapshot", node.Name)
	}
	var later []framework.FilterPlugin
	for _, f := range e.filters {
		p := f.PreFilter(&c.Cycle)
		switch {
		case p.Reject != "":
			return false, p.Reject
		case p.Skip:
			continue
		case p.Only != nil && !p.Only[node.Name]:
			return false, fmt.Sprintf("node(s) didn't satisfy plugin(s) [%s]", f.Name())
		}
		later = append(later, f)
	}
	for _, f := range later {
		if r := f.Filter(&c.Cycle, i); r != nil {
			return false, strings.Join(r, ", ")
		}
	}
	if len(e.extenders) > 0 {
		return c.fitsExtenders(i)
	}
	return true, ""
}

// numFeasibleNodesToFind is kube-scheduler's rule: every node in clusters
// under 100 nodes; otherwise the profile's percentage, or when it is unset
// or 0, 50% minus 1% per 125 nodes with a floor of 5%; and never fewer than
// 100 nodes.
func numFeasibleNodesToFind(percentage *int32, numNodes int) int {
	const minNodes, minPercentage = 100, 5
	if numNodes < minNodes {
		return numNodes
	}
	pct := 0
	if percentage != nil {
		pct = int(*percentage)
	}
	if pct == 0 {
		pct = max(50-numNodes/125, minPercentage)
	}
	return max(numNodes*pct/100, minNodes)
}

// SearchStart is where a search of n places for pod starts, when it stops
// before the end: kube-scheduler starts where its previous cycle stopped,
// or at random; the engine, and preemption's dry run, start at a place
// derived from the pod's name, so that the same calls give the same
// answers.
func SearchStart(pod *cluster.Pod, n int) int {
	return int(nameHash(pod.Key) % uint64(n))
}

// nameHash is FNV-1a: a fixed, well-spread start for each pod's search.
func nameHash(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

func intersect(a, b map[string]bool) map[string]bool {
	if a == nil {
		return b
	}
	out := make(map[string]bool)
	for k := range a {
		if b[k] {
			out[k] = true
		}
	}
	return out
}

// zeroed returns (*buf)[:n] cleared, growing *buf when needed.
func zeroed[T any](buf *[]T, n int) []T {
	if cap(*buf) < n {
		*buf = make([]T, n)
	}
	s := (*buf)[:n]
	clear(s)
	return s
}
