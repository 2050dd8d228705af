package cluster_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/cluster/clustertest"
)

var stateNow = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)

// evictions returns n evictions of distinct pods, a second apart, the last
// at stateNow, with names and UIDs as random as real ones, so that they
// compress no better than real ones do.
func evictions(n int) []cluster.Eviction {
	rnd := rand.New(rand.NewPCG(1, 2))
	suffix := func(k int) string {
		const alphabet = "bcdfghjklmnpqrstvwxz2456789"
		b := make([]byte, k)
		for i := range b {
			b[i] = alphabet[rnd.IntN(len(alphabet))]
		}
		return string(b)
	}
	out := make([]cluster.Eviction, n)
	for i := range out {
		out[i] = cluster.Eviction{
			Pod:      "shop/web-" + suffix(10) + "-" + suffix(5),
			UID:      types.UID(fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", rnd.Uint32(), rnd.IntN(1<<16), rnd.IntN(1<<12), rnd.IntN(1<<12), rnd.Uint64()>>16)),
			Workload: cluster.Workload{Kind: "Deployment", Namespace: "shop", Name: "web"},
			From:     fmt.Sprintf("node-%04d", rnd.IntN(5000)), To: fmt.Sprintf("node-%04d", rnd.IntN(5000)),
			Strategy: "LowNodeUtilization", At: stateNow.Add(time.Duration(i-n+1) * time.Second),
		}
	}
	return out
}

func stateConfigMap() *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: "rebalancer", Name: "rebalancer-state"},
		Data:       map[string]string{"last-run.json": `{"succeeded":true}`},
	}
}

// objectSize is what the ConfigMap's data weighs against the API server's
// 1 MiB limit, counted as its validation counts it.
func objectSize(cm *corev1.ConfigMap) int {
	n := 0
	for k, v := range cm.Data {
		n += len(k) + len(v)
	}
	for k, v := range cm.BinaryData {
		n += len(k) + len(v)
	}
	return n
}

// The state stays well below the API server's 1 MiB object limit whatever
// the plan's size: readable JSON while small, gzipped beyond, and the
// oldest evictions dropped only when even that does not fit.
func TestEncodeEvictionsStaysBounded(t *testing.T) {
	tests := []struct {
		name        string
		n           int
		wantGzip    bool
		wantDropped bool
	}{
		{name: "a usual cycle: 50 evictions, plain JSON", n: 50},
		{name: "a plan of 10,000 moves: all kept, gzipped", n: 10_000, wantGzip: true},
		{name: "25,000 evictions: the oldest dropped", n: 25_000, wantGzip: true, wantDropped: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cm := stateConfigMap()
			all := evictions(tt.n)
			dropped, err := cluster.EncodeEvictions(cm, all)
			if err != nil {
				t.Fatal(err)
			}
			if size := objectSize(cm); size > 800<<10 {
				t.Errorf("the state weighs %d bytes, want well below 1 MiB", size)
			}
			if testing.Verbose() {
				t.Logf("%d evictions: %d bytes, %d dropped", tt.n, objectSize(cm), dropped)
			}
			if _, gz := cm.BinaryData["evictions.json.gz"]; gz != tt.wantGzip {
				t.Errorf("gzipped: %v, want %v", gz, tt.wantGzip)
			}
			if (dropped > 0) != tt.wantDropped {
				t.Errorf("dropped %d, want some: %v", dropped, tt.wantDropped)
			}
			if cm.Data["last-run.json"] == "" {
				t.Error("the last-run record was lost")
			}
			got, err := cluster.DecodeEvictions(cm)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != tt.n-dropped {
				t.Fatalf("decoded %d evictions, want %d", len(got), tt.n-dropped)
			}
			// What is kept is the newest.
			if last := got[len(got)-1]; last != all[len(all)-1] {
				t.Errorf("newest kept = %+v, want %+v", last, all[len(all)-1])
			}
			if dropped > 0 && got[0] != all[dropped] {
				t.Errorf("oldest kept = %+v, want %+v", got[0], all[dropped])
			}
		})
	}
}

// A state this version cannot use is a *StateError, which callers replace;
// the layouts it knows decode.
func TestDecodeEvictions(t *testing.T) {
	plain := stateConfigMap()
	if _, err := cluster.EncodeEvictions(plain, evictions(3)); err != nil {
		t.Fatal(err)
	}
	legacy := stateConfigMap()
	legacy.Data["evictions.json"] = plain.Data["evictions.json"] // written before "format"
	tests := []struct {
		name    string
		data    map[string]string
		binary  map[string][]byte
		want    int
		wantBad string
	}{
		{name: "plain, format v1", data: plain.Data, want: 3},
		{name: "written before the format was recorded", data: legacy.Data, want: 3},
		{name: "nothing recorded yet", data: map[string]string{}},
		{name: "a format from a newer version", data: map[string]string{"format": "v2", "evictions.json": "[]"}, wantBad: `format "v2" is not one this version of rebalancer knows`},
		{name: "truncated JSON", data: map[string]string{"evictions.json": `[{"pod":"shop/web-1","at":"2026-11-20T1`}, wantBad: "key evictions.json: unexpected end of JSON input"},
		{name: "not a list", data: map[string]string{"evictions.json": `{"pod":"shop/web-1"}`}, wantBad: "key evictions.json: json: cannot unmarshal object"},
		{name: "gzip that is not", binary: map[string][]byte{"evictions.json.gz": []byte("this was never gzip, whatever its key says")}, wantBad: "key evictions.json.gz: gzip: invalid header"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "rebalancer", Name: "rebalancer-state"}, Data: tt.data, BinaryData: tt.binary}
			got, err := cluster.DecodeEvictions(cm)
			var bad *cluster.StateError
			switch {
			case tt.wantBad == "" && err != nil:
				t.Fatalf("DecodeEvictions() = %v", err)
			case tt.wantBad != "" && (!errors.As(err, &bad) || !contains(err.Error(), tt.wantBad)):
				t.Fatalf("DecodeEvictions() = %v, want a StateError saying %q", err, tt.wantBad)
			case len(got) != tt.want:
				t.Errorf("%d evictions, want %d", len(got), tt.want)
			}
		})
	}
}

