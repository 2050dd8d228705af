package app

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/cluster/clustertest"
	"github.com/kube-rebalancer/rebalancer/cluster/kube"
	"github.com/kube-rebalancer/rebalancer/cluster/kube/kubetest"
	"github.com/kube-rebalancer/rebalancer/policy"
	"github.com/kube-rebalancer/rebalancer/rebalance"
	"github.com/kube-rebalancer/rebalancer/scheduler/engine"
	"github.com/kube-rebalancer/rebalancer/scheduler/profile"
)

const stateNamespace = "rebalancer"

// The policies whose cycles, together, make every call `rebalancer run` can
// make: one balancing on requests, one on usage read from metrics.k8s.io.
var permissionPolicies = map[string]string{
	"requests": "strategies:\n  LowNodeUtilization: {thresholds: {cpu: 20}, targetThresholds: {cpu: 50}}\n",
	"usage": "strategies:\n  LowNodeUtilization:\n    thresholds: {cpu: 20}\n    targetThresholds: {cpu: 50}\n" +
		"    metricsUtilization: {source: KubernetesMetrics}\n",
}

// runCycles runs real cycles of the policy's strategies against the fake API
// server, as `rebalancer run` does, and returns every call made. The API
// server serves metrics.k8s.io too: node "hot" uses 3.5 of its 4 CPUs, node
// "idle" almost none.
func runCycles(t *testing.T, leaderElect bool, strategies string) []k8stesting.Action {
	t.Helper()
	fake := kubetest.Imbalanced()
	now := metav1.Now()
	nodes := []cluster.NodeMetrics{clustertest.NodeUsage("hot", "3500m", "", 0), clustertest.NodeUsage("idle", "100m", "", 0)}
	for i := range nodes {
		nodes[i].Timestamp = now
	}
	var pods []cluster.PodMetrics
	for i := range 8 {
		pods = append(pods, clustertest.PodUsage("shop", fmt.Sprintf("web-%d", i), "430m", ""))
		pods[i].Timestamp = now
	}
	client := kubetest.WithMetrics(fake, nodes, pods)
	placer, err := engine.New(profile.DefaultProfile())
	if err != nil {
		t.Fatal(err)
	}
	pol, err := policy.Load([]byte("apiVersion: rebalancer.dev/v1alpha1\nkind: RebalancePolicy\ncooldown: 0s\nlimits: {total: 1}\n"+
		strategies), "p.yaml")
	if err != nil {
		t.Fatal(err)
	}
	history := &kube.HistoryStore{Client: client, Namespace: stateNamespace, Name: defaultStateName, Keep: time.Hour}
	r := rebalance.New(rebalance.Config{Client: client, Policy: pol, Placer: placer, History: history,
		Lock: runLock(client, defaultRunLeaseNamespace, defaultRunLeaseName), Publisher: &rebalance.Publisher{Record: history}})
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
	for _, a := range fake.Actions() {
		if a.GetSubresource() == "eviction" {
			evictions++
		}
	}
	if evictions != 2 {
		t.Fatalf("%d evictions in two cycles, want 2: the test must exercise evictions", evictions)
	}
	return fake.Actions()
}

// covers tells whether a rule grants the call. A rule with resourceNames
// grants only requests that name one of them: get, update, patch, delete,
// and a list or watch whose field selector asks for one name; RBAC never
// matches it for create, whose request names no object.
func covers(rules []rbacv1.PolicyRule, group, resource, verb, name string) (rbacv1.PolicyRule, bool) {
	for _, r := range rules {
		if slices.Contains(r.APIGroups, group) && slices.Contains(r.Resources, resource) && slices.Contains(r.Verbs, verb) &&
			(len(r.ResourceNames) == 0 || name != "" && slices.Contains(r.ResourceNames, name)) {
			return r, true
		}
	}
	return rbacv1.PolicyRule{}, false
}

// requestName is the object name the API server's authorizer sees for a
// call: none for create (the name is in the body), nor for a list or watch
// but one whose field selector requires metadata.name.
func requestName(a k8stesting.Action) string {
	switch a.GetVerb() {
	case "list":
		if a, ok := a.(k8stesting.ListAction); ok && a.GetListRestrictions().Fields != nil {
			name, _ := a.GetListRestrictions().Fields.RequiresExactMatch("metadata.name")
			return name
		}
	case "watch":
		if a, ok := a.(k8stesting.WatchAction); ok && a.GetWatchRestrictions().Fields != nil {
			name, _ := a.GetWatchRestrictions().Fields.RequiresExactMatch("metadata.name")
			return name
		}
	case "get", "patch", "delete":
		if a, ok := a.(interface{ GetName() string }); ok {
			return a.GetName()
		}
	case "update":
		if a, ok := a.(k8stesting.UpdateAction); ok {
			if o, err := meta.Accessor(a.GetObject()); err == nil {
				return o.GetName()
			}
		}
	}
	return ""
}

