package schedulerd

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kube-rebalancer/rebalancer/cluster"
	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
	"github.com/kube-rebalancer/rebalancer/scheduler/engine"
	"github.com/kube-rebalancer/rebalancer/scheduler/preemption"
	"github.com/kube-rebalancer/rebalancer/scheduler/profile"
)

// The cache follows the budgets the watch shows: added, changed, deleted.
func TestCacheHoldsBudgets(t *testing.T) {
	prot := ct.Pod("shop", "prot-1").On("n1").Label("app", "prot").Obj()
	none, one := ct.PDB("shop", "prot", 0), ct.PDB("shop", "prot", 1)
	tests := []struct {
		name    string
		changes []change
		// want is what the budgets covering prot-1 allow, one per budget.
		want []int32
	}{
		{name: "no budget", want: nil},
		{name: "a budget added", changes: []change{{pdb: &none}}, want: []int32{0}},
		{name: "a budget's status changed", changes: []change{{pdb: &none}, {pdb: &one}}, want: []int32{1}},
		{name: "a budget deleted", changes: []change{{pdb: &none}, {pdb: &none, deleted: true}}, want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newPodCache(func(string, string) *metav1.OwnerReference { return nil })
			c.push(change{pod: &prot})
			for _, ch := range tt.changes {
				c.push(ch)
			}
			c.apply(time.Unix(1000, 0))
			var got []int32
			for _, pdb := range c.snap.PDBsFor(c.snap.Pod("shop/prot-1")) {
				got = append(got, pdb.Status.DisruptionsAllowed)
			}
			if len(got) != len(tt.want) || len(got) == 1 && got[0] != tt.want[0] {
				t.Errorf("budgets covering prot-1 allow %v, want %v", got, tt.want)
			}
			if len(c.snap.PDBs()) != len(tt.want) {
				t.Errorf("the cache holds %d budgets, want %d", len(c.snap.PDBs()), len(tt.want))
			}
		})
	}
}

// The example of the Kubernetes docs on preemption and PodDisruptionBudgets:
// two full nodes, a pod a budget protects on one and a pod no budget
// protects on the other. kube-scheduler preempts the unprotected pod, and
// so does the live scheduler, although the protected one's node comes
// first by name.
func TestLivePreemptsThePodNoBudgetProtects(t *testing.T) {
	client := liveCluster(t, nil, ct.Node("n1").CPU("1"), ct.Node("n2").CPU("1"), ct.DeploymentReplicaSet("shop", "prot"),
		ct.Pod("shop", "prot-1").On("n1").Requests("1", "").Priority(10).Deployment("prot"),
		ct.Pod("shop", "free").On("n2").Requests("1", "").Priority(10),
		ct.PDB("shop", "prot", 0),
		replacement("urgent").Requests("1", "").Priority(1000))
	p := waitForPod(t, client, "shop", "urgent", bound)
	if p.Spec.NodeName != "n2" {
		t.Errorf("urgent bound to %s, want n2, where the pod no budget protects ran", p.Spec.NodeName)
	}
	if _, err := client.CoreV1().Pods("shop").Get(context.Background(), "prot-1", metav1.GetOptions{}); err != nil {
		t.Errorf("the protected pod: %v", err)
	}
	if _, err := client.CoreV1().Pods("shop").Get(context.Background(), "free", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the unprotected pod is still there (%v), want it preempted", err)
	}
}

// From the decision on, a victim counts as terminating by preemption, so
// that its preemptor, nominated to its node, waits for it instead of
// preempting again; the watch's word replaces the cache's once it shows the
// deletion, and a deletion that failed or never shows gives the victim
// back as it was.
func TestCacheHoldsVictimsTerminating(t *testing.T) {
	start := time.Unix(1000, 0)
	n1 := ct.Node("n1").CPU("1").Obj()
	victim := ct.Pod("shop", "batch").On("n1").Requests("1", "").Priority(10).Obj()
	victim.UID = "batch"
	urgent := replacement("urgent").Requests("1", "").Priority(1000).Obj()
	urgent.UID = "urgent"
	patched := victim.DeepCopy()
	patched.Status.Conditions = []corev1.PodCondition{{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue, Reason: corev1.PodReasonPreemptionByScheduler}}
	deleting := patched.DeepCopy()
	deleting.DeletionTimestamp = &metav1.Time{Time: start.Add(time.Second)}

	tests := []struct {
		name string
		then []change
		at   time.Time
		// terminating: the cache shows the victim terminating, and the
		// preemptor may not preempt again.
		terminating bool
	}{
		{name: "from the decision on", at: start, terminating: true},
		{name: "the condition patched, not yet deleted", then: []change{{pod: patched}}, at: start, terminating: true},
		{name: "the watch shows the deletion", then: []change{{pod: deleting}}, at: start.Add(time.Hour), terminating: true},
		{name: "the deletion failed", then: []change{{victimKept: "batch"}}, at: start},
		{name: "the watch never shows the deletion", at: start.Add(assumeTTL + time.Second)},
	}
	eng, err := engine.New(profile.DefaultProfile())
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newPodCache(func(string, string) *metav1.OwnerReference { return nil })
			for _, ch := range []change{{node: &n1}, {pod: &victim}, {pod: &urgent}} {
				c.push(ch)
			}
			c.apply(start)
			p := c.snap.Pod("shop/urgent")
			c.nominate(p.Pod, "n1")
			c.markVictims(p.UID, []*cluster.Pod{c.snap.Pod("shop/batch")}, start)
			for _, ch := range tt.then {
				c.push(ch)
			}
			c.apply(tt.at)
			if got := c.snap.Pod("shop/batch").IsTerminating(); got != tt.terminating {
				t.Errorf("victim terminating = %v, want %v", got, tt.terminating)
			}
			p = c.snap.Pod("shop/urgent")
			failed := eng.Schedule(c.snap, p, engine.Options{})
			pre := preemption.Decide(eng, c.snap, p, failed)
			if waits := pre.NotEligible != ""; waits != tt.terminating {
				t.Errorf("preemption: node %q, not eligible %q; want waiting = %v", pre.Node, pre.NotEligible, tt.terminating)
			}
		})
	}
}

