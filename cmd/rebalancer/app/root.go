package app

import (
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/klog/v2"

	"github.com/kube-rebalancer/rebalancer/report"
)

// NewCommand returns rebalancer's command line with the options: the
// command that `rebalancer` runs, with every subcommand.
func NewCommand(opts ...Option) *cobra.Command {
	s := newSettings(opts)
	root := &cobra.Command{
		Use:   "rebalancer",
		Short: "Move pods that sit in the wrong place, safely",
		Long: `rebalancer keeps a Kubernetes cluster balanced. Each cycle it reads a policy,
looks at the cluster, decides which pods sit in the wrong place and where each
would go instead, and evicts them through the Eviction API, within
PodDisruptionBudgets and per-node, per-namespace, per-workload and total limits.

Exit codes: 0 done (evictions a PodDisruptionBudget refused are reported, not
fatal); 1 the run failed (API server unreachable, permission denied, failed
evictions); 2 bad usage, invalid policy or snapshot, and then nothing is evicted.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		// A program built with options that cannot work runs nothing.
		PersistentPreRunE: func(*cobra.Command, []string) error { return errors.Join(s.errs...) },
	}
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		//nolint:staticcheck // ST1005: printed as is, as the last lines of a usage error, like cobra's own hint.
		return fmt.Errorf("%w\nSee '%s --help'.", err, c.CommandPath())
	})

	// klog's -v is the one logging flag users need; the rest stay hidden.
	klogFlags := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(klogFlags)
	root.PersistentFlags().AddGoFlag(klogFlags.Lookup("v"))
	root.PersistentFlags().Lookup("v").Shorthand = "v"
	root.PersistentFlags().Lookup("v").Usage = "log verbosity: 1 for each strategy's outcome, 2 for node classification, 4 for every decision; with -o table, also lists every skipped pod"
	root.PersistentFlags().Lookup("v").NoOptDefVal = "1"

	root.AddCommand(newRunCommand(s), newPlanCommand(s), newValidateCommand(s), newConvertCommand(s), newVersionCommand(s), newPlaceCommand(s), newScheduleCommand(s), newSchedulerUsersCommand(s), newExtenderCommand(s), newRBACCommand())
	return root
}

// verbose reports whether -v was given.
func verbose(c *cobra.Command) bool {
	f := c.Flags().Lookup("v")
	return f != nil && f.Changed && f.Value.String() != "0"
}

func addOutputFlag(c *cobra.Command, out *string) {
	c.Flags().StringVarP(out, "output", "o", report.Table, "output format: "+strings.Join(report.Formats, ", "))
}

func checkOutput(out string) error {
	for _, f := range report.Formats {
		if out == f {
			return nil
		}
	}
	return fmt.Errorf("--output %q is not one of %s", out, strings.Join(report.Formats, ", "))
}
