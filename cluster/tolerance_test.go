package cluster_test

import (
	"strings"
	"testing"
	"time"

	"github.com/kube-rebalancer/rebalancer/cluster"
)

// A dump's Deployments and StatefulSets say how many of their pods may be
// down at once; what decoding keeps of them is enough to tell.
func TestToleranceOf(t *testing.T) {
	const dump = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  replicas: 10
  selector: {matchLabels: {app: web}}
  strategy: {type: RollingUpdate, rollingUpdate: {maxUnavailable: 30%, maxSurge: 1}}
  template: {metadata: {labels: {app: web}}, spec: {containers: [{name: web, image: web}]}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: batch, namespace: shop}
spec:
  replicas: 6
  selector: {matchLabels: {app: batch}}
  strategy: {type: Recreate}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: shop}
spec:
  replicas: 5
  podManagementPolicy: Parallel
  updateStrategy: {type: RollingUpdate, rollingUpdate: {maxUnavailable: 30%}}
  selector: {matchLabels: {app: db}}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: queue, namespace: shop}
spec:
  replicas: 5
  updateStrategy: {type: RollingUpdate, rollingUpdate: {maxUnavailable: 2}}
  selector: {matchLabels: {app: queue}}
`
	objs, _, err := cluster.Decode(strings.NewReader(dump))
	if err != nil {
		t.Fatal(err)
	}
	if len(objs.Deployments) != 2 || len(objs.Deployments[0].Spec.Template.Spec.Containers) != 0 {
		t.Fatalf("decoded Deployments %+v, want two, trimmed of their pod template", objs.Deployments)
	}
	snap, err := cluster.New(objs, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		kind, name string
		want       string
	}{
		{"Deployment", "web", "maxUnavailable 30% of Deployment shop/web: 3 of 10 replicas a step"},
		{"Deployment", "batch", "maxUnavailable 25% (the default: its Recreate strategy states none) of Deployment shop/batch: 1 of 6 replicas a step"},
		{"Deployment", "gone", "maxUnavailable 25% (the default: the Deployment is not in the snapshot) of Deployment shop/gone: 1 of 1 replicas a step"},
		{"StatefulSet", "db", "maxUnavailable 30% of StatefulSet shop/db: 2 of 5 replicas a step"},
		{"StatefulSet", "queue", "one pod at a time of StatefulSet shop/queue: 1 of 5 replicas a step"},
		{"ReplicaSet", "solo", ""},
	}
	for _, tt := range tests {
		tol, ok := snap.ToleranceOf(cluster.Workload{Kind: tt.kind, Namespace: "shop", Name: tt.name})
		got := ""
		if ok {
			got = tol.String()
		}
		if got != tt.want {
			t.Errorf("%s shop/%s: %q, want %q", tt.kind, tt.name, got, tt.want)
		}
	}
}
