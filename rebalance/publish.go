package rebalance

import (
	"context"
	"encoding/json"
	"time"

	"k8s.io/klog/v2"

	"github.com/kube-rebalancer/rebalancer/cluster/kube"
	"github.com/kube-rebalancer/rebalancer/report"
)

// publishTimeout bounds each of a run's last writes (record, push): the
// API server or the Pushgateway may be the reason the run failed.
const publishTimeout = 10 * time.Second

// Publisher leaves the outcome of every run where it outlives the process:
// the metrics (served by --metrics-addr, pushed to a Pushgateway, written to
// a file) and the last-run record in the state ConfigMap. It publishes
// failed runs too, those that never got to plan included: a CronJob that
// fails every tick must show as failing, not as quiet.
type Publisher struct {
	Metrics *report.Metrics
	// Pushgateway, when set, is the URL the metrics are pushed to, grouped
	// under PushInstance, which must be the same for every run of one
	// installation so that each push replaces the last.
	Pushgateway  string
	PushInstance string
	// MetricsFile, when set, is where the metrics are written in the text
	// format.
	MetricsFile string
	// Record, when set, keeps the last-run record; nil: none is kept.
	Record *kube.HistoryStore
}

// Publish records a run that started at start and ended now with err, and
// the report rep when it got that far. Each step is best effort: a failure
// is logged, and never hides the run's own error.
func (p *Publisher) Publish(ctx context.Context, start time.Time, dryRun bool, rep *report.Report, err error) {
	if p.Metrics == nil {
		p.Metrics = report.NewMetrics()
	}
	rec := report.NewRunRecord(start, time.Now(), dryRun, rep, err)
	// The run's context may be cancelled (SIGTERM): the record and the push
	// must still go out.
	ctx = context.WithoutCancel(ctx)
	if p.Record != nil {
		rctx, cancel := context.WithTimeout(ctx, publishTimeout)
		werr := p.Record.RecordRun(rctx, func(prev []byte) ([]byte, error) {
			rec.Follow(prev)
			return json.MarshalIndent(rec, "", "  ")
		})
		cancel()
		if werr != nil {
			klog.ErrorS(werr, "Could not write the last-run record")
		}
	}
	p.Metrics.Observe(rec, rep)
	if p.MetricsFile != "" {
		if werr := p.Metrics.WriteFile(p.MetricsFile); werr != nil {
			klog.ErrorS(werr, "Could not write the metrics file", "path", p.MetricsFile)
		}
	}
	if p.Pushgateway != "" {
		pctx, cancel := context.WithTimeout(ctx, publishTimeout)
		if werr := p.Metrics.Push(pctx, p.Pushgateway, p.PushInstance); werr != nil {
			klog.ErrorS(werr, "Pushing metrics failed", "pushgateway", p.Pushgateway)
		}
		cancel()
	}
}
