package cluster

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// MetricsGroupVersion is the resource metrics API that metrics-server
// serves (kubectl top reads it).
var MetricsGroupVersion = schema.GroupVersion{Group: "metrics.k8s.io", Version: "v1beta1"}

// NodeMetrics is a node's usage as metrics.k8s.io/v1beta1 serves it: the
// fields a snapshot reads, under the API's names, so that what
// `kubectl get --raw /apis/metrics.k8s.io/v1beta1/nodes` prints decodes as
// it is. The API's own Go types live in a module the core does not import.
type NodeMetrics struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	// Timestamp is the end of the window the usage was measured over.
	Timestamp metav1.Time         `json:"timestamp"`
	Window    metav1.Duration     `json:"window"`
	Usage     corev1.ResourceList `json:"usage"`
}

// PodMetrics is a pod's usage, container by container, as
// metrics.k8s.io/v1beta1 serves it.
type PodMetrics struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Timestamp         metav1.Time        `json:"timestamp"`
	Window            metav1.Duration    `json:"window"`
	Containers        []ContainerMetrics `json:"containers"`
}

// ContainerMetrics is one container's usage in a PodMetrics.
type ContainerMetrics struct {
	Name  string              `json:"name"`
	Usage corev1.ResourceList `json:"usage"`
}

// DeepCopyObject makes NodeMetrics a runtime.Object for the dump decoder.
func (m *NodeMetrics) DeepCopyObject() runtime.Object {
	c := *m
	m.ObjectMeta.DeepCopyInto(&c.ObjectMeta)
	c.Usage = m.Usage.DeepCopy()
	return &c
}

// DeepCopyObject makes PodMetrics a runtime.Object for the dump decoder.
func (m *PodMetrics) DeepCopyObject() runtime.Object {
	c := *m
	m.ObjectMeta.DeepCopyInto(&c.ObjectMeta)
	c.Containers = make([]ContainerMetrics, len(m.Containers))
	for i, ct := range m.Containers {
		c.Containers[i] = ContainerMetrics{Name: ct.Name, Usage: ct.Usage.DeepCopy()}
	}
	return &c
}

// NodeMetricsList and PodMetricsList are what listing the metrics API
// returns; a snapshot reads their items.
type NodeMetricsList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []NodeMetrics `json:"items"`
}

// PodMetricsList: see NodeMetricsList.
type PodMetricsList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []PodMetrics `json:"items"`
}

// NodeScore is one sample of a Prometheus query that rates each node's
// utilization between 0 and 1 (the descheduler's metricsUtilization with
// source Prometheus): the sample's instance label names the node.
type NodeScore struct {
	Node      string
	Value     float64
	Timestamp metav1.Time
}

// UsageSample is a measured usage: cpu in millicores and memory in bytes,
// as Resources count them, over Window ending at Timestamp.
type UsageSample struct {
	Usage     Resources
	Timestamp time.Time
	Window    time.Duration
}

// MaxUsageAge bounds how old a node's sample may be, before the moment the
// metrics were read, for its usage to classify the node. metrics-server
// scrapes every 15 to 60 seconds and Prometheus evaluates a query at the
// moment it is asked: a sample three minutes old is one whose source has
// stopped reporting, and a node judged on it could be relieved of load it
// no longer carries, or sent load it cannot take.
const MaxUsageAge = 3 * time.Minute

// measured are the resources a metrics sample holds; a node's pod count and
// its other resources are counted from requests even when usage is used.
var measured = []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory}

// IsMeasured reports whether usage samples hold the resource.
func IsMeasured(r corev1.ResourceName) bool {
	return r == corev1.ResourceCPU || r == corev1.ResourceMemory
}

func sampleOf(usage corev1.ResourceList, at metav1.Time, window metav1.Duration) *UsageSample {
	s := &UsageSample{Timestamp: at.UTC(), Window: window.Duration}
	for _, r := range measured {
		if q, ok := usage[r]; ok {
			if r == corev1.ResourceCPU {
				s.Usage.MilliCPU = q.MilliValue()
			} else {
				s.Usage.Memory = q.Value()
			}
		}
	}
	return s
}

// podSample adds up a pod's containers.
func podSample(m *PodMetrics) *UsageSample {
	s := &UsageSample{Timestamp: m.Timestamp.UTC(), Window: m.Window.Duration}
	for _, c := range m.Containers {
		cs := sampleOf(c.Usage, m.Timestamp, m.Window)
		s.Usage.Add(&cs.Usage)
	}
	return s
}