// A victim's controller replaces it, and another scheduler puts the
// replacement where the victim was before the preemptor binds. The
// preemptor does not preempt the replacement: it would be replaced again,
// and again.
func TestLiveDoesNotPreemptTheReplacementOfItsVictim(t *testing.T) {
	var mu sync.Mutex
	var deleted []string
	replaceOnDelete := func(client *fake.Clientset) {
		client.PrependReactor("delete", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
			name := a.(k8stesting.DeleteAction).GetName()
			mu.Lock()
			deleted = append(deleted, name)
			mu.Unlock()
			if name == "free-1" {
				// The ReplicaSet's new pod, bound by another scheduler to
				// the room free-1 leaves.
				next := ct.Pod("shop", "free-2").On("n1").Requests("1", "").Priority(10).Deployment("free").Obj()
				next.UID = "free-2"
				if err := client.Tracker().Add(&next); err != nil {
					return true, nil, err
				}
			}
			return false, nil, nil
		})
	}
	first := ct.Pod("shop", "free-1").On("n1").Requests("1", "").Priority(10).Deployment("free").Obj()
	first.UID = "free-1"
	client := liveClusterReacting(t, replaceOnDelete, ct.Node("n1").CPU("1"), ct.DeploymentReplicaSet("shop", "free"), first,
		replacement("urgent").Requests("1", "").Priority(1000))
	p := waitForPod(t, client, "shop", "urgent", func(p *corev1.Pod) bool {
		return strings.Contains(unschedulableMessage(p), "not preempting")
	})
	want := "preemption: not preempting shop/free-2 on node n1 again: it replaces shop/free-1, which was preempted for this pod."
	if msg := unschedulableMessage(p); !strings.HasSuffix(msg, want) {
		t.Errorf("message %q, want it to end with %q", msg, want)
	}
	if p.Status.NominatedNodeName != "n1" {
		t.Errorf("nominated to %q, want n1 kept", p.Status.NominatedNodeName)
	}
	// Nothing more is deleted, now or a while later.
	time.Sleep(500 * time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	if len(deleted) != 1 || deleted[0] != "free-1" {
		t.Errorf("deleted %v, want only free-1", deleted)
	}
	if _, err := client.CoreV1().Pods("shop").Get(context.Background(), "free-2", metav1.GetOptions{}); err != nil {
		t.Errorf("the replacement: %v", err)
	}
}

// unschedulableMessage is the message of the pod's PodScheduled=False
// condition, or "".
func unschedulableMessage(p *corev1.Pod) string {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse {
			return c.Message
		}
	}
	return ""
}

// Which pods a preemptor does not preempt again: those that came, after its
// preemption, from where its victims came (the victims' workload, or a
// bare victim's name). The victims themselves, a pod of the workload that
// ran already, and pods from elsewhere it may preempt.
func TestCacheKnowsTheReplacementsOfVictims(t *testing.T) {
	rsOf := func(namespace, name string) *metav1.OwnerReference {
		yes := true
		return &metav1.OwnerReference{APIVersion: "apps/v1", Kind: "Deployment", Name: strings.TrimSuffix(name, "-rs"), Controller: &yes}
	}
	pod := func(name, uid, deployment string) corev1.Pod {
		b := ct.Pod("shop", name).On("n1").Requests("1", "").Priority(10)
		if deployment != "" {
			b = b.Deployment(deployment)
		}
		p := b.Obj()
		p.UID = types.UID(uid)
		return p
	}
	web1, web3, batch := pod("web-1", "web-1", "web"), pod("web-3", "web-3", "web"), pod("batch", "batch", "")
	tests := []struct {
		name string
		// later is the pod preemption would take next, added after the
		// preemption of web-1 and batch.
		later corev1.Pod
		want  string
	}{
		{name: "a new pod of the victim's workload", later: pod("web-2", "web-2", "web"), want: "shop/web-1"},
		{name: "a bare pod of the victim's name, re-created", later: pod("batch", "batch-again", ""), want: "shop/batch"},
		{name: "a pod of the workload that ran already", later: web3},
		{name: "the victim itself, its deletion failed", later: web1},
		{name: "a new pod of another workload", later: pod("api-1", "api-1", "api")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newPodCache(rsOf)
			n1 := ct.Node("n1").CPU("8").Obj()
			for _, ch := range []change{{node: &n1}, {pod: &web1}, {pod: &web3}, {pod: &batch}} {
				c.push(ch)
			}
			c.apply(time.Unix(1000, 0))
			c.markVictims("urgent", []*cluster.Pod{c.snap.Pod("shop/web-1"), c.snap.Pod("shop/batch")}, time.Unix(1000, 0))
			later := tt.later
			c.push(change{pod: &later})
			c.apply(time.Unix(1001, 0))
			_, earlier := c.replaced("urgent", []*cluster.Pod{c.snap.Pod("shop/" + later.Name)})
			if earlier != tt.want {
				t.Errorf("replaces %q, want %q", earlier, tt.want)
			}
			if _, other := c.replaced("someone-else", []*cluster.Pod{c.snap.Pod("shop/" + later.Name)}); other != "" {
				t.Errorf("a pod that preempted nothing: replaces %q, want none", other)
			}
		})
	}
}
