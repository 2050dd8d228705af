package scheduler

import (
	"strings"
)

// ImageLocality's thresholds, as kube-scheduler's: images smaller than
// minImageScore in total score nothing, and each container can add at most
// maxContainerImageScore.
const (
	mebibyte               int64 = 1024 * 1024
	minImageScore                = 23 * mebibyte
	maxContainerImageScore       = 1000 * mebibyte
)

// ImageLocality is the plugin's name in a profile.
const ImageLocality = "ImageLocality"

// imageLocality prefers nodes that already hold the pod's images, weighing
// each image by its size and by the share of nodes that hold it (an image
// every node has says nothing about where to go).
type imageLocality struct {
	key StateKey
}

var _ ScorePlugin = (*imageLocality)(nil)

func newImageLocality(_ any, h Handle) (Plugin, error) { return &imageLocality{key: h.StateKey()}, nil }

// imageState is the per-node sum of image sizes, a buffer kept from cycle
// to cycle.
type imageState struct {
	sums []int64
}

// Reset keeps the buffer.
func (*imageState) Reset() {}

func (*imageLocality) Name() string { return ImageLocality }

func (p *imageLocality) Score(c *Cycle, feasible []int32, out []int64) bool {
	table := c.t.imageTable()
	total := float64(len(c.nodes))
	sums := zeroed(&State[imageState](c, p.key).sums, len(c.nodes))
	add := func(image string) {
		list := table.nodes[normalizedImageName(image)]
		spread := float64(len(list)) / total
		for _, ni := range list {
			sums[ni.node] += int64(float64(ni.size) * spread)
		}
	}
	spec := &c.pod.Spec
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
			out[k] = maxNodeScore * (s - minImageScore) / (highest - minImageScore)
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
