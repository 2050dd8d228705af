package rebalance

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kube-rebalancer/rebalancer/cluster/kube/kubetest"
	"github.com/kube-rebalancer/rebalancer/evictor"
	"github.com/kube-rebalancer/rebalancer/report"
)

// Without permission to create events the evictions still happen and the
// cycle succeeds, but it does not claim more than it did: the report, its
// table and the metrics say how many events were lost and why.
func TestLostEventsAreReported(t *testing.T) {
	client := kubetest.Imbalanced()
	client.PrependReactor("create", "events", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(corev1.Resource("events"), "",
			errors.New(`User "system:serviceaccount:rebalancer:rebalancer" cannot create resource "events" in API group "" in the namespace "shop"`))
	})
	var printed *report.Report
	cfg := testConfig(t, client, &printed)
	file := filepath.Join(t.TempDir(), "rebalancer.prom")
	cfg.Publisher = &Publisher{MetricsFile: file}
	if err := New(cfg).Cycle(context.Background()); err != nil {
		t.Fatalf("Cycle() = %v, want success: the evictions happened", err)
	}
	if n := printed.Summary.Results[evictor.Evicted]; n != 2 {
		t.Fatalf("%d evicted, want 2", n)
	}
	lost := printed.EventsLost
	if lost == nil || lost.Lost != 2 || lost.Reasons[evictor.LostForbidden] != 2 || !strings.Contains(lost.Why, `cannot create resource "events"`) {
		t.Fatalf("report's eventsLost = %+v, want 2 lost, forbidden, with the API server's answer", lost)
	}
	var table bytes.Buffer
	if err := report.Print(&table, printed, report.Table, false); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(table.String(), "EVENTS LOST: 2 of 2") || !strings.Contains(table.String(), "lacks create on events") {
		t.Errorf("the table does not say that the events were lost:\n%s", table.String())
	}
	prom, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`rebalancer_last_cycle_events_lost{reason="forbidden"} 2`,
		`rebalancer_last_cycle_events_lost{reason="unwritten"} 0`,
		"rebalancer_last_cycle_success 1",
	} {
		if !hasLine(string(prom), want) {
			t.Errorf("metrics lack %q:\n%s", want, prom)
		}
	}
}
