package app

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/extender"
)

// The extender's watches read the state ConfigMap of its namespace and the
// ReplicaSets: exactly what `rebalancer rbac extender` grants, and it
// holds the state's intents once the watches have filled.
func TestExtenderPermissionsMatchTheCallsMade(t *testing.T) {
	state := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: stateNamespace, Name: defaultStateName}}
	w := cluster.Workload{Kind: "Deployment", Namespace: "shop", Name: "web"}
	if _, err := cluster.EncodeEvictions(state, []cluster.Eviction{{Pod: "shop/web-1", Workload: w, From: "n1", To: "n2", At: time.Now()}}); err != nil {
		t.Fatal(err)
	}
	client := fake.NewClientset(state)
	intents := extender.NewIntents(time.Hour)
	src := &extender.Source{Client: client, Namespace: stateNamespace, Name: defaultStateName, Intents: intents}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := src.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if e, ok := intents.Claim("uid-1", w, time.Now()); !ok || e.To != "n2" {
		t.Errorf("after the watches filled: claim %v %v, want the state's intent to n2", e, ok)
	}
	checkPermissions(t, extenderPermissions(), client.Actions())
}
