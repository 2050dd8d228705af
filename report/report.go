package report

import (
	"sort"
	"time"

	"github.com/kube-rebalancer/rebalancer/evictor"
	"github.com/kube-rebalancer/rebalancer/planner"
)

// Report is one cycle's plan and outcome, in the shape printed as JSON: the
// fields of planner.Plan keep their names and meaning, and each move carries
// its result when the plan was executed.
type Report struct {
	// At is the instant the plan was computed for; `plan --now` with it
	// reproduces a dry run's plan from a dump.
	At      time.Time      `json:"at"`
	DryRun  bool           `json:"dryRun"`
	Moves   []Move         `json:"moves"`
	Skipped []planner.Skip `json:"skipped"`
	// Placements: see planner.Plan.
	Placements []planner.Placement `json:"placements,omitempty"`
	Nodes      []planner.NodeUsage `json:"nodes"`
	// Stopped says why planning stopped early; see planner.Plan.
	Stopped string `json:"stopped,omitempty"`
	// Predicted says that each move's to is a prediction of where the pod's
	// scheduler puts the replacement, not where it is sent; see
	// planner.Plan.
	Predicted bool `json:"predicted,omitempty"`
	// DisruptionWindows says what the policy's disruption windows allowed
	// when the cycle started (a plan: at its instant); absent when the
	// policy has none.
	DisruptionWindows *Windows `json:"disruptionWindows,omitempty"`
	// Usage and Notes: see planner.Plan.
	Usage   *planner.UsageSummary `json:"usage,omitempty"`
	Notes   []planner.Note        `json:"notes,omitempty"`
	Summary Summary               `json:"summary"`
	// EventsLost, when set, says how many of the events the run recorded
	// on the pods it touched never reached the API server, and why.
	EventsLost *evictor.EventsLost `json:"eventsLost,omitempty"`
}

// Windows is what a policy's disruption windows allowed at an instant.
type Windows struct {
	At time.Time `json:"at"`
	// Evict is false when no window that allows evictions was open, or a
	// window with evict: false was: the cycle evicted nothing.
	Evict bool `json:"evict"`
	// Open lists the windows open then, by index in disruptionWindows.
	Open []int `json:"open,omitempty"`
	// Next, when Evict is false, is when evictions are next allowed.
	Next time.Time `json:"next,omitzero"`
	Note string    `json:"note"`
}

// Move is a planned move and, once executed, its result.
type Move struct {
	planner.Move
	Result  evictor.Result `json:"result,omitempty"`
	Message string         `json:"message,omitempty"`
}

// Summary counts what the report holds.
type Summary struct {
	Moves int `json:"moves"`
	// Results counts the moves by result; empty for a plan not executed.
	Results map[evictor.Result]int `json:"results,omitempty"`
	// Skipped counts the skipped candidates by category.
	Skipped map[planner.Category]int `json:"skipped"`
}

// FromPlan builds the report of a plan that was not executed: `plan` and
// `run --dry-run` print the same report for the same cluster.
func FromPlan(p *planner.Plan) *Report {
	r := &Report{At: p.At, DryRun: true, Skipped: p.Skipped, Placements: p.Placements, Nodes: p.Nodes, Stopped: p.Stopped, Predicted: p.Predicted, Usage: p.Usage, Notes: p.Notes, Moves: make([]Move, len(p.Moves))}
	for i, m := range p.Moves {
		r.Moves[i] = Move{Move: m}
	}
	r.summarize()
	return r
}

// FromOutcomes builds the report of an executed plan.
func FromOutcomes(p *planner.Plan, outcomes []evictor.Outcome) *Report {
	r := &Report{At: p.At, Skipped: p.Skipped, Placements: p.Placements, Nodes: p.Nodes, Stopped: p.Stopped, Predicted: p.Predicted, Usage: p.Usage, Notes: p.Notes, Moves: make([]Move, len(outcomes))}
	for i, o := range outcomes {
		r.Moves[i] = Move{Move: o.Move, Result: o.Result, Message: o.Message}
	}
	r.summarize()
	return r
}

func (r *Report) summarize() {
	r.Summary = Summary{Moves: len(r.Moves), Skipped: map[planner.Category]int{}}
	for _, m := range r.Moves {
		if m.Result == "" {
			continue
		}
		if r.Summary.Results == nil {
			r.Summary.Results = map[evictor.Result]int{}
		}
		r.Summary.Results[m.Result]++
	}
	for _, s := range r.Skipped {
		r.Summary.Skipped[s.Category]++
	}
}

// skippedCategories returns the categories present, most frequent first.
func (s Summary) skippedCategories() []planner.Category {
	cats := make([]planner.Category, 0, len(s.Skipped))
	for c := range s.Skipped {
		cats = append(cats, c)
	}
	sort.Slice(cats, func(i, j int) bool {
		if s.Skipped[cats[i]] != s.Skipped[cats[j]] {
			return s.Skipped[cats[i]] > s.Skipped[cats[j]]
		}
		return cats[i] < cats[j]
	})
	return cats
}

// Steps is the number of steps of the plan: the last move's step.
func (r *Report) Steps() int {
	if len(r.Moves) == 0 {
		return 0
	}
	return r.Moves[len(r.Moves)-1].Step
}

// StepsStarted is the number of steps the run started: the last step with
// a move attempted; all of them in a dry run.
func (r *Report) StepsStarted() int {
	if r.DryRun {
		return r.Steps()
	}
	n := 0
	for _, m := range r.Moves {
		if m.Result != "" && m.Result != evictor.NotAttempted {
			n = m.Step
		}
	}
	return n
}
