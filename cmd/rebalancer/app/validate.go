package app

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kube-rebalancer/rebalancer/policy"
)

func newValidateCommand(s *settings) *cobra.Command {
	return &cobra.Command{
		Use:   "validate POLICY_FILE",
		Short: "Check a policy file and report every problem in it",
		Long: `Check a RebalancePolicy file: unknown fields, bad values and conflicting
settings are all reported at once, each with the field path and the value.
The scheduler configuration the policy names is loaded and checked too.
Exit code 0 when the policy is valid, 2 when it is not.`,
		Example: "  rebalancer validate examples/policy.yaml",
		Args:    cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			p, err := policy.LoadFile(args[0])
			if err != nil {
				return err
			}
			if _, err := newPlacer(p, s.plugins); err != nil {
				return err
			}
			enabled := p.Enabled()
			if len(enabled) == 0 {
				enabled = []string{"none: this policy moves nothing"}
			}
			fmt.Fprintf(c.OutOrStdout(), "%s: valid; strategies: %s\n", args[0], strings.Join(enabled, ", "))
			return nil
		},
	}
}
