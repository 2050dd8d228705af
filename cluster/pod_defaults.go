package cluster

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	resourcehelper "k8s.io/component-helpers/resource"
)

// DefaultPod applies to a pod written by hand, or made from a workload's
// template, the defaults the API server gives it on creation that change
// where it can run, and says which it applied, one sentence each. The
// defaulting functions live in k8s.io/kubernetes, which is not a library;
// these are the documented rules (API reference, core/v1 Pod and Container,
// and the RuntimeClass admission plugin):
//
//   - a container's (or init container's) request left out defaults to its
//     limit of the same resource;
//   - with pod-level limits (PodLevelResources, beta and on in 1.36), a
//     pod-level request left out defaults to the containers' effective
//     request of that resource, or to the pod-level limit when no container
//     requests it;
//   - under hostNetwork, a container port's hostPort defaults to its
//     containerPort;
//   - the RuntimeClass the pod names adds its overhead.podFixed as the pod's
//     overhead, its scheduling.nodeSelector to the pod's nodeSelector and its
//     scheduling.tolerations to the pod's tolerations.
//
// runtimeClasses are those the cluster or the dump holds; a RuntimeClass the
// pod names that is not among them is reported, not applied. Defaults that
// cannot change a placement (DNS policy, restart policy, probes…) are left
// out, and so are the namespace's LimitRanges, which the snapshot does not
// hold.
func DefaultPod(p *corev1.Pod, runtimeClasses []nodev1.RuntimeClass) []string {
	var applied []string
	for _, list := range []struct {
		field      string
		containers []corev1.Container
	}{{"initContainers", p.Spec.InitContainers}, {"containers", p.Spec.Containers}} {
		for i := range list.containers {
			c := &list.containers[i]
			if names := requestsFromLimits(&c.Resources); len(names) > 0 {
				applied = append(applied, fmt.Sprintf("%s[%s]: requests of %s default to the limits", list.field, c.Name, strings.Join(names, ", ")))
			}
		}
	}
	if names := podRequestsFromLimits(p); len(names) > 0 {
		applied = append(applied, fmt.Sprintf("pod-level requests of %s default from the containers' requests or the pod-level limits", strings.Join(names, ", ")))
	}
	if p.Spec.HostNetwork {
		for _, list := range []struct {
			field      string
			containers []corev1.Container
		}{{"initContainers", p.Spec.InitContainers}, {"containers", p.Spec.Containers}} {
			for i := range list.containers {
				c := &list.containers[i]
				for j := range c.Ports {
					if c.Ports[j].HostPort == 0 {
						c.Ports[j].HostPort = c.Ports[j].ContainerPort
						applied = append(applied, fmt.Sprintf("%s[%s]: hostNetwork binds containerPort %d on the node as hostPort %d", list.field, c.Name, c.Ports[j].ContainerPort, c.Ports[j].HostPort))
					}
				}
			}
		}
	}
	if name := p.Spec.RuntimeClassName; name != nil && *name != "" {
		applied = append(applied, applyRuntimeClass(p, *name, runtimeClasses)...)
	}
	return applied
}

// requestsFromLimits sets each request left out to its limit and returns
// the names it set, sorted.
func requestsFromLimits(r *corev1.ResourceRequirements) []string {
	var names []string
	for name, limit := range r.Limits {
		if _, ok := r.Requests[name]; ok {
			continue
		}
		if r.Requests == nil {
			r.Requests = corev1.ResourceList{}
		}
		r.Requests[name] = limit.DeepCopy()
		names = append(names, string(name))
	}
	slices.Sort(names)
	return names
}

// podRequestsFromLimits applies the pod-level requests' defaults, once the
// containers' requests have theirs, and returns the names it set, sorted.
func podRequestsFromLimits(p *corev1.Pod) []string {
	r := p.Spec.Resources
	if r == nil || len(r.Limits) == 0 {
		return nil
	}
	containers := resourcehelper.AggregateContainerRequests(p, resourcehelper.PodResourcesOptions{})
	var names []string
	for name, limit := range r.Limits {
		if _, ok := r.Requests[name]; ok || !resourcehelper.IsSupportedPodLevelResource(name) {
			continue
		}
		value := limit
		// Hugepages cannot be overcommitted: their request is the limit.
		if q, ok := containers[name]; ok && !strings.HasPrefix(string(name), corev1.ResourceHugePagesPrefix) {
			value = q
		}
		if r.Requests == nil {
			r.Requests = corev1.ResourceList{}
		}
		r.Requests[name] = value.DeepCopy()
		names = append(names, string(name))
	}
	slices.Sort(names)
	return names
}

// applyRuntimeClass does what the RuntimeClass admission plugin does to a
// pod that names the class.
func applyRuntimeClass(p *corev1.Pod, name string, classes []nodev1.RuntimeClass) []string {
	i := slices.IndexFunc(classes, func(rc nodev1.RuntimeClass) bool { return rc.Name == name })
	if i < 0 {
		return []string{fmt.Sprintf("runtimeClassName %s: no such RuntimeClass here, so its overhead and scheduling constraints are not applied (the API server rejects a pod whose RuntimeClass does not exist)", name)}
	}
	rc := &classes[i]
	var applied []string
	if rc.Overhead != nil && len(rc.Overhead.PodFixed) > 0 && p.Spec.Overhead == nil {
		p.Spec.Overhead = rc.Overhead.PodFixed.DeepCopy()
		applied = append(applied, fmt.Sprintf("RuntimeClass %s adds its overhead %s to the pod's requests", name, formatResources(p.Spec.Overhead)))
	}
	if s := rc.Scheduling; s != nil {
		if len(s.NodeSelector) > 0 {
			if p.Spec.NodeSelector == nil {
				p.Spec.NodeSelector = map[string]string{}
			}
			keys := make([]string, 0, len(s.NodeSelector))
			for k, v := range s.NodeSelector {
				// A conflicting key makes the API server reject the pod;
				// the pod's own value is kept and the placement shows it.
				if _, ok := p.Spec.NodeSelector[k]; !ok {
					p.Spec.NodeSelector[k] = v
					keys = append(keys, k+"="+v)
				}
			}
			slices.Sort(keys)
			if len(keys) > 0 {
				applied = append(applied, fmt.Sprintf("RuntimeClass %s adds nodeSelector %s", name, strings.Join(keys, ", ")))
			}
		}
		added := 0
		for _, t := range s.Tolerations {
			if !slices.ContainsFunc(p.Spec.Tolerations, func(o corev1.Toleration) bool { return o.MatchToleration(&t) }) {
				p.Spec.Tolerations = append(p.Spec.Tolerations, t)
				added++
			}
		}
		if added > 0 {
			applied = append(applied, fmt.Sprintf("RuntimeClass %s adds %d toleration(s)", name, added))
		}
	}
	return applied
}

func formatResources(list corev1.ResourceList) string {
	parts := make([]string, 0, len(list))
	for name, q := range list {
		parts = append(parts, string(name)+" "+q.String())
	}
	slices.Sort(parts)
	return strings.Join(parts, ", ")
}
