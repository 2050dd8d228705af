package framework

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// StateKey is a plugin's slot in a cycle's state and in a snapshot
// family's, given by its Handle.
type StateKey int

// Handle is what the engine gives a plugin when it builds it.
type Handle struct {
	key     StateKey
	waiting func(types.UID) *WaitingPod
}

// NewHandle is the engine's: the handle of the plugin with state key k,
// whose WaitingPod asks waiting.
func NewHandle(k StateKey, waiting func(types.UID) *WaitingPod) Handle {
	return Handle{key: k, waiting: waiting}
}

// StateKey returns the plugin's own slot in every Cycle, for State and
// FamilyState.
func (h Handle) StateKey() StateKey { return h.key }

// WaitingPod returns the pod with this UID while a Permit plugin makes
// its binding wait, for the plugin to Allow or Reject it; nil otherwise.
func (h Handle) WaitingPod(uid types.UID) *WaitingPod {
	if h.waiting == nil {
		return nil
	}
	return h.waiting(uid)
}

// WaitingPod is a pod whose binding waits for Permit plugins to allow it.
type WaitingPod struct {
	mu       sync.Mutex
	pending  map[string]time.Time // plugin → deadline
	timeouts map[string]time.Duration
	done     chan error
}

// NewWaitingPod is the engine's: a pod that waits for each plugin of
// waits, at most its timeout from now.
func NewWaitingPod(waits map[string]time.Duration) *WaitingPod {
	now := time.Now()
	p := &WaitingPod{pending: map[string]time.Time{}, timeouts: waits, done: make(chan error, 1)}
	for name, d := range waits {
		p.pending[name] = now.Add(d)
	}
	return p
}

// Allow records that plugin allows the pod; the pod is bound once every
// plugin it waits for has.
func (p *WaitingPod) Allow(plugin string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.pending, plugin)
	if len(p.pending) == 0 {
		p.finish(nil)
	}
}

// Reject turns the pod down with msg: it is not bound.
func (p *WaitingPod) Reject(plugin, msg string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.finish(fmt.Errorf("%s", UnavailableOnOne(msg)))
}

// PendingPlugins returns the plugins that have not allowed the pod yet.
func (p *WaitingPod) PendingPlugins() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]string, 0, len(p.pending))
	for name := range p.pending {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// UnavailableOnOne is kube-scheduler's message for a pod that Permit
// turns down on the node chosen for it.
func UnavailableOnOne(reason string) string {
	return fmt.Sprintf("0/1 nodes are available: %s.", reason)
}

// finish delivers the outcome once; later ones are dropped.
func (p *WaitingPod) finish(err error) {
	select {
	case p.done <- err:
	default:
	}
}

// Wait is the engine's: it returns when every plugin has allowed the pod
// (nil), one rejected it or its timeout ended (kube-scheduler's message),
// or ctx ended (ctx's error).
func (p *WaitingPod) Wait(ctx context.Context) error {
	for {
		p.mu.Lock()
		plugin, deadline := "", time.Time{}
		for name, d := range p.pending {
			if plugin == "" || d.Before(deadline) || d.Equal(deadline) && name < plugin {
				plugin, deadline = name, d
			}
		}
		timeout := p.timeouts[plugin]
		p.mu.Unlock()
		var expired <-chan time.Time
		if plugin != "" {
			t := time.NewTimer(time.Until(deadline))
			defer t.Stop()
			expired = t.C
		}
		select {
		case err := <-p.done:
			return err
		case <-ctx.Done():
			return ctx.Err()
		case <-expired:
			p.mu.Lock()
			_, still := p.pending[plugin]
			p.mu.Unlock()
			if still {
				p.Reject(plugin, fmt.Sprintf("rejected due to timeout after waiting %v at plugin %v", timeout, plugin))
			}
		}
	}
}
