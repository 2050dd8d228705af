package scheduler

import (
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	configv1 "k8s.io/kube-scheduler/config/v1"
)

// fitFilter keeps a pod off nodes that lack room for its effective requests
// (cluster.Pod.Requests: containers, init containers and sidecars,
// pod-level resources and overhead) or for one more pod.
type fitFilter struct {
	ignored       map[corev1.ResourceName]bool
	ignoredGroups map[string]bool
}

func newFitFilter(args *configv1.NodeResourcesFitArgs) fitFilter {
	f := fitFilter{ignored: make(map[corev1.ResourceName]bool), ignoredGroups: make(map[string]bool)}
	for _, r := range args.IgnoredResources {
		f.ignored[corev1.ResourceName(r)] = true
	}
	for _, g := range args.IgnoredResourceGroups {
		f.ignoredGroups[g] = true
	}
	return f
}

// fitState is the request NodeResourcesFit checks, with the extended and
// hugepages resources in name order so that reasons come out in a fixed
// order.
type fitState struct {
	scalars []corev1.ResourceName
	// reasons caches the reason lists of the common combinations of
	// insufficient pods, cpu, memory and ephemeral-storage, by bit.
	reasons [16][]string
}

const (
	shortPods = 1 << iota
	shortCPU
	shortMemory
	shortEphemeral
)

func (fitFilter) name() string { return NodeResourcesFit }

func (f fitFilter) prepare(c *cycle) prepared {
	c.fit.scalars = c.fit.scalars[:0]
	for name, v := range c.pod.Requests.Scalar {
		if v == 0 || (isExtendedResource(name) && (f.ignored[name] || f.ignoredGroups[strings.SplitN(string(name), "/", 2)[0]])) {
			continue
		}
		c.fit.scalars = append(c.fit.scalars, name)
	}
	slices.Sort(c.fit.scalars)
	c.fit.reasons = [16][]string{}
	return prepared{}
}

func (fitFilter) filter(c *cycle, i int) []string {
	n := c.nodes[i]
	req := &c.pod.Requests
	short := 0
	if n.Requested.Pods+1 > n.Allocatable.Pods {
		short |= shortPods
	}
	if req.MilliCPU > 0 && req.MilliCPU > n.Allocatable.MilliCPU-n.Requested.MilliCPU {
		short |= shortCPU
	}
	if req.Memory > 0 && req.Memory > n.Allocatable.Memory-n.Requested.Memory {
		short |= shortMemory
	}
	if req.EphemeralStorage > 0 && req.EphemeralStorage > n.Allocatable.EphemeralStorage-n.Requested.EphemeralStorage {
		short |= shortEphemeral
	}
	var scalars []string
	for _, name := range c.fit.scalars {
		if req.Scalar[name] > n.Allocatable.Scalar[name]-n.Requested.Scalar[name] {
			scalars = append(scalars, "Insufficient "+string(name))
		}
	}
	if short == 0 && scalars == nil {
		return nil
	}
	reasons := c.fit.reasons[short]
	if reasons == nil {
		if short&shortPods != 0 {
			reasons = append(reasons, "Too many pods")
		}
		if short&shortCPU != 0 {
			reasons = append(reasons, "Insufficient cpu")
		}
		if short&shortMemory != 0 {
			reasons = append(reasons, "Insufficient memory")
		}
		if short&shortEphemeral != 0 {
			reasons = append(reasons, "Insufficient ephemeral-storage")
		}
		c.fit.reasons[short] = reasons
	}
	if scalars != nil {
		return append(slices.Clip(reasons), scalars...)
	}
	return reasons
}

// isExtendedResource reports whether a resource is an extended resource
// (outside the kubernetes.io namespace), the only kind NodeResourcesFit's
// ignoredResources and ignoredResourceGroups apply to.
func isExtendedResource(name corev1.ResourceName) bool {
	s := string(name)
	if !strings.Contains(s, "/") || strings.Contains(s, corev1.ResourceDefaultNamespacePrefix) || strings.HasPrefix(s, corev1.DefaultResourceRequestsPrefix) {
		return false
	}
	return len(validation.IsQualifiedName(corev1.DefaultResourceRequestsPrefix+s)) == 0
}
