package report

import (
	"encoding/json"
	"time"

	"github.com/kube-rebalancer/rebalancer/evictor"
	"github.com/kube-rebalancer/rebalancer/planner"
)

// RunRecord is what a run leaves in the state ConfigMap for whoever was not
// watching its log: when it ran, whether it worked, and what it did. A run
// that failed before it could plan records that too, so that a CronJob that
// fails every tick does not look like one that has nothing to do.
type RunRecord struct {
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	// Took is End - Start, as a Go duration.
	Took      string `json:"took"`
	DryRun    bool   `json:"dryRun"`
	Succeeded bool   `json:"succeeded"`
	// Error is why the run failed; empty when it succeeded.
	Error string `json:"error,omitempty"`
	// Moves is the number of moves planned; 0 when the run failed before
	// planning.
	Moves   int                    `json:"moves"`
	Results map[evictor.Result]int `json:"results,omitempty"`
	// Steps is the number of steps planned, StepsStarted how many the run
	// started; Stopped says why it stopped early, if it did.
	Steps        int                      `json:"steps"`
	StepsStarted int                      `json:"stepsStarted"`
	Stopped      string                   `json:"stopped,omitempty"`
	Skipped      map[planner.Category]int `json:"skipped,omitempty"`
	// DisruptionWindows is what the policy's disruption windows allowed
	// when the run started; empty when the policy has none.
	DisruptionWindows string `json:"disruptionWindows,omitempty"`
	// LastSuccess is when the last run that succeeded ended, this one or an
	// earlier one; nil while none has.
	LastSuccess *time.Time `json:"lastSuccess,omitempty"`
}

// NewRunRecord describes a run that started at start and ended at end with
// err (nil: it succeeded) and, when it got that far, the report rep.
func NewRunRecord(start, end time.Time, dryRun bool, rep *Report, err error) RunRecord {
	r := RunRecord{Start: start.UTC(), End: end.UTC(), Took: end.Sub(start).Round(time.Millisecond).String(),
		DryRun: dryRun, Succeeded: err == nil}
	if err != nil {
		r.Error = err.Error()
	} else {
		r.LastSuccess = &r.End
	}
	if rep != nil {
		r.Steps, r.StepsStarted, r.Stopped = rep.Steps(), rep.StepsStarted(), rep.Stopped
		r.Moves = rep.Summary.Moves
		r.Results = rep.Summary.Results
		if len(rep.Summary.Skipped) > 0 {
			r.Skipped = rep.Summary.Skipped
		}
		if w := rep.DisruptionWindows; w != nil {
			r.DisruptionWindows = w.Note
		}
	}
	return r
}

// Follow carries the last success over from the previous run's record, raw
// as the ConfigMap holds it, when this run did not succeed. A previous record
// that does not decode is ignored: it must not stop this one being written.
func (r *RunRecord) Follow(prev []byte) {
	if r.Succeeded || len(prev) == 0 {
		return
	}
	var p RunRecord
	if json.Unmarshal(prev, &p) == nil && p.LastSuccess != nil {
		t := p.LastSuccess.UTC()
		r.LastSuccess = &t
	}
}
