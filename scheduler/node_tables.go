package scheduler

import (
	"strings"

	"github.com/kube-rebalancer/rebalancer/cluster"

	corev1 "k8s.io/api/core/v1"
)

// domainsOf numbers the values of one topology key over the family's nodes,
// once: counting per domain in a slice instead of a map keeps spread and
// affinity arithmetic free of hashing and of map order.
func (t *tables) domainsOf(key string) *cluster.TopologyDomains {
	return memo(t, t.domains, key, func() *cluster.TopologyDomains { return cluster.NewTopologyDomains(t.nodes, key) })
}

// taintGroups numbers the distinct taint lists of the nodes: most nodes
// carry none or the same few, so tolerations are checked once per list
// instead of once per node. Order within a list is kept: it decides which
// untolerated taint a message names.
type taintGroups struct {
	of     []int32
	taints [][]corev1.Taint
}

func (t *tables) taintGroups() *taintGroups {
	return once(t, &t.taints, func() *taintGroups {
		g := &taintGroups{of: make([]int32, len(t.nodes))}
		ids := make(map[string]int32)
		var b strings.Builder
		for i, n := range t.nodes {
			b.Reset()
			for _, taint := range n.Spec.Taints {
				b.WriteString(taint.Key)
				b.WriteByte('=')
				b.WriteString(taint.Value)
				b.WriteByte(':')
				b.WriteString(string(taint.Effect))
				b.WriteByte(0)
			}
			key := b.String()
			id, seen := ids[key]
			if !seen {
				id = int32(len(g.taints))
				ids[key] = id
				g.taints = append(g.taints, n.Spec.Taints)
			}
			g.of[i] = id
		}
		return g
	})
}

// nodeImage is an image a node holds, with its size there.
type nodeImage struct {
	node int32
	size int64
}

// imageTable lists, for each image name in the nodes' status, the nodes
// that hold it; the length of a list is the image's spread.
type imageTable struct {
	nodes map[string][]nodeImage
}

func (t *tables) imageTable() *imageTable {
	return once(t, &t.images, func() *imageTable {
		it := &imageTable{nodes: make(map[string][]nodeImage)}
		for i, n := range t.nodes {
			for _, img := range n.Status.Images {
				for _, name := range img.Names {
					list := it.nodes[name]
					if k := len(list) - 1; k >= 0 && list[k].node == int32(i) {
						list[k].size = img.SizeBytes
						continue
					}
					it.nodes[name] = append(list, nodeImage{node: int32(i), size: img.SizeBytes})
				}
			}
		}
		return it
	})
}
