package planner

import (
	"fmt"
	"maps"

	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/policy"
)

// counts are the evictions planned so far in a cycle, for the limits: the
// total and the run* maps over the whole run, the others within the
// current step.
type counts struct {
	total       int32
	byNode      map[string]int32
	byNamespace map[string]int32
	byWorkload  map[cluster.Workload]int32

	runByNode      map[string]int32
	runByNamespace map[string]int32
	runByWorkload  map[cluster.Workload]int32
}

// newCounts starts a cycle's counts; the per-run ones only when a per-run
// limit reads them, as they grow with every move of the cycle.
func newCounts(perRun bool) *counts {
	c := &counts{}
	if perRun {
		c.runByNode = make(map[string]int32)
		c.runByNamespace = make(map[string]int32)
		c.runByWorkload = make(map[cluster.Workload]int32)
	}
	c.newStep()
	return c
}

// newStep starts a step: the per-step limits start afresh, the per-run
// ones do not.
func (c *counts) newStep() {
	c.byNode = make(map[string]int32)
	c.byNamespace = make(map[string]int32)
	c.byWorkload = make(map[cluster.Workload]int32)
}

func (c *counts) clone() *counts {
	return &counts{
		total: c.total, byNode: maps.Clone(c.byNode), byNamespace: maps.Clone(c.byNamespace), byWorkload: maps.Clone(c.byWorkload),
		runByNode: maps.Clone(c.runByNode), runByNamespace: maps.Clone(c.runByNamespace), runByWorkload: maps.Clone(c.runByWorkload),
	}
}

// totalReached says whether limits.total allows no more evictions this run.
func (c *counts) totalReached(l policy.Limits) string {
	if l.Total != nil && c.total >= *l.Total {
		return fmt.Sprintf("limits.total reached (%d evictions this cycle)", *l.Total)
	}
	return ""
}

func (c *counts) add(p *cluster.Pod, from *cluster.Node) {
	c.total++
	perRun := c.runByNode != nil
	if from != nil {
		c.byNode[from.Name]++
		if perRun {
			c.runByNode[from.Name]++
		}
	}
	c.byNamespace[p.Namespace]++
	if perRun {
		c.runByNamespace[p.Namespace]++
	}
	if !p.Workload.IsZero() {
		c.byWorkload[p.Workload]++
		if perRun {
			c.runByWorkload[p.Workload]++
		}
	}
}

// limits are the policy's bounds on nodes and workloads, per run and per
// step, resolved once a cycle; the namespaces' are in each pod's settings.
type limits struct {
	run, step policy.Bounds
	// anyRun: some per-run bound is set, globally or by an override.
	anyRun bool
	// replicas caches each workload's replica count, for percentages.
	replicas map[cluster.Workload]int32
}

func newLimits(pol *policy.Policy) *limits {
	return &limits{run: pol.Limits.Run(), step: pol.Limits.Step(), anyRun: pol.HasPerRunLimits()}
}

// stepExceeded returns which per-step limit one more eviction of the pod,
// from the node, would break in the step whose counts are in, or "".
func (c *cycle) stepExceeded(in *counts, s *policy.Settings, p *cluster.Pod, from *cluster.Node) string {
	b := &c.limits.step
	if from != nil && b.Node.Max != nil && in.byNode[from.Name] >= *b.Node.Max {
		return fmt.Sprintf("%s reached on %s (%d)", b.Node.Field, from.Name, *b.Node.Max)
	}
	if s.PerNamespaceLimit != nil && in.byNamespace[p.Namespace] >= *s.PerNamespaceLimit {
		return fmt.Sprintf("%s reached in %s (%d)", s.PerNamespaceField, p.Namespace, *s.PerNamespaceLimit)
	}
	if !p.Workload.IsZero() && b.Workload.Max != nil {
		if limit := c.workloadLimit(b.Workload.Max, p); in.byWorkload[p.Workload] >= limit {
			return fmt.Sprintf("%s reached for %s (%s)", b.Workload.Field, p.Workload, c.describeWorkloadLimit(b.Workload.Max, p, limit))
		}
	}
	return ""
}

// runExceeded returns which per-run limit one more eviction of the pod
// would break, or "". A per-run limit does not wait for a later step: it
// holds until the next run.
func (c *cycle) runExceeded(p *cluster.Pod) string {
	if !c.limits.anyRun {
		return ""
	}
	in, b, from := c.counts, &c.limits.run, c.boundNode(p)
	if from != nil && b.Node.Max != nil && in.runByNode[from.Name] >= *b.Node.Max {
		return fmt.Sprintf("per-run limit of %s from node %s reached (%s)", evictions(*b.Node.Max), from.Name, b.Node.Field)
	}
	s := c.planner.Policy.For(p.Namespace, c.snap.NamespaceLabels(p.Namespace))
	if l := s.PerRunNamespaceLimit; l != nil && in.runByNamespace[p.Namespace] >= *l {
		return fmt.Sprintf("per-run limit of %s in namespace %s reached (limits.perRun.namespace)", evictions(*l), p.Namespace)
	}
	if !p.Workload.IsZero() && b.Workload.Max != nil {
		if limit := c.workloadLimit(b.Workload.Max, p); in.runByWorkload[p.Workload] >= limit {
			return fmt.Sprintf("per-run limit of %s of %s reached (%s: %s)", evictions(limit), p.Workload, b.Workload.Field, c.describeWorkloadLimit(b.Workload.Max, p, limit))
		}
	}
	return ""
}

func evictions(n int32) string {
	if n == 1 {
		return "1 eviction"
	}
	return fmt.Sprintf("%d evictions", n)
}

// workloadLimit resolves a workload bound for the pod's workload: a
// percentage of its replicas rounds up, as a PodDisruptionBudget's
// maxUnavailable does, so that a percentage above 0 allows at least one.
func (c *cycle) workloadLimit(v *intstr.IntOrString, p *cluster.Pod) int32 {
	if v.Type == intstr.Int {
		return v.IntVal
	}
	// Validated when the policy loaded.
	n, _ := intstr.GetScaledValueFromIntOrPercent(v, int(c.replicasOf(p)), true)
	return int32(n)
}

func (c *cycle) describeWorkloadLimit(v *intstr.IntOrString, p *cluster.Pod, limit int32) string {
	if v.Type == intstr.Int {
		return fmt.Sprint(limit)
	}
	return fmt.Sprintf("%s of %d replicas: %d", v.StrVal, c.replicasOf(p), limit)
}

// replicasOf returns the replica count of the pod's workload: the
// spec.replicas of its Deployment, StatefulSet or ReplicaSet (a Job's
// parallelism), else, for a kind the snapshot does not read or an object it
// lacks, its pods that have not finished.
func (c *cycle) replicasOf(p *cluster.Pod) int32 {
	if n, ok := c.limits.replicas[p.Workload]; ok {
		return n
	}
	n := workloadReplicas(c.snap, p)
	if c.limits.replicas == nil {
		c.limits.replicas = make(map[cluster.Workload]int32)
	}
	c.limits.replicas[p.Workload] = n
	return n
}

func workloadReplicas(snap *cluster.Snapshot, p *cluster.Pod) int32 {
	if t, ok := snap.ToleranceOf(p.Workload); ok {
		// Its Deployment's or StatefulSet's count, or its live pods when
		// the snapshot lacks the object.
		return t.Replicas
	}
	if r := snap.ReplicasOf(p); r.Found && r.Owner == p.Workload.String() {
		return r.Count
	}
	n := int32(0)
	for _, q := range snap.PodsOf(p.Workload) {
		if !q.IsTerminal() {
			n++
		}
	}
	return max(n, 1)
}
