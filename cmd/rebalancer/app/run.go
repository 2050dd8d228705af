package app

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/client-go/kubernetes"

	"github.com/kube-rebalancer/rebalancer/cluster/kube"
	"github.com/kube-rebalancer/rebalancer/rebalance"
	"github.com/kube-rebalancer/rebalancer/report"
	"github.com/kube-rebalancer/rebalancer/scheduler/engine"
)

type runOptions struct {
	kube        kubeFlags
	policyFile  string
	dryRun      bool
	interval    time.Duration
	stepTimeout time.Duration
	maxDuration time.Duration
	output      string
	pushgateway string
	pushInst    string
	metricsAddr string
	metricsFile string
	// namespaceLabel adds the namespace label to rebalancer_evictions_total.
	namespaceLabel bool
	state          string
	noState        bool
	runLease       string
	election       electionFlags
	profiles       profileFlags
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
and the events already recorded are written before the process exits.

A plan is a sequence of steps: within a step no PodDisruptionBudget and no
per-node, per-namespace or per-workload limit is exceeded. A run makes a
step's evictions, waits until their replacements are Ready and the budgets
allow the next step's (at most --step-timeout), then goes on. --max-duration
bounds the evictions from the cycle's start: past it no eviction starts, a
step under way makes no more, and no wait goes on. When a bound is hit the
run stops, says why in its report (what it was waiting for, or which step
it cut short), and leaves the rest to the next run. A run that loses the run
Lease, or gets SIGTERM, stops the same way and says which.

A policy's disruptionWindows say when runs may evict: a cycle that starts
outside every window that allows evictions, or inside one with evict: false,
plans and reports as --dry-run does (it takes no Lease, evicts and records
nothing, exits 0) and says why; inside a window, the window's limits apply.
With --interval, when the next cycle would fall outside them, the loop sleeps
until the next window opens.

Runs that evict take turns, one at a time in the whole cluster: each first
takes the Lease ` + defaultRunLease + ` (--run-lease) and renews it while it
works, whatever its state settings (--no-state, another --state-configmap).
A run that finds the Lease held by another exits 0 at once, saying who holds
it since when; a crashed run's Lease expires after 30s. A run that may not
take it (no RBAC for the Lease) evicts nothing and exits 1 naming the Lease
and the verb it lacks. --dry-run takes no Lease.

Every run leaves its outcome behind, a failed one's too (an invalid policy, an
unreachable API server): its metrics (--metrics-addr, --pushgateway,
--metrics-file) with rebalancer_last_cycle_success 0 when it failed, and the
last-run record in the state ConfigMap (key last-run.json: when it ran, how
long it took, what it planned and evicted, the error, the last success). A dry
run records itself only when it runs in the cluster ($POD_NAMESPACE set).`,
		Example: `  # What would move right now, and where to?
  rebalancer run --dry-run --kubeconfig ~/.kube/config --policy policy.yaml

  # One real cycle, as the CronJob runs it
  rebalancer run --policy /etc/rebalancer/policy.yaml -o json`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			start := time.Now()
			tightenGC()
			stopProfiles, err := o.profiles.start()
			if err != nil {
				return err
			}
			defer stopProfiles()
			limitMemory(0)
			metrics := report.NewMetricsWith(report.MetricsOptions{Version: s.version, Revision: s.commit, NamespaceLabel: o.namespaceLabel})
			pub := &rebalance.Publisher{Metrics: metrics, Pushgateway: o.pushgateway,
				PushInstance: pushInstance(o.pushInst), MetricsFile: o.metricsFile}
			runner, client, err := o.setUp(c, s, pub)
			if err != nil {
				// A run that cannot even start must still show as failed
				// to whoever watches the metrics or the last-run record.
				pub.Publish(c.Context(), start, o.dryRun, nil, err)
				return err
			}
			ctx, stop := signal.NotifyContext(c.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			if o.metricsAddr != "" {
				go serveMetrics(ctx, o.metricsAddr, pub.Metrics.Registry)
			}
			run := func(ctx context.Context) error { return runtimeErr(runner.Run(ctx)) }
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
	f.DurationVar(&o.stepTimeout, "step-timeout", rebalance.DefaultStepTimeout, "how long to wait, between two steps of a plan, for the replacements to be Ready and the PodDisruptionBudgets to allow the next step; past it the cycle stops and leaves the rest to the next")
	f.DurationVar(&o.maxDuration, "max-duration", 9*time.Minute, "how long a cycle may evict, from its start (reading and planning included): past it no eviction starts and no wait between steps goes on, and the report says what was still settling; then the run still writes the events of its evictions (at most 10s), its report, and its last-run record and metrics (at most 10s each): keep it below a CronJob's activeDeadlineSeconds by that much; 0: no bound")
	f.StringVar(&o.pushgateway, "pushgateway", "", "Prometheus Pushgateway URL to push each cycle's metrics to (for a CronJob, whose process is gone before a scrape)")
	f.StringVar(&o.pushInst, "pushgateway-instance", "", "the instance label the metrics are pushed under, the same for every run of one installation (default: $POD_NAMESPACE inside a pod, else the host name); give each cluster its own when several push to one Pushgateway")
	f.StringVar(&o.state, "state-configmap", "", "NAMESPACE/NAME of the ConfigMap that remembers recent evictions across runs, for the policy's cooldown and the scheduler's hand-off (default: $POD_NAMESPACE/"+defaultStateName+" inside a pod; outside one, a run that evicts needs this flag or --no-state)")
	f.BoolVar(&o.noState, "no-state", false, "keep no state: ignore earlier runs' evictions (the cooldown) and record none; the run still takes the run Lease")
	f.StringVar(&o.runLease, "run-lease", defaultRunLease, "NAMESPACE/NAME of the Lease every run that evicts takes, so that two never evict at once; give both, and the same to every run of the cluster (the CronJob's included)")
	f.StringVar(&o.metricsFile, "metrics-file", "", "write each cycle's metrics to this file in the Prometheus text format (for node-exporter's textfile collector, which reads *.prom files)")
	f.BoolVar(&o.namespaceLabel, "metrics-namespace-label", false, "add the pod's namespace as a label of rebalancer_evictions_total (strategy, namespace, result); off by default, since a series per namespace, strategy and result can be many")
	f.StringVar(&o.metricsAddr, "metrics-addr", "", "serve /metrics and /healthz on this address (e.g. :8080), for --interval runs")
	o.election.addFlags(c)
	o.profiles.addFlags(c)
	addOutputFlag(c, &o.output)
	return c
}

// setUp checks the flags, loads the policy and connects to the cluster. The
// state ConfigMap becomes the Publisher's record as early as there is a
// client, so that a run refused for its policy still leaves its record.
func (o *runOptions) setUp(c *cobra.Command, s *settings, pub *rebalance.Publisher) (*rebalance.Runner, kubernetes.Interface, error) {
	if err := checkOutput(o.output); err != nil {
		return nil, nil, err
	}
	if o.interval < 0 || o.stepTimeout < 0 || o.maxDuration < 0 {
		return nil, nil, fmt.Errorf("--interval, --step-timeout and --max-duration must not be negative")
	}
	// A bad policy is the error to report, but the run still connects, when
	// it can, to leave its record.
	pol, polErr := loadPolicy(o.policyFile)
	var placer engine.Placer
	if polErr == nil {
		placer, polErr = checkPolicy(pol, s.plugins)
	}
	leaseNS, leaseName, err := parseRunLease(o.runLease)
	if err != nil {
		return nil, nil, cmp.Or(polErr, err)
	}
	if err := o.checkState(); err != nil {
		return nil, nil, cmp.Or(polErr, err)
	}
	client, _, err := o.kube.client(s.userAgent("rebalancer"))
	if err != nil {
		return nil, nil, cmp.Or(polErr, err)
	}
	var history *kube.HistoryStore
	if !o.noState {
		if history, err = historyStore(o.state, client); err != nil {
			return nil, nil, cmp.Or(polErr, err)
		}
	}
	// A dry run from a laptop changes nothing in the cluster; one that runs
	// there as the CronJob does records that it ran.
	if history != nil && (!o.dryRun || inPod()) {
		pub.Record = history
	}
	if polErr != nil {
		return nil, nil, polErr
	}
	keepEvictions(history, pol)
	if history != nil {
		// A run that evicts replaces a state it cannot use; a dry run
		// changes nothing.
		history.Heal = !o.dryRun
	}
	// Every run that evicts takes the one Lease, whatever its state: runs
	// with different states, or none, would otherwise evict at once.
	var lock *kube.RunLock
	if !o.dryRun {
		lock = runLock(client, leaseNS, leaseName)
	}
	r := rebalance.New(rebalance.Config{
		Client: client, Policy: pol, Placer: placer, History: history, Lock: lock,
		DryRun: o.dryRun, Interval: o.interval, StepTimeout: o.stepTimeout, MaxDuration: o.maxDuration, Publisher: pub,
		Print: func(rep *report.Report) error {
			return report.Print(c.OutOrStdout(), rep, o.output, verbose(c))
		},
	})
	return r, client, nil
}

// pushInstance is the instance the runs of one installation push under: a
// CronJob's pods each have a name of their own, their namespace does not.
func pushInstance(flag string) string {
	if flag != "" {
		return flag
	}
	if inPod() {
		return os.Getenv("POD_NAMESPACE")
	}
	if host, err := os.Hostname(); err == nil {
		return host
	}
	return "unknown"
}

// checkState refuses a run that would evict with no memory: from outside a
// pod, with no --state-configmap, it would evict again what the CronJob
// just moved (its cooldown unknown) and leave the next run no record of its
// own evictions. A dry run changes nothing, and may go without.
func (o *runOptions) checkState() error {
	if err := checkStateFlag(o.state); err != nil {
		return err
	}
	switch {
	case o.noState && o.state != "":
		return fmt.Errorf("--no-state and --state-configmap exclude each other")
	case o.dryRun || o.noState || o.state != "" || inPod():
		return nil
	}
	return fmt.Errorf("a run that evicts needs the state the in-cluster runs keep, for the cooldown and for the next run: "+
		"name it with --state-configmap NAMESPACE/NAME (the chart's is %s in its release namespace, e.g. --state-configmap rebalancer/%s), "+
		"or run with --no-state to evict with no memory of earlier runs, or with --dry-run", defaultStateName, defaultStateName)
}