// Every API call of a real cycle is granted by the declared permissions, and
// every declared permission is used by a policy: the chart grants exactly
// these.
func TestRunPermissionsMatchTheCallsMade(t *testing.T) {
	for _, leaderElect := range []bool{false, true} {
		t.Run(fmt.Sprintf("leader-elect=%v", leaderElect), func(t *testing.T) {
			var actions []k8stesting.Action
			for _, strategies := range permissionPolicies {
				actions = append(actions, runCycles(t, leaderElect, strategies)...)
			}
			checkPermissions(t, runPermissions(leaderElect), actions)
		})
	}
}

// surgeCalls makes, against the fake API server, the calls a surge adds to
// a cycle's (rebalance/surge.go): the Deployment's scale read and written
// through its subresource, and the deletion cost merge-patched onto the
// two pods. The fake's answers do not matter, only the requests.
func surgeCalls() []k8stesting.Action {
	client := kubetest.Imbalanced()
	ctx := context.Background()
	deployments, pods := client.AppsV1().Deployments("shop"), client.CoreV1().Pods("shop")
	_, _ = deployments.GetScale(ctx, "web", metav1.GetOptions{})
	_, _ = deployments.UpdateScale(ctx, "web", &autoscalingv1.Scale{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"},
		Spec: autoscalingv1.ScaleSpec{Replicas: 9}}, metav1.UpdateOptions{})
	cost := []byte(`{"metadata":{"annotations":{"controller.kubernetes.io/pod-deletion-cost":"-2147483648"}}}`)
	for _, pod := range []string{"web-0", "web-8"} {
		_, _ = pods.Patch(ctx, pod, types.MergePatchType, cost, metav1.PatchOptions{})
	}
	return client.Actions()
}

// A policy that may surge needs, and is granted, the autoscalers' LIST and
// a surge's calls besides a cycle's; `rbac run --make-before-break` prints
// these. The cycles read the autoscalers; until a cycle of the tests
// surges, surgeCalls stands for what a surge asks.
func TestRunPermissionsWithMakeBeforeBreakMatchTheCallsMade(t *testing.T) {
	var actions []k8stesting.Action
	for _, strategies := range permissionPolicies {
		actions = append(actions, runCycles(t, false, "evictable: {makeBeforeBreak: true}\n"+strategies)...)
	}
	listed := 0
	for _, a := range actions {
		if a.GetVerb() == "list" && a.GetResource().Resource == "horizontalpodautoscalers" {
			listed++
		}
	}
	// Two policies, two cycles each.
	if listed != 4 {
		t.Errorf("%d LISTs of autoscalers, want 4: one a cycle", listed)
	}
	actions = append(actions, surgeCalls()...)
	checkPermissions(t, runPermissionsWith(false, true, defaultRunLeaseNamespace, defaultRunLeaseName), actions)
}

// A policy that balances on requests reads no metrics: a cluster without
// metrics-server runs it.
func TestRunReadsMetricsOnlyForAUsagePolicy(t *testing.T) {
	for name, strategies := range permissionPolicies {
		t.Run(name, func(t *testing.T) {
			read := 0
			for _, a := range runCycles(t, false, strategies) {
				if a.GetResource().Group == cluster.MetricsGroupVersion.Group {
					read++
				}
			}
			// Two cycles, each listing nodes and pods.
			if want := map[string]int{"requests": 0, "usage": 4}[name]; read != want {
				t.Errorf("%d reads of %s, want %d", read, cluster.MetricsGroupVersion, want)
			}
		})
	}
}

