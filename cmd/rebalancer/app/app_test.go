package app

import (
	"bytes"
	"io"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kube-rebalancer/rebalancer/policy"
	schedframework "github.com/kube-rebalancer/rebalancer/scheduler/framework"
	stratframework "github.com/kube-rebalancer/rebalancer/strategies/framework"
	"github.com/kube-rebalancer/rebalancer/strategies/removeduplicates"
)

// nothingArgs and nothing stand for a strategy a program adds.
type nothingArgs struct {
	policy.Common `json:",inline"`
}

func (*nothingArgs) Default()                             {}
func (*nothingArgs) NodeLevelFields() []string            { return nil }
func (*nothingArgs) Validate(*field.Path) field.ErrorList { return nil }

type nothing struct{}

func (nothing) Name() string                 { return "MoveNothing" }
func (nothing) Run(in *stratframework.Cycle) {}

// passAll is a plugin a program adds: every node passes it.
type passAll struct{}

func (passAll) Name() string { return "PassAll" }
func (passAll) PreFilter(*schedframework.Cycle) schedframework.PreFilterResult {
	return schedframework.PreFilterResult{}
}
func (passAll) Filter(*schedframework.Cycle, int) []string { return nil }

var passAllRegistration = schedframework.Registration{
	Points: schedframework.PointFilter,
	New:    func(any, schedframework.Handle) (schedframework.Plugin, error) { return passAll{}, nil },
}

// The options reach the commands, and options that cannot work fail every
// command with exit code 2 instead of running it.
func TestOptions(t *testing.T) {
	moveNothing := WithStrategy(stratframework.Registration{
		Name:    "MoveNothing",
		NewArgs: func() policy.StrategyArgs { return &nothingArgs{} },
		New:     func() stratframework.Strategy { return nothing{} },
	})
	policyFile := writeFile(t, "policy.yaml", `apiVersion: rebalancer.dev/v1alpha1
kind: RebalancePolicy
strategies:
  MoveNothing: {}
scheduler:
  config:
    apiVersion: kubescheduler.config.k8s.io/v1
    kind: KubeSchedulerConfiguration
    profiles:
    - plugins: {filter: {enabled: [{name: PassAll}]}}
`)
	tests := []struct {
		name string
		opts []Option
		args []string
		code int
		out  string // in stdout on success, in stderr otherwise
	}{
		{"version stamped by main", []Option{WithVersion("1.2.3", "abc123")}, []string{"version"}, exitOK, "rebalancer 1.2.3 (commit abc123, go"},
		{"a strategy and a plugin the policy configures", []Option{moveNothing, WithPlugin("PassAll", passAllRegistration)},
			[]string{"validate", policyFile}, exitOK, "valid; strategies: MoveNothing"},
		// The same Option value again: the strategy is registered once.
		{"the same strategy option in a second command", []Option{moveNothing, WithPlugin("PassAll", passAllRegistration)},
			[]string{"plan", "--snapshot", example, "--policy", policyFile}, exitOK, "NODE"},
		{"without the plugin, the policy's scheduler configuration is invalid", []Option{moveNothing},
			[]string{"validate", policyFile}, exitUsage, `scheduler.config: profiles[0].plugins.filter.enabled[0].name: "PassAll" is not a known plugin`},
		{"a plugin given twice", []Option{WithPlugin("PassAll", passAllRegistration), WithPlugin("PassAll", passAllRegistration)},
			[]string{"version"}, exitUsage, `plugin "PassAll" is given twice`},
		{"a plugin under an in-tree name", []Option{WithPlugin("NodeName", passAllRegistration)},
			[]string{"plan", "--snapshot", example}, exitUsage, `plugin "NodeName" is registered twice`},
		{"a plugin without New", []Option{WithPlugin("Nothing", schedframework.Registration{Points: schedframework.PointFilter})},
			[]string{"version"}, exitUsage, `plugin "Nothing": registration without New`},
		{"a strategy under a built-in name", []Option{WithStrategy(stratframework.Registration{
			Name:    "RemoveDuplicates",
			NewArgs: func() policy.StrategyArgs { return &removeduplicates.Args{} },
			New:     func() stratframework.Strategy { return removeDuplicatesLookalike{} },
		})}, []string{"version"}, exitUsage, "strategy RemoveDuplicates is registered twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := Run(tt.args, &stdout, &stderr, tt.opts...)
			if code != tt.code {
				t.Fatalf("exit code %d, want %d; stderr:\n%s", code, tt.code, stderr.String())
			}
			got := stdout.String()
			if code != exitOK {
				got = stderr.String()
			}
			if !strings.Contains(got, tt.out) {
				t.Errorf("output:\n%s\nwant it to contain %q", got, tt.out)
			}
		})
	}
}

type removeDuplicatesLookalike struct{}

func (removeDuplicatesLookalike) Name() string              { return "RemoveDuplicates" }
func (removeDuplicatesLookalike) Run(*stratframework.Cycle) {}

func TestVerbosityArgs(t *testing.T) {
	tests := []struct {
		args, want []string
	}{
		{[]string{"plan", "-v", "2", "--snapshot", "d.yaml"}, []string{"plan", "-v=2", "--snapshot", "d.yaml"}},
		{[]string{"plan", "--v", "4"}, []string{"plan", "--v=4"}},
		{[]string{"plan", "-v=2"}, []string{"plan", "-v=2"}},
		// -v alone is level 1, and what follows it is not a level.
		{[]string{"place", "-v", "pod.yaml"}, []string{"place", "-v", "pod.yaml"}},
		{[]string{"plan", "-v"}, []string{"plan", "-v"}},
		// After --, arguments are not flags.
		{[]string{"place", "--", "-v", "2"}, []string{"place", "--", "-v", "2"}},
	}
	for _, tt := range tests {
		if got := verbosityArgs(tt.args); !slices.Equal(got, tt.want) {
			t.Errorf("verbosityArgs(%q) = %q, want %q", tt.args, got, tt.want)
		}
	}
}

// kubectl's way of asking for more logs, "-v 2", works, and so does -v
// alone: neither takes the level for an argument.
func TestVerbosityFlagForms(t *testing.T) {
	defer Run([]string{"version", "-v=0"}, io.Discard, io.Discard)
	for _, args := range [][]string{{"-v", "2"}, {"--v", "2"}, {"-v=2"}, {"--v=2"}, {"-v"}} {
		var out, errs bytes.Buffer
		code := Run(append([]string{"plan", "--snapshot", "../../../examples/cluster.yaml"}, args...), &out, &errs)
		if code != exitOK {
			t.Errorf("plan %q: exit %d: %s", args, code, errs.String())
			continue
		}
		if strings.Contains(out.String(), "-v lists them") {
			t.Errorf("plan %q did not list the skipped pods, as a verbose plan does", args)
		}
	}
}
