package planner

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/strategies/framework"
)

// strategyNotes returns, in run order, what the planner says of each
// strategy beside its own notes. A strategy that found pods to move and
// moved none of them says so, with what kept them: without it a plan of no
// moves reads as a cluster with nothing to do; one whose own notes already
// speak of the node of each pod it skipped (HighNodeUtilization's "not
// emptied") is not said twice. The pods a strategy did not propose and the
// plan counts rather than lists (framework.Counter) are counted in a note
// of their own.
func (c *cycle) strategyNotes(before *cluster.Snapshot, own []Note) []Note {
	movedBy := make(map[string]bool)
	moved := make(map[string]bool, len(c.plan.Moves))
	for _, m := range c.plan.Moves {
		movedBy[m.Strategy], moved[m.Pod] = true, true
	}
	noted := make(map[[2]string]bool, len(own))
	for _, n := range own {
		if n.Node != "" {
			noted[[2]string{n.Strategy, n.Node}] = true
		}
	}
	var out []Note
	for _, name := range c.planner.Policy.Enabled() {
		counts, total, explained := make(map[Category]int), 0, true
		for _, k := range c.skips.byStrategy[name] {
			if moved[k.Pod] {
				continue // another strategy did it
			}
			counts[k.Category]++
			total++
			if explained {
				explained = false
				if p := before.Pod(k.Pod); p != nil {
					n := before.NodeOf(p)
					explained = n != nil && noted[[2]string{name, n.Name}]
				}
			}
		}
		unlisted, first := c.unlisted(name, moved)
		for cat, n := range unlisted {
			counts[cat] += n
			total += n
			explained = false
		}
		var text []string
		if !movedBy[name] && total > 0 && !explained {
			text = append(text, fmt.Sprintf("found %s to move, moved none: %s", pods(total), countsText(counts)))
		}
		if len(unlisted) > 0 {
			n := 0
			for _, v := range unlisted {
				n += v
			}
			example := first.Pod + ": " + first.Reason
			if n > 1 {
				example = first.Pod + " first: " + first.Reason
			}
			if len(text) > 0 {
				text = append(text, fmt.Sprintf("%d of them not proposed, counted here rather than listed as skipped; %s", n, example))
			} else {
				counts = unlisted
				text = append(text, fmt.Sprintf("%s not proposed, counted here rather than listed as skipped (%s); %s",
					pods(n), countsText(unlisted), example))
			}
		}
		if len(text) > 0 {
			out = append(out, Note{Strategy: name, Skipped: counts, Text: strings.Join(text, "; ")})
		}
	}
	return out
}

// unlisted counts by category the pods the strategy did not propose and
// the plan does not list, each once, leaving out those that moved, and
// returns the first of them that stays.
func (c *cycle) unlisted(strategy string, moved map[string]bool) (map[Category]int, Skip) {
	counted := c.skips.counted[strategy]
	if len(counted) == 0 {
		return nil, Skip{}
	}
	counts := make(map[Category]int)
	seen := make(map[*cluster.Pod]bool, len(counted))
	var first Skip
	for _, k := range counted {
		if moved[k.pod.Key] || seen[k.pod] {
			continue
		}
		seen[k.pod] = true
		if len(counts) == 0 {
			first = Skip{Pod: k.pod.Key, Strategy: strategy, Category: k.category, Reason: k.reason}
		}
		counts[k.category]++
	}
	if len(counts) == 0 {
		return nil, Skip{}
	}
	return counts, first
}

// countsText lists counts by category, the most frequent first, as the
// report's summary of skipped pods does: "8 no-fit, 4 futile".
func countsText(counts map[Category]int) string {
	cats := make([]Category, 0, len(counts))
	for c := range counts {
		cats = append(cats, c)
	}
	slices.SortFunc(cats, func(a, b Category) int {
		return cmp.Or(cmp.Compare(counts[b], counts[a]), cmp.Compare(a, b))
	})
	parts := make([]string, len(cats))
	for i, c := range cats {
		parts[i] = fmt.Sprintf("%d %s", counts[c], c)
	}
	return strings.Join(parts, ", ")
}

func pods(n int) string {
	if n == 1 {
		return "1 pod"
	}
	return fmt.Sprintf("%d pods", n)
}

// PendingPods counts the pods that wait for a node, as a plan's note
// carries them.
type PendingPods struct {
	// Unschedulable counts the unbound pods whose PodScheduled condition
	// is False with reason Unschedulable: the scheduler tried them and
	// found no node.
	Unschedulable int `json:"unschedulable"`
	// Namespaces counts them by namespace, when they are in few.
	Namespaces map[string]int `json:"namespaces,omitempty"`
	// SchedulingGated counts the unbound pods held by spec.schedulingGates,
	// which the scheduler does not try until the gates are removed.
	SchedulingGated int `json:"schedulingGated,omitempty"`
}

// maxPendingNamespaces bounds the namespaces a pending note names.
const maxPendingNamespaces = 5

// pendingNote returns the note on the pods of the policy's namespaces that
// wait for a node, or nil when none does: a user whose pod waits sees that
// the run looked at it, and whether a strategy of the policy serves it
// (placed counts the pods the plan places).
func (pl *Planner) pendingNote(snap *cluster.Snapshot, placed int) *Note {
	var pp PendingPods
	byNamespace := make(map[string]int)
	for _, p := range snap.Pods() {
		if p.Spec.NodeName != "" || p.IsTerminal() || p.IsTerminating() || !pl.Policy.AllowsNamespace(p.Namespace) {
			continue
		}
		switch {
		case len(p.Spec.SchedulingGates) > 0:
			pp.SchedulingGated++
		default:
			if _, ok := p.UnschedulableSince(); ok {
				pp.Unschedulable++
				byNamespace[p.Namespace]++
			}
		}
	}
	if pp.Unschedulable == 0 && pp.SchedulingGated == 0 {
		return nil
	}
	var text []string
	if pp.Unschedulable > 0 {
		where := fmt.Sprintf(" in %d namespaces", len(byNamespace))
		if len(byNamespace) <= maxPendingNamespaces {
			pp.Namespaces = byNamespace
			names := make([]string, 0, len(byNamespace))
			for ns := range byNamespace {
				names = append(names, ns)
			}
			slices.Sort(names)
			for i, ns := range names {
				names[i] = fmt.Sprintf("%s: %d", ns, byNamespace[ns])
			}
			where = " (" + strings.Join(names, ", ") + ")"
		}
		text = append(text, fmt.Sprintf("%s pending as unschedulable%s; %s", pods(pp.Unschedulable), where, pl.pendingServed(placed)))
	}
	if pp.SchedulingGated > 0 {
		text = append(text, fmt.Sprintf("%s gated by spec.schedulingGates, which the scheduler does not try until they are removed", pods(pp.SchedulingGated)))
	}
	return &Note{Text: strings.Join(text, "; "), Pending: &pp}
}

// pendingServed says what the policy's strategies do for the pods that
// wait for a node.
func (pl *Planner) pendingServed(placed int) string {
	for _, name := range pl.Policy.Enabled() {
		if _, ok := framework.Get(name).(framework.PendingServer); ok {
			if placed > 0 {
				return fmt.Sprintf("the plan places %d of them on the room its moves make (placements)", placed)
			}
			return "no moves make room for them (the strategy's notes say why)"
		}
	}
	return "no strategy of this policy places pending pods"
}
