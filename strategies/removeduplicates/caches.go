package removeduplicates

import (
	"slices"
	"strings"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/strategies/framework"
)

// caches is what the strategy keeps for the rest of a cycle.
type caches struct {
	duplicates duplicateCounts
	images     cluster.PodTable[string]
}

var cycleCaches = framework.NewSlot[caches]()

// duplicateCounts counts one group of duplicates by node index; set lists
// the nodes whose count is not zero.
type duplicateCounts struct {
	counts []int32
	set    []int32
}

// imageKey identifies the set of images of a pod's containers.
func imageKey(in *framework.Cycle, p *cluster.Pod) string {
	if in.NoCache {
		return imagesOf(p)
	}
	return cycleCaches.Of(in).images.Get(in.Snapshot, p, imagesOf)
}

func imagesOf(p *cluster.Pod) string {
	images := make([]string, 0, len(p.Spec.Containers))
	for _, c := range p.Spec.Containers {
		images = append(images, c.Image)
	}
	slices.Sort(images)
	return strings.Join(images, ",")
}
