package cluster_test

import (
	"fmt"
	"testing"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/cluster/synthetic"
)

// BenchmarkNew builds a snapshot, indexes and effective requests included,
// from the objects of generated clusters.
//
//	go test -run '^$' -bench BenchmarkNew -benchmem ./cluster
func BenchmarkNew(b *testing.B) {
	for _, size := range []struct{ nodes, pods int }{{500, 15000}, {5000, 150000}} {
		b.Run(fmt.Sprintf("nodes=%d/pods=%d", size.nodes, size.pods), func(b *testing.B) {
			objs := synthetic.Generate(synthetic.Spec{Seed: 1, Nodes: size.nodes, Pods: size.pods})
			b.ReportAllocs()
			for b.Loop() {
				if _, err := cluster.New(objs, synthetic.Spec{}.Now); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
