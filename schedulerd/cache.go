package schedulerd

import (
	"maps"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/scheduler/plugins/volumebinding"
)

// assumeTTL bounds how long a binding the API server accepted is assumed
// without the watch confirming it; past it, the watch is believed and the
// node's resources are given back.
const assumeTTL = 30 * time.Second

// podCache is the scheduler's picture of the cluster, kube-scheduler's
// cache: one snapshot, kept up to date by the informers' events, on which
// the pods this scheduler is binding are assumed on their nodes.
//
// The informers and the bindings push changes from their goroutines; only
// the scheduling loop applies them and reads the snapshot, so that a
// decision sees one consistent state and the snapshot needs no lock.
type podCache struct {
	snap *cluster.Snapshot
	// assumed are the pods placed on a node whose Binding is in flight or
	// not yet seen by the watch.
	assumed map[types.UID]assumption
	// nominations are the nominated nodes this scheduler chose that the
	// watch does not show yet ("" for one it took back): they hold the
	// node's resources from the moment of the decision, as kube-scheduler's
	// nominator does.
	nominations map[types.UID]string
	// holds are the nodes runs hold for pending pods (cluster.Hold), by
	// pod; heldAs marks the pods whose snapshot copy carries the held
	// node as its nominated node, which their API object lacks: the
	// engine then tries that node first for them and keeps its room from
	// pods of no higher priority, as for a preemption's nomination.
	holds  map[types.UID]string
	heldAs map[types.UID]bool
	// victims are the victims of this scheduler's preemptions that the
	// watch does not show terminating yet; preempted, by preemptor, what
	// each preempted (see preemption_guard.go).
	victims   map[types.UID]victimMark
	preempted map[types.UID]preempted
	// rsController resolves a ReplicaSet's own controller, for the
	// workload of a pod (the plan hand-off matches workloads).
	rsController func(namespace, name string) *metav1.OwnerReference

	mu      sync.Mutex
	pending []change
}

// assumption is a pod placed on a node before the API server said so.
type assumption struct {
	key  string
	node string
	// deadline is when the assumption expires unconfirmed; zero while the
	// Binding is in flight, as kube-scheduler starts the clock only once
	// binding finished.
	deadline time.Time
	// volumes are the cache's volumes and claims as they were before
	// VolumeBinding's decision for the pod was assumed on them.
	volumes []any
}

// change is one event for the cache, applied in order.
type change struct {
	pod       *corev1.Pod
	node      *corev1.Node
	namespace *corev1.Namespace
	// volume is a claim, PersistentVolume, StorageClass or CSINode (see
	// applyVolume).
	volume any
	// pdb is a PodDisruptionBudget, for preemption.
	pdb *policyv1.PodDisruptionBudget
	// volumesListed: the informers of the four volume kinds have listed
	// everything.
	volumesListed bool
	// deleted: the pod, node, namespace, budget or volume object is gone.
	deleted bool
	// bound or bindFailed: the outcome of the Binding of an assumed pod,
	// and when it came.
	bound, bindFailed types.UID
	at                time.Time
	// victimKept: the deletion of a victim of preemption failed.
	victimKept types.UID
}

func newPodCache(rsController func(namespace, name string) *metav1.OwnerReference) *podCache {
	snap, err := cluster.New(cluster.Objects{}, time.Now())
	if err != nil {
		panic(err) // an empty snapshot is always valid
	}
	return &podCache{snap: snap, assumed: map[types.UID]assumption{}, nominations: map[types.UID]string{},
		holds: map[types.UID]string{}, heldAs: map[types.UID]bool{},
		victims: map[types.UID]victimMark{}, preempted: map[types.UID]preempted{}, rsController: rsController}
}

// push records a change for the next apply; safe from any goroutine.
func (c *podCache) push(ch change) {
	c.mu.Lock()
	c.pending = append(c.pending, ch)
	c.mu.Unlock()
}

