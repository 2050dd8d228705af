package rebalance

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/klog/v2"

	"github.com/kube-rebalancer/rebalancer/cluster/kube"
	"github.com/kube-rebalancer/rebalancer/cluster/kube/kubetest"
	"github.com/kube-rebalancer/rebalancer/report"
	"github.com/kube-rebalancer/rebalancer/test/klogtest"
)

// pushgateway stands in for a Prometheus Pushgateway: it keeps the body of
// the last push of each job.
type pushgateway struct {
	mu   sync.Mutex
	last map[string]string // "METHOD path" -> body
}

func (p *pushgateway) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.last[r.Method+" "+r.URL.Path] = string(body)
	w.WriteHeader(http.StatusOK)
}

// A cycle that fails still leaves its outcome everywhere a CronJob's
// watchers look: the last-run record (with the time of the last success
// before it), the metrics file and the Pushgateway, each saying it failed.
func TestFailedCyclesArePublished(t *testing.T) {
	client := kubetest.Imbalanced()
	var printed *report.Report
	cfg := testConfig(t, client, &printed)
	gw := &pushgateway{last: map[string]string{}}
	srv := httptest.NewServer(gw)
	defer srv.Close()
	file := filepath.Join(t.TempDir(), "rebalancer.prom")
	cfg.Publisher = &Publisher{Pushgateway: srv.URL, PushInstance: "rebalancer", MetricsFile: file, Record: cfg.History}
	r := New(cfg)

	if err := r.Cycle(context.Background()); err != nil {
		t.Fatalf("first cycle: %v", err)
	}
	ok := lastRun(t, cfg.History)
	if !ok.Succeeded || ok.LastSuccess == nil || !ok.LastSuccess.Equal(ok.End) || ok.Moves != 2 || ok.Results["evicted"] != 2 {
		t.Fatalf("record after a successful cycle = %+v", ok)
	}

	// The API server now refuses to list nodes: the cycle fails before it
	// can plan.
	client.PrependReactor("list", "nodes", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "nodes"}, "", fmt.Errorf("list nodes refused"))
	})
	err := r.Cycle(context.Background())
	if err == nil {
		t.Fatal("second cycle succeeded, want it to fail")
	}
	failed := lastRun(t, cfg.History)
	switch {
	case failed.Succeeded || !strings.Contains(failed.Error, "list nodes refused"):
		t.Errorf("record after a failed cycle = %+v, want it failed with the cycle's error", failed)
	case failed.LastSuccess == nil || !failed.LastSuccess.Equal(ok.End):
		t.Errorf("record's last success = %v, want the first cycle's end %v", failed.LastSuccess, ok.End)
	case !failed.End.After(ok.End):
		t.Errorf("record's end %v is not after the first cycle's %v", failed.End, ok.End)
	}
	if evs, err := cfg.History.Read(context.Background()); err != nil || len(evs) != 2 {
		t.Errorf("evictions remembered = %v (%v), want the first cycle's 2 kept beside the record", evs, err)
	}

	prom, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	pushed := gw.last["PUT /metrics/job/rebalancer/instance/rebalancer"]
	wantLines := []string{
		"rebalancer_last_cycle_success 0",
		fmt.Sprintf("rebalancer_last_success_timestamp_seconds %s", promFloat(float64(ok.End.UnixNano())/1e9)),
		`rebalancer_last_cycle_evictions{result="evicted"} 0`,
	}
	for _, want := range wantLines {
		if !hasLine(string(prom), want) {
			t.Errorf("metrics file lacks %q:\n%s", want, prom)
		}
	}
	if !strings.Contains(pushed, "rebalancer_last_cycle_success") {
		t.Errorf("the failed cycle pushed %q to the Pushgateway, want its metrics", pushed)
	}
}

