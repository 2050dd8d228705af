// Package draining is a scheduler plugin written outside rebalancer, as an
// example of an out-of-tree plugin: it keeps pods off nodes that are being
// drained, and prefers nodes that are not about to be.
package draining

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/json"

	"github.com/kube-rebalancer/rebalancer/scheduler/framework"
)

// Name is the plugin's name in a KubeSchedulerConfiguration.
const Name = "Draining"

// ErrReasonDraining is why a node fails the filter, in kube-scheduler's
// words: "0/4 nodes are available: 1 node(s) are draining, …".
const ErrReasonDraining = "node(s) are draining"

// Default labels; a node carries them with any value.
const (
	DefaultDrainingLabel  = "rebalancer.dev/draining"
	DefaultDrainSoonLabel = "rebalancer.dev/drain-soon"
)

// Registration is what rebalancer needs to know of the plugin: a profile
// may enable it at Filter and Score (or multiPoint), its pluginConfig args
// are checked when the configuration is loaded, and New builds it.
var Registration = framework.Registration{
	Points: framework.PointFilter | framework.PointScore,
	Args:   decodeArgs,
	New:    New,
}

// Args are the plugin's pluginConfig args.
type Args struct {
	// DrainingLabel marks the nodes no pod may go to: the filter turns
	// them down.
	DrainingLabel string `json:"drainingLabel,omitempty"`
	// DrainSoonLabel marks the nodes a pod should go to only when nothing
	// else fits: they score 0, every other node 100.
	DrainSoonLabel string `json:"drainSoonLabel,omitempty"`
}

// decodeArgs decodes the args strictly (an unknown or misspelt field is an
// error, as in kube-scheduler), applies the defaults and checks the label
// keys. Errors name the field under path.
func decodeArgs(raw []byte, path string) (any, error) {
	a := &Args{}
	if len(raw) != 0 {
		strict, err := json.UnmarshalStrict(raw, a)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if len(strict) > 0 {
			return nil, fmt.Errorf("%s: %w", path, strict[0])
		}
	}
	if a.DrainingLabel == "" {
		a.DrainingLabel = DefaultDrainingLabel
	}
	if a.DrainSoonLabel == "" {
		a.DrainSoonLabel = DefaultDrainSoonLabel
	}
	for _, f := range []struct{ field, key string }{{"drainingLabel", a.DrainingLabel}, {"drainSoonLabel", a.DrainSoonLabel}} {
		if errs := validation.IsQualifiedName(f.key); len(errs) > 0 {
			return nil, fmt.Errorf("%s.%s: %q is not a label key: %s", path, f.field, f.key, errs[0])
		}
	}
	return a, nil
}

// Draining is the plugin. It keeps no state per pod: a node's labels say
// everything.
type Draining struct {
	args Args
}

var (
	_ framework.FilterPlugin = (*Draining)(nil)
	_ framework.ScorePlugin  = (*Draining)(nil)
)

// maxScore is the best normalized score a plugin gives.
const maxScore = 100

// reasonDraining is Filter's answer for a draining node, built once so
// that Filter does not allocate.
var reasonDraining = []string{ErrReasonDraining}

// New builds the plugin from the args decodeArgs returned.
func New(args any, _ framework.Handle) (framework.Plugin, error) {
	a, ok := args.(*Args)
	if !ok {
		return nil, fmt.Errorf("%s: args of type %T, want *draining.Args", Name, args)
	}
	return &Draining{args: *a}, nil
}

// Name implements framework.Plugin.
func (*Draining) Name() string { return Name }

// PreFilter implements framework.FilterPlugin: every pod is checked.
func (*Draining) PreFilter(*framework.Cycle) framework.PreFilterResult {
	return framework.PreFilterResult{}
}

// Filter implements framework.FilterPlugin.
func (d *Draining) Filter(c *framework.Cycle, i int) []string {
	if _, ok := c.Nodes()[i].Labels[d.args.DrainingLabel]; ok {
		return reasonDraining
	}
	return nil
}

// Score implements framework.ScorePlugin. Draining nodes never get here:
// the filter turned them down.
func (d *Draining) Score(c *framework.Cycle, feasible []int32, out []int64) bool {
	for k, i := range feasible {
		out[k] = maxScore
		if _, soon := c.Nodes()[i].Labels[d.args.DrainSoonLabel]; soon {
			out[k] = 0
		}
	}
	return true
}
