package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/spf13/cobra"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/cluster/kube"
	"github.com/kube-rebalancer/rebalancer/evictor"
	"github.com/kube-rebalancer/rebalancer/planner"
	"github.com/kube-rebalancer/rebalancer/policy"
	"github.com/kube-rebalancer/rebalancer/report"
	"github.com/kube-rebalancer/rebalancer/scheduler"
)

// eventFlushTimeout bounds the wait for the last events at the end of a
// cycle.
const eventFlushTimeout = 10 * time.Second

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

func newRunCommand() *cobra.Command {
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
			placer, err := newPlacer(pol)
			if err != nil {
				return err
			}
			client, _, err := o.kube.client("rebalancer")
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(c.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			history, err := historyStore(o.state, client, pol)
			if err != nil {
				return err
			}
			r := &runner{opts: &o, policy: pol, placer: placer, client: client, history: history, metrics: report.NewMetrics(),
				verbose: verbose(c), print: func(rep *report.Report) error {
					return report.Print(c.OutOrStdout(), rep, o.output, verbose(c))
				}}
			if o.metricsAddr != "" {
				go r.serveMetrics(ctx)
			}
			if o.election.enabled {
				return o.election.run(ctx, client, r.loop)
			}
			return r.loop(ctx)
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

type runner struct {
	opts    *runOptions
	policy  *policy.Policy
	placer  scheduler.Placer
	client  kubernetes.Interface
	history *kube.HistoryStore
	metrics *report.Metrics
	verbose bool
	print   func(*report.Report) error
}

// loop runs one cycle, or cycles every --interval until ctx ends. In a loop
// a failed cycle is logged and the next one tries again, as a controller
// does; a single cycle's failure is the process's.
func (r *runner) loop(ctx context.Context) error {
	if r.opts.interval == 0 {
		return r.cycle(ctx)
	}
	for {
		if err := r.cycle(ctx); err != nil {
			klog.ErrorS(err, "Cycle failed")
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(r.opts.interval):
		}
	}
}

func (r *runner) cycle(ctx context.Context) error {
	start := time.Now()
	objs, err := kube.ReadObjects(ctx, r.client)
	if err != nil {
		return runtimeErr(fmt.Errorf("reading the cluster: %w", err))
	}
	// Whole seconds, so that `plan --now` can name the same instant.
	snap, err := cluster.New(objs, time.Now().Truncate(time.Second))
	if err != nil {
		return runtimeErr(fmt.Errorf("reading the cluster: %w", err))
	}
	klog.InfoS("Read the cluster", "nodes", len(snap.Nodes()), "pods", len(snap.Pods()), "pdbs", len(snap.PDBs()),
		"took", time.Since(start).Round(time.Millisecond))
	logStrays(snap)

	var past []cluster.Eviction
	if r.history != nil {
		if past, err = r.history.Read(ctx); err != nil {
			// A real run must not forget the cooldown; a dry run from a
			// laptop may lack the permission and still be useful.
			if !r.opts.dryRun {
				return runtimeErr(err)
			}
			klog.InfoS("Could not read earlier evictions; this plan ignores the cooldown", "err", err)
		}
	}
	planStart := time.Now()
	plan := (&planner.Planner{Policy: r.policy, Placer: r.placer, History: past}).Plan(snap)
	klog.InfoS("Planned", "moves", len(plan.Moves), "skipped", len(plan.Skipped), "took", time.Since(planStart).Round(time.Millisecond))

	var (
		rep     *report.Report
		execErr error
	)
	if r.opts.dryRun {
		rep = report.FromPlan(plan)
	} else {
		// The ReplicaSet controller recreates an evicted pod within
		// milliseconds: the scheduler must find where the plan put it before
		// the first eviction, not after the last.
		intents := r.intents(snap, plan)
		if err := r.announce(ctx, intents); err != nil {
			return runtimeErr(fmt.Errorf("recording the planned evictions before making them (nothing was evicted): %w", err))
		}
		events := evictor.NewEvents(r.client)
		ev := &evictor.Evictor{Client: r.client, GracePeriodSeconds: r.policy.GracePeriodSeconds, Recorder: events}
		var outcomes []evictor.Outcome
		outcomes, execErr = ev.Execute(ctx, plan)
		flush := eventFlushTimeout
		var fatal *evictor.FatalError
		if errors.As(execErr, &fatal) {
			flush = time.Second // the API server may be gone: do not wait for it long
		}
		events.Flush(flush)
		rep = report.FromOutcomes(plan, outcomes)
		if err := r.retract(ctx, intents, outcomes); err != nil && execErr == nil {
			execErr = err
		}
	}
	if err := r.print(rep); err != nil {
		return runtimeErr(err)
	}

	failedEvictions := rep.Summary.Results[evictor.Failed]
	if execErr == nil && failedEvictions > 0 {
		execErr = fmt.Errorf("%d eviction(s) failed; see the report", failedEvictions)
	}
	r.metrics.Observe(rep, time.Since(start), execErr != nil)
	if r.opts.pushgateway != "" {
		pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		if err := r.metrics.Push(pctx, r.opts.pushgateway); err != nil {
			klog.ErrorS(err, "Pushing metrics failed", "pushgateway", r.opts.pushgateway)
		}
		cancel()
	}
	klog.InfoS("Cycle done", "moves", len(rep.Moves), "results", rep.Summary.Results, "took", time.Since(start).Round(time.Millisecond))
	if errors.Is(execErr, context.Canceled) {
		return runtimeErr(fmt.Errorf("stopped by a signal; the report lists what was done"))
	}
	return runtimeErr(execErr)
}

// intents are the evictions the plan is about to make, as the history
// records them.
func (r *runner) intents(snap *cluster.Snapshot, plan *planner.Plan) []cluster.Eviction {
	if r.history == nil {
		return nil
	}
	now := time.Now()
	out := make([]cluster.Eviction, 0, len(plan.Moves))
	for _, m := range plan.Moves {
		e := cluster.Eviction{Pod: m.Pod, From: m.From, To: m.To, Strategy: m.Strategy, At: now}
		if p := snap.Pod(m.Pod); p != nil {
			e.Workload = p.Workload
		}
		out = append(out, e)
	}
	return out
}

// announce records the evictions before they are made: the cooldown of the
// next cycles and the scheduler's hand-off both read them.
func (r *runner) announce(ctx context.Context, intents []cluster.Eviction) error {
	if len(intents) == 0 {
		return nil
	}
	return r.history.Append(ctx, time.Now(), intents)
}

// retract forgets the intents whose eviction did not happen (refused, gone,
// failed, not attempted), so that no cooldown or hand-off follows from them.
func (r *runner) retract(ctx context.Context, intents []cluster.Eviction, outcomes []evictor.Outcome) error {
	var undone []cluster.Eviction
	for i, o := range outcomes {
		if i < len(intents) && o.Result != evictor.Evicted {
			undone = append(undone, intents[i])
		}
	}
	if len(undone) == 0 {
		return nil
	}
	// Written even when the run is being stopped.
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	return r.history.Forget(wctx, time.Now(), undone)
}

func (r *runner) serveMetrics(ctx context.Context) {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(r.metrics.Registry, promhttp.HandlerOpts{}))
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) })
	srv := &http.Server{Addr: r.opts.metricsAddr, Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		<-ctx.Done()
		_ = srv.Shutdown(context.Background())
	}()
	if err := srv.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		klog.ErrorS(err, "Metrics server failed", "addr", r.opts.metricsAddr)
	}
}
