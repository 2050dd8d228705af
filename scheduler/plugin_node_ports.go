package scheduler

import (
	"github.com/kube-rebalancer/rebalancer/cluster"
)

// reasonNodePorts is kube-scheduler's NodePorts reason.
var reasonNodePorts = []string{"node(s) didn't have free ports for the requested pod ports"}

// wildcardIP is the host IP that binds every address of the node.
const wildcardIP = "0.0.0.0"

// nodePortsFilter keeps a pod off nodes where a host port it asks for is
// taken: the same port and protocol on the same IP, or on any IP when either
// side binds 0.0.0.0.
type nodePortsFilter struct{}

func (nodePortsFilter) name() string { return NodePorts }

func (nodePortsFilter) prepare(c *cycle) prepared {
	c.ports = cluster.PodHostPorts(c.pod.Pod)
	return prepared{skip: len(c.ports) == 0}
}

func (nodePortsFilter) filter(c *cycle, i int) []string {
	used := c.nodes[i].HostPorts()
	for _, want := range c.ports {
		for _, u := range used {
			if u.Port == want.Port && u.Protocol == want.Protocol &&
				(want.IP == wildcardIP || u.IP == wildcardIP || u.IP == want.IP) {
				return reasonNodePorts
			}
		}
	}
	return nil
}
