package engine

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/scheduler/framework"
)

// runPostFilter runs the PostFilter plugins of a pod that fits nowhere
// until one nominates a node, and returns the nomination and the other
// plugins' reasons.
func (c *cycle) runPostFilter() (nominated string, reasons []string) {
	for _, p := range c.e.postFilters {
		r := p.PostFilter(&c.Cycle)
		if r.NominatedNode != "" {
			return r.NominatedNode, nil
		}
		reasons = append(reasons, r.Reasons...)
	}
	return "", reasons
}

// postFilter completes the result of a pod that fits nowhere with what the
// PostFilter plugins say: a nominated node, or their reasons after
// kube-scheduler's message.
func (c *cycle) postFilter(res *Result) {
	if len(c.e.postFilters) == 0 {
		return
	}
	nominated, reasons := c.runPostFilter()
	res.NominatedNode = nominated
	if len(reasons) > 0 {
		res.Message += " " + strings.Join(reasons, ", ")
	}
}

// Permit is the verdict of a profile's Permit plugins on a pod and a node.
type Permit struct {
	Verdict framework.PermitVerdict `json:"verdict"`
	// Plugin is the plugin that denied the pod.
	Plugin string `json:"plugin,omitempty"`
	// Message is kube-scheduler's for a denied pod:
	// "0/1 nodes are available: <reason>."
	Message string `json:"message,omitempty"`
	// Waiting gives, for a pod that waits, each plugin it waits for and
	// how long at most.
	Waiting map[string]metav1.Duration `json:"waiting,omitempty"`
}

// Permit runs the profile's Permit plugins on the pod and the node chosen
// for it, in profile order: the first that denies decides; otherwise the
// pod waits for every plugin that asks it to (WaitOnPermit), each up to
// its timeout; otherwise it is allowed. Nil when the profile has no Permit
// plugin. A waiting pod is kept, by UID, for its plugins to Allow or
// Reject until WaitOnPermit returns; a new verdict on the pod replaces it.
func (e *Engine) Permit(snap *cluster.Snapshot, pod *cluster.Pod, node string) *Permit {
	if len(e.permits) == 0 {
		return nil
	}
	c := e.newCycle(snap, pod)
	defer e.putCycle(c)
	waits := map[string]time.Duration{}
	for _, p := range e.permits {
		r := p.Permit(&c.Cycle, node)
		switch r.Verdict {
		case framework.PermitDeny:
			return &Permit{Verdict: framework.PermitDeny, Plugin: p.Name(), Message: framework.UnavailableOnOne(r.Reason)}
		case framework.PermitWait:
			waits[p.Name()] = min(r.Timeout, framework.MaxPermitTimeout)
		}
	}
	if len(waits) == 0 {
		return &Permit{Verdict: framework.PermitAllow}
	}
	e.waiting.add(pod.UID, waits)
	out := &Permit{Verdict: framework.PermitWait, Waiting: map[string]metav1.Duration{}}
	for name, d := range waits {
		out.Waiting[name] = metav1.Duration{Duration: d}
	}
	return out
}

// WaitOnPermit waits until every plugin the pod waits for has allowed it,
// and returns nil; or returns kube-scheduler's message when one rejects it
// or its timeout ends first, or ctx's error. A pod that does not wait
// returns at once.
func (e *Engine) WaitOnPermit(ctx context.Context, uid types.UID) error {
	w := e.waiting.get(uid)
	if w == nil {
		return nil
	}
	defer e.waiting.remove(uid, w)
	return w.Wait(ctx)
}

// WaitingPods are the pods whose binding waits for Permit plugins.
type WaitingPods struct {
	mu   sync.Mutex
	pods map[types.UID]*framework.WaitingPod
}

func (w *WaitingPods) add(uid types.UID, waits map[string]time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.pods == nil {
		w.pods = map[types.UID]*framework.WaitingPod{}
	}
	w.pods[uid] = framework.NewWaitingPod(waits)
}

func (w *WaitingPods) get(uid types.UID) *framework.WaitingPod {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.pods[uid]
}

func (w *WaitingPods) remove(uid types.UID, p *framework.WaitingPod) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.pods[uid] == p {
		delete(w.pods, uid)
	}
}

// buildLaterPoints builds the PostFilter and Permit plugins the profile
// enables, with build, New's builder of each plugin once.
func (e *Engine) buildLaterPoints(build func(string) (framework.Plugin, error)) error {
	for _, name := range e.enabled.PostFilter {
		pl, err := build(name)
		if err != nil {
			return err
		}
		if pl == nil {
			continue
		}
		p, ok := pl.(framework.PostFilterPlugin)
		if !ok {
			return fmt.Errorf("plugin %q is enabled at postFilter but is not a PostFilterPlugin", name)
		}
		e.postFilters = append(e.postFilters, p)
	}
	for _, name := range e.enabled.Permit {
		pl, err := build(name)
		if err != nil {
			return err
		}
		if pl == nil {
			continue
		}
		p, ok := pl.(framework.PermitPlugin)
		if !ok {
			return fmt.Errorf("plugin %q is enabled at permit but is not a PermitPlugin", name)
		}
		e.permits = append(e.permits, p)
	}
	return nil
}