// checkPermissions fails for every call no rule grants (cluster rules in any
// namespace, namespace rules in the state namespace only, the run Lease's in
// its namespace only) and for every rule no call used.
func checkPermissions(t *testing.T, perms permissions, actions []k8stesting.Action) {
	t.Helper()
	used := map[string]bool{}
	grant := func(scope string, r rbacv1.PolicyRule, res, verb, name string) string {
		key := fmt.Sprintf("%s %s %s %s", scope, r.APIGroups[0], res, verb)
		if len(r.ResourceNames) > 0 {
			key += " " + name
		}
		return key
	}
	for _, a := range actions {
		res := a.GetResource().Resource
		if a.GetSubresource() != "" {
			res += "/" + a.GetSubresource()
		}
		group, verb, name := a.GetResource().Group, a.GetVerb(), requestName(a)
		// Every authenticated user may ask what it may do
		// (system:basic-user): no rule of rebalancer's grants it.
		if group == "authorization.k8s.io" && res == "selfsubjectaccessreviews" && verb == "create" {
			continue
		}
		if r, ok := covers(perms.Cluster, group, res, verb, name); ok {
			used[grant("cluster", r, res, verb, name)] = true
			continue
		}
		if r, ok := covers(perms.Namespace, group, res, verb, name); ok && a.GetNamespace() == stateNamespace {
			used[grant("namespace", r, res, verb, name)] = true
			continue
		}
		if l := perms.RunLease; l != nil && a.GetNamespace() == l.Namespace {
			if r, ok := covers(l.Rules, group, res, verb, name); ok {
				used[grant("runLease", r, res, verb, name)] = true
				continue
			}
		}
		t.Errorf("call without a rule: %s %s %q in namespace %q", verb, res, name, a.GetNamespace())
	}
	scopes := map[string][]rbacv1.PolicyRule{"cluster": perms.Cluster, "namespace": perms.Namespace}
	if perms.RunLease != nil {
		scopes["runLease"] = perms.RunLease.Rules
	}
	for scope, rules := range scopes {
		for _, r := range rules {
			names := r.ResourceNames
			if len(names) == 0 {
				names = []string{""}
			}
			for _, res := range r.Resources {
				for _, verb := range r.Verbs {
					for _, name := range names {
						if key := grant(scope, r, res, verb, name); !used[key] {
							t.Errorf("rule without a call: %s", strings.TrimSpace(key))
						}
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

// The rules of a surge are printed only for a policy that may surge, and
// only for run, the one command that surges.
func TestRBACRunMakeBeforeBreak(t *testing.T) {
	surge := []string{"horizontalpodautoscalers", "deployments/scale", "- patch\n"}
	plain, code, err := execute(t, "rbac", "run")
	if code != exitOK {
		t.Fatal(err)
	}
	with, code, err := execute(t, "rbac", "run", "--make-before-break")
	if code != exitOK {
		t.Fatal(err)
	}
	for _, w := range surge {
		if strings.Contains(plain, w) {
			t.Errorf("rbac run grants %s:\n%s", strings.TrimSpace(w), plain)
		}
		if !strings.Contains(with, w) {
			t.Errorf("rbac run --make-before-break lacks %s:\n%s", strings.TrimSpace(w), with)
		}
	}
	if _, code, _ := execute(t, "rbac", "schedule", "--make-before-break"); code != exitUsage {
		t.Errorf("rbac schedule --make-before-break exited %d, want %d", code, exitUsage)
	}
}

// In its own namespace a command may read and change only its own objects
// (the state ConfigMap, its Leases), not the other ConfigMaps and Leases that
// namespace holds. Create is the exception RBAC forces: its request names no
// object.
func TestNamespaceRulesNameTheirObjects(t *testing.T) {
	for name, p := range map[string]permissions{
		"run": runPermissions(false), "run --leader-elect": runPermissions(true),
		"run --make-before-break": runPermissionsWith(false, true, defaultRunLeaseNamespace, defaultRunLeaseName),
		"schedule":                schedulePermissions(false), "schedule --leader-elect": schedulePermissions(true),
		"extender": extenderPermissions(),
	} {
		rules := p.Namespace
		if p.RunLease != nil {
			rules = append(slices.Clone(rules), p.RunLease.Rules...)
		}
		for _, r := range rules {
			if len(r.ResourceNames) == 0 && !slices.Equal(r.Verbs, []string{"create"}) {
				t.Errorf("rbac %s: %v on %v in its namespace is not limited to named objects", name, r.Verbs, r.Resources)
			}
		}
	}
	out, code, err := execute(t, "rbac", "run", "--leader-elect")
	if code != exitOK {
		t.Fatal(err)
	}
	for _, want := range []string{"- " + defaultStateName + "\n", "- " + defaultRunLeaseName + "\n", "- rebalancer-run\n", "namespace: kube-system\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("rbac run --leader-elect does not name %q:\n%s", strings.TrimSpace(want), out)
		}
	}
}

// The run Lease's rules follow it where --run-lease moves it, and a Lease
// named by half is bad usage there as in run.
func TestRBACRunFollowsTheRunLease(t *testing.T) {
	out, code, err := execute(t, "rbac", "run", "--run-lease", "ops/cluster-run-lock")
	if code != exitOK {
		t.Fatal(err)
	}
	if !strings.Contains(out, "runLease:\n  namespace: ops\n") || !strings.Contains(out, "- cluster-run-lock\n") {
		t.Errorf("rbac run --run-lease ops/cluster-run-lock does not grant that Lease:\n%s", out)
	}
	if _, code, _ := execute(t, "rbac", "run", "--run-lease", "ops"); code != exitUsage {
		t.Errorf("rbac run --run-lease ops exited %d, want %d", code, exitUsage)
	}
}
