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

// stateWith returns a client whose state ConfigMap records evictions.
func stateWith(t *testing.T, evs ...cluster.Eviction) *fake.Clientset {
	t.Helper()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "rebalancer", Name: "rebalancer-state"}}
	if _, err := cluster.EncodeEvictions(cm, evs); err != nil {
		t.Fatal(err)
	}
	return fake.NewClientset(cm)
}

func stored(t *testing.T, client *fake.Clientset) map[string]time.Time {
	t.Helper()
	cm, err := client.CoreV1().ConfigMaps("rebalancer").Get(context.Background(), "rebalancer-state", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	evs, err := cluster.DecodeEvictions(cm)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]time.Time{}
	for _, e := range evs {
		out[e.Pod] = e.At
	}
	return out
}

// An eviction dated in 2099 must not block its workload until then. A run
// that evicts (Heal) rewrites such a state as soon as it reads it, even if
// it then evicts nothing: the entry is dated when that run saw it, and
// what expired or names no pod is dropped. A reader that must not write
// reads the entry as made when it first saw it, however often it reads.
func TestReadHealsEvictionsDatedAhead(t *testing.T) {
	w := cluster.Workload{Kind: "Deployment", Namespace: "shop", Name: "web"}
	future := time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC)
	recent := historyNow.Add(-time.Minute)
	evs := []cluster.Eviction{
		{Pod: "shop/web-1", Workload: w, From: "n1", At: future},
		{Pod: "shop/web-2", Workload: w, From: "n1", At: historyNow.Add(-2 * time.Hour)}, // expired
		{Pod: "web-3", Workload: w, From: "n1", At: recent},                              // no namespace
		{Pod: "shop/web-4", Workload: w, From: "n1", At: recent},
	}
	for _, heal := range []bool{false, true} {
		t.Run(map[bool]string{false: "read only", true: "healing"}[heal], func(t *testing.T) {
			client := stateWith(t, evs...)
			h := testStore(client, heal)
			clock := historyNow
			h.Now = func() time.Time { return clock }
			for _, later := range []time.Duration{0, 20 * time.Minute} {
				clock = historyNow.Add(later)
				got, err := h.Read(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				for _, e := range got {
					if e.Pod == "shop/web-1" && !e.At.Equal(historyNow) {
						t.Errorf("read %s after %s: dated %s, want %s, when it was first seen", e.Pod, later, e.At, historyNow)
					}
				}
			}
			want := map[string]time.Time{"shop/web-1": future, "shop/web-2": historyNow.Add(-2 * time.Hour), "web-3": recent, "shop/web-4": recent}
			if heal {
				want = map[string]time.Time{"shop/web-1": historyNow, "shop/web-4": recent}
			}
			if got := stored(t, client); !equalDates(got, want) {
				t.Errorf("stored %v, want %v", got, want)
			}
		})
	}
}

func equalDates(a, b map[string]time.Time) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if !v.Equal(b[k]) {
			return false
		}
	}
	return true
}

// Forget finds an eviction that Read returned re-dated, when the state
// could not be rewritten: a run retracts the intents it read.
func TestForgetFindsWhatReadRedated(t *testing.T) {
	w := cluster.Workload{Kind: "Deployment", Namespace: "shop", Name: "web"}
	client := stateWith(t, cluster.Eviction{Pod: "shop/web-1", Workload: w, From: "n1", At: historyNow.Add(time.Hour)})
	h := testStore(client, false)
	got, err := h.Read(context.Background())
	if err != nil || len(got) != 1 || !got[0].At.Equal(historyNow) {
		t.Fatalf("Read() = %v, %v; want web-1 dated now", got, err)
	}
	if err := h.Forget(context.Background(), historyNow, got); err != nil {
		t.Fatal(err)
	}
	if s := stored(t, client); len(s) != 0 {
		t.Errorf("stored %v after forgetting it", s)
	}
}

// The counts of consecutive observations share the state with the
// evictions and the last-run record: recorded, read back by a store that
// keeps them, removed when there are none, and replaced with the rest of a
// state that cannot be used.
func TestObservationsInTheState(t *testing.T) {
	ctx := context.Background()
	client := stateWith(t, cluster.Eviction{Pod: "shop/web-0", From: "hot", Strategy: "LowNodeUtilization", At: historyNow.Add(-time.Minute)})
	store := testStore(client, true)
	store.KeepObservations = true
	obs := []cluster.Observation{{Strategy: "LowNodeUtilization", Node: "hot", Class: cluster.ObservedOver, Count: 2, At: historyNow}}
	if err := store.RecordObservations(ctx, obs); err != nil {
		t.Fatal(err)
	}
	evs, err := store.Read(ctx)
	if err != nil || len(evs) != 1 {
		t.Fatalf("Read() = %v, %v; want the one eviction", evs, err)
	}
	if got := store.Observations(); len(got) != 1 || got[0] != obs[0] {
		t.Errorf("Observations() = %+v, want %+v", got, obs)
	}
	if err := store.RecordObservations(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Read(ctx); err != nil || store.Observations() != nil {
		t.Errorf("after recording none: Observations() = %+v (%v), want none", store.Observations(), err)
	}

	broken := fake.NewClientset(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "rebalancer", Name: "rebalancer-state"},
		Data: map[string]string{"format": "v9", "observations.json": "[]"}})
	store = testStore(broken, true)
	store.KeepObservations = true
	if _, err := store.Read(ctx); err != nil {
		t.Fatal(err)
	}
	cm, _ := broken.CoreV1().ConfigMaps("rebalancer").Get(ctx, "rebalancer-state", metav1.GetOptions{})
	if _, ok := cm.Data["observations.json"]; ok || cm.Data["format"] != "v1" {
		t.Errorf("a state of a newer format healed to %v, want a v1 state without its counts", cm.Data)
	}
}