func podSamples(list []PodMetrics) map[string]*UsageSample {
	if len(list) == 0 {
		return nil
	}
	out := make(map[string]*UsageSample, len(list))
	for i := range list {
		out[list[i].Namespace+"/"+list[i].Name] = podSample(&list[i])
	}
	return out
}

// attachUsage gives each node its samples and starts the count of moved
// usage from zero: loading the pods is not a move.
func (s *Snapshot) attachUsage(objs *Objects) {
	for _, n := range s.nodes {
		n.moved, n.arrived, n.left = Resources{}, 0, 0
	}
	var newest time.Time
	for i := range objs.NodeMetrics {
		m := &objs.NodeMetrics[i]
		if n := s.Node(m.Name); n != nil {
			n.Usage = sampleOf(m.Usage, m.Timestamp, m.Window)
			if n.Usage.Timestamp.After(newest) {
				newest = n.Usage.Timestamp
			}
		}
	}
	for _, sc := range objs.NodeScores {
		if n := s.Node(sc.Node); n != nil {
			n.Score = &sc
			if sc.Timestamp.Time.After(newest) {
				newest = sc.Timestamp.Time
			}
		}
	}
	s.usageAt = newest
	s.metricsError = objs.MetricsError
	if !objs.MetricsReadAt.IsZero() {
		s.usageAt = objs.MetricsReadAt.UTC()
	}
}

// MetricsError says why the metrics could not be read, or "".
func (s *Snapshot) MetricsError() string { return s.metricsError }

// HasUsage reports whether the snapshot holds metrics.k8s.io node samples.
func (s *Snapshot) HasUsage() bool {
	for _, n := range s.nodes {
		if n.Usage != nil {
			return true
		}
	}
	return false
}

// HasScores reports whether the snapshot holds Prometheus node samples.
func (s *Snapshot) HasScores() bool {
	for _, n := range s.nodes {
		if n.Score != nil {
			return true
		}
	}
	return false
}

// UsageAt is the moment samples are judged against: when the metrics were
// read, or for a dump the newest node sample it holds.
func (s *Snapshot) UsageAt() time.Time { return s.usageAt }

// UsageProblem says why the node's metrics.k8s.io sample (or, with score,
// its Prometheus sample) cannot classify it: missing, or older than
// MaxUsageAge; "" when it can.
func (s *Snapshot) UsageProblem(n *Node, score bool) string {
	var at time.Time
	switch {
	case score && n.Score == nil:
		return "has no sample of the Prometheus query"
	case score:
		at = n.Score.Timestamp.Time
	case n.Usage == nil:
		return "has no metrics.k8s.io sample"
	default:
		at = n.Usage.Timestamp
	}
	if age := s.usageAt.Sub(at); age > MaxUsageAge {
		return "its metrics sample is stale (" + age.Round(time.Second).String() + " old, more than " + MaxUsageAge.String() + ")"
	}
	return ""
}

// Used returns how much of a resource the node's pods use: for cpu and
// memory its sample, less the usage of the pods planned away from it and
// plus that of the pods planned onto it; for any other resource, or without
// a sample, what its pods that stay request.
func (n *Node) Used(r corev1.ResourceName) int64 {
	if n.Usage == nil || !IsMeasured(r) {
		return n.StayingRequested(r)
	}
	return max(0, n.Usage.Usage.Get(r)+n.moved.Get(r))
}

// UsedPercent is Used as a percentage of the node's allocatable amount.
func (n *Node) UsedPercent(r corev1.ResourceName) float64 {
	return Percent(n.Used(r), n.Allocatable.Get(r))
}

// ScorePercent is the node's Prometheus sample in percent (0 without one).
func (n *Node) ScorePercent() float64 {
	if n.Score == nil {
		return 0
	}
	return n.Score.Value * 100
}

// Arrived and Left count the pods planned onto and away from the node.
func (n *Node) Arrived() int { return n.arrived }

// Left: see Arrived.
func (n *Node) Left() int { return n.left }

// usageEstimate is what the pod is taken to use of cpu and memory, on a
// node where it holds req: its sample, or without one its requests.
func (p *Pod) usageEstimate(req *Resources) Resources {
	if p.Usage != nil {
		return Resources{MilliCPU: p.Usage.Usage.MilliCPU, Memory: p.Usage.Usage.Memory}
	}
	return Resources{MilliCPU: req.MilliCPU, Memory: req.Memory}
}

// UsageEstimate is what the pod's replacement is taken to use of a
// resource: for cpu and memory its sample, or its requests without one.
func (p *Pod) UsageEstimate(r corev1.ResourceName) int64 {
	if p.Usage != nil && IsMeasured(r) {
		return p.Usage.Usage.Get(r)
	}
	return p.SpecRequests.Get(r)
}
