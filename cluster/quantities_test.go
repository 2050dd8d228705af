package cluster_test

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/cluster/clustertest"
)

// Quantities the API server refuses, or too large for kube-scheduler's
// arithmetic, make the snapshot an error naming the object and the field,
// rather than a plan built on a wrong number.
func TestSnapshotRefusesImpossibleQuantities(t *testing.T) {
	negativeRequest := clustertest.Pod("shop", "web-1").On("n1").Requests("-500m", "").Obj()
	negativeInitLimit := clustertest.Pod("shop", "web-2").On("n1").Obj()
	negativeInitLimit.Spec.InitContainers = []corev1.Container{{Name: "init", Resources: corev1.ResourceRequirements{
		Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("-1Gi")}}}}
	huge := clustertest.Node("n2").Obj()
	huge.Status.Allocatable[corev1.ResourceCPU] = resource.MustParse("1e16")
	tests := []struct {
		name string
		objs []any
		want string
	}{
		{name: "what a cluster holds", objs: []any{clustertest.Node("n1"), clustertest.Pod("shop", "ok").On("n1").Requests("500m", "1Gi")}},
		{name: "a negative request", objs: []any{clustertest.Node("n1"), negativeRequest},
			want: `Pod shop/web-1: spec.containers[0].resources.requests.cpu: Invalid value: "-500m": must be greater than or equal to 0`},
		{name: "a negative limit of an init container", objs: []any{clustertest.Node("n1"), negativeInitLimit},
			want: `Pod shop/web-2: spec.initContainers[0].resources.limits.memory: Invalid value: "-1Gi": must be greater than or equal to 0`},
		{name: "ten quadrillion cores", objs: []any{huge},
			want: `Node n2: status.allocatable.cpu: Invalid value: "10e15": must be at most 9223372036854775807m`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := cluster.New(clustertest.Objects(tt.objs...), time.Time{})
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("New() = %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("New() = %v, want %q", err, tt.want)
			}
		})
	}
}
