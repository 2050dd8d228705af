package cluster_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/cluster/synthetic"
)

// BenchmarkDecodeGeneratedDump decodes the dump of a generated cluster as
// kubectl prints it, with what an API server adds to its objects, in YAML
// and JSON, and in YAML with the annotation kubectl apply leaves on what
// it applies. B/op is what decoding allocates in all; the peak a process
// reaches is `make bench`'s.
//
//	go test ./cluster -run '^$' -bench DecodeGeneratedDump -benchmem
func BenchmarkDecodeGeneratedDump(b *testing.B) {
	objs := synthetic.Generate(synthetic.Spec{Seed: 1, Nodes: 100, Pods: 3000})
	for _, c := range []struct {
		name string
		opts synthetic.DumpOptions
	}{
		{"yaml", synthetic.DumpOptions{Format: synthetic.YAML, Served: true}},
		{"json", synthetic.DumpOptions{Format: synthetic.JSON, Served: true}},
		{"yaml-last-applied", synthetic.DumpOptions{Format: synthetic.YAML, Served: true, LastApplied: true}},
	} {
		var buf bytes.Buffer
		if err := synthetic.WriteList(&buf, objs, c.opts); err != nil {
			b.Fatal(err)
		}
		data := buf.Bytes()
		b.Run(fmt.Sprintf("format=%s/nodes=100/pods=3000", c.name), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				got, _, err := cluster.Decode(bytes.NewReader(data))
				if err != nil || len(got.Pods) != len(objs.Pods) {
					b.Fatalf("decoded %d pods, want %d: %v", len(got.Pods), len(objs.Pods), err)
				}
			}
		})
	}
}
