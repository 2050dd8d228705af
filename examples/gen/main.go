// Command gen writes examples/cluster.yaml: the dump of a small, imbalanced
// cluster in the form `kubectl get nodes,pods,pdb,namespaces,deployments,
// replicasets,priorityclasses,pv,pvc,storageclasses,csinodes -A -o yaml` prints, on which the README's first command
// runs. Generating it keeps seventy pods consistent with their nodes and
// owners; the test next to it keeps the committed file in step.
//
//	go run ./examples/gen > examples/cluster.yaml
package main

import (
	"fmt"
	"os"
)

func main() {
	out, err := render()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if _, err := os.Stdout.Write(out); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
