package rebalance

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/cluster/kube"
	"github.com/kube-rebalancer/rebalancer/evictor"
	"github.com/kube-rebalancer/rebalancer/planner"
	"github.com/kube-rebalancer/rebalancer/policy"
	"github.com/kube-rebalancer/rebalancer/report"
	"github.com/kube-rebalancer/rebalancer/scheduler/engine"
)

// eventFlushTimeout bounds the wait for the last events at the end of a
// cycle.
const eventFlushTimeout = 10 * time.Second

// Config is what the cycles of `rebalancer run` need.
type Config struct {
	Client kubernetes.Interface
	Policy *policy.Policy
	// Placer simulates where each evicted pod would go.
	Placer engine.Placer
	// History is the state ConfigMap. Nil when there is none: the cycles
	// then know no earlier cycle's evictions and record none.
	History *kube.HistoryStore
	// Lock, when set, makes the cycles that evict take turns with other
	// runs; a cycle that finds it held does nothing. Dry runs take none.
	Lock *kube.RunLock
	// DryRun plans and reports, and changes nothing.
	DryRun bool
	// Interval is the time between cycles; 0 runs one cycle.
	Interval time.Duration
	// StepTimeout bounds the wait between two steps of a plan for the
	// replacements to be Ready and the budgets back; 0: DefaultStepTimeout.
	StepTimeout time.Duration
	// MaxDuration bounds a cycle's evictions, from the cycle's start: no
	// eviction starts, and no wait between steps lasts, past it; what
	// follows (the last events, the report, the record) is bounded on its
	// own. 0: no bound.
	MaxDuration time.Duration
	// Publisher leaves every cycle's outcome in its metrics and last-run
	// record; nil: metrics of the Runner's own, and no record.
	Publisher *Publisher
	// Print writes each cycle's report; nil prints nothing.
	Print func(*report.Report) error
	// Now is the clock the policy's disruption windows are read by; nil:
	// time.Now.
	Now func() time.Time
}

// Runner runs rebalancing cycles.
type Runner struct {
	cfg Config
	// observed holds the counts of consecutive observations the last cycle
	// made; observedOnly is set when the state does not hold them (a dry
	// run, no state, or a write that failed), so that the next cycle goes
	// on from these.
	observed     []cluster.Observation
	observedOnly bool
	// heal is whether the cycles that evict may replace a state they
	// cannot use (History.Heal as configured); a cycle the windows keep
	// from evicting does not.
	heal bool
}

// cycleMode is what one cycle goes by.
type cycleMode struct {
	// policy is the configured one with the open windows' limits.
	policy  *policy.Policy
	windows *policy.WindowDecision
	// dryRun: --dry-run, or the windows allow no eviction now.
	dryRun bool
}

