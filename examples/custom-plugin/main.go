// Command custom-plugin is rebalancer with one scheduler plugin of its own,
// Draining (package draining), built the way kube-scheduler users add
// plugins: the whole command line of package app, with an option. A
// KubeSchedulerConfiguration enables the plugin; see README.md.
package main

import (
	"os"

	"github.com/kube-rebalancer/rebalancer/cmd/rebalancer/app"
	"github.com/kube-rebalancer/rebalancer/examples/custom-plugin/draining"
)

func main() {
	os.Exit(app.Main(app.WithPlugin(draining.Name, draining.Registration)))
}
