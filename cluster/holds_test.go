package cluster_test

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kube-rebalancer/rebalancer/cluster"
	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
)

func TestHoldsRoundTripAndEnd(t *testing.T) {
	cm := &corev1.ConfigMap{}
	h := cluster.Hold{Pod: "shop/big-0", UID: "uid-big-0", Node: "n0", Strategy: "DefragmentForPendingPods", At: ct.Now}
	if err := cluster.EncodeHolds(cm, []cluster.Hold{h}); err != nil {
		t.Fatal(err)
	}
	got, err := cluster.DecodeHolds(cm)
	if err != nil || len(got) != 1 || got[0] != h {
		t.Fatalf("DecodeHolds = %+v, %v; want %+v", got, err, h)
	}
	if err := cluster.EncodeHolds(cm, nil); err != nil || cm.Data["holds.json"] != "" {
		t.Errorf("EncodeHolds(none) left %q, %v", cm.Data["holds.json"], err)
	}

	for _, tt := range []struct {
		name string
		now  time.Time
		want bool
	}{
		{"just recorded", ct.Now, true},
		{"at the TTL", ct.Now.Add(10 * time.Minute), true},
		{"past the TTL", ct.Now.Add(11 * time.Minute), false},
		{"dated more than the TTL ahead of the clock", ct.Now.Add(-11 * time.Minute), false},
	} {
		if got := h.Live(tt.now, 10*time.Minute); got != tt.want {
			t.Errorf("%s: Live = %v, want %v", tt.name, got, tt.want)
		}
	}

	pending := ct.Pod("shop", "big-0").Requests("3", "").Unschedulable().Obj()
	bound := ct.Pod("shop", "big-0").On("n3").Obj()
	for _, tt := range []struct {
		name string
		pod  *corev1.Pod
		want bool
	}{
		{"still pending", &pending, false},
		{"bound", &bound, true},
		{"gone", nil, true},
	} {
		objs := ct.Objects(ct.Node("n0"), ct.Node("n3"))
		if tt.pod != nil {
			objs.Pods = append(objs.Pods, *tt.pod)
		}
		snap, err := cluster.New(objs, ct.Now)
		if err != nil {
			t.Fatal(err)
		}
		hold := h
		if p := snap.Pod("shop/big-0"); p != nil {
			hold.UID = p.UID
		}
		if got := hold.Over(snap); got != tt.want {
			t.Errorf("%s: Over = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// A dump's state ConfigMap gives its holds to plan --snapshot; a list it
// cannot read gives none.
func TestObjectsHolds(t *testing.T) {
	good := corev1.ConfigMap{}
	h := cluster.Hold{Pod: "shop/big-0", UID: "uid-big-0", Node: "n0", At: ct.Now}
	if err := cluster.EncodeHolds(&good, []cluster.Hold{h}); err != nil {
		t.Fatal(err)
	}
	bad := corev1.ConfigMap{Data: map[string]string{"holds.json": "{"}}
	objs := cluster.Objects{StateConfigMaps: []corev1.ConfigMap{good, bad}}
	if got := objs.Holds(); len(got) != 1 || got[0] != h {
		t.Errorf("Holds() = %+v, want %+v", got, h)
	}
}
