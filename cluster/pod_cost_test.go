package cluster

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The values of the Kubernetes docs on ReplicaSets ("Pod deletion cost"),
// and the ones the ReplicaSet controller does not accept, which it counts as
// no annotation at all.
func TestDeletionCost(t *testing.T) {
	tests := []struct {
		name  string
		value *string
		want  int32
	}{
		{name: "no annotation costs 0", want: 0},
		{name: "a cheaper pod goes first", value: new("-100"), want: -100},
		{name: "a dearer pod goes last", value: new("2147483647"), want: 2147483647},
		{name: "the lowest int32", value: new("-2147483648"), want: -2147483648},
		{name: "zero", value: new("0"), want: 0},
		{name: "beyond int32 is invalid: 0", value: new("2147483648"), want: 0},
		{name: "a plus sign is invalid: 0", value: new("+10"), want: 0},
		{name: "a leading zero is invalid: 0", value: new("008"), want: 0},
		{name: "an empty value is invalid: 0", value: new(""), want: 0},
		{name: "words are invalid: 0", value: new("high"), want: 0},
		{name: "a lone minus sign is invalid: 0", value: new("-"), want: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web-0"}}
			if tt.value != nil {
				p.Annotations = map[string]string{corev1.PodDeletionCost: *tt.value}
			}
			if got := newPod(p, 0).DeletionCost; got != tt.want {
				t.Errorf("DeletionCost = %d, want %d", got, tt.want)
			}
		})
	}
}
