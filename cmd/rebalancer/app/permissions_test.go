package app

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kube-rebalancer/rebalancer/cluster/kube"
	"github.com/kube-rebalancer/rebalancer/cluster/kube/kubetest"
	"github.com/kube-rebalancer/rebalancer/policy"
	"github.com/kube-rebalancer/rebalancer/rebalance"
	"github.com/kube-rebalancer/rebalancer/scheduler"
)

const stateNamespace = "rebalancer"

// runCycles runs real cycles against the fake API server, as `rebalancer run`
// does, and returns every call made.
func runCycles(t *testing.T, leaderElect bool) []k8stesting.Action {
	t.Helper()
	client := kubetest.Imbalanced()
	placer, err := scheduler.NewEngine(scheduler.DefaultProfile())
	if err != nil {
		t.Fatal(err)
	}
	pol, err := policy.Load([]byte("apiVersion: rebalancer.dev/v1alpha1\nkind: RebalancePolicy\ncooldown: 0s\nlimits: {total: 1}\n"+
		"strategies:\n  LowNodeUtilization: {thresholds: {cpu: 20}, targetThresholds: {cpu: 50}}\n"), "p.yaml")
	if err != nil {
		t.Fatal(err)
	}
	history := &kube.HistoryStore{Client: client, Namespace: stateNamespace, Name: defaultStateName, Keep: time.Hour}
	r := rebalance.New(rebalance.Config{Client: client, Policy: pol, Placer: placer, History: history,
		Lock: runLock(client, history), Publisher: &rebalance.Publisher{Record: history}})
	// Two cycles: the first creates the state ConfigMap, the second updates it.
	work := func(ctx context.Context) error {
		for range 2 {
			if err := r.Cycle(ctx); err != nil {
				return err
			}
		}
		return nil
	}
	if leaderElect {
		e := electionFlags{enabled: true, namespace: stateNamespace, name: "rebalancer-run"}
		err = e.run(context.Background(), client, work)
	} else {
		err = work(context.Background())
	}
	if err != nil {
		t.Fatal(err)
	}
	evictions := 0
	for _, a := range client.Actions() {
		if a.GetSubresource() == "eviction" {
			evictions++
		}
	}
	if evictions != 2 {
		t.Fatalf("%d evictions in two cycles, want 2: the test must exercise evictions", evictions)
	}
	return client.Actions()
}

func covers(rules []rbacv1.PolicyRule, group, resource, verb string) bool {
	for _, r := range rules {
		if slices.Contains(r.APIGroups, group) && slices.Contains(r.Resources, resource) && slices.Contains(r.Verbs, verb) {
			return true
		}
	}
	return false
}

// Every API call of a real cycle is granted by the declared permissions, and
// every declared permission is used: the chart grants exactly these.
func TestRunPermissionsMatchTheCallsMade(t *testing.T) {
	for _, leaderElect := range []bool{false, true} {
		t.Run(fmt.Sprintf("leader-elect=%v", leaderElect), func(t *testing.T) {
			checkPermissions(t, runPermissions(), runCycles(t, leaderElect))
		})
	}
}

// checkPermissions fails for every call no rule grants (cluster rules in any
// namespace, namespace rules in the state namespace only) and for every rule
// no call used.
func checkPermissions(t *testing.T, perms permissions, actions []k8stesting.Action) {
	t.Helper()
	used := map[string]bool{}
	for _, a := range actions {
		res := a.GetResource().Resource
		if a.GetSubresource() != "" {
			res += "/" + a.GetSubresource()
		}
		group, verb := a.GetResource().Group, a.GetVerb()
		key := fmt.Sprintf("%s %s %s", group, res, verb)
		switch {
		case covers(perms.Cluster, group, res, verb):
			used["cluster "+key] = true
		case a.GetNamespace() == stateNamespace && covers(perms.Namespace, group, res, verb):
			used["namespace "+key] = true
		default:
			t.Errorf("call without a rule: %s %s in namespace %q", verb, res, a.GetNamespace())
		}
	}
	for scope, rules := range map[string][]rbacv1.PolicyRule{"cluster": perms.Cluster, "namespace": perms.Namespace} {
		for _, r := range rules {
			for _, res := range r.Resources {
				for _, verb := range r.Verbs {
					if key := fmt.Sprintf("%s %s %s %s", scope, r.APIGroups[0], res, verb); !used[key] {
						t.Errorf("rule without a call: %s", strings.TrimSpace(key))
					}
				}
			}
		}
	}
}

func TestRBACCommandPrintsThePermissions(t *testing.T) {
	out, code, err := execute(t, "rbac", "run", "--leader-elect")
	if code != exitOK {
		t.Fatal(err)
	}
	for _, want := range []string{"pods/eviction", "leases", "configmaps", "replicasets"} {
		if !strings.Contains(out, want) {
			t.Errorf("rbac run --leader-elect output lacks %s:\n%s", want, out)
		}
	}
}
