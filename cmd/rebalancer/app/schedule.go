package app

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kube-rebalancer/rebalancer/report"
	"github.com/kube-rebalancer/rebalancer/scheduler/engine"
	"github.com/kube-rebalancer/rebalancer/scheduler/framework"
	"github.com/kube-rebalancer/rebalancer/scheduler/profile"
	"github.com/kube-rebalancer/rebalancer/schedulerd"
)

func newScheduleCommand(s *settings) *cobra.Command {
	var (
		kubeOpts       = kubeFlags{qps: 50, burst: 100}
		config, name   string
		state, metrics string
		handoffTTL     time.Duration
		election       electionFlags
		profiles       profileFlags
	)
	c := &cobra.Command{
		Use:   "schedule",
		Short: "Run a scheduler that places the replacements of evicted pods where the plan said",
		Long: `Run a second scheduler, next to kube-scheduler. It binds the pending pods whose
spec.schedulerName names it, with the same filter/score engine that plans
rebalancing, so that what a plan predicts is what happens.

When rebalancer evicts a pod, it records where the plan placed the
replacement. The first pending pod of that workload goes there if the node
still fits; otherwise to the best node other than those the workload just
left, and back to one of them only if nothing else fits. An eviction whose
pod still runs where it was, under the UID the run recorded, never happened
(a run killed before evicting), and places no pod. A pod that fits
nowhere gets a PodScheduled=False condition and a FailedScheduling event with
kube-scheduler's message, and waits until a change in the cluster may let
it fit (a node added or freed, a pod deleted); a pod whose Binding failed is
retried after kube-scheduler's backoff (podInitialBackoffSeconds, doubling to
podMaxBackoffSeconds).

Pods opt in with spec.schedulerName: rebalancer (or --scheduler-name).`,
		Example: `  rebalancer schedule --config /etc/rebalancer/scheduler.yaml --leader-elect`,
		Args:    cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if err := checkStateFlag(state); err != nil {
				return err
			}
			stopProfiles, err := profiles.start()
			if err != nil {
				return err
			}
			defer stopProfiles()
			profile, err := scheduleProfile(config, name, s.plugins)
			if err != nil {
				return err
			}
			eng, err := engine.New(profile, s.plugins)
			if err != nil {
				return err
			}
			bindByExtender, err := callExtenders(eng)
			if err != nil {
				return err
			}
			client, cfg, err := kubeOpts.client(s.userAgent("rebalancer-scheduler"))
			if err != nil {
				return err
			}
			// Events go through a client of their own, as kube-scheduler's
			// do, so that they never take the bindings' rate.
			events, err := kubernetes.NewForConfig(rest.CopyConfig(cfg))
			if err != nil {
				return err
			}
			history, err := historyStore(state, client)
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(c.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			if err := requirePermissions(ctx, client, "schedule", schedulePermissions(false), scheduleScope(history)); err != nil {
				return runtimeErr(err)
			}
			m := schedulerd.NewMetrics()
			m.Registry.MustRegister(report.NewBuildInfo(s.version, s.commit))
			if metrics != "" {
				go serveMetrics(ctx, metrics, m.Registry)
			}
			live := &schedulerd.Live{Client: client, EventClient: events, Engine: eng, SchedulerName: profile.SchedulerName,
				History: history, HandoffTTL: handoffTTL, Metrics: m, BindByExtender: bindByExtender,
				InitialBackoff: profile.Backoff.Initial, MaxBackoff: profile.Backoff.Max}
			if election.enabled {
				return election.run(ctx, client, func(ctx context.Context) error { return runtimeErr(live.Run(ctx)) })
			}
			return runtimeErr(live.Run(ctx))
		},
	}
	f := c.Flags()
	f.StringVar(&config, "config", "", "KubeSchedulerConfiguration file (kubescheduler.config.k8s.io/v1); default: kube-scheduler's default profile")
	f.StringVar(&name, "scheduler-name", "", "the schedulerName pods use to pick this scheduler, and the profile of --config to run (default: rebalancer, or the only profile of --config)")
	f.StringVar(&kubeOpts.kubeconfig, "kubeconfig", "", "kubeconfig file (default: $KUBECONFIG, ~/.kube/config, or the in-cluster configuration)")
	f.StringVar(&kubeOpts.context, "context", "", "kubeconfig context to use")
	f.Float32Var(&kubeOpts.qps, "qps", kubeOpts.qps, "API requests per second")
	f.IntVar(&kubeOpts.burst, "burst", kubeOpts.burst, "API requests allowed in a burst above --qps")
	f.StringVar(&state, "state-configmap", "", "NAMESPACE/NAME of the ConfigMap where rebalancer run records its evictions (default: $POD_NAMESPACE/rebalancer-state inside a pod)")
	f.DurationVar(&handoffTTL, "handoff-ttl", 10*time.Minute, "how long after an eviction its replacement is placed on the planned node, and after a run recorded a node held for a pending pod that the node is held")
	f.StringVar(&metrics, "metrics-addr", "", "serve /metrics and /healthz on this address (e.g. :8080)")
	election.addFlags(c)
	profiles.addFlags(c)
	return c
}

// scheduleProfile picks the profile to run: by --scheduler-name from
// --config, or the only one; without --config, the default profile under
// the name "rebalancer". plugins are the out-of-tree plugins --config may
// enable.
func scheduleProfile(config, name string, plugins framework.Registry) (profile.Profile, error) {
	if config == "" {
		p := profile.DefaultProfile()
		p.SchedulerName = "rebalancer"
		if name != "" {
			p.SchedulerName = name
		}
		return p, nil
	}
	profiles, err := profile.ReadProfiles(config, plugins)
	if err != nil {
		return profile.Profile{}, fileError("--config", config, err)
	}
	if name == "" {
		if len(profiles) > 1 {
			return profile.Profile{}, fmt.Errorf("%s has %d profiles: choose one with --scheduler-name", config, len(profiles))
		}
		return profiles[0], nil
	}
	p, ok := profile.ProfileByName(profiles, name)
	if !ok {
		return profile.Profile{}, fmt.Errorf("%s: no profile with schedulerName %q", config, name)
	}
	return p, nil
}
