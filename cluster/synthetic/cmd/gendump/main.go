// Command gendump writes the dump of a large synthetic cluster (see package
// synthetic) as `kubectl get nodes,pods,pdb,namespaces,replicasets,
// statefulsets,jobs,priorityclasses,pv,pvc,storageclasses,csinodes -A -o
// yaml` prints one, for measuring
// `rebalancer plan --snapshot` at scale:
//
//	go run ./cluster/synthetic/cmd/gendump -nodes 5000 -pods-per-node 30 > dump.yaml
//	rebalancer plan --snapshot dump.yaml -v=1
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/kube-rebalancer/rebalancer/cluster/synthetic"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "gendump:", err)
		os.Exit(2)
	}
}

func run(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("gendump", flag.ContinueOnError)
	var (
		spec          synthetic.Spec
		podsPerNode   int
		format        string
		bare          bool
		managedFields bool
		lastApplied   bool
	)
	fs.Uint64Var(&spec.Seed, "seed", 1, "the same seed and sizes give the same dump")
	fs.IntVar(&spec.Nodes, "nodes", 1000, "nodes")
	fs.IntVar(&podsPerNode, "pods-per-node", 30, "pods, as a multiple of the nodes")
	fs.IntVar(&spec.Pods, "pods", 0, "pods (overrides -pods-per-node)")
	fs.IntVar(&spec.Zones, "zones", 3, "zones the nodes are spread over")
	fs.StringVar(&format, "o", "yaml", "yaml or json, as kubectl get -o prints")
	fs.BoolVar(&bare, "bare", false, "write the generated objects only, without what an API server and the kubelet add (defaults, service account volumes, container statuses, node conditions)")
	fs.BoolVar(&managedFields, "managed-fields", false, "add managedFields, as kubectl get --show-managed-fields prints them")
	fs.BoolVar(&lastApplied, "last-applied", false, "add the kubectl.kubernetes.io/last-applied-configuration annotation that kubectl apply leaves, to the kinds a user applies (namespaces, priority classes, StatefulSets, Jobs, PodDisruptionBudgets, storage classes)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if spec.Nodes <= 0 {
		return fmt.Errorf("-nodes %d: at least one node", spec.Nodes)
	}
	if spec.Pods == 0 {
		spec.Pods = spec.Nodes * podsPerNode
	}
	if f := synthetic.Format(format); f != synthetic.YAML && f != synthetic.JSON {
		return fmt.Errorf("-o %q: yaml or json", format)
	}
	return synthetic.WriteList(out, synthetic.Generate(spec), synthetic.DumpOptions{
		Format: synthetic.Format(format), Served: !bare, ManagedFields: managedFields, LastApplied: lastApplied})
}
