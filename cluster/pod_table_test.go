package cluster

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestPodTableKeepsOneValuePerPodOfTheSnapshot(t *testing.T) {
	pod := func(name string) corev1.Pod {
		return corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name}, Spec: corev1.PodSpec{NodeName: "a"}}
	}
	s, err := New(Objects{
		Nodes: []corev1.Node{{ObjectMeta: metav1.ObjectMeta{Name: "a"}}, {ObjectMeta: metav1.ObjectMeta{Name: "b"}}},
		Pods:  []corev1.Pod{pod("web-1"), pod("web-2")},
	}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	other, err := New(Objects{Pods: []corev1.Pod{pod("db-1")}}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	stranger := other.Pod("ns/db-1")
	if stranger.Index() != s.Pod("ns/web-1").Index() {
		t.Fatalf("the stranger's index %d is not web-1's: the case tests nothing", stranger.Index())
	}
	f := s.Fork()
	if err := f.Move(f.Pod("ns/web-2"), "b"); err != nil {
		t.Fatal(err)
	}

	var table PodTable[string]
	computed := 0
	answer := map[string]string{"web-1": "", "web-2": "two", "db-1": "one"}
	get := func(s *Snapshot, p *Pod) string {
		return table.Get(s, p, func(p *Pod) string {
			computed++
			return answer[p.Name]
		})
	}
	tests := []struct {
		name         string
		snap         *Snapshot
		pod          *Pod
		want         string
		wantComputed int
	}{
		{name: "a pod asked about the first time is computed", snap: s, pod: s.Pod("ns/web-1"), want: "", wantComputed: 1},
		{name: "the empty string is kept as an answer", snap: s, pod: s.Pod("ns/web-1"), want: "", wantComputed: 1},
		{name: "another pod has its own slot", snap: s, pod: s.Pod("ns/web-2"), want: "two", wantComputed: 2},
		{name: "a fork holds the same pods wherever they run", snap: f, pod: f.Pod("ns/web-2"), want: "two", wantComputed: 2},
		{name: "a pod of another snapshot with web-1's index is not given web-1's answer", snap: s, pod: stranger, want: "one", wantComputed: 3},
		{name: "nor is its answer kept", snap: s, pod: stranger, want: "one", wantComputed: 4},
		{name: "web-1 keeps its own", snap: s, pod: s.Pod("ns/web-1"), want: "", wantComputed: 4},
	}
	for _, tt := range tests {
		if got := get(tt.snap, tt.pod); got != tt.want || computed != tt.wantComputed {
			t.Errorf("%s: Get = %q after %d computations, want %q after %d", tt.name, got, computed, tt.want, tt.wantComputed)
		}
	}
}
