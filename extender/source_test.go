package extender

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kube-rebalancer/rebalancer/cluster"
)

// The pod watch tells an evicted pod that has left (gone, terminating, or
// replaced under its name by another UID, as a StatefulSet's is) from one
// that still runs under the UID the run recorded.
func TestSourceTellsWhetherAnEvictedPodLeft(t *testing.T) {
	pod := func(name, uid string, deleting bool) *corev1.Pod {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name, UID: types.UID(uid)}}
		if deleting {
			p.DeletionTimestamp = &metav1.Time{Time: now}
		}
		return p
	}
	client := fake.NewClientset(pod("web-1", "uid-1", false), pod("web-2", "uid-2", true), pod("db-0", "uid-db-0-new", false))
	src := &Source{Client: client, Namespace: "rebalancer", Name: "rebalancer-state", Intents: NewIntents(time.Hour)}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := src.Start(ctx); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		pod, uid string
		want     bool
	}{
		{pod: "shop/web-1", uid: "uid-1", want: false},
		{pod: "shop/web-2", uid: "uid-2", want: true},
		{pod: "shop/db-0", uid: "uid-db-0", want: true},
		{pod: "shop/web-3", uid: "uid-3", want: true},
		{pod: "shop/web-1", want: true}, // no UID recorded: cannot be told apart
	}
	for _, tt := range tests {
		e := cluster.Eviction{Pod: tt.pod, UID: types.UID(tt.uid)}
		if got := src.Departed(e); got != tt.want {
			t.Errorf("Departed(%s, UID %q) = %v, want %v", tt.pod, tt.uid, got, tt.want)
		}
	}
	if !src.CatchUp(pod("web-1", "uid-1", false)) {
		t.Error("CatchUp of a pod the watch holds: false")
	}
	start := time.Now()
	if src.CatchUp(pod("web-9", "uid-9", false)) || time.Since(start) > 2*catchUpWait {
		t.Errorf("CatchUp of a pod the watch never holds: true, or it waited %s", time.Since(start))
	}
}
