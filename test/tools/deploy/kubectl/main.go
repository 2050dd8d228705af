// Command kubectl is kubectl, built from the k8s.io/kubectl library so that
// test/deploy can run the documented kubectl commands against the test
// control plane; k8s.io/kubernetes/cmd/kubectl is this same call.
package main

import (
	"k8s.io/component-base/cli"
	"k8s.io/kubectl/pkg/cmd"
	"k8s.io/kubectl/pkg/cmd/util"
)

func main() {
	command := cmd.NewDefaultKubectlCommand()
	if err := cli.RunNoErrOutput(command); err != nil {
		util.CheckErr(err)
	}
}