// apply brings the snapshot up to date with the changes pushed so far and
// gives back what expired assumptions held. Only the scheduling loop calls
// it.
func (c *podCache) apply(now time.Time) {
	c.mu.Lock()
	changes := c.pending
	c.pending = nil
	c.mu.Unlock()
	for _, ch := range changes {
		switch {
		case ch.pod != nil && ch.deleted:
			c.forget(ch.pod.UID)
			delete(c.nominations, ch.pod.UID)
			delete(c.heldAs, ch.pod.UID)
			delete(c.victims, ch.pod.UID)
			delete(c.preempted, ch.pod.UID)
			if p := c.snap.Pod(ch.pod.Namespace + "/" + ch.pod.Name); p != nil && p.UID == ch.pod.UID {
				c.snap.DeletePod(p.Key)
			}
		case ch.pod != nil:
			c.setPod(ch.pod)
		case ch.node != nil && ch.deleted:
			c.snap.DeleteNode(ch.node.Name)
		case ch.node != nil:
			c.snap.SetNode(ch.node)
			// A node that comes back holds again what was assumed on it.
			for uid, a := range c.assumed {
				if a.node == ch.node.Name {
					if p := c.snap.Pod(a.key); p != nil && p.UID == uid && c.snap.NodeOf(p) == nil {
						_ = c.snap.Place(p, a.node)
					}
				}
			}
		case ch.namespace != nil && ch.deleted:
			c.snap.DeleteNamespace(ch.namespace.Name)
		case ch.namespace != nil:
			c.snap.SetNamespace(ch.namespace)
		case ch.pdb != nil:
			c.applyPDB(ch.pdb, ch.deleted)
		case ch.volume != nil:
			c.applyVolume(ch.volume, ch.deleted)
		case ch.volumesListed:
			c.snap.SetVolumesListed()
		case ch.bound != "":
			if a, ok := c.assumed[ch.bound]; ok {
				a.deadline = ch.at.Add(assumeTTL)
				c.assumed[ch.bound] = a
			}
		case ch.bindFailed != "":
			c.forget(ch.bindFailed)
		case ch.victimKept != "":
			c.unmark(ch.victimKept)
		}
	}
	for uid, m := range c.victims {
		if now.After(m.deadline) {
			c.unmark(uid)
		}
	}
	for uid, a := range c.assumed {
		if !a.deadline.IsZero() && now.After(a.deadline) {
			c.forget(uid)
		}
	}
	c.snap.Now = now
}

// setPod takes the pod's new object. The watch showing an assumed pod on a
// node confirms the assumption; until it does, the pod stays on the node it
// was assumed on.
func (c *podCache) setPod(obj *corev1.Pod) {
	obj = c.asVictim(obj)
	if obj.Spec.NodeName != "" {
		delete(c.preempted, obj.UID) // bound: it preempts no more
	}
	if node, ok := c.nominations[obj.UID]; ok {
		if obj.Status.NominatedNodeName == node || obj.Spec.NodeName != "" {
			delete(c.nominations, obj.UID)
		} else {
			nominated := *obj
			nominated.Status.NominatedNodeName = node
			obj = &nominated
		}
	}
	delete(c.heldAs, obj.UID)
	if node, ok := c.holds[obj.UID]; ok && obj.Spec.NodeName == "" && obj.Status.NominatedNodeName == "" {
		held := *obj
		held.Status.NominatedNodeName = node
		obj = &held
		c.heldAs[obj.UID] = true
	}
	p := c.snap.SetPod(obj, cluster.WorkloadOfPod(obj, c.rsController))
	a, ok := c.assumed[obj.UID]
	if !ok {
		return
	}
	if obj.Spec.NodeName != "" {
		delete(c.assumed, obj.UID)
		return
	}
	if err := c.snap.Place(p, a.node); err != nil {
		delete(c.assumed, obj.UID) // the node is gone
	}
}

