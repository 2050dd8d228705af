// Package imagelocality is kube-scheduler's ImageLocality plugin: nodes
// that hold the pod's images already score higher.
package imagelocality

import (
	"strings"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/scheduler/framework"
)

// ImageLocality's thresholds, as kube-scheduler's: images smaller than
// minImageScore in total score nothing, and each container can add at most
// maxContainerImageScore.
const (
	mebibyte               int64 = 1024 * 1024
	minImageScore                = 23 * mebibyte
	maxContainerImageScore       = 1000 * mebibyte
)

// Name is the plugin's name in a profile.
const Name = "ImageLocality"

// imageLocality prefers nodes that already hold the pod's images, weighing
// each image by its size and by the share of nodes that hold it (an image
// every node has says nothing about where to go).
type imageLocality struct {
	key framework.StateKey
}

var _ framework.ScorePlugin = (*imageLocality)(nil)

func New(_ any, h framework.Handle) (framework.Plugin, error) {
	return &imageLocality{key: h.StateKey()}, nil
}

// imageState is the per-node sum of image sizes, a buffer kept from cycle
// to cycle.
type imageState struct {
	sums []int64
}

// Reset keeps the buffer.
func (*imageState) Reset() {}

func (*imageLocality) Name() string { return Name }

func (p *imageLocality) Score(c *framework.Cycle, feasible []int32, out []int64) bool {
	table := framework.FamilyState[familyState](c, p.key).images.Get(func() *imageTable { return newImageTable(c.Nodes()) })
	total := float64(len(c.Nodes()))
	sums := framework.Zeroed(&framework.State[imageState](c, p.key).sums, len(c.Nodes()))
	add := func(image string) {
		list := table.nodes[normalizedImageName(image)]
		spread := float64(len(list)) / total
		for _, ni := range list {
			sums[ni.node] += int64(float64(ni.size) * spread)
		}
	}
	spec := &c.Pod().Spec
	for i := range spec.InitContainers {
		add(spec.InitContainers[i].Image)
	}
	for i := range spec.Containers {
		add(spec.Containers[i].Image)
	}
	for i := range spec.Volumes {
		if img := spec.Volumes[i].Image; img != nil {
			add(img.Reference)
		}
	}
	containers := int64(len(spec.InitContainers) + len(spec.Containers))
	highest := maxContainerImageScore * containers
	for k, i := range feasible {
		s := min(max(sums[i], minImageScore), highest)
		if highest > minImageScore {
			out[k] = framework.MaxNodeScore * (s - minImageScore) / (highest - minImageScore)
		}
	}
	return true
}

// normalizedImageName adds the implicit ":latest" tag to an image without a
// tag or digest, as node status lists images with one.
func normalizedImageName(name string) string {
	if strings.LastIndex(name, ":") <= strings.LastIndex(name, "/") {
		return name + ":latest"
	}
	return name
}

// familyState is what the plugin keeps for a snapshot family.
type familyState struct {
	images framework.Lazy[imageTable]
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

func newImageTable(nodes []*cluster.Node) *imageTable {
	it := &imageTable{nodes: make(map[string][]nodeImage)}
	for i, n := range nodes {
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
}
