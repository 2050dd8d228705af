package cluster_test

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/cluster/synthetic"
)

// TestDecodeInParallelAsInOrder decodes dumps with items decoded by several
// workers and by none: the objects, their order, the ignored kinds and
// every problem reported must be the same.
func TestDecodeInParallelAsInOrder(t *testing.T) {
	objs := synthetic.Generate(synthetic.Spec{Seed: 1, Nodes: 40, Pods: 1200})
	dump := func(format synthetic.Format) string {
		var buf bytes.Buffer
		if err := synthetic.WriteList(&buf, objs, synthetic.DumpOptions{Format: format, Served: true}); err != nil {
			t.Fatal(err)
		}
		return buf.String()
	}
	// badPods is a PodList of n pods whose every other one has a CPU
	// request that is no quantity: more than an error names one by one.
	badPods := func(n int) string {
		var b strings.Builder
		b.WriteString("apiVersion: v1\nkind: PodList\nitems:\n")
		for i := range n {
			cpu := "100m"
			if i%2 == 1 {
				cpu = "lots"
			}
			fmt.Fprintf(&b, "- metadata: {name: web-%03d, namespace: shop}\n  spec: {containers: [{name: c, resources: {requests: {cpu: %s}}}]}\n", i, cpu)
		}
		return b.String()
	}
	tests := []struct {
		name    string
		dump    string
		wantErr string
	}{
		{"a JSON List as kubectl writes it", dump(synthetic.JSON), ""},
		{"a YAML List as kubectl writes it", dump(synthetic.YAML), ""},
		{"a YAML List with more bad pods than are named", badPods(100), "shop/web-001"},
		{"a YAML List whose items share an anchor", "apiVersion: v1\nkind: List\nitems:\n" +
			"- {apiVersion: v1, kind: Node, metadata: {name: n1, labels: &l {zone: a}}}\n" +
			strings.Repeat("- {apiVersion: v1, kind: Namespace, metadata: {name: ns}}\n", 300) +
			"- {apiVersion: v1, kind: Node, metadata: {name: n2, labels: *l}}\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inOrder, ignoredInOrder, errInOrder := cluster.DecodeWith(strings.NewReader(tt.dump), 1)
			parallel, ignored, err := cluster.DecodeWith(strings.NewReader(tt.dump), 4)
			if tt.wantErr == "" && err != nil {
				t.Fatalf("Decode: %v", err)
			}
			if fmt.Sprint(err) != fmt.Sprint(errInOrder) {
				t.Fatalf("with workers the error is\n%v\nin order\n%v", err, errInOrder)
			}
			if tt.wantErr != "" && (err == nil || !strings.Contains(strings.SplitN(err.Error(), "\n", 2)[0], tt.wantErr)) {
				t.Errorf("the first problem does not name %s: %v", tt.wantErr, err)
			}
			if !reflect.DeepEqual(parallel, inOrder) || !reflect.DeepEqual(ignored, ignoredInOrder) {
				t.Errorf("with workers the objects differ from those decoded in order")
			}
		})
	}
}
