package engine

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	configv1 "k8s.io/kube-scheduler/config/v1"

	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
	"github.com/kube-rebalancer/rebalancer/scheduler/framework"
	"github.com/kube-rebalancer/rebalancer/scheduler/plugins/noderesources"
	"github.com/kube-rebalancer/rebalancer/scheduler/profile"
)

// nominator is an out-of-tree PostFilter plugin: it nominates the first
// node turned down for lack of CPU, or says why it cannot.
type nominator struct{ name string }

func (n *nominator) Name() string { return n.name }

func (n *nominator) PostFilter(c *framework.Cycle) framework.PostFilterResult {
	for i, node := range c.Nodes() {
		if _, reasons := c.Rejection(i); len(reasons) > 0 && reasons[0] == noderesources.ErrReasonInsufficientCPU && node.Labels["nominate"] == "yes" {
			return framework.PostFilterResult{NominatedNode: node.Name}
		}
	}
	return framework.PostFilterResult{Reasons: []string{n.name + ": no node to nominate"}}
}

// gate is an out-of-tree Permit plugin that answers what verdict says and
// keeps its Handle, to allow or reject waiting pods as a real one would.
type gate struct {
	name    string
	verdict framework.PermitResult
	h       framework.Handle
}

func (g *gate) Name() string { return g.name }

func (g *gate) Permit(*framework.Cycle, string) framework.PermitResult { return g.verdict }

// laterPointsEngine builds the default profile plus the given PostFilter
// and Permit plugins, enabled at their points in this order.
func laterPointsEngine(t *testing.T, postFilters []*nominator, permits []*gate) *Engine {
	t.Helper()
	reg := framework.Registry{}
	plugins := &configv1.Plugins{}
	for _, p := range postFilters {
		reg[p.name] = framework.Registration{Points: framework.PointPostFilter, New: func(any, framework.Handle) (framework.Plugin, error) { return p, nil }}
		plugins.PostFilter.Enabled = append(plugins.PostFilter.Enabled, configv1.Plugin{Name: p.name})
	}
	for _, g := range permits {
		reg[g.name] = framework.Registration{Points: framework.PointPermit, New: func(_ any, h framework.Handle) (framework.Plugin, error) { g.h = h; return g, nil }}
		plugins.Permit.Enabled = append(plugins.Permit.Enabled, configv1.Plugin{Name: g.name})
	}
	e, err := New(profile.Profile{SchedulerName: profile.DefaultSchedulerName, Plugins: plugins}, reg)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestPostFilterRunsWhenThePodFitsNowhere(t *testing.T) {
	nodes := []corev1.Node{ct.Node("a").CPU("1").Obj(), ct.Node("b").CPU("1").Label("nominate", "yes").Obj(), ct.Node("c").CPU("4").Unschedulable().Obj()}
	pods := []corev1.Pod{incomingPod().Requests("2", "0").Obj()}
	tests := []struct {
		name                   string
		postFilters            []*nominator
		wantNominated, wantMsg string
	}{
		{"no PostFilter plugin", nil, "", "0/3 nodes are available: 1 node(s) were unschedulable, 2 Insufficient cpu."},
		{"a plugin nominates a node", []*nominator{{name: "Nominator"}}, "b", "0/3 nodes are available: 1 node(s) were unschedulable, 2 Insufficient cpu."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSnapshot(t, nodes, pods)
			res := laterPointsEngine(t, tt.postFilters, nil).Schedule(s, incoming(t, s), Options{})
			if res.Node != "" || res.NominatedNode != tt.wantNominated || res.Message != tt.wantMsg {
				t.Errorf("got node %q, nominated %q, message %q; want nominated %q, message %q", res.Node, res.NominatedNode, res.Message, tt.wantNominated, tt.wantMsg)
			}
		})
	}

	// Without a node to nominate, the plugins' reasons follow the message,
	// as kube-scheduler's PostFilter messages do.
	unnominated := []corev1.Node{ct.Node("a").CPU("1").Obj()}
	s := newSnapshot(t, unnominated, pods)
	res := laterPointsEngine(t, []*nominator{{name: "First"}, {name: "Second"}}, nil).Schedule(s, incoming(t, s), Options{})
	if want := "0/1 nodes are available: 1 Insufficient cpu. First: no node to nominate, Second: no node to nominate"; res.Message != want || res.NominatedNode != "" {
		t.Errorf("got %q (nominated %q); want %q", res.Message, res.NominatedNode, want)
	}
	// A pod that fits is not given to PostFilter.
	fits := newSnapshot(t, []corev1.Node{ct.Node("a").CPU("4").Label("nominate", "yes").Obj()}, pods)
	if res := laterPointsEngine(t, []*nominator{{name: "Nominator"}}, nil).Schedule(fits, incoming(t, fits), Options{}); res.Node != "a" || res.NominatedNode != "" {
		t.Errorf("a pod that fits: node %q, nominated %q", res.Node, res.NominatedNode)
	}
}

