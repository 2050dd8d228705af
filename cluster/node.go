package cluster

import (
	"math"
	"slices"

	corev1 "k8s.io/api/core/v1"
)

// HostPort is a host port a pod's container binds on its node.
type HostPort struct {
	IP       string
	Protocol corev1.Protocol
	Port     int32
}

// PodHostPorts returns the host ports the pod's containers bind. A port
// without a host port is not bound on the node and does not conflict.
// Sidecars (init containers with restartPolicy Always) run for the pod's
// whole life, so their host ports count too, as kube-scheduler counts them;
// other init containers have exited before the pod's containers start.
func PodHostPorts(p *corev1.Pod) []HostPort {
	var ports []HostPort
	containers := p.Spec.Containers
	for i := range p.Spec.InitContainers {
		c := &p.Spec.InitContainers[i]
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			containers = append(slices.Clip(containers), *c)
		}
	}
	for i := range containers {
		for _, cp := range containers[i].Ports {
			if cp.HostPort <= 0 {
				continue
			}
			proto := cp.Protocol
			if proto == "" {
				proto = corev1.ProtocolTCP
			}
			ip := cp.HostIP
			if ip == "" {
				ip = "0.0.0.0"
			}
			ports = append(ports, HostPort{IP: ip, Protocol: proto, Port: cp.HostPort})
		}
	}
	return ports
}

// Node is a node of the snapshot with what its pods take from it. The
// aggregates are kept up to date by the snapshot's edits, so that a
// placement reads them instead of walking the node's pods.
type Node struct {
	*corev1.Node
	// Allocatable is what the node offers to pods.
	Allocatable Resources
	// Requested is the sum of the effective requests of the pods that hold
	// resources on the node (bound and not terminal, terminating included:
	// their resources are not free until they are gone).
	Requested Resources
	// NonZeroRequested is Requested with the scheduler's defaults for
	// containers that request no CPU or memory.
	NonZeroRequested Resources
	// Leaving is the part of Requested that pods already terminating hold.
	// The scheduler counts it until they are gone; the strategies count
	// what stays (see StayingUtilization).
	Leaving Resources

	// Usage is the node's latest metrics.k8s.io sample, nil without one.
	Usage *UsageSample
	// Score is the node's sample of a Prometheus utilization query, nil
	// without one.
	Score *NodeScore
	// moved is the usage that planned moves took off the node (negative)
	// or brought to it, and arrived and left count those pods: a sample
	// cannot know of moves that have not happened yet.
	moved         Resources
	arrived, left int

	pods                     []*Pod
	hostPorts                []HostPort
	withAffinity             []*Pod
	withRequiredAntiAffinity []*Pod
	withVolumes              []*Pod

	index int
	owner uint64
}

func newNode(n *corev1.Node, index int) *Node {
	return &Node{
		Node:        n,
		Allocatable: ResourcesFromList(n.Status.Allocatable),
		index:       index,
	}
}

// Pods returns the pods that hold resources on the node, in the snapshot's
// order. The slice belongs to the node: do not modify it.
func (n *Node) Pods() []*Pod { return n.pods }

// HostPorts returns the host ports bound by the node's pods.
func (n *Node) HostPorts() []HostPort { return n.hostPorts }

// PodsWithAffinity returns the node's pods that have any inter-pod affinity
// or anti-affinity term.
func (n *Node) PodsWithAffinity() []*Pod { return n.withAffinity }

// PodsWithRequiredAntiAffinity returns the node's pods that have a required
// anti-affinity term.
func (n *Node) PodsWithRequiredAntiAffinity() []*Pod { return n.withRequiredAntiAffinity }

// PodsWithVolumes returns the pods on the node that may have volumes a
// CSI driver attaches there (see AttachesVolumes). Do not modify the slice.
func (n *Node) PodsWithVolumes() []*Pod { return n.withVolumes }

// Unschedulable reports whether the node is cordoned.
func (n *Node) Unschedulable() bool { return n.Spec.Unschedulable }

// Utilization returns the percentage of the node's allocatable amount of a
// resource that its pods request. A node that offers none of a resource its
// pods request is infinitely used; one that offers none and is asked for none
// is unused.
func (n *Node) Utilization(name corev1.ResourceName) float64 {
	return Percent(n.Requested.Get(name), n.Allocatable.Get(name))
}

