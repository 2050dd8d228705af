package cluster

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// replicaPod is a pod of the ReplicaSet web-7d4b9 as kubectl prints it,
// with the CPU it requests.
func replicaPod(name, cpu string) string {
	return fmt.Sprintf(`- apiVersion: v1
  kind: Pod
  metadata:
    name: %s
    namespace: shop
    labels: {app: web, pod-template-hash: 7d4b9}
    ownerReferences:
    - {apiVersion: apps/v1, kind: ReplicaSet, name: web-7d4b9, uid: 6f1c, controller: true}
  spec:
    nodeName: n1
    containers: [{name: web, image: "web:1", resources: {requests: {cpu: %s, memory: 128Mi}}}]
    tolerations:
    - {key: node.kubernetes.io/not-ready, operator: Exists, effect: NoExecute, tolerationSeconds: 300}
    affinity:
      podAntiAffinity:
        preferredDuringSchedulingIgnoredDuringExecution:
        - weight: 100
          podAffinityTerm: {topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {app: web}}}
  status:
    phase: Running
    conditions:
    - {type: Ready, status: "True", lastTransitionTime: "2026-11-20T10:00:00Z"}
`, name, cpu)
}

func decodePods(t *testing.T, items ...string) []podView {
	t.Helper()
	objs, _, err := Decode(strings.NewReader("apiVersion: v1\nkind: List\nitems:\n" + strings.Join(items, "")))
	if err != nil {
		t.Fatal(err)
	}
	views := make([]podView, len(objs.Pods))
	for i := range objs.Pods {
		p := &objs.Pods[i]
		views[i] = podView{
			labels:      reflect.ValueOf(p.Labels).UnsafePointer(),
			owners:      reflect.ValueOf(p.OwnerReferences).UnsafePointer(),
			containers:  reflect.ValueOf(p.Spec.Containers).UnsafePointer(),
			tolerations: reflect.ValueOf(p.Spec.Tolerations).UnsafePointer(),
			affinity:    reflect.ValueOf(p.Spec.Affinity).UnsafePointer(),
			conditions:  reflect.ValueOf(p.Status.Conditions).UnsafePointer(),
			pod:         p,
		}
	}
	return views
}

// podView is where a decoded pod's shareable values are.
type podView struct {
	labels, owners, containers, tolerations, affinity, conditions any
	pod                                                           any
}

func TestDecodeSharesWhatReplicasHaveInCommon(t *testing.T) {
	tests := []struct {
		name   string
		second string
		// same lists the values the second pod shares with the first.
		same map[string]bool
	}{
		{
			name:   "two replicas of one ReplicaSet share their spec's values",
			second: replicaPod("web-2", "500m"),
			same:   map[string]bool{"labels": true, "owners": true, "containers": true, "tolerations": true, "affinity": true, "conditions": true},
		},
		{
			name:   "a replica that requests more CPU keeps containers of its own",
			second: replicaPod("web-2", "750m"),
			same:   map[string]bool{"labels": true, "owners": true, "tolerations": true, "affinity": true, "conditions": true},
		},
		{
			name:   "a replica that became Ready at another time keeps conditions of its own",
			second: strings.Replace(replicaPod("web-2", "500m"), "10:00:00Z", "10:00:01Z", 1),
			same:   map[string]bool{"labels": true, "owners": true, "containers": true, "tolerations": true, "affinity": true},
		},
		{
			name:   "a pod of another workload shares only what is equal: the API server's default tolerations",
			second: strings.NewReplacer("app: web", "app: api", "web-7d4b9", "api-5c8f2", "7d4b9", "5c8f2", "web:1", "api:1").Replace(replicaPod("api-1", "500m")),
			same:   map[string]bool{"tolerations": true, "conditions": true},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pods := decodePods(t, replicaPod("web-1", "500m"), tt.second)
			first, second := pods[0], pods[1]
			for _, v := range []struct {
				name string
				a, b any
			}{
				{"labels", first.labels, second.labels},
				{"owners", first.owners, second.owners},
				{"containers", first.containers, second.containers},
				{"tolerations", first.tolerations, second.tolerations},
				{"affinity", first.affinity, second.affinity},
				{"conditions", first.conditions, second.conditions},
			} {
				if got := v.a == v.b; got != tt.same[v.name] {
					t.Errorf("%s shared = %v, want %v", v.name, got, tt.same[v.name])
				}
			}
			// Sharing changes no value: each pod is what it is decoded alone.
			alone := decodePods(t, tt.second)[0]
			if !reflect.DeepEqual(second.pod, alone.pod) {
				t.Errorf("the second pod decoded after the first differs from the same pod decoded alone")
			}
		})
	}
}

// Pods of one workload usually come one after another, and each is first
// compared with the values shared last; a replica listed after another
// workload's pod still finds the first copy.
func TestDecodeSharesAcrossOtherWorkloadsPods(t *testing.T) {
	other := strings.NewReplacer("app: web", "app: api", "web-7d4b9", "api-5c8f2", "7d4b9", "5c8f2", "web:1", "api:1").Replace(replicaPod("api-1", "500m"))
	pods := decodePods(t, replicaPod("web-1", "500m"), other, replicaPod("web-2", "500m"))
	first, between, last := pods[0], pods[1], pods[2]
	for _, v := range []struct {
		name           string
		first, between any
		last           any
	}{
		{"labels", first.labels, between.labels, last.labels},
		{"owners", first.owners, between.owners, last.owners},
		{"containers", first.containers, between.containers, last.containers},
		{"affinity", first.affinity, between.affinity, last.affinity},
	} {
		if v.first != v.last {
			t.Errorf("%s: the second replica does not share the first one's", v.name)
		}
		if v.between == v.last {
			t.Errorf("%s: the second replica shares the other workload's pod's", v.name)
		}
	}
}
