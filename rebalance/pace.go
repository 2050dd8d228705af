package rebalance

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/klog/v2"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/evictor"
	"github.com/kube-rebalancer/rebalancer/planner"
)

// Defaults of the pacing between steps.
const (
	DefaultStepTimeout = 3 * time.Minute
	settlePoll         = 2 * time.Second
)

// steps splits the plan's moves by step, in order.
func steps(moves []planner.Move) [][]planner.Move {
	var out [][]planner.Move
	for i, m := range moves {
		if i == 0 || m.Step != moves[i-1].Step {
			out = append(out, nil)
		}
		out[len(out)-1] = append(out[len(out)-1], m)
	}
	return out
}

// splitSurges parts a step's moves into its evictions and its surges,
// each in plan order.
func splitSurges(step []planner.Move) (evictions, surges []planner.Move) {
	for _, m := range step {
		if m.Surge {
			surges = append(surges, m)
		} else {
			evictions = append(evictions, m)
		}
	}
	return evictions, surges
}

// settled says whether the next step may start: every pod the last step
// evicted has its replacement Ready, and every PodDisruptionBudget the next
// step's pods count against allows them. It returns what it still waits
// for, "" when nothing.
func (r *Runner) settled(ctx context.Context, snap *cluster.Snapshot, evicted, next []planner.Move) (string, error) {
	// A step's evictions of one ReplicaSet are settled by one look at it.
	checked := map[string]bool{}
	for _, m := range evicted {
		if p := snap.Pod(m.Pod); p != nil {
			if c := p.Controller(); c != nil && c.Kind == "ReplicaSet" {
				if checked[p.Namespace+"/"+c.Name] {
					continue
				}
				checked[p.Namespace+"/"+c.Name] = true
			}
		}
		if why, err := r.replacementReady(ctx, snap, m); why != "" || err != nil {
			return why, err
		}
	}
	need := map[*cluster.PDB]int32{}
	for _, m := range next {
		p := snap.Pod(m.Pod)
		if p == nil {
			continue
		}
		for _, pdb := range snap.PDBsFor(p) {
			if pdb.CountsAgainst(p.Pod) {
				need[pdb]++
			}
		}
	}
	for pdb, n := range need {
		list, err := r.cfg.Client.PolicyV1().PodDisruptionBudgets(pdb.Namespace).List(ctx, byName(pdb.Name))
		if err != nil {
			return "", err
		}
		if len(list.Items) == 0 {
			continue // gone: nothing to respect
		}
		cur := list.Items[0]
		if cur.Status.ObservedGeneration < cur.Generation || cur.Status.DisruptionsAllowed < n {
			return fmt.Sprintf("PodDisruptionBudget %s/%s allows %d disruptions, the next step needs %d",
				pdb.Namespace, pdb.Name, cur.Status.DisruptionsAllowed, n), nil
		}
	}
	return "", nil
}