// A cycle whose state ConfigMap cannot be written still pushes its metrics:
// the record is best effort, and so is each way of publishing.
func TestPublishingSurvivesAnUnwritableRecord(t *testing.T) {
	client := kubetest.Imbalanced()
	client.PrependReactor("*", "configmaps", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewServiceUnavailable("etcd is down")
	})
	store := &kube.HistoryStore{Client: client, Namespace: "rebalancer", Name: "rebalancer-state"}
	file := filepath.Join(t.TempDir(), "rebalancer.prom")
	p := &Publisher{MetricsFile: file, Record: store}
	p.Publish(context.Background(), metav1.Now().Time, false, nil, fmt.Errorf("reading the cluster: etcd is down"))
	prom, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !hasLine(string(prom), "rebalancer_last_cycle_success 0") {
		t.Errorf("metrics file = %s, want the failed run", prom)
	}
	// No success is known: the gauge is absent rather than 0 (1970), which
	// would page at once.
	if strings.Contains(string(prom), "rebalancer_last_success_timestamp_seconds ") {
		t.Errorf("metrics file claims a last success:\n%s", prom)
	}
}

func lastRun(t *testing.T, h *kube.HistoryStore) report.RunRecord {
	t.Helper()
	cm, err := h.Client.CoreV1().ConfigMaps(h.Namespace).Get(context.Background(), h.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var r report.RunRecord
	if err := json.Unmarshal([]byte(cm.Data[kube.RunRecordKey]), &r); err != nil {
		t.Fatalf("%s: %v\n%s", kube.RunRecordKey, err, cm.Data[kube.RunRecordKey])
	}
	return r
}

func hasLine(text, line string) bool {
	for l := range strings.SplitSeq(text, "\n") {
		if l == line {
			return true
		}
	}
	return false
}

// promFloat formats a value as the text exposition format does.
func promFloat(v float64) string { return strings.ToLower(fmt.Sprintf("%g", v)) }

// A run that fails because the API server stopped answering still exports
// when the last success was: it read the last-run record at its start,
// while the API server answered. When it could not read it at all, the
// metric is absent and the log says why.
func TestLastSuccessSurvivesAnUnreachableAPIServer(t *testing.T) {
	client := kubetest.Imbalanced()
	var printed *report.Report
	cfg := testConfig(t, client, &printed)
	cfg.Publisher = &Publisher{Record: cfg.History}
	if err := New(cfg).Cycle(context.Background()); err != nil {
		t.Fatalf("first cycle: %v", err)
	}
	ok := lastRun(t, cfg.History)

	var down atomic.Bool
	client.PrependReactor("*", "*", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if down.Load() {
			return true, nil, fmt.Errorf("dial tcp 10.96.0.1:443: connect: connection refused")
		}
		return false, nil, nil
	})
	tests := []struct {
		name string
		// down: the API server stops answering after the record was read
		// at the start of the run (mid), or before it (start).
		downAt   string
		wantLine string
		wantLog  string
	}{
		{name: "unreachable mid-run: the record read at the start",
			downAt: "mid", wantLine: fmt.Sprintf("rebalancer_last_success_timestamp_seconds %s", promFloat(float64(ok.End.UnixNano())/1e9))},
		{name: "unreachable from the start: absent, and the log says why",
			downAt: "start", wantLog: "connection refused"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			logs := klogtest.Capture(t, 0)
			down.Store(tt.downAt == "start")
			// A new process, as a CronJob's next run is.
			file := filepath.Join(t.TempDir(), "rebalancer.prom")
			cfg.Publisher = &Publisher{Record: cfg.History, MetricsFile: file}
			if tt.downAt == "mid" {
				client.PrependReactor("list", "nodes", func(k8stesting.Action) (bool, runtime.Object, error) {
					down.Store(true)
					return false, nil, nil
				})
			}
			if err := New(cfg).Cycle(context.Background()); err == nil {
				t.Fatal("the cycle succeeded with the API server unreachable")
			}
			prom, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if !hasLine(string(prom), "rebalancer_last_cycle_success 0") {
				t.Errorf("metrics do not show the failed run:\n%s", prom)
			}
			exported := strings.Contains(string(prom), "rebalancer_last_success_timestamp_seconds ")
			switch {
			case tt.wantLine != "" && !hasLine(string(prom), tt.wantLine):
				t.Errorf("metrics lack %q:\n%s", tt.wantLine, prom)
			case tt.wantLine == "" && exported:
				t.Errorf("metrics claim a last success although none could be read:\n%s", prom)
			}
			klog.Flush()
			if tt.wantLog != "" && (!strings.Contains(logs.String(), "rebalancer_last_success_timestamp_seconds is not exported") || !strings.Contains(logs.String(), tt.wantLog)) {
				t.Errorf("the log does not say why the last success is not exported:\n%s", logs)
			}
		})
	}
}