// StayingRequested returns what the node's pods that are not terminating
// request of a resource: the load a strategy judges the node by, since a
// terminating pod's share frees itself without anyone's help.
func (n *Node) StayingRequested(name corev1.ResourceName) int64 {
	return n.Requested.Get(name) - n.Leaving.Get(name)
}

// StayingUtilization is Utilization counted from StayingRequested.
func (n *Node) StayingUtilization(name corev1.ResourceName) float64 {
	return Percent(n.StayingRequested(name), n.Allocatable.Get(name))
}

// Percent returns used as a percentage of total, with the conventions of
// Node.Utilization for a zero total.
func Percent(used, total int64) float64 {
	if total <= 0 {
		if used > 0 {
			return math.Inf(1)
		}
		return 0
	}
	return float64(used) * 100 / float64(total)
}

// requestsOf returns what p takes from the node: on the node it is bound
// to, what it holds there (its status's resources count while a resize is
// under way); anywhere else it is a replacement, a new pod that asks for
// its spec. Add and remove agree, so that an edit and its undo cancel out.
func (n *Node) requestsOf(p *Pod) (req, nonZero *Resources) {
	if p.Spec.NodeName == n.Name {
		return &p.Requests, &p.NonZeroRequests
	}
	return &p.SpecRequests, &p.SpecNonZeroRequests
}

// add accounts for p on the node.
func (n *Node) add(p *Pod) {
	n.pods = append(n.pods, p)
	req, nonZero := n.requestsOf(p)
	n.Requested.Add(req)
	n.NonZeroRequested.Add(nonZero)
	if p.IsTerminating() {
		n.Leaving.Add(req)
	}
	est := p.usageEstimate(req)
	n.moved.Add(&est)
	if p.Spec.NodeName == n.Name {
		n.left--
	} else {
		n.arrived++
	}
	n.hostPorts = append(n.hostPorts, PodHostPorts(p.Pod)...)
	if p.HasAffinity() {
		n.withAffinity = append(n.withAffinity, p)
	}
	if p.HasRequiredAntiAffinity() {
		n.withRequiredAntiAffinity = append(n.withRequiredAntiAffinity, p)
	}
	if AttachesVolumes(p.Pod) {
		n.withVolumes = append(n.withVolumes, p)
	}
}

// remove takes p's accounting off the node. It reports false when p is not
// on the node.
func (n *Node) remove(p *Pod) bool {
	i := slices.Index(n.pods, p)
	if i < 0 {
		return false
	}
	n.pods = slices.Delete(n.pods, i, i+1)
	req, nonZero := n.requestsOf(p)
	n.Requested.Sub(req)
	n.NonZeroRequested.Sub(nonZero)
	if p.IsTerminating() {
		n.Leaving.Sub(req)
	}
	est := p.usageEstimate(req)
	n.moved.Sub(&est)
	if p.Spec.NodeName == n.Name {
		n.left++
	} else {
		n.arrived--
	}
	for _, hp := range PodHostPorts(p.Pod) {
		if j := slices.Index(n.hostPorts, hp); j >= 0 {
			n.hostPorts = slices.Delete(n.hostPorts, j, j+1)
		}
	}
	n.withAffinity = deletePod(n.withAffinity, p)
	n.withRequiredAntiAffinity = deletePod(n.withRequiredAntiAffinity, p)
	n.withVolumes = deletePod(n.withVolumes, p)
	return true
}

// clone returns a copy of n that can be edited without changing n.
func (n *Node) clone(owner uint64) *Node {
	c := *n
	c.Requested = n.Requested.Clone()
	c.NonZeroRequested = n.NonZeroRequested.Clone()
	c.Leaving = n.Leaving.Clone()
	c.moved = n.moved.Clone()
	c.pods = slices.Clone(n.pods)
	c.hostPorts = slices.Clone(n.hostPorts)
	c.withAffinity = slices.Clone(n.withAffinity)
	c.withRequiredAntiAffinity = slices.Clone(n.withRequiredAntiAffinity)
	c.withVolumes = slices.Clone(n.withVolumes)
	c.owner = owner
	return &c
}

func deletePod(pods []*Pod, p *Pod) []*Pod {
	if i := slices.Index(pods, p); i >= 0 {
		return slices.Delete(pods, i, i+1)
	}
	return pods
}

// Ready reports whether the node's Ready condition is true. A node that
// reports no Ready condition at all (a hand-written object) counts as ready;
// one whose kubelet stopped reporting does not: pods evicted from it would
// hang in Terminating, and pods sent to it would not start.
func (n *Node) Ready() bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return true
}
