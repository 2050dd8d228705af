package app

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/kube-rebalancer/rebalancer/rebalance"
	"github.com/kube-rebalancer/rebalancer/report"
)

type runOptions struct {
	kube        kubeFlags
	policyFile  string
	dryRun      bool
	interval    time.Duration
	output      string
	pushgateway string
	metricsAddr string
	state       string
	election    electionFlags
}

func newRunCommand(s *settings) *cobra.Command {
	o := runOptions{kube: kubeFlags{qps: 20, burst: 30}}
	c := &cobra.Command{
		Use:   "run",
		Short: "Run rebalancing cycles against a cluster",
		Long: `Read the cluster, plan which pods to move and evict them through the Eviction
API. With --interval 0 (the default) it runs one cycle and exits, as a CronJob
does; with --interval it repeats until stopped, as a Deployment does.

--dry-run reads the cluster and prints the plan without changing anything: the
same report 'plan --snapshot' prints for a dump of the cluster.

SIGTERM stops further evictions; the report of what was done is still printed
and the events already recorded are written before the process exits.`,
		Example: `  # What would move right now, and where to?
  rebalancer run --dry-run --kubeconfig ~/.kube/config --policy policy.yaml

  # One real cycle, as the CronJob runs it
  rebalancer run --policy /etc/rebalancer/policy.yaml -o json`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if err := checkOutput(o.output); err != nil {
				return err
			}
			if o.interval < 0 {
				return fmt.Errorf("--interval must not be negative")
			}
			pol, err := loadPolicy(o.policyFile)
			if err != nil {
				return err
			}
			placer, err := newPlacer(pol, s.plugins)
			if err != nil {
				return err
			}
			client, _, err := o.kube.client(s.userAgent("rebalancer"))
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(c.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			history, err := historyStore(o.state, client, pol)
			if err != nil {
				return err
			}
			r := rebalance.New(rebalance.Config{
				Client: client, Policy: pol, Placer: placer, History: history,
				DryRun: o.dryRun, Interval: o.interval, Pushgateway: o.pushgateway,
				Print: func(rep *report.Report) error {
					return report.Print(c.OutOrStdout(), rep, o.output, verbose(c))
				},
			})
			if o.metricsAddr != "" {
				go serveMetrics(ctx, o.metricsAddr, r.Metrics().Registry)
			}
			run := func(ctx context.Context) error { return runtimeErr(r.Run(ctx)) }
			if o.election.enabled {
				return o.election.run(ctx, client, run)
			}
			return run(ctx)
		},
	}
	f := c.Flags()
	f.StringVar(&o.kube.kubeconfig, "kubeconfig", "", "kubeconfig file (default: $KUBECONFIG, ~/.kube/config, or the in-cluster configuration)")
	f.StringVar(&o.kube.context, "context", "", "kubeconfig context to use (default: the current context)")
	f.Float32Var(&o.kube.qps, "qps", o.kube.qps, "API requests per second, evictions included")
	f.IntVar(&o.kube.burst, "burst", o.kube.burst, "API requests allowed in a burst above --qps")
	f.StringVar(&o.policyFile, "policy", "", "RebalancePolicy file (default: the built-in policy; see rebalancer plan --help)")
	f.BoolVar(&o.dryRun, "dry-run", false, "plan and print, evict nothing")
	f.DurationVar(&o.interval, "interval", 0, "time between cycles; 0 runs one cycle and exits (for a CronJob)")
	f.StringVar(&o.pushgateway, "pushgateway", "", "Prometheus Pushgateway URL to push each cycle's metrics to (for a CronJob, whose process is gone before a scrape)")
	f.StringVar(&o.state, "state-configmap", "", "NAMESPACE/NAME of the ConfigMap that remembers recent evictions across runs, for the policy's cooldown and the scheduler's hand-off (default: $POD_NAMESPACE/rebalancer-state inside a pod, none outside)")
	f.StringVar(&o.metricsAddr, "metrics-addr", "", "serve /metrics and /healthz on this address (e.g. :8080), for --interval runs")
	o.election.addFlags(c)
	addOutputFlag(c, &o.output)
	return c
}
