package cluster

import (
	"strings"
	"testing"
	"time"
)

// replicasDump is part of a `kubectl get … -o yaml` dump: a Deployment's
// ReplicaSet scaled to 3 while only one of its pods is in the dump, a
// StatefulSet of 1, a Job that runs 2 pods at once, and pods of an owner the
// dump lacks and of a kind whose replicas the snapshot does not read.
const replicasDump = `apiVersion: v1
kind: List
items:
- apiVersion: apps/v1
  kind: ReplicaSet
  metadata: {name: web-7d9f, namespace: shop}
  spec: {replicas: 3, selector: {matchLabels: {app: web}}}
- apiVersion: apps/v1
  kind: ReplicaSet
  metadata: {name: api-5c8b, namespace: shop}
  spec: {selector: {matchLabels: {app: api}}}
- apiVersion: apps/v1
  kind: StatefulSet
  metadata: {name: postgres, namespace: db}
  spec:
    replicas: 1
    serviceName: postgres
    selector: {matchLabels: {app: postgres}}
    template:
      metadata: {labels: {app: postgres}}
      spec: {containers: [{name: postgres, image: "postgres:18"}]}
- apiVersion: batch/v1
  kind: Job
  metadata: {name: pi, namespace: batch}
  spec: {parallelism: 2, template: {spec: {containers: [{name: pi, image: perl}]}}}
- {apiVersion: v1, kind: Pod, metadata: {name: web-7d9f-x2x4b, namespace: shop, ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: web-7d9f, uid: u1, controller: true}]}}
- {apiVersion: v1, kind: Pod, metadata: {name: api-5c8b-q8d4z, namespace: shop, ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: api-5c8b, uid: u2, controller: true}]}}
- {apiVersion: v1, kind: Pod, metadata: {name: postgres-0, namespace: db, ownerReferences: [{apiVersion: apps/v1, kind: StatefulSet, name: postgres, uid: u3, controller: true}]}}
- {apiVersion: v1, kind: Pod, metadata: {name: pi-r7n2k, namespace: batch, ownerReferences: [{apiVersion: batch/v1, kind: Job, name: pi, uid: u4, controller: true}]}}
- {apiVersion: v1, kind: Pod, metadata: {name: cache-0, namespace: db, ownerReferences: [{apiVersion: apps/v1, kind: StatefulSet, name: cache, uid: u5, controller: true}]}}
- {apiVersion: v1, kind: Pod, metadata: {name: kv-0, namespace: db, ownerReferences: [{apiVersion: apps.kruise.io/v1beta1, kind: StatefulSet, name: kv, uid: u6, controller: true}]}}
- {apiVersion: v1, kind: Pod, metadata: {name: worker-x7k2p, namespace: shop, ownerReferences: [{apiVersion: apps.kruise.io/v1alpha1, kind: CloneSet, name: worker, uid: u7, controller: true}]}}
- {apiVersion: v1, kind: Pod, metadata: {name: debug, namespace: shop}}
`

// A pod's replica count is its controller's spec, as the API server defaults
// it, however many of its pods the dump holds.
func TestReplicasOf(t *testing.T) {
	objs, _, err := Decode(strings.NewReader(replicasDump))
	if err != nil {
		t.Fatal(err)
	}
	snap, err := New(objs, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		pod  string
		want Replicas
	}{
		{pod: "shop/web-7d9f-x2x4b", want: Replicas{Owner: "ReplicaSet shop/web-7d9f", Count: 3, Counted: true, Found: true}},
		{pod: "shop/api-5c8b-q8d4z", want: Replicas{Owner: "ReplicaSet shop/api-5c8b", Count: 1, Counted: true, Found: true}},
		{pod: "db/postgres-0", want: Replicas{Owner: "StatefulSet db/postgres", Count: 1, Counted: true, Found: true}},
		{pod: "batch/pi-r7n2k", want: Replicas{Owner: "Job batch/pi", Count: 2, Counted: true, Found: true}},
		{pod: "db/cache-0", want: Replicas{Owner: "StatefulSet db/cache", Counted: true}},
		{pod: "db/kv-0", want: Replicas{Owner: "StatefulSet db/kv"}},
		{pod: "shop/worker-x7k2p", want: Replicas{Owner: "CloneSet shop/worker"}},
		{pod: "shop/debug", want: Replicas{}},
	}
	for _, tt := range tests {
		t.Run(tt.pod, func(t *testing.T) {
			if got := snap.ReplicasOf(snap.Pod(tt.pod)); got != tt.want {
				t.Errorf("ReplicasOf = %+v, want %+v", got, tt.want)
			}
		})
	}
	if ss := objs.StatefulSets[0]; ss.Spec.ServiceName != "" || len(ss.Spec.Template.Spec.Containers) != 0 {
		t.Errorf("a dump's StatefulSet keeps %+v; want only spec.replicas", ss.Spec)
	}
}
