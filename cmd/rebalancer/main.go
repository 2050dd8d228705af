// Command rebalancer keeps a Kubernetes cluster balanced: it plans which pods
// sit in the wrong place and evicts them through the Eviction API, within
// PodDisruptionBudgets and eviction limits. See `rebalancer --help`; the
// command line itself is package app, which other programs build on.
package main

import (
	"os"

	"github.com/kube-rebalancer/rebalancer/cmd/rebalancer/app"
)

// Set at build time with -ldflags "-X main.version=... -X main.commit=...".
var (
	version = "dev"
	commit  = "unknown"
)

func main() {
	os.Exit(app.Main(app.WithVersion(version, commit)))
}