// setHolds replaces the holds with those the state holds now, and
// brings the copies of the pods they name, or named, up to date.
func (c *podCache) setHolds(holds []cluster.Hold) {
	next := make(map[types.UID]string, len(holds))
	keys := map[types.UID]string{}
	for _, h := range holds {
		next[h.UID] = h.Node
		keys[h.UID] = h.Pod
	}
	if maps.Equal(next, c.holds) {
		return
	}
	for uid := range c.heldAs {
		if p := c.podByUID(uid, keys); p != nil {
			keys[uid] = p.Key
		}
	}
	c.holds = next
	for uid, key := range keys {
		p := c.snap.Pod(key)
		if p == nil || p.UID != uid {
			continue
		}
		c.setPod(c.apiObject(p))
	}
}

// podByUID finds a pod whose copy carries a hold: under the key a hold
// names, or by a search of the pods for one no hold names any more.
func (c *podCache) podByUID(uid types.UID, keys map[types.UID]string) *cluster.Pod {
	if key, ok := keys[uid]; ok {
		if p := c.snap.Pod(key); p != nil && p.UID == uid {
			return p
		}
	}
	for _, p := range c.snap.Pods() {
		if p.UID == uid {
			return p
		}
	}
	return nil
}

// heldFor returns the node held for the pod, or "".
func (c *podCache) heldFor(uid types.UID) string {
	if !c.heldAs[uid] {
		return ""
	}
	return c.holds[uid]
}

// apiObject returns the pod as the API server has it: without the held
// node its snapshot copy carries as nominated.
func (c *podCache) apiObject(p *cluster.Pod) *corev1.Pod {
	if !c.heldAs[p.UID] {
		return p.Pod
	}
	obj := *p.Pod
	obj.Status.NominatedNodeName = ""
	return &obj
}

// nominate holds the node for the pod until the watch shows the
// nomination; "" takes a nomination back.
func (c *podCache) nominate(obj *corev1.Pod, node string) {
	c.nominations[obj.UID] = node
	c.setPod(obj)
}

// assume places the pod on the node before its Binding is sent, so that
// the next decision sees the node's resources taken; and its volumes
// prebound to its claims and its claims annotated with the node, so that
// the next pod does not take the same volume. The informers' next copy of
// a volume or claim replaces the assumed one.
func (c *podCache) assume(p *cluster.Pod, node string, vols volumebinding.PodVolumes) error {
	if err := c.snap.Place(p, node); err != nil {
		return err
	}
	a := assumption{key: p.Key, node: node}
	for _, b := range vols.Bindings {
		if old := c.snap.PersistentVolume(b.Volume.Name); old != nil {
			a.volumes = append(a.volumes, old)
			c.snap.SetPersistentVolume(b.Volume)
		}
	}
	for _, claim := range vols.Provisions {
		if old := c.snap.Claim(claim.Namespace, claim.Name); old != nil {
			a.volumes = append(a.volumes, old)
			c.snap.SetClaim(claim)
		}
	}
	c.assumed[p.UID] = a
	return nil
}

// forget takes back an assumption: the Binding failed, the pod is gone, or
// the watch never confirmed it.
func (c *podCache) forget(uid types.UID) {
	a, ok := c.assumed[uid]
	if !ok {
		return
	}
	delete(c.assumed, uid)
	if p := c.snap.Pod(a.key); p != nil && p.UID == uid && p.Spec.NodeName == "" {
		c.snap.Remove(p)
	}
	c.revertVolumes(a.volumes)
}

// revertVolumes puts back the volumes and claims an assumption changed,
// unless the informers have given a newer copy since: a copy of the same
// resourceVersion is the assumed one.
func (c *podCache) revertVolumes(old []any) {
	for _, obj := range old {
		switch o := obj.(type) {
		case *corev1.PersistentVolume:
			if cur := c.snap.PersistentVolume(o.Name); cur != nil && cur.ResourceVersion == o.ResourceVersion {
				c.snap.SetPersistentVolume(o)
			}
		case *corev1.PersistentVolumeClaim:
			if cur := c.snap.Claim(o.Namespace, o.Name); cur != nil && cur.ResourceVersion == o.ResourceVersion {
				c.snap.SetClaim(o)
			}
		}
	}
}
