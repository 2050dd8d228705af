package app

import (
	"fmt"

	"github.com/spf13/cobra"
	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/yaml"
)

// permissions is the RBAC a command needs: cluster-wide rules, and rules in
// its own namespace (its state ConfigMap, its Leases, by their default
// names: a command told other names needs rules that name them). It is the single list
// the Helm chart and the kustomize base grant, no more: a test runs the code
// against a recording client and checks each call against it, and the
// deployment tests check the rendered roles against it.
type permissions struct {
	Cluster   []rbacv1.PolicyRule `json:"cluster"`
	Namespace []rbacv1.PolicyRule `json:"namespace"`
	// RunLease is what `run` needs in the run Lease's namespace, which is
	// not its own: the Lease is one per cluster.
	RunLease *leaseRules `json:"runLease,omitempty"`
}

// leaseRules are rules in one named namespace.
type leaseRules struct {
	Namespace string              `json:"namespace"`
	Rules     []rbacv1.PolicyRule `json:"rules"`
}

func rule(group string, resources []string, verbs ...string) rbacv1.PolicyRule {
	return rbacv1.PolicyRule{APIGroups: []string{group}, Resources: resources, Verbs: verbs}
}

// runPermissions: `rebalancer run` reads the cluster with paginated LISTs,
// evicts, records events, keeps its state in its own namespace (and with
// --leader-elect the election's Lease), and takes the cluster's run Lease
// in that Lease's namespace.
func runPermissions(leaderElect bool) permissions {
	return runPermissionsWith(leaderElect, false, defaultRunLeaseNamespace, defaultRunLeaseName)
}

// runPermissionsWith is runPermissions for a policy that may surge
// (makeBeforeBreak) and a run Lease moved with --run-lease.
func runPermissionsWith(leaderElect, makeBeforeBreak bool, leaseNamespace, leaseName string) permissions {
	ns := []rbacv1.PolicyRule{
		rule("", []string{"configmaps"}, "create"),
		named(rule("", []string{"configmaps"}, "get", "update"), defaultStateName),
	}
	if leaderElect {
		ns = append(ns,
			rule("coordination.k8s.io", []string{"leases"}, "create"),
			named(rule("coordination.k8s.io", []string{"leases"}, "get", "update"), electionLease("run")))
	}
	p := permissions{
		Cluster: []rbacv1.PolicyRule{
			rule("", []string{"nodes", "pods", "namespaces"}, "list"),
			rule("apps", []string{"replicasets", "statefulsets"}, "list"),
			// How much unavailability a Deployment tolerates: its implicit
			// budget when no PodDisruptionBudget covers it.
			rule("apps", []string{"deployments"}, "list"),
			rule("batch", []string{"jobs"}, "list"),
			rule("", []string{"persistentvolumes", "persistentvolumeclaims"}, "list"),
			rule("storage.k8s.io", []string{"storageclasses", "csinodes"}, "list"),
			rule("policy", []string{"poddisruptionbudgets"}, "list"),
			rule("scheduling.k8s.io", []string{"priorityclasses"}, "list"),
			// Usage, for the strategies whose metricsUtilization reads
			// KubernetesMetrics. Granted whatever the policy: the chart
			// cannot see the policy, and a policy that starts balancing on
			// usage must not need a new role. A Prometheus token read from
			// a Secret needs get on that Secret, which only the policy
			// names: docs/usage.md says what to add.
			rule("metrics.k8s.io", []string{"nodes", "pods"}, "list"),
			rule("", []string{"pods/eviction"}, "create"),
			// Each eviction records one event on its own pod: the event
			// correlator never needs to patch an earlier one.
			rule("", []string{"events"}, "create"),
		},
		// The state ConfigMap (and, with --leader-elect, the election's
		// Lease). Each is created on first use, and RBAC cannot limit
		// create by name (the name is in the body, not the request): create
		// is granted on any, get and update on these names only.
		Namespace: ns,
		// The Lease that makes every run that evicts take turns, created on
		// first use like the ConfigMap.
		RunLease: &leaseRules{Namespace: leaseNamespace, Rules: []rbacv1.PolicyRule{
			rule("coordination.k8s.io", []string{"leases"}, "create"),
			named(rule("coordination.k8s.io", []string{"leases"}, "get", "update"), leaseName),
		}},
	}
	if makeBeforeBreak {
		p.Cluster = append(p.Cluster,
			// A surge never touches a Deployment an autoscaler scales.
			rule("autoscaling", []string{"horizontalpodautoscalers"}, "list"),
			// One replica more, and back, through the scale subresource:
			// the Deployment's template is never written.
			rule("apps", []string{"deployments/scale"}, "get", "update"),
			// The deletion cost that makes the ReplicaSet remove the old
			// pod (or, on rollback, the new one) when it scales back.
			rule("", []string{"pods"}, "patch"))
	}
	return p
}

