package defragment

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/scheduler/engine"
	"github.com/kube-rebalancer/rebalancer/scheduler/plugins/noderesources"
	"github.com/kube-rebalancer/rebalancer/strategies/framework"
)

// Name is the strategy's key under strategies: in a policy.
const Name = "DefragmentForPendingPods"

// defragment serves pods that kube-scheduler found no node for although
// the cluster has the room, scattered over several nodes: it moves the
// fewest running pods off one node so that the pending pod fits there,
// each moved pod fitting on another node as the cluster stands, and plans
// the pending pod on the node it freed. Priority and preemption stay
// kube-scheduler's: a pod that preemption would serve is left to it.
type defragment struct{}

func (defragment) Name() string { return Name }

func (s defragment) Run(in *framework.Cycle) {
	var m *movers
	for _, w := range pendingPods(in) {
		if in.Done() {
			return
		}
		if m == nil {
			m = newMovers(in)
		}
		serve(in, m, w)
	}
}

// pending is a pod the strategy serves, with its arguments.
type pending struct {
	pod   *cluster.Pod
	args  *Args
	since time.Time
}

// pendingPods returns the pods waiting for a node that the arguments
// serve: unbound, not terminating, not gated, found unschedulable by
// kube-scheduler at least minPendingAge ago; the highest priority first,
// then the longest waiting.
func pendingPods(in *framework.Cycle) []pending {
	var out []pending
	for _, p := range in.Snapshot.Pods() {
		if p.Spec.NodeName != "" || p.IsTerminal() || p.IsTerminating() || len(p.Spec.SchedulingGates) > 0 ||
			in.Snapshot.NodeOf(p) != nil {
			continue
		}
		since, ok := p.UnschedulableSince()
		if !ok {
			continue
		}
		a, ok := in.Args(Name, p).(*Args)
		if !ok || !a.serves(p.Priority) {
			continue
		}
		// Without a transition time the pod has waited at least since it
		// was created; without either its wait is unknown, and
		// kube-scheduler's verdict stands.
		if since.IsZero() {
			since = p.CreationTimestamp.Time
		}
		if !since.IsZero() && in.Snapshot.Now.Sub(since) < a.pendingAge() {
			continue
		}
		out = append(out, pending{pod: p, args: a, since: since})
	}
	slices.SortFunc(out, func(a, b pending) int {
		if c := cmp.Compare(b.pod.Priority, a.pod.Priority); c != 0 {
			return c
		}
		if c := a.since.Compare(b.since); c != 0 {
			return c
		}
		return strings.Compare(a.pod.Key, b.pod.Key)
	})
	return out
}

// serve looks for the fewest moves that make room for one pending pod and
// plans them, or says why there are none.
func serve(in *framework.Cycle, m *movers, w pending) {
	p := w.pod
	if in.Snapshot.NominatedTo(p) != nil {
		in.Note(Name, "", fmt.Sprintf("pending %s is nominated to %s: room is already being made for it there (by kube-scheduler's preemption, or by the moves of a run that holds the node for it)", p.Key, p.Status.NominatedNodeName))
		return
	}
	res := in.Placer.Schedule(in.Snapshot, p, engine.Options{Explain: true})
	if res.Node != "" {
		in.Note(Name, "", fmt.Sprintf("pending %s fits on %s as the cluster stands: kube-scheduler places it without moves", p.Key, res.Node))
		return
	}
	hosts := hostsOf(in, res)
	if len(hosts) == 0 {
		in.Note(Name, "", fmt.Sprintf("pending %s is left alone: no node passes its filters other than resources, so no move makes room: %s", p.Key, res.Message))
		return
	}
	if why := tooLarge(p, in.Selected(), hosts); why != "" {
		in.Note(Name, "", fmt.Sprintf("pending %s is left alone: it %s", p.Key, why))
		return
	}
	s := newSearch(in, m, p, w.args.maxMoves())
	if node := s.preemptable(hosts); node != "" {
		in.Note(Name, node, fmt.Sprintf("pending %s is left to kube-scheduler's preemption: removing pods of lower priority from %s makes room for it", p.Key, node))
		return
	}
	best := s.find(hosts)
	if best == nil {
		in.Note(Name, "", fmt.Sprintf("pending %s is left alone: %s", p.Key, s.whyNone(res.Message)))
		return
	}
	plan(in, p, best)
}

