package cluster_test

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kube-rebalancer/rebalancer/cluster"
	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
)

// The stages of an in-place resize, as the Kubernetes docs ("Resize CPU and
// Memory Resources assigned to Containers") show them in a pod's status, and
// what kube-scheduler counts the pod for on its node at each: the larger of
// the spec, the allocated and the actual resources while a resize is pending
// or in progress, the allocated and actual ones when the kubelet found it
// Infeasible. A replacement is a new pod: it asks for the spec.
func TestInPlaceResizeRequests(t *testing.T) {
	tests := []struct {
		name string
		pod  *ct.PodBuilder
		// held is what the pod takes from its node, in millicores and MiB;
		// spec what a pod with its spec asks for.
		heldCPU, heldMiB int64
		specCPU, specMiB int64
	}{
		{
			name:    "no resize: the spec, allocated and actual resources agree",
			pod:     ct.Pod("shop", "web").Requests("700m", "200Mi").Allocated("700m", "200Mi").Actual("700m", "200Mi"),
			heldCPU: 700, heldMiB: 200, specCPU: 700, specMiB: 200,
		},
		{
			name:    "a pod written without status holds its spec",
			pod:     ct.Pod("shop", "web").Requests("700m", "200Mi"),
			heldCPU: 700, heldMiB: 200, specCPU: 700, specMiB: 200,
		},
		{
			name: "resize up, Deferred: the node keeps room for the spec it may grant",
			pod: ct.Pod("shop", "web").Requests("2", "200Mi").Allocated("700m", "200Mi").Actual("700m", "200Mi").
				ResizePending(corev1.PodReasonDeferred),
			heldCPU: 2000, heldMiB: 200, specCPU: 2000, specMiB: 200,
		},
		{
			name:    "resize up, in progress: allocated already, not yet actual",
			pod:     ct.Pod("shop", "web").Requests("2", "200Mi").Allocated("2", "200Mi").Actual("700m", "200Mi").ResizeInProgress(),
			heldCPU: 2000, heldMiB: 200, specCPU: 2000, specMiB: 200,
		},
		{
			name: "resize up, Infeasible: the node holds what it granted, not the spec it never will",
			pod: ct.Pod("shop", "web").Requests("6", "200Mi").Allocated("700m", "200Mi").Actual("700m", "200Mi").
				ResizePending(corev1.PodReasonInfeasible),
			heldCPU: 700, heldMiB: 200, specCPU: 6000, specMiB: 200,
		},
		{
			name: "resize down, pending: the room is not free until the kubelet gives it back",
			pod: ct.Pod("shop", "web").Requests("300m", "100Mi").Allocated("700m", "200Mi").Actual("700m", "200Mi").
				ResizePending(corev1.PodReasonDeferred),
			heldCPU: 700, heldMiB: 200, specCPU: 300, specMiB: 100,
		},
		{
			name:    "resize down, in progress: allocated, the runtime still applies the old values",
			pod:     ct.Pod("shop", "web").Requests("300m", "100Mi").Allocated("300m", "100Mi").Actual("700m", "200Mi").ResizeInProgress(),
			heldCPU: 700, heldMiB: 200, specCPU: 300, specMiB: 100,
		},
		{
			name:    "resize done: the new values everywhere",
			pod:     ct.Pod("shop", "web").Requests("300m", "100Mi").Allocated("300m", "100Mi").Actual("300m", "100Mi"),
			heldCPU: 300, heldMiB: 100, specCPU: 300, specMiB: 100,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			snap, err := cluster.New(ct.Objects(ct.Node("n1"), ct.Node("n2"), tt.pod.On("n1").Deployment("web"), ct.DeploymentReplicaSet("shop", "web")), time.Time{})
			if err != nil {
				t.Fatal(err)
			}
			p := snap.Pod("shop/web")
			if got := p.Requests; got.MilliCPU != tt.heldCPU || got.Memory != tt.heldMiB<<20 {
				t.Errorf("Requests = %dm, %dMi; want %dm, %dMi", got.MilliCPU, got.Memory>>20, tt.heldCPU, tt.heldMiB)
			}
			if got := p.SpecRequests; got.MilliCPU != tt.specCPU || got.Memory != tt.specMiB<<20 {
				t.Errorf("SpecRequests = %dm, %dMi; want %dm, %dMi", got.MilliCPU, got.Memory>>20, tt.specCPU, tt.specMiB)
			}
			if got := snap.Node("n1").Requested; got.MilliCPU != tt.heldCPU || got.Memory != tt.heldMiB<<20 {
				t.Errorf("n1 requested = %dm, %dMi; want what the pod holds, %dm, %dMi", got.MilliCPU, got.Memory>>20, tt.heldCPU, tt.heldMiB)
			}

			// The replacement takes its spec on the node it goes to, and
			// the node it left is free of what the pod held there; moving
			// it back restores the node as it was.
			f := snap.Fork()
			if err := f.Move(p, "n2"); err != nil {
				t.Fatal(err)
			}
			if got := f.Node("n2").Requested; got.MilliCPU != tt.specCPU || got.Memory != tt.specMiB<<20 {
				t.Errorf("after the move, n2 requested = %dm, %dMi; want the spec, %dm, %dMi", got.MilliCPU, got.Memory>>20, tt.specCPU, tt.specMiB)
			}
			if got := f.Node("n1").Requested; got.MilliCPU != 0 || got.Memory != 0 || got.Pods != 0 {
				t.Errorf("after the move, n1 requested = %+v; want nothing", got)
			}
			if err := f.Move(p, "n1"); err != nil {
				t.Fatal(err)
			}
			if got, want := f.Node("n1").Requested, snap.Node("n1").Requested; got.MilliCPU != want.MilliCPU || got.Memory != want.Memory || got.Pods != want.Pods {
				t.Errorf("after moving back, n1 requested = %+v; want %+v", got, want)
			}
			if got := f.Node("n2").Requested; got.MilliCPU != 0 || got.Memory != 0 || got.Pods != 0 {
				t.Errorf("after moving back, n2 requested = %+v; want nothing", got)
			}
		})
	}
}