func contains(s, sub string) bool {
	return len(sub) == 0 || len(s) >= len(sub) && (s[:len(sub)] == sub || contains(s[1:], sub))
}

// A state keeps what can still matter, dated no later than now: an
// eviction dated ahead is re-dated at now, and what expired or names no pod
// is dropped.
func TestHealEvictions(t *testing.T) {
	at := func(d time.Duration) cluster.Eviction {
		return cluster.Eviction{Pod: "shop/web-1", From: "n1", At: stateNow.Add(d)}
	}
	noPod := at(-time.Minute)
	noPod.Pod = "web-1"
	undated := at(0)
	undated.At = time.Time{}
	tests := []struct {
		name   string
		in     cluster.Eviction
		wantAt time.Time // zero: dropped
		want   cluster.Healing
	}{
		{name: "recent: kept as recorded", in: at(-time.Minute), wantAt: stateNow.Add(-time.Minute)},
		{name: "made now: kept", in: at(0), wantAt: stateNow},
		{name: "dated two days ahead: dated now", in: at(48 * time.Hour), wantAt: stateNow, want: cluster.Healing{Ahead: 1}},
		{name: "dated in 2099: dated now", in: cluster.Eviction{Pod: "shop/web-1", At: time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC)},
			wantAt: stateNow, want: cluster.Healing{Ahead: 1}},
		{name: "older than the state keeps: dropped", in: at(-2 * time.Hour), want: cluster.Healing{Expired: 1}},
		{name: "a pod without a namespace: dropped", in: noPod, want: cluster.Healing{Invalid: 1}},
		{name: "no date: dropped", in: undated, want: cluster.Healing{Invalid: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, healed := cluster.HealEvictions([]cluster.Eviction{tt.in}, stateNow, time.Hour)
			if healed != tt.want || healed.Any() != (tt.want != cluster.Healing{}) {
				t.Errorf("healing %+v, want %+v", healed, tt.want)
			}
			switch {
			case tt.wantAt.IsZero() && len(got) != 0:
				t.Errorf("kept %+v, want it dropped", got)
			case !tt.wantAt.IsZero() && (len(got) != 1 || !got[0].At.Equal(tt.wantAt)):
				t.Errorf("kept %+v, want it dated %s", got, tt.wantAt)
			}
		})
	}
}

// An eviction recorded and never made leaves its pod where it was, under
// the same UID; one that was made leaves the pod gone, terminating, or
// replaced under the same name (a StatefulSet's) with a new UID.
func TestNotCarriedOut(t *testing.T) {
	stays := clustertest.Pod("shop", "web-1").On("n1").Requests("100m", "").Deployment("web")
	terminating := clustertest.Pod("shop", "web-2").On("n1").Requests("100m", "").Deployment("web").Obj()
	terminating.DeletionTimestamp = &metav1.Time{Time: stateNow}
	sameName := clustertest.Pod("shop", "db-0").On("n2").Requests("100m", "").OwnedBy("StatefulSet", "db").Obj()
	sameName.UID = "db-0-new"
	movedAlready := clustertest.Pod("shop", "web-4").On("n2").Requests("100m", "").Deployment("web")
	snap := clustertest.Snapshot(t, clustertest.Node("n1").CPU("4"), clustertest.Node("n2").CPU("4"), stays, terminating, sameName, movedAlready)

	at := stateNow.Add(-time.Minute)
	recorded := []cluster.Eviction{
		{Pod: "shop/web-1", UID: "shop/web-1", From: "n1", At: at}, // never made
		{Pod: "shop/web-2", UID: "shop/web-2", From: "n1", At: at}, // made: terminating
		{Pod: "shop/db-0", UID: "shop/db-0", From: "n2", At: at},   // made: replaced, same name
		{Pod: "shop/web-3", UID: "shop/web-3", From: "n1", At: at}, // made: gone
		{Pod: "shop/web-4", UID: "shop/web-4", From: "n1", At: at}, // the pod is on another node now
		{Pod: "shop/web-1", From: "n1", At: at.Add(-time.Hour)},    // no UID: cannot tell
	}
	got := cluster.NotCarriedOut(recorded, snap)
	if len(got) != 1 || got[0].Pod != "shop/web-1" || got[0].UID != "shop/web-1" {
		t.Errorf("NotCarriedOut() = %+v, want only shop/web-1's intent", got)
	}
}
