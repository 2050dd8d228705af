package policy

import (
	"fmt"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// DisruptionWindow is a time during which the policy lets runs evict, or
// forbids them to: it opens each time Schedule fires and stays open for
// Duration.
type DisruptionWindow struct {
	// Schedule is when the window opens, in cron syntax as a CronJob's
	// spec.schedule: five fields, or a macro such as @daily.
	Schedule string `json:"schedule"`
	// Duration is how long the window stays open each time it opens.
	Duration metav1.Duration `json:"duration"`
	// TimeZone is the IANA time zone Schedule is read in, as a CronJob's
	// spec.timeZone; default UTC.
	TimeZone string `json:"timeZone,omitempty"`
	// Evict says whether runs may evict while the window is open (default
	// true). A window with evict: false is a blackout: while it is open
	// nothing is evicted, whatever other window is open too.
	Evict *bool `json:"evict,omitempty"`
	// Limits replace the policy's limits, field by field, while the window
	// is open; when several windows are open, the lowest value of each
	// field applies.
	Limits *Limits `json:"limits,omitempty"`
}

// Evicts reports whether runs may evict while the window is open.
func (w *DisruptionWindow) Evicts() bool { return w.Evict == nil || *w.Evict }

// window is a DisruptionWindow ready to be asked.
type window struct {
	spec   *cron.SpecSchedule
	length time.Duration
	evict  bool
	limits *Limits
}

// The search for the next instant the windows allow evictions stops a
// year ahead, or after so many openings and closings (schedules that fire
// every minute): a run is then told that none opens before where it
// stopped.
const (
	windowSearch        = 366 * 24 * time.Hour
	windowSearchChanges = 10000
)

// compileWindows parses the windows' schedules and time zones; the error
// list says, by field path, what does not parse.
func compileWindows(ws []DisruptionWindow, path *field.Path) ([]window, field.ErrorList) {
	var (
		errs field.ErrorList
		out  []window
		// kinds holds, for perRun and perStep, the first window that gives
		// a workload bound, as a count or a percentage.
		kinds = map[string]windowWorkload{}
	)
	for i := range ws {
		w := &ws[i]
		p := path.Index(i)
		loc := time.UTC
		if tz := w.TimeZone; tz != "" {
			var err error
			switch {
			case strings.EqualFold(tz, "Local"):
				errs = append(errs, field.Invalid(p.Child("timeZone"), tz, "is the machine's own zone: name an IANA time zone, such as Europe/Berlin, or leave it out for UTC"))
			default:
				if loc, err = time.LoadLocation(tz); err != nil {
					errs = append(errs, field.Invalid(p.Child("timeZone"), tz, "is not a known IANA time zone (such as Europe/Berlin or America/New_York)"))
				}
			}
		}
		spec, err := parseSchedule(w.Schedule)
		switch {
		case w.Schedule == "":
			errs = append(errs, field.Required(p.Child("schedule"), `when the window opens, in cron syntax such as "0 22 * * 1-5"`))
		case err != nil:
			errs = append(errs, field.Invalid(p.Child("schedule"), w.Schedule, err.Error()))
		}
		if d := w.Duration.Duration; d <= 0 {
			errs = append(errs, field.Invalid(p.Child("duration"), d.String(), "must be positive: how long the window stays open each time its schedule fires, such as 8h"))
		}
		var limits *Limits
		if l := w.Limits; l != nil {
			lp := p.Child("limits")
			errs = append(errs, l.validate(lp)...)
			if !w.Evicts() {
				errs = append(errs, field.Forbidden(lp, "a window with evict: false allows no eviction, so no limits apply while it is open"))
			}
			limits = canonicalLimits(l)
			errs = append(errs, workloadKinds(limits, kinds, lp, i)...)
		}
		if spec != nil && loc != nil {
			// A schedule parsed without a zone is read in the machine's:
			// the window's zone is set here, UTC unless it names one.
			spec.Location = loc
			out = append(out, window{spec: spec, length: w.Duration.Duration, evict: w.Evicts(), limits: limits})
		}
	}
	return out, errs
}

// windowWorkload is a window's workload bound, by its index.
type windowWorkload struct {
	window int
	kind   intstr.Type
}

// workloadKinds refuses a workload bound given as a count where another
// window gives it as a percentage, or the other way round: which of the
// two is lower depends on each workload's replicas, and both windows may
// be open at once.
func workloadKinds(l *Limits, kinds map[string]windowWorkload, path *field.Path, i int) field.ErrorList {
	var errs field.ErrorList
	for _, b := range []struct {
		name   string
		bounds *LimitBounds
	}{{"perRun", l.PerRun}, {"perStep", l.PerStep}} {
		if b.bounds == nil || b.bounds.Workload == nil {
			continue
		}
		kind := b.bounds.Workload.Type
		first, seen := kinds[b.name]
		switch {
		case !seen:
			kinds[b.name] = windowWorkload{window: i, kind: kind}
		case first.kind != kind:
			errs = append(errs, field.Invalid(path.Child(b.name, "workload"), b.bounds.Workload.String(),
				fmt.Sprintf("is a %s where disruptionWindows[%d] gives a %s: give this bound in one form in every window, so that the lowest is known when both are open",
					workloadKind(kind), first.window, workloadKind(first.kind))))
		}
	}
	return errs
}

func workloadKind(t intstr.Type) string {
	if t == intstr.Int {
		return "count"
	}
	return "percentage"
}

// parseSchedule parses a schedule as the CronJob controller does.
func parseSchedule(s string) (*cron.SpecSchedule, error) {
	if strings.Contains(s, "TZ") {
		return nil, fmt.Errorf("cannot use TZ or CRON_TZ in schedule, use timeZone instead")
	}
	sched, err := cron.ParseStandard(s)
	if err != nil {
		return nil, err
	}
	spec, ok := sched.(*cron.SpecSchedule)
	if !ok {
		// @every counts from whenever it is asked: it names no instant at
		// which a window would open.
		return nil, fmt.Errorf("has no fixed times to open a window at; give five fields, such as \"0 22 * * 1-5\", or a macro such as @daily")
	}
	return spec, nil
}

// openSince returns when the window last opened at or before t, if it is
// open at t: the latest time its schedule fired in (t - length, t].
func (w *window) openSince(t time.Time) (time.Time, bool) {
	first := w.spec.Next(t.Add(-w.length))
	if first.IsZero() || first.After(t) {
		return time.Time{}, false
	}
	if next := w.spec.Next(first); next.IsZero() || next.After(t) {
		return first, true
	}
	// The schedule fired more than once since: the cron library finds only
	// the next firing, so the last one is found by halving the interval
	// that ends with it.
	lo, hi := first, t
	for hi.Sub(lo) > time.Second {
		mid := lo.Add(max(hi.Sub(lo)/2, time.Second))
		if !mid.Before(hi) {
			break
		}
		if n := w.spec.Next(mid); !n.IsZero() && !n.After(t) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return w.spec.Next(lo), true
}

// open reports whether the window is open at t.
func (w *window) open(t time.Time) bool {
	first := w.spec.Next(t.Add(-w.length))
	return !first.IsZero() && !first.After(t)
}

// change returns the first instant after t at which the window opens or an
// opening of it ends; zero when there is none.
func (w *window) change(t time.Time) time.Time {
	next := w.spec.Next(t)
	if first := w.spec.Next(t.Add(-w.length)); !first.IsZero() && !first.After(t) {
		if end := first.Add(w.length); next.IsZero() || end.Before(next) {
			return end
		}
	}
	return next
}

// WindowDecision is what a policy's disruption windows allow at an instant.
type WindowDecision struct {
	At time.Time
	// Evict says whether runs may evict at At.
	Evict bool
	// Open lists the windows open at At, by their index in
	// disruptionWindows.
	Open []int
	// Window is the window that decides: the open blackout (evict: false)
	// when Evict is false, else the first open window that allows
	// evictions; -1 when none does (no window is open, or only blackouts
	// exist and none is open).
	Window int
	// Since is when Window last opened.
	Since time.Time
	// Limits are the limits that apply at At: the policy's, each field
	// replaced by the lowest value the open windows that allow evictions
	// set. The policy's own when Evict is false.
	Limits Limits
	// Next, when Evict is false, is the first instant after At at which
	// evictions are allowed; zero when the search found none (see
	// windowSearch).
	Next time.Time
	// NextWindow is the window open at Next that allows evictions; -1
	// when only blackouts exist.
	NextWindow int
	// Note says all this in a sentence, for the report and the log.
	Note string
}

// WindowsAt returns what the policy's disruption windows allow at t; nil
// when the policy has none, and every instant allows evictions.
func (p *Policy) WindowsAt(t time.Time) *WindowDecision {
	if len(p.windows) == 0 {
		return nil
	}
	d := &WindowDecision{At: t, Window: -1, NextWindow: -1, Limits: p.Limits}
	evicting := false
	for i := range p.windows {
		w := &p.windows[i]
		evicting = evicting || w.evict
		since, open := w.openSince(t)
		if !open {
			continue
		}
		d.Open = append(d.Open, i)
		switch {
		case !w.evict && (d.Window < 0 || p.windows[d.Window].evict):
			d.Window, d.Since = i, since
		case w.evict && d.Window < 0:
			d.Window, d.Since = i, since
		}
	}
	d.Evict = d.Window >= 0 && p.windows[d.Window].evict || d.Window < 0 && !evicting
	var searched time.Time
	if d.Evict {
		d.Limits = p.windowLimits(d.Open)
	} else {
		d.Next, d.NextWindow, searched = p.nextEvicting(t)
	}
	d.Note = p.windowNote(d, searched)
	return d
}

// NextEvictions returns the first instant after t at which the windows
// allow evictions, whether or not they do at t; zero when the policy has
// no windows or the search found none.
func (p *Policy) NextEvictions(t time.Time) time.Time {
	if len(p.windows) == 0 {
		return time.Time{}
	}
	next, _, _ := p.nextEvicting(t)
	return next
}

// allows reports whether the windows allow evictions at t, and which
// window that allows them is open then (-1: none, when only blackouts
// exist).
func (p *Policy) allows(t time.Time) (bool, int) {
	evicting, first := false, -1
	for i := range p.windows {
		w := &p.windows[i]
		evicting = evicting || w.evict
		if !w.open(t) {
			continue
		}
		if !w.evict {
			return false, -1
		}
		if first < 0 {
			first = i
		}
	}
	return first >= 0 || !evicting, first
}

// nextEvicting returns the first instant after t at which the windows
// allow evictions and the window that allows them then, or, when it found
// none, where it stopped searching. The answer can change only when a
// window opens or an opening ends, so only those instants are asked.
func (p *Policy) nextEvicting(t time.Time) (next time.Time, window int, searched time.Time) {
	limit := t.Add(windowSearch)
	at := t
	for range windowSearchChanges {
		next = time.Time{}
		for i := range p.windows {
			if c := p.windows[i].change(at); !c.IsZero() && (next.IsZero() || c.Before(next)) {
				next = c
			}
		}
		if next.IsZero() || next.After(limit) {
			return time.Time{}, -1, limit
		}
		if ok, w := p.allows(next); ok {
			return next, w, time.Time{}
		}
		at = next
	}
	return time.Time{}, -1, at
}

// windowLimits overlays the policy's limits with the lowest value each
// field has among the open windows that allow evictions.
func (p *Policy) windowLimits(open []int) Limits {
	// Each field of Limits and LimitBounds is merged here:
	// TestWindowLimitsCoverEveryField fails when one is added.
	var low Limits
	for _, i := range open {
		w := &p.windows[i]
		if !w.evict || w.limits == nil {
			continue
		}
		low.Total = lowerCount(low.Total, w.limits.Total)
		low.PerRun = lowerBounds(low.PerRun, w.limits.PerRun)
		low.PerStep = lowerBounds(low.PerStep, w.limits.PerStep)
	}
	l := p.Limits
	if low.Total != nil {
		l.Total = low.Total
	}
	l.PerRun = overlayBounds(l.PerRun, low.PerRun)
	if s := low.PerStep; s != nil {
		l.PerStep = overlayBounds(l.PerStep, s)
		// The former names stand for perStep's fields: the window's value
		// replaces them too.
		if s.Node != nil {
			l.PerNode = nil
		}
		if s.Namespace != nil {
			l.PerNamespace = nil
		}
		if s.Workload != nil {
			l.PerWorkload = nil
		}
	}
	return l
}

// canonicalLimits writes the former flat names of l as perStep's fields,
// so that windows' limits compare field by field.
func canonicalLimits(l *Limits) *Limits {
	c := &Limits{Total: l.Total}
	if l.PerRun != nil {
		r := *l.PerRun
		c.PerRun = &r
	}
	var step LimitBounds
	if l.PerStep != nil {
		step = *l.PerStep
	}
	if step.Node == nil {
		step.Node = l.PerNode
	}
	if step.Namespace == nil {
		step.Namespace = l.PerNamespace
	}
	if step.Workload == nil && l.PerWorkload != nil {
		v := intstr.FromInt32(*l.PerWorkload)
		step.Workload = &v
	}
	if step != (LimitBounds{}) {
		c.PerStep = &step
	}
	return c
}

func lowerCount(a, b *int32) *int32 {
	if b == nil || a != nil && *a <= *b {
		return a
	}
	return b
}

// lowerWorkload returns the lower of two workload bounds of the same kind,
// both counts or both percentages; validation refuses windows that give one
// bound in both kinds, whose order depends on each workload's replicas.
func lowerWorkload(a, b *intstr.IntOrString) *intstr.IntOrString {
	if b == nil || a != nil && (a.Type != b.Type || percent(a) <= percent(b)) {
		return a
	}
	return b
}

// percent is a validated bound's number: its count, or its percentage.
func percent(v *intstr.IntOrString) int {
	if v.Type == intstr.Int {
		return int(v.IntVal)
	}
	n, _ := intstr.GetScaledValueFromIntOrPercent(v, 100, false)
	return n
}

func lowerBounds(a, b *LimitBounds) *LimitBounds {
	switch {
	case b == nil:
		return a
	case a == nil:
		c := *b
		return &c
	}
	return &LimitBounds{Node: lowerCount(a.Node, b.Node), Namespace: lowerCount(a.Namespace, b.Namespace),
		Workload: lowerWorkload(a.Workload, b.Workload)}
}

// overlayBounds returns own with the fields win sets replaced.
func overlayBounds(own, win *LimitBounds) *LimitBounds {
	if win == nil {
		return own
	}
	var o LimitBounds
	if own != nil {
		o = *own
	}
	if win.Node != nil {
		o.Node = win.Node
	}
	if win.Namespace != nil {
		o.Namespace = win.Namespace
	}
	if win.Workload != nil {
		o.Workload = win.Workload
	}
	return &o
}

// windowNote words a decision.
func (p *Policy) windowNote(d *WindowDecision, searched time.Time) string {
	name := func(i int) string { return fmt.Sprintf("disruptionWindows[%d]", i) }
	when := func(t time.Time, i int) string {
		if i >= 0 {
			t = t.In(p.windows[i].spec.Location)
		}
		return t.Format(time.RFC3339)
	}
	opens := func() string {
		switch {
		case d.Next.IsZero():
			return fmt.Sprintf("no window allows evictions before %s", when(searched, max(d.Window, 0)))
		case d.NextWindow >= 0:
			return fmt.Sprintf("next opens %s (%s)", when(d.Next, d.NextWindow), name(d.NextWindow))
		}
		return fmt.Sprintf("evictions resume %s", when(d.Next, d.Window))
	}
	switch {
	case !d.Evict && d.Window >= 0:
		return fmt.Sprintf("inside %s, which allows no evictions (evict: false), open since %s: %s",
			name(d.Window), when(d.Since, d.Window), opens())
	case !d.Evict:
		return "outside every disruption window: " + opens()
	case d.Window < 0:
		return "no disruption window with evict: false is open"
	}
	var others []string
	limits := false
	for _, i := range d.Open {
		w := &p.windows[i]
		if !w.evict {
			continue
		}
		limits = limits || w.limits != nil
		if i != d.Window {
			others = append(others, name(i))
		}
	}
	note := fmt.Sprintf("inside %s, open since %s for %s", name(d.Window), when(d.Since, d.Window), p.windows[d.Window].length)
	if len(others) > 0 {
		note += fmt.Sprintf(", and inside %s", strings.Join(others, ", "))
	}
	switch {
	case limits && len(others) > 0:
		note += ": the lowest of their limits apply"
	case limits:
		note += ": its limits apply"
	}
	return note
}

// During returns the policy as it applies under a decision: its limits
// replaced by the decision's. A nil decision, or one that changes no
// limit, returns p itself.
func (p *Policy) During(d *WindowDecision) *Policy {
	if d == nil || d.Limits == p.Limits {
		return p
	}
	cp := *p
	cp.Limits = d.Limits
	step, stepField, run := namespaceLimits(&d.Limits)
	cp.global.PerNamespaceLimit, cp.global.PerNamespaceField, cp.global.PerRunNamespaceLimit = step, stepField, run
	cp.overrides = make([]override, len(p.overrides))
	copy(cp.overrides, p.overrides)
	for i := range cp.overrides {
		// An override's own namespace bounds stay, as they do over the
		// policy's.
		o, s := &p.Overrides[i].Limits, &cp.overrides[i].settings
		if (o.PerStep == nil || o.PerStep.Namespace == nil) && o.PerNamespace == nil {
			s.PerNamespaceLimit, s.PerNamespaceField = step, stepField
		}
		if o.PerRun == nil || o.PerRun.Namespace == nil {
			s.PerRunNamespaceLimit = run
		}
	}
	return &cp
}