// replacementReady says what the evicted pod's replacement still lacks:
// its ReplicaSet all its replicas Ready, or, for a StatefulSet, the pod of
// the same name back and Ready. Pods of other controllers are not waited
// for.
func (r *Runner) replacementReady(ctx context.Context, snap *cluster.Snapshot, m planner.Move) (string, error) {
	p := snap.Pod(m.Pod)
	if p == nil {
		return "", nil
	}
	c := p.Controller()
	if c == nil {
		return "", nil
	}
	switch c.Kind {
	case "ReplicaSet":
		list, err := r.cfg.Client.AppsV1().ReplicaSets(p.Namespace).List(ctx, byName(c.Name))
		if err != nil || len(list.Items) == 0 {
			return "", err
		}
		rs := list.Items[0]
		want := int32(1)
		if rs.Spec.Replicas != nil {
			want = *rs.Spec.Replicas
		}
		// The pods themselves, not the ReplicaSet's status, which may not
		// have seen the eviction yet.
		sel, err := metav1.LabelSelectorAsSelector(rs.Spec.Selector)
		if err != nil {
			return "", err
		}
		pods, err := r.cfg.Client.CoreV1().Pods(p.Namespace).List(ctx, metav1.ListOptions{LabelSelector: sel.String()})
		if err != nil {
			return "", err
		}
		// An evicted pod is terminating, or gone: it does not count.
		ready := int32(0)
		for i := range pods.Items {
			q := &pods.Items[i]
			if owner := metav1.GetControllerOfNoCopy(q); owner != nil && owner.UID == rs.UID && podReady(q) {
				ready++
			}
		}
		if ready < want {
			return fmt.Sprintf("ReplicaSet %s/%s has %d of %d replicas Ready", p.Namespace, c.Name, ready, want), nil
		}
	case "StatefulSet":
		list, err := r.cfg.Client.CoreV1().Pods(p.Namespace).List(ctx, byName(p.Name))
		if err != nil {
			return "", err
		}
		if len(list.Items) == 0 || list.Items[0].UID == p.UID || !podReady(&list.Items[0]) {
			return fmt.Sprintf("the replacement of %s is not Ready", m.Pod), nil
		}
	}
	return "", nil
}

func podReady(p *corev1.Pod) bool { return p.DeletionTimestamp == nil && cluster.IsReady(p) }

// byName lists the one object of that name: what the run's RBAC (list)
// allows, where a get would need more.
func byName(name string) metav1.ListOptions {
	return metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", name).String()}
}

// waitSettled waits until the next step may start, at most stepTimeout and
// not past the end of ctx (--max-duration, a signal, the run Lease lost).
// It returns why it stopped waiting without that, naming what it was
// waiting for, "" when the step may start.
func (r *Runner) waitSettled(ctx context.Context, snap *cluster.Snapshot, step int, evicted, next []planner.Move) string {
	timeout := r.cfg.StepTimeout
	if timeout <= 0 {
		timeout = DefaultStepTimeout
	}
	wctx, cancel := until(ctx, time.Now().Add(timeout), fmt.Errorf("--step-timeout %s reached", timeout))
	defer cancel()
	var waiting string
	start := time.Now()
	err := wait.PollUntilContextCancel(wctx, settlePoll, true, func(ctx context.Context) (bool, error) {
		why, err := r.settled(ctx, snap, evicted, next)
		switch {
		case err != nil && ctx.Err() != nil:
			// Cut short by the bound: what was waited for is the last
			// answer, not this request's error.
			return false, nil
		case err != nil:
			// A failed read is one more reason to wait, not to stop.
			why = "an answer from the API server: " + err.Error()
		}
		if why != waiting && why != "" {
			klog.V(1).InfoS("Waiting before the next step", "step", step+1, "for", why)
		}
		waiting = why
		return why == "", nil
	})
	if err == nil {
		klog.InfoS("Step settled", "step", step, "waited", time.Since(start).Round(time.Second))
		return ""
	}
	if waiting == "" {
		waiting = fmt.Sprintf("the first look at step %d's replacements", step)
	}
	if ctx.Err() != nil && !isMaxDuration(context.Cause(ctx)) {
		return fmt.Sprintf("%s while waiting for step %d to settle (waiting for: %s)", stopReason(ctx), step, waiting)
	}
	return fmt.Sprintf("step %d had not settled when %s (waiting for: %s); the rest is left to the next run", step, context.Cause(wctx), waiting)
}

func isMaxDuration(err error) bool {
	var m maxDurationError
	return errors.As(err, &m)
}

// notAttempted are the outcomes of moves a run did not make, and why.
func notAttempted(moves []planner.Move, why string) []evictor.Outcome {
	out := make([]evictor.Outcome, len(moves))
	for i, m := range moves {
		out[i] = evictor.Outcome{Move: m, Result: evictor.NotAttempted, Message: why}
	}
	return out
}

func flatten(steps [][]planner.Move) []planner.Move {
	var out []planner.Move
	for _, s := range steps {
		out = append(out, s...)
	}
	return out
}