// hostsOf returns the nodes the policy selects that the pending pod fails
// on for resources alone (NodeResourcesFit, which also counts pods): the
// nodes where moving pods away can make it fit. The engine names the
// first filter a node fails; the search checks every filter again.
func hostsOf(in *framework.Cycle, res engine.Result) []*cluster.Node {
	usable := in.Usable()
	var hosts []*cluster.Node
	for _, nr := range res.Nodes {
		if nr.Feasible || nr.Plugin != noderesources.FitName {
			continue
		}
		if n := in.Snapshot.Node(nr.Name); n != nil && usable[n.Index()] {
			hosts = append(hosts, n)
		}
	}
	return hosts
}

// tooLarge says which resource the pod asks more of than any of the
// policy's nodes, or any host, offers in all; "" when some host would take
// it once empty.
func tooLarge(p *cluster.Pod, nodes, hosts []*cluster.Node) string {
	for _, r := range resourcesOf(p) {
		want := r.of(p.SpecRequests)
		if most := mostOf(r, nodes); want > most {
			return fmt.Sprintf("asks for %s %s, more than any node's allocatable (at most %s)", r.format(want), r.name, r.format(most))
		}
		if most := mostOf(r, hosts); want > most {
			return fmt.Sprintf("asks for %s %s, more than the allocatable of any node its other filters let it run on (at most %s)", r.format(want), r.name, r.format(most))
		}
	}
	return ""
}

// mostOf returns the most of the resource any of the nodes offers.
func mostOf(r resource, nodes []*cluster.Node) int64 {
	var most int64
	for _, n := range nodes {
		most = max(most, r.of(n.Allocatable))
	}
	return most
}

// plan proposes the moves of the set found, the largest pod first, and
// places the pending pod on the node they free. The moves are checked
// together first, so that limits or budgets that would stop one stop all.
func plan(in *framework.Cycle, p *cluster.Pod, best *found) {
	host := best.node.Name
	if gc, ok := in.Mover.(framework.GroupChecker); ok {
		if why := gc.EvictableTogether(Name, best.pods); why != "" {
			in.Note(Name, host, fmt.Sprintf("pending %s is left alone: the %d moves that make room on %s cannot all be made: %s", p.Key, len(best.pods), host, why))
			return
		}
	}
	reason := fmt.Sprintf("makes room on %s for pending %s", host, p.Key)
	notHost := func(n *cluster.Node) (bool, string) {
		if n.Name == host {
			return false, "node(s) were being freed for a pending pod"
		}
		return true, ""
	}
	need := in.Need(Name, len(best.pods))
	for _, q := range best.pods {
		if o := need.Move(framework.Candidate{Pod: q, Reason: reason, Accept: notHost}); !o.Moved {
			break
		}
	}
	need.Done()
	if need.Missing() > 0 {
		in.Note(Name, host, fmt.Sprintf("pending %s: %d of the %d moves that make room on %s were planned; it waits for the rest", p.Key, need.Moved, len(best.pods), host))
		return
	}
	n := in.Snapshot.Node(host)
	if ok, why := in.Placer.Fits(in.Snapshot, p, n); !ok {
		in.Note(Name, host, fmt.Sprintf("pending %s does not fit on %s after the moves: %s", p.Key, host, why))
		return
	}
	if !in.Reserve(Name, p, host, fmt.Sprintf("room made on %s by %d moves", host, len(best.pods))) {
		in.Note(Name, host, fmt.Sprintf("pending %s: the moves make room on %s, but the planner cannot hold it for the pod", p.Key, host))
	}
}

// ServesPendingPods: the plan's note on pending pods points to this
// strategy's placements and notes.
func (defragment) ServesPendingPods() {}
