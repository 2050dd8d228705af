package kube

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kube-rebalancer/rebalancer/cluster"
)

var historyNow = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)

func testStore(client *fake.Clientset, heal bool) *HistoryStore {
	return &HistoryStore{Client: client, Namespace: "rebalancer", Name: "rebalancer-state", Keep: time.Hour, Heal: heal,
		Now: func() time.Time { return historyNow }}
}

// A state that cannot be used costs one cooldown, never every later run:
// Read reports it and reads it as empty; a run that evicts (Heal) replaces
// it at once and says so in a Warning event on the ConfigMap, keeping the
// last-run record beside it.
func TestReadHealsAStateItCannotUse(t *testing.T) {
	tests := []struct {
		name string
		data map[string]string
	}{
		{name: "truncated JSON", data: map[string]string{"evictions.json": `[{"pod":"shop/web-1",`}},
		{name: "a format from a newer version", data: map[string]string{"format": "v9", "evictions.json": "[]"}},
	}
	for _, tt := range tests {
		for _, heal := range []bool{false, true} {
			name := tt.name + ", read only"
			if heal {
				name = tt.name + ", healing"
			}
			t.Run(name, func(t *testing.T) {
				data := map[string]string{RunRecordKey: `{"succeeded":true}`}
				for k, v := range tt.data {
					data[k] = v
				}
				client := fake.NewClientset(&corev1.ConfigMap{
					ObjectMeta: metav1.ObjectMeta{Namespace: "rebalancer", Name: "rebalancer-state"}, Data: data})
				evs, err := testStore(client, heal).Read(context.Background())
				if err != nil || len(evs) != 0 {
					t.Fatalf("Read() = %v, %v; want no evictions and no error", evs, err)
				}
				cm, _ := client.CoreV1().ConfigMaps("rebalancer").Get(context.Background(), "rebalancer-state", metav1.GetOptions{})
				events, _ := client.CoreV1().Events("rebalancer").List(context.Background(), metav1.ListOptions{})
				if !heal {
					if cm.Data["evictions.json"] != data["evictions.json"] || len(events.Items) != 0 {
						t.Errorf("a read-only store changed the state (%v) or recorded %d events", cm.Data, len(events.Items))
					}
					return
				}
				if _, err := cluster.DecodeEvictions(cm); err != nil || cm.Data["format"] != "v1" {
					t.Errorf("state after healing = %v (%v), want an empty state this version reads", cm.Data, err)
				}
				if cm.Data[RunRecordKey] == "" {
					t.Error("healing lost the last-run record")
				}
				if len(events.Items) != 1 || events.Items[0].Reason != ReasonStateReplaced || events.Items[0].Type != corev1.EventTypeWarning ||
					events.Items[0].InvolvedObject.Name != "rebalancer-state" {
					t.Errorf("events = %+v, want one Warning %s on the ConfigMap", events.Items, ReasonStateReplaced)
				}
			})
		}
	}
}

// An eviction dated in the future (a clock ahead) is stored as made now,
// so that its cooldown ends; what expired is forgotten.
func TestWritesDateFutureEvictionsNow(t *testing.T) {
	client := fake.NewClientset()
	h := testStore(client, true)
	w := cluster.Workload{Kind: "Deployment", Namespace: "shop", Name: "web"}
	err := h.Append(context.Background(), historyNow, []cluster.Eviction{
		{Pod: "shop/web-1", Workload: w, From: "n1", At: historyNow.Add(30 * 24 * time.Hour)},
		{Pod: "shop/web-2", Workload: w, From: "n1", At: historyNow.Add(-2 * time.Hour)},
		{Pod: "shop/web-3", Workload: w, From: "n1", At: historyNow.Add(-time.Minute)},
	})
	if err != nil {
		t.Fatal(err)
	}
	evs, err := h.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]time.Time{}
	for _, e := range evs {
		got[e.Pod] = e.At
	}
	want := map[string]time.Time{"shop/web-1": historyNow, "shop/web-3": historyNow.Add(-time.Minute)}
	if len(got) != len(want) || !got["shop/web-1"].Equal(want["shop/web-1"]) || !got["shop/web-3"].Equal(want["shop/web-3"]) {
		t.Errorf("stored %v, want %v", got, want)
	}
}