// schedulePermissions: `rebalancer schedule` watches what it snapshots,
// binds pods, reports unschedulable ones on their status and in events, and
// reads the evictions `run` recorded in its namespace.
func schedulePermissions(leaderElect bool) permissions {
	p := permissions{
		Cluster: []rbacv1.PolicyRule{
			rule("", []string{"nodes", "pods", "namespaces"}, "list", "watch"),
			rule("apps", []string{"replicasets"}, "list", "watch"),
			// Preemption takes first the victims no budget protects.
			rule("policy", []string{"poddisruptionbudgets"}, "list", "watch"),
			// The volume plugins' claims, volumes, classes and CSINodes;
			// VolumeBinding's PreBind prebinds a volume to a claim or
			// annotates a claim with the node to provision for.
			rule("", []string{"persistentvolumeclaims", "persistentvolumes"}, "list", "watch", "update"),
			rule("storage.k8s.io", []string{"storageclasses", "csinodes"}, "list", "watch"),
			rule("", []string{"pods/binding"}, "create"),
			rule("", []string{"pods/status"}, "patch"),
			// Preemption deletes its victims.
			rule("", []string{"pods"}, "delete"),
			// A pod that stays unschedulable gets the same event on every
			// attempt, which the event correlator patches into a count.
			rule("", []string{"events"}, "create", "patch"),
		},
		Namespace: []rbacv1.PolicyRule{
			named(rule("", []string{"configmaps"}, "get"), defaultStateName),
		},
	}
	if leaderElect {
		p.Namespace = append(p.Namespace,
			rule("coordination.k8s.io", []string{"leases"}, "create"),
			named(rule("coordination.k8s.io", []string{"leases"}, "get", "update"), electionLease("schedule")))
	}
	return p
}

// schedulerUsersPermissions: `rebalancer scheduler-users` lists every kind
// of object whose pods may name the scheduler.
func schedulerUsersPermissions() permissions {
	return permissions{Cluster: []rbacv1.PolicyRule{
		rule("", []string{"pods"}, "list"),
		rule("apps", []string{"deployments", "statefulsets", "daemonsets", "replicasets"}, "list"),
		rule("batch", []string{"cronjobs", "jobs"}, "list"),
	}}
}

// extenderPermissions: `rebalancer extender` watches the ReplicaSets that
// name a pod's workload, the pods (whether an evicted pod has left), and
// the state ConfigMap in its namespace. Its watch selects the state by
// name, which the API server authorizes against resourceNames.
func extenderPermissions() permissions {
	return permissions{
		Cluster: []rbacv1.PolicyRule{
			rule("apps", []string{"replicasets"}, "list", "watch"),
			rule("", []string{"pods"}, "list", "watch"),
		},
		Namespace: []rbacv1.PolicyRule{named(rule("", []string{"configmaps"}, "list", "watch"), defaultStateName)},
	}
}

// named limits a rule to objects of these names.
func named(r rbacv1.PolicyRule, names ...string) rbacv1.PolicyRule {
	r.ResourceNames = names
	return r
}

func newRBACCommand() *cobra.Command {
	var (
		leaderElect, makeBeforeBreak bool
		runLease                     string
	)
	c := &cobra.Command{
		Use:   "rbac COMMAND",
		Short: "Print the RBAC rules a command needs, as YAML",
		Long: `Print the RBAC rules that COMMAND (run, schedule, scheduler-users or extender) needs:
the rules cluster-wide, and those in its own namespace, where get and update
(and the extender's list and watch) name its objects (the state ConfigMap rebalancer-state and, with
--leader-elect, the leader election's Lease). For run, also the rules in the
namespace of the run Lease (runLease: ` + defaultRunLease + `, which every
run that evicts takes; --run-lease names another). With --make-before-break,
run's rules include what a policy that turns evictable.makeBeforeBreak on
needs: listing HorizontalPodAutoscalers, the scale of Deployments, and
patching pods' deletion cost. The Helm chart and the kustomize overlays
grant exactly these.`,
		Example: `  rebalancer rbac run
  rebalancer rbac run --run-lease ops/rebalancer-run-lock
  rebalancer rbac run --make-before-break
  rebalancer rbac schedule --leader-elect`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			var p permissions
			if makeBeforeBreak && args[0] != "run" {
				return fmt.Errorf("--make-before-break is for run, not %s", args[0])
			}
			switch args[0] {
			case "run":
				ns, name, err := parseRunLease(runLease)
				if err != nil {
					return err
				}
				p = runPermissionsWith(leaderElect, makeBeforeBreak, ns, name)
			case "schedule":
				p = schedulePermissions(leaderElect)
			case "scheduler-users":
				p = schedulerUsersPermissions()
			case "extender":
				p = extenderPermissions()
			default:
				return fmt.Errorf("no RBAC list for %q (want run, schedule, scheduler-users or extender)", args[0])
			}
			out, err := yaml.Marshal(p)
			if err != nil {
				return err
			}
			_, err = c.OutOrStdout().Write(out)
			return err
		},
	}
	c.Flags().BoolVar(&leaderElect, "leader-elect", false, "include what leader election needs")
	c.Flags().BoolVar(&makeBeforeBreak, "make-before-break", false, "for run: include what a policy that turns evictable.makeBeforeBreak on needs (anywhere: globally, for a strategy or a namespace)")
	c.Flags().StringVar(&runLease, "run-lease", defaultRunLease, "for run: the run Lease the runs are given with --run-lease, NAMESPACE/NAME")
	return c
}
