package rebalance

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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

	// lastSuccess is the latest success known: this process's own, or
	// the record's as Recall read it. recallErr is why Recall could not
	// read the record.
	lastSuccess *time.Time
	recallErr   error
}

// Recall reads the last success from the last-run record, at the start of
// a run, while the API server answers: a run that fails because it stopped
// answering must still export when the last success was.
func (p *Publisher) Recall(ctx context.Context) {
	if p.Record == nil {
		return
	}
	rctx, cancel := context.WithTimeout(ctx, publishTimeout)
	defer cancel()
	cm, err := p.Record.Client.CoreV1().ConfigMaps(p.Record.Namespace).Get(rctx, p.Record.Name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		p.recallErr = nil
		return
	case err != nil:
		p.recallErr = fmt.Errorf("reading the last-run record in ConfigMap %s/%s: %w", p.Record.Namespace, p.Record.Name, err)
		return
	}
	p.recallErr = nil
	var prev report.RunRecord
	prev.Follow([]byte(cm.Data[kube.RunRecordKey]))
	p.know(prev.LastSuccess)
}

// know keeps the later of the last success known and t.
func (p *Publisher) know(t *time.Time) {
	if t != nil && (p.lastSuccess == nil || t.After(*p.lastSuccess)) {
		u := t.UTC()
		p.lastSuccess = &u
	}
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
	unknown := p.recallErr // why no last success may be known
	if p.Record != nil {
		rctx, cancel := context.WithTimeout(ctx, publishTimeout)
		werr := p.Record.RecordRun(rctx, func(prev []byte) ([]byte, error) {
			rec.Follow(prev)
			p.know(rec.LastSuccess)
			if !rec.Succeeded {
				rec.LastSuccess = p.lastSuccess
			}
			return json.MarshalIndent(rec, "", "  ")
		})
		cancel()
		if werr != nil {
			klog.ErrorS(werr, "Could not write the last-run record")
			unknown = cmp.Or(unknown, fmt.Errorf("the last-run record could not be read: %w", werr))
		} else {
			unknown = nil
		}
	} else {
		unknown = errors.New("no state ConfigMap keeps the last-run record")
	}
	p.know(rec.LastSuccess)
	if !rec.Succeeded {
		rec.LastSuccess = p.lastSuccess
		if rec.LastSuccess == nil {
			why := "no run is known to have succeeded"
			if unknown != nil {
				why = unknown.Error()
			}
			klog.InfoS("rebalancer_last_success_timestamp_seconds is not exported: no last success is known", "why", why)
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