// New returns a Runner for the configuration.
func New(cfg Config) *Runner {
	if cfg.Publisher == nil {
		cfg.Publisher = &Publisher{}
	}
	if cfg.Publisher.Metrics == nil {
		cfg.Publisher.Metrics = report.NewMetrics()
	}
	if cfg.Print == nil {
		cfg.Print = func(*report.Report) error { return nil }
	}
	if cfg.History != nil {
		cfg.History.KeepObservations = true
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Runner{cfg: cfg, heal: cfg.History != nil && cfg.History.Heal}
}

// Metrics returns the metrics every cycle updates, for a /metrics endpoint.
func (r *Runner) Metrics() *report.Metrics { return r.cfg.Publisher.Metrics }

// Run runs one cycle when Interval is 0, or cycles every Interval until ctx
// ends. In a loop a failed cycle is logged and the next one tries again, as a
// controller does; a single cycle's failure is returned.
func (r *Runner) Run(ctx context.Context) error {
	if r.cfg.Interval == 0 {
		return r.Cycle(ctx)
	}
	for {
		if err := r.Cycle(ctx); err != nil {
			klog.ErrorS(err, "Cycle failed")
		}
		wait, until := nextCycle(r.cfg.Policy, r.cfg.Now(), r.cfg.Interval)
		if !until.IsZero() {
			klog.InfoS("The disruption windows allow no eviction at the next cycle's time: sleeping until they do",
				"until", until.Format(time.RFC3339), "interval", r.cfg.Interval)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(wait):
		}
	}
}

// mode decides how a cycle starting at now goes.
func (r *Runner) mode(now time.Time) cycleMode {
	pol, d := Windows(r.cfg.Policy, now)
	m := cycleMode{policy: pol, windows: d, dryRun: r.cfg.DryRun || d != nil && !d.Evict}
	if r.cfg.History != nil {
		// A cycle that evicts nothing changes nothing, the state included.
		r.cfg.History.Heal = r.heal && !m.dryRun
	}
	return m
}

// Cycle reads the cluster, plans, records the planned evictions, evicts,
// forgets those that did not happen, prints the report, and publishes the
// outcome (metrics and last-run record), a failed cycle's too. It returns an
// error when the cycle failed, or any eviction did; evictions that a
// PodDisruptionBudget refused or admission denied are reported, not failures.
func (r *Runner) Cycle(ctx context.Context) error {
	start := time.Now()
	r.cfg.Publisher.Recall(ctx)
	// Whole seconds, as the snapshot's instant: the windows open and close on
	// whole seconds, so the decision is the same.
	m := r.mode(r.cfg.Now().Truncate(time.Second))
	logWindows(m.windows)
	lctx, unlock, err := r.lock(ctx, m)
	var busy *kube.HeldError
	if errors.As(err, &busy) {
		// The holder is doing this work already; doing it too would evict
		// up to the limits twice.
		klog.InfoS("Another run is under way; this one does nothing", "lease", busy.Lease, "holder", busy.Holder,
			"since", busy.Since.UTC().Format(time.RFC3339), "renewed", busy.Renewed.UTC().Format(time.RFC3339))
		return nil
	}
	if err != nil {
		return r.finish(ctx, start, m, nil, err)
	}
	rep, err := r.cycle(lctx, m)
	if lost := unlock(); lost != nil {
		if err == nil || errors.Is(err, lost) {
			err = fmt.Errorf("stopped evicting: %w", lost)
		} else {
			// The cycle's own error came first, or at once: keep both.
			err = fmt.Errorf("%w (and %v)", err, lost)
		}
	}
	return r.finish(ctx, start, m, rep, err)
}

// lock takes the run Lease for a cycle that evicts. The returned context
// ends when the Lease is lost, since a run that cannot renew it no longer
// knows that it is alone; unlock gives the Lease back and returns why it
// was lost, if it was.
func (r *Runner) lock(ctx context.Context, m cycleMode) (_ context.Context, unlock func() error, _ error) {
	if r.cfg.Lock == nil || m.dryRun {
		return ctx, func() error { return nil }, nil
	}
	held, err := r.cfg.Lock.Acquire(ctx)
	if err != nil {
		return ctx, nil, err
	}
	lctx, cancel := context.WithCancelCause(ctx)
	go func() {
		select {
		case <-held.Lost():
			cancel(held.Err())
		case <-lctx.Done():
		}
	}()
	return lctx, func() error {
		cancel(nil)
		lost := held.Err()
		rctx, cancelRelease := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancelRelease()
		if err := held.Release(rctx); err != nil {
			klog.ErrorS(err, "The next run will wait for the Lease to expire")
		}
		return lost
	}, nil
}

// finish publishes a cycle's outcome and says how it ended.
func (r *Runner) finish(ctx context.Context, start time.Time, m cycleMode, rep *report.Report, err error) error {
	r.cfg.Publisher.Publish(ctx, start, m.dryRun, rep, err)
	if rep != nil {
		klog.InfoS("Cycle done", "moves", len(rep.Moves), "results", rep.Summary.Results, "took", time.Since(start).Round(time.Millisecond))
	}
	if err != nil && ctx.Err() != nil {
		return fmt.Errorf("%s; the report lists what was done", stopReason(ctx))
	}
	return err
}

// stopReason says why ctx ended: a signal, the run Lease lost (each
// cancels with its cause), or a caller's cancel.
func stopReason(ctx context.Context) string {
	cause := context.Cause(ctx)
	if cause == nil || cause == context.Canceled {
		return "stopped"
	}
	return "stopped: " + cause.Error()
}

// maxDurationError is the cause of the end of a cycle's evictions at
// --max-duration.
type maxDurationError struct{ d time.Duration }

func (e maxDurationError) Error() string { return fmt.Sprintf("--max-duration %s reached", e.d) }

// until returns a context that ends at the instant with cause. It has no
// deadline: given one, client-go's rate limiter refuses at once, with its
// own error, every request it could not start before the deadline, and
// that error would hide what the run was doing.
func until(ctx context.Context, at time.Time, cause error) (context.Context, func()) {
	uctx, cancel := context.WithCancelCause(ctx)
	t := time.AfterFunc(time.Until(at), func() { cancel(cause) })
	return uctx, func() {
		t.Stop()
		cancel(nil)
	}
}

// cycle does the work of Cycle but for publishing it. The report is nil
// when the cycle failed before it had one.
func (r *Runner) cycle(ctx context.Context, m cycleMode) (*report.Report, error) {
	start := time.Now()
	if !m.dryRun && r.cfg.History != nil {
		if err := r.recoverSurges(ctx); err != nil {
			return nil, fmt.Errorf("%w (nothing was evicted)", err)
		}
	}
	objs, err := kube.ReadObjectsWith(ctx, r.cfg.Client, kube.ReadOptions{HPAs: m.policy.MakesBeforeBreak()})
	if err != nil {
		return nil, fmt.Errorf("reading the cluster: %w", err)
	}
	readMetrics(ctx, r.cfg.Client, m.policy, &objs)
	// Whole seconds, so that `plan --now` can name the same instant.
	snap, err := cluster.New(objs, time.Now().Truncate(time.Second))
	if err != nil {
		return nil, fmt.Errorf("reading the cluster: %w", err)
	}
	klog.InfoS("Read the cluster", "nodes", len(snap.Nodes()), "pods", len(snap.Pods()), "pdbs", len(snap.PDBs()),
		"took", time.Since(start).Round(time.Millisecond))
	// Read after the policy is checked against the cluster: reading the
	// state may write it.
	history := func(snap *cluster.Snapshot) ([]cluster.Eviction, error) { return r.readHistory(ctx, snap, m.dryRun) }
	took := map[string]time.Duration{}
	var holds func() []cluster.Hold
	if r.cfg.History != nil {
		holds = r.cfg.History.Holds
	}
	plan, err := Planning{Policy: m.policy, Placer: r.cfg.Placer, Source: "the cluster", History: history, Holds: holds,
		Observations: r.earlierObservations,
		StrategyTime: func(name string, d time.Duration) { took[name] += d }}.Plan(snap)
	if err != nil {
		return nil, err
	}
	r.observePlan(snap, plan, took)
	r.keepObservations(ctx, plan, m.dryRun)

	var (
		rep     *report.Report
		execErr error
	)
	if m.dryRun {
		rep = report.FromPlan(plan)
	} else {
		if rep, execErr, err = r.evict(ctx, snap, plan, start); err != nil {
			return nil, err
		}
	}
	NoteWindows(rep, m.windows)
	if err := r.cfg.Print(rep); err != nil {
		return rep, err
	}
	if failed := rep.Summary.Results[evictor.Failed]; execErr == nil && failed > 0 {
		execErr = fmt.Errorf("%d eviction(s) failed; see the report", failed)
	}
	return rep, execErr
}

// observePlan records what the metrics show of a plan: its strategies'
// planning time, and the balance of the nodes that can take pods.
func (r *Runner) observePlan(snap *cluster.Snapshot, plan *planner.Plan, took map[string]time.Duration) {
	m := r.cfg.Publisher.Metrics
	m.ObserveStrategies(took)
	m.ObserveBalance(plan.Nodes, func(name string) bool {
		n := snap.Node(name)
		return n != nil && n.Ready()
	})
}

// earlierObservations returns the counts the next plan goes on from: the
// state's, as the cycle's read of it found them, or this runner's own when
// the state does not hold its last ones.
func (r *Runner) earlierObservations() []cluster.Observation {
	if r.observedOnly || r.cfg.History == nil {
		return r.observed
	}
	return r.cfg.History.Observations()
}

// keepObservations keeps the plan's counts of consecutive observations for
// the next cycle: in memory, and in the state ConfigMap for a run that may
// write (a dry run writes nothing: its counts last as long as its loop).
func (r *Runner) keepObservations(ctx context.Context, plan *planner.Plan, dryRun bool) {
	stored := r.cfg.History != nil && len(r.cfg.History.Observations()) > 0
	if !r.cfg.Policy.CountsObservations() && !stored && len(r.observed) == 0 {
		return
	}
	r.observed, r.observedOnly = plan.Observations, true
	if dryRun || r.cfg.History == nil {
		return
	}
	if err := r.cfg.History.RecordObservations(ctx, plan.Observations); err != nil {
		klog.ErrorS(err, "Could not record the counts of consecutive observations; the next cycle of this process goes on from its own, a new process starts them again")
		return
	}
	r.observedOnly = false
}

// readHistory reads the evictions earlier runs recorded and forgets those
// that never happened.
func (r *Runner) readHistory(ctx context.Context, snap *cluster.Snapshot, dryRun bool) ([]cluster.Eviction, error) {
	var past []cluster.Eviction
	if r.cfg.History != nil {
		var err error
		if past, err = r.cfg.History.Read(ctx); err != nil {
			// A real run must not forget the cooldown; a dry run from a
			// laptop may lack the permission and still be useful.
			if !dryRun {
				return nil, err
			}
			klog.InfoS("Could not read earlier evictions; this plan ignores the cooldown", "err", err)
		}
	}
	if err := r.forgetUndone(ctx, snap, past, dryRun); err != nil {
		return past, err
	}
	if err := r.forgetOverHolds(ctx, snap, dryRun); err != nil {
		klog.ErrorS(err, "Could not forget the holds that are over; the schedulers stop honouring them at their hand-off TTL")
	}
	return past, nil
}

// evict carries out the plan step by step: it records a step's evictions,
// makes them, forgets those that did not happen, then waits until their
// replacements are Ready and the budgets allow the next step's before going
// on. It returns the report of what was done and the error that stopped the
// evictions, if any, or in err why it did not start.
func (r *Runner) evict(ctx context.Context, snap *cluster.Snapshot, plan *planner.Plan, start time.Time) (rep *report.Report, execErr, err error) {
	// The evictions and the waits end at --max-duration; the state is
	// written with ctx, so that what was done is recorded past it.
	ectx := ctx
	if r.cfg.MaxDuration > 0 {
		var cancel func()
		ectx, cancel = until(ctx, start.Add(r.cfg.MaxDuration), maxDurationError{r.cfg.MaxDuration})
		defer cancel()
	}
	bound := func() bool { return ctx.Err() == nil && ectx.Err() != nil }
	events := evictor.NewEvents(r.cfg.Client)
	ev := &evictor.Evictor{Client: r.cfg.Client, GracePeriodSeconds: r.cfg.Policy.GracePeriodSeconds, Recorder: events}
	var (
		outcomes []evictor.Outcome
		stopped  string
		evicted  []planner.Move
	)
	all := steps(plan.Moves)
	held := r.newHolding(snap, plan, all)
	for i, step := range all {
		// A surge takes nothing from a budget: the wait is for the
		// evictions' budgets only.
		step, surges := splitSurges(step)
		if i > 0 {
			if stopped = r.waitSettled(ectx, snap, i, evicted, step); stopped != "" {
				outcomes = append(outcomes, notAttempted(flatten(all[i:]), stopped)...)
				break
			}
		}
		if bound() {
			stopped = fmt.Sprintf("%s before step %d started; the rest is left to the next run", context.Cause(ectx), i+1)
			outcomes = append(outcomes, notAttempted(flatten(all[i:]), stopped)...)
			break
		}
		// The ReplicaSet controller recreates an evicted pod within
		// milliseconds: the scheduler must find where the plan put it
		// before the eviction, not after.
		intents := r.intents(snap, step)
		err := r.recordHolds(ctx, held, i)
		if err != nil {
			err = fmt.Errorf("recording the nodes held for pending pods before the moves that free them: %w", err)
		} else if err = r.announce(ctx, intents); err != nil {
			err = fmt.Errorf("recording the planned evictions before making them: %w", err)
		}
		if err != nil {
			if i == 0 {
				return nil, nil, fmt.Errorf("%w (nothing was evicted)", err)
			}
			execErr = err
			outcomes = append(outcomes, notAttempted(append(step, append(surges, flatten(all[i+1:])...)...), err.Error())...)
			break
		}
		outs, err := ev.Execute(ectx, &planner.Plan{Moves: step})
		outcomes = append(outcomes, outs...)
		held.carriedOut(outs)
		// Not a failure: the rest of the step waits for the next run, as
		// the next steps do.
		cut := isMaxDuration(err) && bound()
		if cut {
			err = nil
		}
		if rerr := r.retract(ctx, intents, outs); rerr != nil && err == nil {
			err = rerr
		}
		if cut && err == nil {
			stopped = fmt.Sprintf("%s during step %d: the step's remaining evictions were not made, nor their replacements waited for; the rest is left to the next run",
				context.Cause(ectx), i+1)
			outcomes = append(outcomes, notAttempted(append(surges, flatten(all[i+1:])...), stopped)...)
			break
		}
		if err != nil {
			execErr = err
			outcomes = append(outcomes, notAttempted(append(surges, flatten(all[i+1:])...), "run stopped: "+err.Error())...)
			break
		}
		evicted = evicted[:0]
		for _, o := range outs {
			if o.Result == evictor.Evicted {
				evicted = append(evicted, o.Move)
			}
		}
		// One at a time: each waits for its own replacement, and undoes
		// itself when that does not come.
		for j, m := range surges {
			if ectx.Err() != nil {
				stopped = fmt.Sprintf("%s during step %d: its remaining surges were not made; the rest is left to the next run", context.Cause(ectx), i+1)
				outcomes = append(outcomes, notAttempted(append(surges[j:], flatten(all[i+1:])...), stopped)...)
				break
			}
			o := r.surge(ectx, snap, m)
			switch o.Result {
			case evictor.Surged:
				events.Surged(m, o.Message)
			case evictor.RolledBack:
				events.RolledBack(m, o.Message)
			}
			outcomes = append(outcomes, o)
			held.carriedOut([]evictor.Outcome{o})
		}
		if stopped != "" {
			break
		}
	}
	if err := r.releaseHolds(ctx, held); err != nil {
		klog.ErrorS(err, "Could not forget the holds no move freed; the schedulers stop honouring them at their hand-off TTL")
	}
	flush := eventFlushTimeout
	var fatal *evictor.FatalError
	if errors.As(execErr, &fatal) {
		flush = time.Second // the API server may be gone: do not wait for it long
	}
	events.Flush(flush)
	rep = report.FromOutcomes(plan, outcomes)
	rep.EventsLost = events.Lost()
	if stopped != "" {
		rep.Stopped = strings.TrimPrefix(strings.Join([]string{rep.Stopped, stopped}, "; "), "; ")
	}
	return rep, execErr, nil
}
