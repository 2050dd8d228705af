package report

import (
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/kube-rebalancer/rebalancer/evictor"
)

// An eviction the API server denied (an admission policy, a namespace being
// deleted) is a result of its own in the metrics, exported as 0 when no move
// had it, so that an alert can tell it from a PodDisruptionBudget's refusal.
func TestDeniedEvictionsAreCounted(t *testing.T) {
	start := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	p := samplePlan()
	denied := "pods \"web-2\" is forbidden: ValidatingAdmissionPolicy 'no-evict' with binding 'no-evict' denied request: web-2 is pinned"
	rep := FromOutcomes(p, []evictor.Outcome{
		{Move: p.Moves[0], Result: evictor.Evicted},
		{Move: p.Moves[1], Result: evictor.Denied, Message: denied},
		{Move: p.Moves[2], Result: evictor.Evicted},
	})
	m := NewMetrics()
	m.Observe(NewRunRecord(start, start.Add(time.Second), false, rep, nil), rep)

	want := `
# HELP rebalancer_last_cycle_evictions Planned moves of the last cycle by result (evicted, refused, denied, gone, failed, not-attempted, surged, rolled-back).
# TYPE rebalancer_last_cycle_evictions gauge
rebalancer_last_cycle_evictions{result="denied"} 1
rebalancer_last_cycle_evictions{result="evicted"} 2
rebalancer_last_cycle_evictions{result="failed"} 0
rebalancer_last_cycle_evictions{result="gone"} 0
rebalancer_last_cycle_evictions{result="not-attempted"} 0
rebalancer_last_cycle_evictions{result="refused"} 0
rebalancer_last_cycle_evictions{result="rolled-back"} 0
rebalancer_last_cycle_evictions{result="surged"} 0
`
	if err := testutil.CollectAndCompare(m.lastEvictions, strings.NewReader(want)); err != nil {
		t.Error(err)
	}
	if got := testutil.ToFloat64(m.evictions.WithLabelValues("LowNodeUtilization", "denied")); got != 1 {
		t.Errorf("denied evictions = %v, want 1", got)
	}
	var b strings.Builder
	if err := Print(&b, rep, Table, false); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "denied   node-a is over-utilized (cpu 80% > 50%) ["+denied+"]") {
		t.Errorf("table does not show the denial with the API server's message:\n%s", b.String())
	}
}
