package app

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/klog/v2"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/policy"
	"github.com/kube-rebalancer/rebalancer/rebalance"
	"github.com/kube-rebalancer/rebalancer/report"
)

func newPlanCommand(s *settings) *cobra.Command {
	var (
		snapshot, policyFile, output, now string
		profiles                          profileFlags
	)
	c := &cobra.Command{
		Use:   "plan --snapshot FILE",
		Short: "Plan a cycle offline, from a dump of a cluster",
		Long: `Plan one cycle against a dump of a cluster, with no cluster at all: which pods
would move, from where to where and why, which were left in place and why, and
the utilization of each node before and after. The report is the one
'run --dry-run' prints for the same cluster at the same instant (--now, the
report's "at"). The cooldown applies when the dump holds rebalancer's state
ConfigMap, as it does for a dry run that reads it: add configmaps to the
kubectl command. A policy's disruptionWindows are read at that instant too:
the report says whether a run then would evict (outside them it plans, as
here, and evicts nothing) and applies the limits of the windows open then.

Without --policy, the built-in default policy runs:

` + indent(string(policy.DefaultYAML()), "  "),
		Example: `  kubectl get nodes,pods,pdb,namespaces,deployments,replicasets,statefulsets,jobs,priorityclasses,configmaps,pv,pvc,storageclasses,csinodes -A -o yaml > dump.yaml
  rebalancer plan --snapshot dump.yaml
  rebalancer plan --snapshot dump.yaml --policy policy.yaml -o json`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if snapshot == "" {
				return fmt.Errorf("--snapshot is required")
			}
			stopProfiles, err := profiles.start()
			if err != nil {
				return err
			}
			defer stopProfiles()
			if err := checkOutput(output); err != nil {
				return err
			}
			at := time.Now()
			if now != "" {
				t, err := time.Parse(time.RFC3339, now)
				if err != nil {
					return fmt.Errorf("--now %q: not an RFC 3339 time; give one such as 2026-11-20T12:00:00Z", now)
				}
				at = t
			}
			pol, err := loadPolicy(policyFile)
			if err != nil {
				return err
			}
			placer, err := checkPolicy(pol, s.plugins)
			if err != nil {
				return err
			}
			pol, windows := rebalance.Windows(pol, at)
			liftMemoryLimit := func() {}
			if st, err := os.Stat(snapshot); err == nil {
				liftMemoryLimit = limitMemory(st.Size())
			}
			objs, ignored, err := cluster.ReadFile(snapshot)
			if err != nil {
				return snapshotError(snapshot, err)
			}
			if err := checkHasNodes(snapshot, objs, ignored); err != nil {
				return err
			}
			if len(ignored) > 0 {
				klog.V(1).InfoS("Ignored objects a snapshot does not use", "kinds", cluster.IgnoredSummary(ignored))
			}
			// run lists every kind itself; only a dump can lack one.
			for _, g := range cluster.Gaps(objs, dumpNeeds(pol)) {
				klog.Warning(g.Warning(snapshot))
			}
			snap, err := cluster.New(objs, at)
			if err != nil {
				return snapshotError(snapshot, err)
			}
			// Read before the collection below, which then frees the
			// objects; a bad state ConfigMap is reported where run would
			// report it, after the policy's checks.
			history, historyErr := objs.Evictions()
			if historyErr != nil {
				historyErr = fmt.Errorf("%s: %w", snapshot, historyErr)
			}
			observations, err := objs.Observations()
			if err != nil {
				return snapshotError(snapshot, err)
			}
			holds := objs.Holds()
			liftMemoryLimit()
			// Decoding left garbage up to the dump's limit: collected now,
			// planning starts from the snapshot alone and its own
			// allocations stay under the collector's next target, instead
			// of taking the heap past it: without it a 5,000-node plan
			// peaked above 1 GiB of RSS.
			runtime.GC()
			plan, err := rebalance.Planning{Policy: pol, Placer: placer, Source: snapshot, LogLevel: 1,
				History:      func(*cluster.Snapshot) ([]cluster.Eviction, error) { return history, historyErr },
				Holds:        func() []cluster.Hold { return holds },
				Observations: func() []cluster.Observation { return observations }}.Plan(snap)
			if err != nil {
				return err
			}
			rep := report.FromPlan(plan)
			rebalance.NoteWindows(rep, windows)
			return report.Print(c.OutOrStdout(), rep, output, verbose(c))
		},
	}
	c.Flags().StringVar(&snapshot, "snapshot", "", "cluster dump to plan against: a List or multi-document YAML/JSON of nodes, pods, PDBs, namespaces, Deployments, ReplicaSets, StatefulSets, Jobs, priority classes, PersistentVolumes, PersistentVolumeClaims, StorageClasses, CSINodes, (for evictable.makeBeforeBreak) HorizontalPodAutoscalers and (for the cooldown) rebalancer's state ConfigMap")
	c.Flags().StringVar(&policyFile, "policy", "", "RebalancePolicy file (default: the built-in policy)")
	c.Flags().StringVar(&now, "now", "", "evaluate pod ages and the policy's disruption windows at this RFC 3339 time instead of the current time, for reproducible plans")
	profiles.addFlags(c)
	addOutputFlag(c, &output)
	return c
}

// dumpNeeds says what of the kinds a dump may leave out the policy reads.
func dumpNeeds(pol *policy.Policy) cluster.DumpNeeds {
	needs := cluster.DumpNeeds{PriorityClasses: pol.PriorityClassNames(), NamespaceSelectors: pol.Evictable.NamespaceSelector != nil,
		ImplicitBudgets: pol.UsesImplicitBudgets(), Autoscalers: pol.MakesBeforeBreak()}
	for _, o := range pol.Overrides {
		needs.NamespaceSelectors = needs.NamespaceSelectors || o.NamespaceSelector != nil
	}
	for _, ev := range pol.Evictables() {
		needs.Jobs = needs.Jobs || !*ev.JobPods
		needs.Replicas = needs.Replicas || *ev.MinReplicas > 1
		needs.RequirePDB = needs.RequirePDB || *ev.RequirePDB
	}
	return needs
}

// indent prefixes every line of text but empty ones.
func indent(text, prefix string) string {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = prefix + l
		}
	}
	return strings.Join(lines, "\n")
}
