package planner

import (
	"maps"
	"reflect"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/scheduler/engine"
	"github.com/kube-rebalancer/rebalancer/strategies/framework"
)

// noFit is the last placement that found no node. A strategy that proposes
// the replicas of a crowded node one after another, the next when one is
// refused, would otherwise search every node for each of them with the
// same outcome: nothing frees room between two refusals, since a refused
// pod goes back where it was.
type noFit struct {
	pod      *cluster.Pod
	strategy string
	from     int
	// moves is how many moves the plan had: a move since changes the
	// snapshot.
	moves int
	res   engine.Result
}

// specPlacer is a Placer that can tell whether its answers depend on a pod
// only through what replicas share (engine.Engine.SpecOnly).
type specPlacer interface {
	SpecOnly() bool
}

// placeCandidate places a candidate's replacement, or, when the candidate
// is a sibling of the pod whose placement last found no node and nothing
// can have changed the answer, gives it that answer. The snapshot ends as
// the search would leave it: a refused pod goes back on its node, last.
func (c *cycle) placeCandidate(strategy string, p *cluster.Pod, from *cluster.Node, cand framework.Candidate) engine.Result {
	if res, ok := c.repeatNoFit(strategy, p, from, cand.Sibling); ok && !c.planner.NoCache {
		logSiblingAnswer(strategy, p, cand.Sibling)
		// p's answer is the sibling's: the next sibling may name p.
		c.lastNoFit.pod = p
		c.snap.Remove(p)
		if err := c.snap.Place(p, from.Name); err != nil {
			// p was on from a moment ago.
			panic(err)
		}
		return res
	}
	res := c.place(p, from, cand.Accept, cand.Targets)
	c.lastNoFit = noFit{}
	if res.Node == "" && from != nil {
		c.lastNoFit = noFit{pod: p, strategy: strategy, from: from.Index(), moves: len(c.plan.Moves), res: res}
	}
	return res
}

// repeatNoFit returns the answer of the last placement that found no node
// when it is p's answer too: the candidate names that pod as its sibling
// (so the strategy's condition is the same), no move was planned since, p
// leaves the same node, the placer decides by spec only, and the two pods
// are interchangeable. The log level plays no part: a fault in interchangeable shows at -v 4
// as at -v 0, and the -v 4 line names the sibling whose answer p took.
func (c *cycle) repeatNoFit(strategy string, p *cluster.Pod, from *cluster.Node, sibling *cluster.Pod) (engine.Result, bool) {
	last := &c.lastNoFit
	if sibling == nil || last.pod != sibling || last.strategy != strategy || from == nil || last.from != from.Index() ||
		last.moves != len(c.plan.Moves) {
		return engine.Result{}, false
	}
	if sp, ok := c.planner.Placer.(specPlacer); !ok || !sp.SpecOnly() || !interchangeable(sibling, p) {
		return engine.Result{}, false
	}
	return last.res, true
}

// interchangeable reports whether two running pods are the same to the scheduler,
// the guard and the strategies' conditions: the same namespace, workload,
// labels, annotations, owners, spec (their node included, their volumes as
// far as a placement reads them: see placedVolumes), requests, priority and
// usage sample.
func interchangeable(a, b *cluster.Pod) bool {
	running := func(p *cluster.Pod) bool {
		return p.Status.Phase == corev1.PodRunning && p.DeletionTimestamp == nil && p.Status.NominatedNodeName == ""
	}
	if !running(a) || !running(b) || a.Namespace != b.Namespace || a.Workload != b.Workload ||
		a.Priority != b.Priority || a.QoS != b.QoS {
		return false
	}
	if !maps.Equal(a.Labels, b.Labels) || !maps.Equal(a.Annotations, b.Annotations) {
		return false
	}
	if !reflect.DeepEqual(a.Requests, b.Requests) || !reflect.DeepEqual(a.NonZeroRequests, b.NonZeroRequests) ||
		!reflect.DeepEqual(a.SpecRequests, b.SpecRequests) || !reflect.DeepEqual(a.SpecNonZeroRequests, b.SpecNonZeroRequests) ||
		!reflect.DeepEqual(a.Usage, b.Usage) {
		return false
	}
	if !equality.Semantic.DeepEqual(a.OwnerReferences, b.OwnerReferences) ||
		!equality.Semantic.DeepEqual(placedVolumes(a.Spec.Volumes), placedVolumes(b.Spec.Volumes)) {
		return false
	}
	sa, sb := a.Spec, b.Spec
	sa.Volumes, sb.Volumes = nil, nil
	return equality.Semantic.DeepEqual(&sa, &sb)
}

// placedVolumes returns the volumes a placement reads: those that name a
// claim, a disk, a driver or an image. The API server gives each pod a
// projected volume for its service account token under a name of its own
// (kube-api-access-<random>), so that no two replicas have equal specs;
// neither that volume nor configMap, secret or downward API volumes are
// read by a scheduler plugin, the guard or a strategy's condition.
func placedVolumes(vs []corev1.Volume) []corev1.Volume {
	var placed []corev1.Volume
	for _, v := range vs {
		if v.Projected == nil && v.ConfigMap == nil && v.Secret == nil && v.DownwardAPI == nil {
			placed = append(placed, v)
		}
	}
	return placed
}
