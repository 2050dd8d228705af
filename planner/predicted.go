package planner

import (
	"fmt"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/scheduler/engine"
)

// predict places p's replacement where its own scheduler would, when
// nothing steers replacements: the engine decides as kube-scheduler does,
// with every node a candidate, the one p leaves included and freed of p,
// and no condition of the strategy's. The move is worth making only when
// that node is not the one p leaves and is one the move may lead to (the
// policy's nodes, the guard, the strategy's condition). Otherwise p stays
// where it was, and predict says why with the category.
func (c *cycle) predict(p *cluster.Pod, from *cluster.Node, accept func(*cluster.Node) (bool, string)) (engine.Result, Category, string) {
	c.snap.Remove(p)
	res := c.planner.Placer.Schedule(c.snap, p, engine.Options{})
	cat, why := c.judgePrediction(p, from, res, accept)
	target := res.Node
	if why != "" {
		target = from.Name
	}
	if err := c.snap.Place(p, target); err != nil {
		// Both are nodes of the snapshot.
		panic(err)
	}
	return res, cat, why
}

func (c *cycle) judgePrediction(p *cluster.Pod, from *cluster.Node, res engine.Result, accept func(*cluster.Node) (bool, string)) (Category, string) {
	const unsteered = "nothing steers replacements (replacements: predicted)"
	switch {
	case res.Node == "":
		return NoFit, "no node can take it: " + res.Message
	case res.Node == from.Name:
		return Futile, fmt.Sprintf("its replacement would land back on %s: %s, and the scheduler scores %s best (%d)",
			from.Name, unsteered, from.Name, res.Score)
	case res.RunnerUp == from.Name && res.RunnerUpScore == res.Score:
		// The engine breaks ties by name; kube-scheduler picks one of the
		// best nodes at random.
		return Futile, fmt.Sprintf("its replacement could land back on %s: %s, and the scheduler scores %s and %s alike (%d) and picks either",
			from.Name, unsteered, res.Node, from.Name, res.Score)
	}
	if ok, reason := c.acceptor(p, accept)(c.snap.Node(res.Node)); !ok {
		return Futile, fmt.Sprintf("its replacement would land on %s, where the move may not lead: %s; %s",
			res.Node, reason, unsteered)
	}
	return "", ""
}
