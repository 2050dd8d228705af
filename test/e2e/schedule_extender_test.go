package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	extenderv1 "k8s.io/kube-scheduler/extender/v1"

	"github.com/kube-rebalancer/rebalancer/test/harness"
)

// TestScheduleBindsOnlyWhereTheExtenderAllows: `rebalancer schedule` with a
// KubeSchedulerConfiguration extender calls its filter after its own
// plugins and binds through its bindVerb, as kube-scheduler does. The
// extender, served by the test, passes one node of three and binds the
// pods itself; every pod lands there, and none is bound by the scheduler's
// own Binding call.
func TestScheduleBindsOnlyWhereTheExtenderAllows(t *testing.T) {
	cp := sharedControlPlane(t)
	ctx := t.Context()
	f := newFixture(t, cp, "extender-sched", 3, harness.NodeSpec{CPU: "4", Memory: "16Gi"})
	allowed := f.nodes[1]

	var mu sync.Mutex
	var filtered [][]string // the nodes each filter call was sent
	bound := map[string]string{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasSuffix(r.URL.Path, "/filter"):
			var args extenderv1.ExtenderArgs
			if err := json.NewDecoder(r.Body).Decode(&args); err != nil || args.Nodes == nil {
				http.Error(w, "want the nodes", http.StatusBadRequest)
				return
			}
			res := extenderv1.ExtenderFilterResult{Nodes: &corev1.NodeList{}, FailedNodes: extenderv1.FailedNodesMap{}}
			var sent []string
			for _, n := range args.Nodes.Items {
				sent = append(sent, n.Name)
				if n.Name == allowed {
					res.Nodes.Items = append(res.Nodes.Items, n)
				} else {
					res.FailedNodes[n.Name] = "the extender keeps this pod off the node"
				}
			}
			mu.Lock()
			filtered = append(filtered, sent)
			mu.Unlock()
			_ = json.NewEncoder(w).Encode(res)
		case strings.HasSuffix(r.URL.Path, "/bind"):
			var args extenderv1.ExtenderBindingArgs
			if err := json.NewDecoder(r.Body).Decode(&args); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			// A binding extender binds through the API server itself.
			err := cp.Client.CoreV1().Pods(args.PodNamespace).Bind(r.Context(), &corev1.Binding{
				ObjectMeta: metav1.ObjectMeta{Namespace: args.PodNamespace, Name: args.PodName, UID: args.PodUID},
				Target:     corev1.ObjectReference{Kind: "Node", Name: args.Node},
			}, metav1.CreateOptions{})
			res := extenderv1.ExtenderBindingResult{}
			if err != nil {
				res.Error = err.Error()
			} else {
				mu.Lock()
				bound[args.PodName] = args.Node
				mu.Unlock()
			}
			_ = json.NewEncoder(w).Encode(res)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)

	const schedulerName = "e2e-extender"
	config := writeFile(t, "scheduler.yaml", fmt.Sprintf(`apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: %s
extenders:
- urlPrefix: %s/scheduler
  filterVerb: filter
  bindVerb: bind
`, schedulerName, srv.URL))
	sched := startRebalancer(t, "schedule", "--kubeconfig", cp.Kubeconfig, "--config", config, "--scheduler-name", schedulerName)

	// The pods' nodeSelector keeps them on the fixture's nodes: the
	// scheduler sees every node of the shared cluster.
	web := harness.WorkloadSpec{Namespace: f.ns, Name: "web", Replicas: 3, SchedulerName: schedulerName,
		NodeSelector: map[string]string{harness.NodeSetLabel: f.ns}}
	if _, err := cp.CreateDeployment(ctx, web); err != nil {
		t.Fatal(err)
	}
	var last string
	err := harness.WaitFor(ctx, 2*time.Minute, "the pods bound", func(context.Context) (bool, error) {
		if err := sched.exited(); err != nil {
			return false, err
		}
		on := map[string]int{}
		for _, p := range pods(t, cp, f.ns, web.Selector()) {
			if p.DeletionTimestamp == nil {
				on[p.Spec.NodeName]++
			}
		}
		last = fmt.Sprint(on)
		return on[""] == 0 && len(on) > 0, nil
	})
	if err != nil {
		t.Fatalf("%v (last: pods per node %s)", err, last)
	}

	mu.Lock()
	defer mu.Unlock()
	for name, p := range pods(t, cp, f.ns, web.Selector()) {
		if p.Spec.NodeName != allowed {
			t.Errorf("pod %s bound to %s; the extender allows only %s", name, p.Spec.NodeName, allowed)
		}
		if bound[name] != p.Spec.NodeName {
			t.Errorf("pod %s on %s was not bound through the extender (it bound %v)", name, p.Spec.NodeName, bound)
		}
	}
	if len(filtered) == 0 {
		t.Fatal("the extender's filter was never called")
	}
	// Filter sees the nodes that passed the plugins: the fixture's three.
	for _, sent := range filtered {
		slices.Sort(sent)
		if !slices.Equal(sent, f.nodes) {
			t.Errorf("the filter was sent %v; want the nodes the plugins passed, %v", sent, f.nodes)
		}
	}
}
