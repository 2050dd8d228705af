// Package nodeports is kube-scheduler's NodePorts plugin: host ports a
// node's pods hold already.
package nodeports

import (
	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/scheduler/framework"
)

// Name is the plugin's name in a profile.
const Name = "NodePorts"

// ErrReasonNodePorts is kube-scheduler's NodePorts reason.
const ErrReasonNodePorts = "node(s) didn't have free ports for the requested pod ports"

var reasonNodePorts = []string{ErrReasonNodePorts}

// wildcardIP is the host IP that binds every address of the node.
const wildcardIP = "0.0.0.0"

// nodePorts keeps a pod off nodes where a host port it asks for is taken:
// the same port and protocol on the same IP, or on any IP when either side
// binds 0.0.0.0.
type nodePorts struct {
	key framework.StateKey
}

var _ framework.FilterPlugin = (*nodePorts)(nil)

func New(_ any, h framework.Handle) (framework.Plugin, error) {
	return &nodePorts{key: h.StateKey()}, nil
}

// portsState is the host ports the pod asks for.
type portsState struct {
	ports []cluster.HostPort
}

func (*nodePorts) Name() string { return Name }

func (p *nodePorts) PreFilter(c *framework.Cycle) framework.PreFilterResult {
	st := framework.State[portsState](c, p.key)
	st.ports = cluster.PodHostPorts(c.Pod().Pod)
	return framework.PreFilterResult{Skip: len(st.ports) == 0}
}

func (p *nodePorts) Filter(c *framework.Cycle, i int) []string {
	used := c.Nodes()[i].HostPorts()
	for _, want := range framework.State[portsState](c, p.key).ports {
		for _, u := range used {
			if u.Port == want.Port && u.Protocol == want.Protocol &&
				(want.IP == wildcardIP || u.IP == wildcardIP || u.IP == want.IP) {
				return reasonNodePorts
			}
		}
	}
	return nil
}
