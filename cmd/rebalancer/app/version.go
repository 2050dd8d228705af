package app

import (
	"fmt"
	"runtime"

	"github.com/spf13/cobra"
)

func newVersionCommand(s *settings) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			fmt.Fprintf(c.OutOrStdout(), "rebalancer %s (commit %s, %s)\n", s.version, s.commit, runtime.Version())
			return nil
		},
	}
}
