package schedulerd

import (
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kube-rebalancer/rebalancer/cluster"
)

// What keeps one preemption from turning into many.
//
// A pod nominated after a preemption waits while a victim on its nominated
// node terminates (DefaultPreemption's PodEligibleToPreemptOthers reads the
// victim's deletionTimestamp and DisruptionTarget condition). The watch
// shows them some time after the decision; until it does, the cache holds
// each victim as terminating already, so that an event that brings the pod
// back in that time does not delete more pods for it.
//
// A victim's controller replaces it, and the replacement may take back the
// room the preemption freed before the pod binds: this scheduler holds
// the room for the nominated pod against pods of lower priority, as
// kube-scheduler does for its own, but kube-scheduler does not know this
// scheduler's nominations and places its pods there. Preempting
// the replacement would only free the room for the next replacement, every
// few seconds for as long as the pod waits. So a pod does not preempt a
// pod that replaces one of its earlier victims (of the same workload, or a
// bare pod of the same name): it stays Pending, nominated, and binds when
// the room frees. A pod of the workload that ran already when the pod
// preempted is no replacement: preempting it frees room no replacement
// took.

// victimMark is a victim the cache holds as terminating before the watch
// says so.
type victimMark struct {
	// last is the victim as the watch showed it last, put back if the
	// deletion failed or the watch never confirms it.
	last *corev1.Pod
	// deadline is when the mark expires unconfirmed.
	deadline time.Time
}

// preempted is what a pod preempted for itself, by the origin of each
// victim (its workload, or its name for a bare pod).
type preempted map[string]*preemptedFrom

// preemptedFrom is one origin's earlier victim, and every pod of that
// origin the cache held then: a pod of the origin not among them came
// later, a replacement.
type preemptedFrom struct {
	victim string
	known  map[types.UID]bool
}

// origin names where a pod comes from: the workload that replaces it, or
// for a bare pod its name.
func origin(p *cluster.Pod) string {
	if !p.Workload.IsZero() {
		return p.Workload.String()
	}
	return "pod " + p.Key
}

// markVictims holds the victims as terminating by preemption from now on,
// and remembers them as the preemptor's.
func (c *podCache) markVictims(preemptor types.UID, victims []*cluster.Pod, now time.Time) {
	mine := c.preempted[preemptor]
	if mine == nil {
		mine = preempted{}
		c.preempted[preemptor] = mine
	}
	for _, v := range victims {
		o := origin(v)
		from := mine[o]
		if from == nil {
			from = &preemptedFrom{victim: v.Key, known: map[types.UID]bool{}}
			mine[o] = from
		}
		from.known[v.UID] = true
		if !v.Workload.IsZero() {
			for _, p := range c.snap.PodsOf(v.Workload) {
				from.known[p.UID] = true
			}
		}
		if v.DeletionTimestamp != nil {
			continue
		}
		c.victims[v.UID] = victimMark{last: v.Pod, deadline: now.Add(assumeTTL)}
		c.setPod(v.Pod)
	}
}

// replaced returns the first of the victims that replaces an earlier
// victim of the preemptor, with the earlier victim's key; nil when none
// does. A victim that was there already is none, whatever its origin: a
// victim still there under its UID is one whose deletion failed, and
// deleting it again is no loop.
func (c *podCache) replaced(preemptor types.UID, victims []*cluster.Pod) (victim *cluster.Pod, earlier string) {
	mine := c.preempted[preemptor]
	for _, v := range victims {
		if from := mine[origin(v)]; from != nil && !from.known[v.UID] {
			return v, from.victim
		}
	}
	return nil, ""
}

// asVictim returns obj as the cache holds it: terminating by preemption
// while its mark stands, and the mark dropped once the watch shows the
// deletion.
func (c *podCache) asVictim(obj *corev1.Pod) *corev1.Pod {
	m, ok := c.victims[obj.UID]
	if !ok {
		return obj
	}
	if obj.DeletionTimestamp != nil {
		delete(c.victims, obj.UID)
		return obj
	}
	m.last = obj
	c.victims[obj.UID] = m
	marked := obj.DeepCopy()
	now := metav1.NewTime(m.deadline.Add(-assumeTTL))
	marked.DeletionTimestamp = &now
	marked.Status.Conditions = slices.DeleteFunc(marked.Status.Conditions, func(c corev1.PodCondition) bool { return c.Type == corev1.DisruptionTarget })
	marked.Status.Conditions = append(marked.Status.Conditions, corev1.PodCondition{
		Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue, Reason: corev1.PodReasonPreemptionByScheduler,
	})
	return marked
}

// unmark puts a victim back as the watch last showed it: its deletion
// failed, or the watch never confirmed it.
func (c *podCache) unmark(uid types.UID) {
	m, ok := c.victims[uid]
	if !ok {
		return
	}
	delete(c.victims, uid)
	if p := c.snap.Pod(m.last.Namespace + "/" + m.last.Name); p != nil && p.UID == uid {
		c.setPod(m.last)
	}
}