func TestPermitVerdicts(t *testing.T) {
	nodes := []corev1.Node{ct.Node("a").CPU("4").Obj()}
	pods := []corev1.Pod{incomingPod().Requests("1", "0").Obj()}
	tests := []struct {
		name        string
		permits     []*gate
		wantVerdict framework.PermitVerdict
		wantPlugin  string
		wantMessage string
	}{
		{"every plugin allows", []*gate{{name: "A", verdict: framework.PermitResult{Verdict: framework.PermitAllow}}}, framework.PermitAllow, "", ""},
		{"one denies", []*gate{{name: "A", verdict: framework.PermitResult{Verdict: framework.PermitWait, Timeout: time.Minute}}, {name: "B", verdict: framework.PermitResult{Verdict: framework.PermitDeny, Reason: "quota exceeded"}}},
			framework.PermitDeny, "B", "0/1 nodes are available: quota exceeded."},
		{"one asks to wait", []*gate{{name: "A", verdict: framework.PermitResult{Verdict: framework.PermitAllow}}, {name: "B", verdict: framework.PermitResult{Verdict: framework.PermitWait, Timeout: time.Hour}}},
			framework.PermitWait, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSnapshot(t, nodes, pods)
			got := laterPointsEngine(t, nil, tt.permits).Permit(s, incoming(t, s), "a")
			if got == nil || got.Verdict != tt.wantVerdict || got.Plugin != tt.wantPlugin || got.Message != tt.wantMessage {
				t.Fatalf("got %+v; want %s by %q, %q", got, tt.wantVerdict, tt.wantPlugin, tt.wantMessage)
			}
			if got.Verdict == framework.PermitWait && got.Waiting["B"].Duration != framework.MaxPermitTimeout {
				t.Errorf("waits %v; want B's hour capped at %v", got.Waiting, framework.MaxPermitTimeout)
			}
		})
	}
	s := newSnapshot(t, nodes, pods)
	if got := defaultEngine(t).Permit(s, incoming(t, s), "a"); got != nil {
		t.Errorf("a profile without Permit plugins: %+v; want nil", got)
	}
}

func TestWaitOnPermit(t *testing.T) {
	nodes := []corev1.Node{ct.Node("a").CPU("4").Obj()}
	pods := []corev1.Pod{incomingPod().Requests("1", "0").Obj()}
	tests := []struct {
		name string
		// act is what the plugins do with the waiting pod.
		act     func(a, b *gate, w *framework.WaitingPod)
		wantErr string
	}{
		{"every plugin allows", func(a, b *gate, w *framework.WaitingPod) { w.Allow("A"); w.Allow("B") }, ""},
		{"one rejects", func(a, b *gate, w *framework.WaitingPod) { w.Allow("A"); w.Reject("B", "gang incomplete") }, "0/1 nodes are available: gang incomplete."},
		{"one never answers", func(a, b *gate, w *framework.WaitingPod) { w.Allow("A") }, "0/1 nodes are available: rejected due to timeout after waiting 50ms at plugin B."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := &gate{name: "A", verdict: framework.PermitResult{Verdict: framework.PermitWait, Timeout: time.Minute}}
			b := &gate{name: "B", verdict: framework.PermitResult{Verdict: framework.PermitWait, Timeout: 50 * time.Millisecond}}
			e := laterPointsEngine(t, nil, []*gate{a, b})
			s := newSnapshot(t, nodes, pods)
			pod := incoming(t, s)
			if v := e.Permit(s, pod, "a"); v.Verdict != framework.PermitWait {
				t.Fatalf("verdict %+v; want Wait", v)
			}
			// The plugins find the pod through their Handle, as
			// kube-scheduler's find it through theirs.
			w := a.h.WaitingPod(pod.UID)
			if w == nil || strings.Join(w.PendingPlugins(), ",") != "A,B" {
				t.Fatalf("waiting pod %v; want one waiting for A and B", w)
			}
			go tt.act(a, b, w)
			err := e.WaitOnPermit(context.Background(), pod.UID)
			if got := errText(err); got != tt.wantErr {
				t.Errorf("got %q; want %q", got, tt.wantErr)
			}
			if a.h.WaitingPod(pod.UID) != nil {
				t.Error("the pod is still waiting after WaitOnPermit")
			}
		})
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
