package rebalance

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kube-rebalancer/rebalancer/cluster/kube"
	"github.com/kube-rebalancer/rebalancer/cluster/kube/kubetest"
	"github.com/kube-rebalancer/rebalancer/evictor"
	"github.com/kube-rebalancer/rebalancer/policy"
	"github.com/kube-rebalancer/rebalancer/report"
)

func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	at, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return at
}

// windowsPolicy is testConfig's policy, which moves two pods of the
// imbalanced cluster, with disruption windows.
func windowsPolicy(t *testing.T, windows string) *policy.Policy {
	t.Helper()
	pol, err := policy.Load([]byte("apiVersion: rebalancer.dev/v1alpha1\nkind: RebalancePolicy\ncooldown: 0s\nlimits: {total: 2}\n"+
		"strategies:\n  LowNodeUtilization: {thresholds: {cpu: 20}, targetThresholds: {cpu: 50}}\n"+windows), "p.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return pol
}

// A cycle outside every window that allows evictions, or inside a
// blackout, plans and reports as a dry run does: no Lease, no eviction,
// nothing in the state but the last-run record, which says why. Inside a
// window, the window's limits apply.
func TestCycleInAndOutOfDisruptionWindows(t *testing.T) {
	const (
		weeknights = "disruptionWindows:\n- {schedule: \"0 22 * * 1-5\", duration: 8h, timeZone: Europe/Berlin}\n"
		oneANight  = "disruptionWindows:\n- {schedule: \"0 22 * * 1-5\", duration: 8h, timeZone: Europe/Berlin, limits: {total: 1}}\n"
		blackout   = "disruptionWindows:\n- {schedule: \"0 9 * * 1-5\", duration: 9h, timeZone: Europe/Berlin, evict: false}\n"
	)
	tests := []struct {
		name    string
		windows string
		at      string
		// wantEvicted is the number of evictions; 0: the cycle is a dry
		// run of the two moves.
		wantEvicted int
		wantNote    string
	}{
		{name: "no windows: evictions at any time, nothing said", at: "2026-11-27T13:00:00+01:00", wantEvicted: 2},
		{name: "Friday afternoon, outside the weeknight window", windows: weeknights, at: "2026-11-27T13:00:00+01:00",
			wantNote: "outside every disruption window: next opens 2026-11-27T22:00:00+01:00 (disruptionWindows[0])"},
		{name: "Friday night, inside it", windows: weeknights, at: "2026-11-27T23:00:00+01:00", wantEvicted: 2,
			wantNote: "inside disruptionWindows[0], open since 2026-11-27T22:00:00+01:00 for 8h0m0s"},
		{name: "inside a window whose limits allow one eviction", windows: oneANight, at: "2026-11-28T01:00:00+01:00", wantEvicted: 1,
			wantNote: "inside disruptionWindows[0], open since 2026-11-27T22:00:00+01:00 for 8h0m0s: its limits apply"},
		{name: "inside a blackout", windows: blackout, at: "2026-11-27T13:00:00+01:00",
			wantNote: "inside disruptionWindows[0], which allows no evictions (evict: false), open since 2026-11-27T09:00:00+01:00: " +
				"evictions resume 2026-11-27T18:00:00+01:00"},
		{name: "after the blackout", windows: blackout, at: "2026-11-27T19:00:00+01:00", wantEvicted: 2,
			wantNote: "no disruption window with evict: false is open"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client := kubetest.Imbalanced()
			var printed *report.Report
			cfg := testConfig(t, client, &printed)
			cfg.Policy = windowsPolicy(t, tt.windows)
			cfg.History.Heal = true
			cfg.Lock = &kube.RunLock{Client: client, Namespace: "rebalancer", Name: "rebalancer-state-lock", Identity: "laptop_42", Duration: 30 * time.Second}
			cfg.Publisher = &Publisher{Record: cfg.History}
			at := mustTime(t, tt.at)
			cfg.Now = func() time.Time { return at }
			if err := New(cfg).Cycle(context.Background()); err != nil {
				t.Fatalf("Cycle() = %v", err)
			}

			if printed == nil {
				t.Fatal("no report")
			}
			if printed.DryRun != (tt.wantEvicted == 0) {
				t.Errorf("report dryRun = %v, want %v", printed.DryRun, tt.wantEvicted == 0)
			}
			switch w := printed.DisruptionWindows; {
			case tt.wantNote == "" && w != nil:
				t.Errorf("report disruptionWindows = %+v, want none", w)
			case tt.wantNote != "" && (w == nil || w.Note != tt.wantNote || w.Evict != (tt.wantEvicted > 0) || !w.At.Equal(at)):
				t.Errorf("report disruptionWindows = %+v, want evict %v at %s, note %q", w, tt.wantEvicted > 0, at, tt.wantNote)
			}
			wantMoves := max(tt.wantEvicted, 2)
			if tt.wantEvicted == 1 {
				wantMoves = 1 // limits.total 1 plans one move
			}
			if len(printed.Moves) != wantMoves {
				t.Errorf("%d moves, want %d", len(printed.Moves), wantMoves)
			}
			if got := printed.Summary.Results[evictor.Evicted]; got != tt.wantEvicted {
				t.Errorf("%d evicted, want %d", got, tt.wantEvicted)
			}

			evictions, leases := 0, 0
			for _, a := range client.Actions() {
				if a.GetSubresource() == "eviction" {
					evictions++
				}
				if a.GetResource().Resource == "leases" {
					leases++
				}
			}
			if evictions != tt.wantEvicted {
				t.Errorf("%d eviction calls, want %d", evictions, tt.wantEvicted)
			}
			if (leases > 0) != (tt.wantEvicted > 0) {
				t.Errorf("%d calls on the run Lease; a cycle that may evict takes it, one that may not does not", leases)
			}
			history, err := cfg.History.Read(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if len(history) != tt.wantEvicted {
				t.Errorf("the state records %d evictions, want %d", len(history), tt.wantEvicted)
			}
			cm, err := client.CoreV1().ConfigMaps("rebalancer").Get(context.Background(), "rebalancer-state", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var rec report.RunRecord
			if err := json.Unmarshal([]byte(cm.Data["last-run.json"]), &rec); err != nil {
				t.Fatal(err)
			}
			if rec.DryRun != (tt.wantEvicted == 0) || rec.DisruptionWindows != tt.wantNote {
				t.Errorf("last-run record: dryRun %v, disruptionWindows %q; want %v, %q", rec.DryRun, rec.DisruptionWindows, tt.wantEvicted == 0, tt.wantNote)
			}
		})
	}
}

// A state the run cannot use is replaced by a cycle that may evict, and
// left as it is by one the windows keep from evicting, as by a dry run:
// that cycle takes no Lease to write under.
func TestCycleOutsideTheWindowsLeavesTheStateAlone(t *testing.T) {
	for _, tt := range []struct {
		at          string
		wantReplace bool
	}{
		{at: "2026-11-27T13:00:00+01:00"},
		{at: "2026-11-27T23:00:00+01:00", wantReplace: true},
	} {
		t.Run(tt.at, func(t *testing.T) {
			client := kubetest.Imbalanced()
			newer := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "rebalancer", Name: "rebalancer-state"},
				Data: map[string]string{"format": "v99", "evictions.json": "[]"}}
			if err := client.Tracker().Add(newer); err != nil {
				t.Fatal(err)
			}
			var printed *report.Report
			cfg := testConfig(t, client, &printed)
			cfg.Policy = windowsPolicy(t, "disruptionWindows:\n- {schedule: \"0 22 * * 1-5\", duration: 8h, timeZone: Europe/Berlin}\n")
			cfg.History.Heal = true
			at := mustTime(t, tt.at)
			cfg.Now = func() time.Time { return at }
			if err := New(cfg).Cycle(context.Background()); err != nil {
				t.Fatal(err)
			}
			cm, err := client.CoreV1().ConfigMaps("rebalancer").Get(context.Background(), "rebalancer-state", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if replaced := cm.Data["format"] != "v99"; replaced != tt.wantReplace {
				t.Errorf("state replaced: %v, want %v (format %q)", replaced, tt.wantReplace, cm.Data["format"])
			}
		})
	}
}

// The table says what the windows allowed before anything else.
func TestReportSaysWhatTheWindowsAllowed(t *testing.T) {
	client := kubetest.Imbalanced()
	var printed *report.Report
	cfg := testConfig(t, client, &printed)
	cfg.Policy = windowsPolicy(t, "disruptionWindows:\n- {schedule: \"0 22 * * 1-5\", duration: 8h, timeZone: Europe/Berlin}\n")
	cfg.Now = func() time.Time { return mustTime(t, "2026-11-27T13:00:00+01:00") }
	if err := New(cfg).Cycle(context.Background()); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := report.Print(&out, printed, report.Table, false); err != nil {
		t.Fatal(err)
	}
	want := "DISRUPTION WINDOWS: outside every disruption window: next opens 2026-11-27T22:00:00+01:00 (disruptionWindows[0]); nothing is evicted at this time\n\n" +
		"MOVES (dry run: nothing was evicted): 2\n"
	if !strings.HasPrefix(out.String(), want) {
		t.Errorf("the table starts\n%s\nwant\n%s", out.String()[:min(len(out.String()), len(want))], want)
	}
}

func TestNextCycle(t *testing.T) {
	const (
		weeknights = "disruptionWindows:\n- {schedule: \"0 22 * * 1-5\", duration: 8h, timeZone: Europe/Berlin}\n"
		blackout   = "disruptionWindows:\n- {schedule: \"0 9 * * 1-5\", duration: 9h, timeZone: Europe/Berlin, evict: false}\n"
	)
	tests := []struct {
		name     string
		windows  string
		now      string
		interval time.Duration
		want     time.Duration
		// wantSleep: the loop says it waits for the windows.
		wantSleep bool
	}{
		{name: "no windows: the interval", now: "2026-11-27T13:00:00+01:00", interval: 5 * time.Minute, want: 5 * time.Minute},
		{name: "inside a window that is still open at the next cycle", windows: weeknights, now: "2026-11-27T23:00:00+01:00",
			interval: 5 * time.Minute, want: 5 * time.Minute},
		{name: "the window opens before the next cycle: the interval", windows: weeknights, now: "2026-11-27T21:58:00+01:00",
			interval: 5 * time.Minute, want: 5 * time.Minute},
		{name: "Friday afternoon: until the window opens at 22:00", windows: weeknights, now: "2026-11-27T13:00:00+01:00",
			interval: 5 * time.Minute, want: 9 * time.Hour, wantSleep: true},
		{name: "the window closes before the next cycle: over the weekend until Monday night", windows: weeknights, now: "2026-11-28T05:58:00+01:00",
			interval: 5 * time.Minute, want: 2*24*time.Hour + 16*time.Hour + 2*time.Minute, wantSleep: true},
		{name: "the next cycle falls in a blackout: until it ends", windows: blackout, now: "2026-11-27T08:58:00+01:00",
			interval: 5 * time.Minute, want: 9*time.Hour + 2*time.Minute, wantSleep: true},
		{name: "a window shorter than the interval, which opens before the next cycle: the loop wakes when it opens",
			windows: "disruptionWindows:\n- {schedule: \"0 3 * * *\", duration: 10m}\n", now: "2026-11-27T02:50:00Z",
			interval: 30 * time.Minute, want: 10 * time.Minute, wantSleep: true},
		{name: "inside such a window, which closes before the next cycle: until it opens the next day",
			windows: "disruptionWindows:\n- {schedule: \"0 3 * * *\", duration: 10m}\n", now: "2026-11-27T03:01:00Z",
			interval: 30 * time.Minute, want: 23*time.Hour + 59*time.Minute, wantSleep: true},
		{name: "a window that never opens: the interval, and every cycle says why", windows: "disruptionWindows:\n- {schedule: \"0 0 30 2 *\", duration: 1h}\n",
			now: "2026-11-27T13:00:00+01:00", interval: 5 * time.Minute, want: 5 * time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			now := mustTime(t, tt.now)
			got, until := nextCycle(windowsPolicy(t, tt.windows), now, tt.interval)
			if got != tt.want {
				t.Errorf("wait %s, want %s", got, tt.want)
			}
			if !until.IsZero() != tt.wantSleep || tt.wantSleep && !until.Equal(now.Add(got)) {
				t.Errorf("until %s, want it said: %v, at the end of the wait", until, tt.wantSleep)
			}
		})
	}
}
