package app

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/policy"
)

func newValidateCommand(s *settings) *cobra.Command {
	return &cobra.Command{
		Use:   "validate POLICY_FILE",
		Short: "Check a policy file and report every problem in it",
		Long: `Check a RebalancePolicy file: unknown fields, bad values and conflicting
settings are all reported at once, each with the field path and the value.
The scheduler configuration the policy names is loaded and checked too.
These are the checks plan and run make before they read a cluster, run by
the same code: a policy validate accepts, they accept. Exit code 0 when the
policy is valid, 2 when it is not. The policy and the scheduler configuration
it names are regular files of at most 1 MiB each, checked before they are
read.

validate reads no cluster, so it cannot tell whether a PriorityClass that
evictable.priorityThreshold.name names exists: it refuses only the names the
API server never admits (system-… other than system-cluster-critical and
system-node-critical) and says which classes plan and run will look up; they
refuse the policy (exit 2, before any eviction) when the class is missing.`,
		Example: "  rebalancer validate examples/policy.yaml",
		Args:    cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			p, err := policy.LoadFile(args[0])
			if err != nil {
				return err
			}
			if _, err := checkPolicy(p, s.plugins); err != nil {
				return err
			}
			enabled := p.Enabled()
			if len(enabled) == 0 {
				enabled = []string{"none: this policy moves nothing"}
			}
			out := c.OutOrStdout()
			fmt.Fprintf(out, "%s: valid; strategies: %s\n", args[0], strings.Join(enabled, ", "))
			for _, name := range p.PriorityClassNames() {
				if !cluster.IsBuiltinPriorityClass(name) {
					fmt.Fprintf(out, "%s: PriorityClass %s must exist in the cluster: plan and run look it up and refuse the policy without it\n", args[0], name)
				}
			}
			return nil
		},
	}
}
