package app

import (
	"fmt"

	"github.com/spf13/cobra"
	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/yaml"
)

// permissions is the RBAC a command needs: cluster-wide rules, and rules in
// its own namespace (its state ConfigMap, its Lease). It is the single list
// the Helm chart and the kustomize base grant, no more: a test runs the code
// against a recording client and checks each call against it, and the
// deployment tests check the rendered roles against it.
type permissions struct {
	Cluster   []rbacv1.PolicyRule `json:"cluster"`
	Namespace []rbacv1.PolicyRule `json:"namespace"`
}

func rule(group string, resources []string, verbs ...string) rbacv1.PolicyRule {
	return rbacv1.PolicyRule{APIGroups: []string{group}, Resources: resources, Verbs: verbs}
}

// runPermissions: `rebalancer run` reads the cluster with paginated LISTs,
// evicts, records events, and keeps its state and its Lease in its own
// namespace, with or without --leader-elect.
func runPermissions() permissions {
	p := permissions{
		Cluster: []rbacv1.PolicyRule{
			rule("", []string{"nodes", "pods", "namespaces"}, "list"),
			rule("apps", []string{"replicasets"}, "list"),
			rule("batch", []string{"jobs"}, "list"),
			rule("policy", []string{"poddisruptionbudgets"}, "list"),
			rule("scheduling.k8s.io", []string{"priorityclasses"}, "list"),
			rule("", []string{"pods/eviction"}, "create"),
			// Each eviction records one event on its own pod: the event
			// correlator never needs to patch an earlier one.
			rule("", []string{"events"}, "create"),
		},
		// The state ConfigMap, and the Lease that makes runs that evict
		// take turns (and, with --leader-elect, replicas).
		Namespace: []rbacv1.PolicyRule{
			rule("", []string{"configmaps"}, "get", "create", "update"),
			leasePermission(),
		},
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
			rule("", []string{"pods/binding"}, "create"),
			rule("", []string{"pods/status"}, "patch"),
			// A pod that stays unschedulable gets the same event on every
			// attempt, which the event correlator patches into a count.
			rule("", []string{"events"}, "create", "patch"),
		},
		Namespace: []rbacv1.PolicyRule{
			rule("", []string{"configmaps"}, "get"),
		},
	}
	if leaderElect {
		p.Namespace = append(p.Namespace, leasePermission())
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
// name a pod's workload, and the state ConfigMap in its namespace.
func extenderPermissions() permissions {
	return permissions{
		Cluster:   []rbacv1.PolicyRule{rule("apps", []string{"replicasets"}, "list", "watch")},
		Namespace: []rbacv1.PolicyRule{rule("", []string{"configmaps"}, "list", "watch")},
	}
}

func leasePermission() rbacv1.PolicyRule {
	return rule("coordination.k8s.io", []string{"leases"}, "get", "create", "update")
}

func newRBACCommand() *cobra.Command {
	var leaderElect bool
	c := &cobra.Command{
		Use:    "rbac COMMAND",
		Short:  "Print the RBAC rules a command needs, as YAML",
		Hidden: true,
		Args:   cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			var p permissions
			switch args[0] {
			case "run":
				p = runPermissions()
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
	return c
}
