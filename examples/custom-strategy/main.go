// Command custom-strategy is rebalancer with one strategy of its own,
// PodMaxAge (package maxage), built the way the custom-plugin example adds
// a scheduler plugin: the whole command line of package app, with an
// option. A policy configures the strategy; see README.md.
package main

import (
	"os"

	"github.com/kube-rebalancer/rebalancer/cmd/rebalancer/app"
	"github.com/kube-rebalancer/rebalancer/examples/custom-strategy/maxage"
)

func main() {
	os.Exit(app.Main(app.WithStrategy(maxage.Registration)))
}
