package policy

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/intstr"
)

func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	at, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return at
}

func TestWindowsAt(t *testing.T) {
	const (
		// Weeknights in Berlin, 22:00 to 06:00 the next morning.
		weeknights = "disruptionWindows:\n- {schedule: \"0 22 * * 1-5\", duration: 8h, timeZone: Europe/Berlin}\n"
		// 02:30 in Berlin, a time that does not exist on 2026-03-29 and
		// exists twice on 2026-10-25.
		twoThirty = "disruptionWindows:\n- {schedule: \"30 2 * * *\", duration: 1h, timeZone: Europe/Berlin}\n"
		// Nightly from 22:00 for 8h, over the night the clocks go back.
		nightly = "disruptionWindows:\n- {schedule: \"0 22 * * *\", duration: 8h, timeZone: Europe/Berlin}\n"
		// Always open but during office hours, which are a blackout.
		officeBlackout = "disruptionWindows:\n- {schedule: \"@daily\", duration: 24h, timeZone: Europe/Berlin}\n" +
			"- {schedule: \"0 9 * * 1-5\", duration: 9h, timeZone: Europe/Berlin, evict: false}\n"
		onlyBlackout = "disruptionWindows:\n- {schedule: \"0 9 * * 1-5\", duration: 9h, timeZone: Europe/Berlin, evict: false}\n"
	)
	tests := []struct {
		name    string
		windows string
		at      string
		// wantEvict, wantOpen, wantNext and wantNote describe the
		// decision; wantNext empty: zero.
		wantEvict bool
		wantOpen  []int
		wantNext  string
		wantNote  string
	}{
		{
			name: "Friday afternoon: outside, the window opens tonight", windows: weeknights, at: "2026-11-27T13:00:00+01:00",
			wantNext: "2026-11-27T22:00:00+01:00",
			wantNote: "outside every disruption window: next opens 2026-11-27T22:00:00+01:00 (disruptionWindows[0])",
		},
		{
			name: "Friday night: inside", windows: weeknights, at: "2026-11-27T23:30:00+01:00",
			wantEvict: true, wantOpen: []int{0},
			wantNote: "inside disruptionWindows[0], open since 2026-11-27T22:00:00+01:00 for 8h0m0s",
		},
		{
			name: "Saturday before 06:00: the window opened on Friday is still open across midnight", windows: weeknights, at: "2026-11-28T05:59:59+01:00",
			wantEvict: true, wantOpen: []int{0},
			wantNote: "inside disruptionWindows[0], open since 2026-11-27T22:00:00+01:00 for 8h0m0s",
		},
		{
			name: "Saturday 06:00: closed, and it opens again on Monday night", windows: weeknights, at: "2026-11-28T06:00:00+01:00",
			wantNext: "2026-11-30T22:00:00+01:00",
			wantNote: "outside every disruption window: next opens 2026-11-30T22:00:00+01:00 (disruptionWindows[0])",
		},
		{
			name: "the time is compared in the window's zone whatever zone it is given in", windows: weeknights, at: "2026-11-27T21:30:00Z",
			wantEvict: true, wantOpen: []int{0},
			wantNote: "inside disruptionWindows[0], open since 2026-11-27T22:00:00+01:00 for 8h0m0s",
		},
		{
			name: "the night before the clocks go forward: 02:30 exists", windows: twoThirty, at: "2026-03-28T02:45:00+01:00",
			wantEvict: true, wantOpen: []int{0},
			wantNote: "inside disruptionWindows[0], open since 2026-03-28T02:30:00+01:00 for 1h0m0s",
		},
		{
			name: "2026-03-29: 02:30 does not exist, the window does not open that day", windows: twoThirty, at: "2026-03-29T03:15:00+02:00",
			wantNext: "2026-03-30T02:30:00+02:00",
			wantNote: "outside every disruption window: next opens 2026-03-30T02:30:00+02:00 (disruptionWindows[0])",
		},
		{
			name: "2026-10-25: 02:30 summer time, the first of the two", windows: twoThirty, at: "2026-10-25T02:45:00+02:00",
			wantEvict: true, wantOpen: []int{0},
			wantNote: "inside disruptionWindows[0], open since 2026-10-25T02:30:00+02:00 for 1h0m0s",
		},
		{
			name: "2026-10-25: 02:30 winter time, an hour later, opens it again", windows: twoThirty, at: "2026-10-25T02:45:00+01:00",
			wantEvict: true, wantOpen: []int{0},
			wantNote: "inside disruptionWindows[0], open since 2026-10-25T02:30:00+01:00 for 1h0m0s",
		},
		{
			name: "2026-10-25: closed an hour after the second 02:30", windows: twoThirty, at: "2026-10-25T03:30:00+01:00",
			wantNext: "2026-10-26T02:30:00+01:00",
			wantNote: "outside every disruption window: next opens 2026-10-26T02:30:00+01:00 (disruptionWindows[0])",
		},
		{
			name: "the duration is elapsed time: 8h from 22:00 summer time end at 05:00 winter time", windows: nightly, at: "2026-10-25T04:59:59+01:00",
			wantEvict: true, wantOpen: []int{0},
			wantNote: "inside disruptionWindows[0], open since 2026-10-24T22:00:00+02:00 for 8h0m0s",
		},
		{
			name: "and closed at 05:00", windows: nightly, at: "2026-10-25T05:00:00+01:00",
			wantNext: "2026-10-25T22:00:00+01:00",
			wantNote: "outside every disruption window: next opens 2026-10-25T22:00:00+01:00 (disruptionWindows[0])",
		},
		{
			name: "a blackout wins over an open window that allows evictions", windows: officeBlackout, at: "2026-11-25T10:00:00+01:00",
			wantOpen: []int{0, 1}, wantNext: "2026-11-25T18:00:00+01:00",
			wantNote: "inside disruptionWindows[1], which allows no evictions (evict: false), open since 2026-11-25T09:00:00+01:00: " +
				"next opens 2026-11-25T18:00:00+01:00 (disruptionWindows[0])",
		},
		{
			name: "after office hours the daily window allows evictions", windows: officeBlackout, at: "2026-11-25T19:00:00+01:00",
			wantEvict: true, wantOpen: []int{0},
			wantNote: "inside disruptionWindows[0], open since 2026-11-25T00:00:00+01:00 for 24h0m0s",
		},
		{
			name: "a Friday blackout ends before the weekend", windows: officeBlackout, at: "2026-11-27T17:59:59+01:00",
			wantOpen: []int{0, 1}, wantNext: "2026-11-27T18:00:00+01:00",
			wantNote: "inside disruptionWindows[1], which allows no evictions (evict: false), open since 2026-11-27T09:00:00+01:00: " +
				"next opens 2026-11-27T18:00:00+01:00 (disruptionWindows[0])",
		},
		{
			name: "only blackouts: evictions at any other time", windows: onlyBlackout, at: "2026-11-25T20:00:00+01:00",
			wantEvict: true,
			wantNote:  "no disruption window with evict: false is open",
		},
		{
			name: "only blackouts, one open: evictions resume when it closes", windows: onlyBlackout, at: "2026-11-25T10:00:00+01:00",
			wantOpen: []int{0}, wantNext: "2026-11-25T18:00:00+01:00",
			wantNote: "inside disruptionWindows[0], which allows no evictions (evict: false), open since 2026-11-25T09:00:00+01:00: " +
				"evictions resume 2026-11-25T18:00:00+01:00",
		},
		{
			name:    "a window longer than its period is always open, since its last firing",
			windows: "disruptionWindows:\n- {schedule: \"0 * * * *\", duration: 2h}\n", at: "2026-11-27T13:59:59Z",
			wantEvict: true, wantOpen: []int{0},
			wantNote: "inside disruptionWindows[0], open since 2026-11-27T13:00:00Z for 2h0m0s",
		},
		{
			name:    "every minute for a month: the last firing is found",
			windows: "disruptionWindows:\n- {schedule: \"* * * * *\", duration: 720h}\n", at: "2026-11-27T13:21:30Z",
			wantEvict: true, wantOpen: []int{0},
			wantNote: "inside disruptionWindows[0], open since 2026-11-27T13:21:00Z for 720h0m0s",
		},
		{
			name: "several windows open", windows: "disruptionWindows:\n- {schedule: \"0 22 * * *\", duration: 8h}\n- {schedule: \"0 0 * * *\", duration: 2h}\n",
			at: "2026-11-28T00:30:00Z", wantEvict: true, wantOpen: []int{0, 1},
			wantNote: "inside disruptionWindows[0], open since 2026-11-27T22:00:00Z for 8h0m0s, and inside disruptionWindows[1]",
		},
		{
			name: "a schedule that never fires", windows: "disruptionWindows:\n- {schedule: \"0 0 30 2 *\", duration: 1h}\n", at: "2026-11-27T12:00:00Z",
			wantNote: "outside every disruption window: no window allows evictions before 2027-11-28T12:00:00Z",
		},
		{
			name: "the next window is more than a year away", windows: "disruptionWindows:\n- {schedule: \"0 0 29 2 *\", duration: 1h}\n", at: "2026-11-27T12:00:00Z",
			wantNote: "outside every disruption window: no window allows evictions before 2027-11-28T12:00:00Z",
		},
		{
			name: "a blackout every minute never ends: the search stops early", at: "2026-11-27T12:00:30Z",
			windows:  "disruptionWindows:\n- {schedule: \"* * * * *\", duration: 1m, evict: false}\n",
			wantOpen: []int{0},
			wantNote: "inside disruptionWindows[0], which allows no evictions (evict: false), open since 2026-11-27T12:00:00Z: " +
				"no window allows evictions before 2026-12-04T10:40:00Z",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Load([]byte(header+tt.windows), "policy.yaml")
			if err != nil {
				t.Fatal(err)
			}
			d := p.WindowsAt(mustTime(t, tt.at))
			if d.Evict != tt.wantEvict {
				t.Errorf("Evict = %v, want %v", d.Evict, tt.wantEvict)
			}
			if !reflect.DeepEqual(d.Open, tt.wantOpen) {
				t.Errorf("Open = %v, want %v", d.Open, tt.wantOpen)
			}
			var want time.Time
			if tt.wantNext != "" {
				want = mustTime(t, tt.wantNext)
			}
			if !d.Next.Equal(want) {
				t.Errorf("Next = %s, want %s", d.Next, want)
			}
			if d.Note != tt.wantNote {
				t.Errorf("Note = %q\nwant   %q", d.Note, tt.wantNote)
			}
		})
	}
}

func TestWindowsAtWithoutWindows(t *testing.T) {
	p, err := Load([]byte(header+"limits: {total: 3}\n"), "policy.yaml")
	if err != nil {
		t.Fatal(err)
	}
	d := p.WindowsAt(mustTime(t, "2026-11-27T12:00:00Z"))
	if d != nil {
		t.Fatalf("WindowsAt = %+v, want nil for a policy without windows", d)
	}
	if p.During(d) != p {
		t.Error("During(nil) is not the policy itself")
	}
}

func TestWindowLimits(t *testing.T) {
	const policy = header + `
limits: {total: 3, perNode: 2, perStep: {namespace: 4}, perRun: {workload: "50%"}}
overrides:
- namespaces: [batch]
  limits: {perStep: {namespace: 9}, perRun: {namespace: 20}}
- namespaces: [shop]
  evictable: {barePods: true}
disruptionWindows:
- schedule: "0 22 * * *"
  duration: 8h
  limits: {total: 10, perStep: {node: 5}, perRun: {namespace: 30}}
- schedule: "0 0 * * *"
  duration: 2h
  limits: {total: 5, perNode: 1, perStep: {namespace: 1}, perRun: {workload: "25%"}}
- schedule: "0 12 * * *"
  duration: 1h
`
	p, err := Load([]byte(policy), "policy.yaml")
	if err != nil {
		t.Fatal(err)
	}
	show := func(v any) string {
		switch v := v.(type) {
		case *int32:
			if v != nil {
				return fmt.Sprint(*v)
			}
		case *intstr.IntOrString:
			if v != nil {
				return v.String()
			}
		}
		return "-"
	}
	tests := []struct {
		name string
		at   string
		// want: total, the per-step node bound and its field, the per-run
		// workload bound; then per namespace (batch, shop, web) the
		// per-step and per-run bounds.
		want       string
		wantByNS   string
		wantNoteIn string
	}{
		{name: "one window: its limits replace the policy's, a looser total too", at: "2026-11-27T23:00:00Z",
			want: "total 10, step node 5 (limits.perStep.node), run workload 50%", wantByNS: "batch 9/20, shop 4/30, web 4/30",
			wantNoteIn: ": its limits apply"},
		{name: "two windows: the lowest of each field, former names included", at: "2026-11-28T00:30:00Z",
			want: "total 5, step node 1 (limits.perStep.node), run workload 25%", wantByNS: "batch 9/20, shop 1/30, web 1/30",
			wantNoteIn: ": the lowest of their limits apply"},
		{name: "a window without limits keeps the policy's", at: "2026-11-27T12:30:00Z",
			want: "total 3, step node 2 (limits.perNode), run workload 50%", wantByNS: "batch 9/20, shop 4/-, web 4/-"},
		{name: "outside every window: the policy's", at: "2026-11-27T14:00:00Z",
			want: "total 3, step node 2 (limits.perNode), run workload 50%", wantByNS: "batch 9/20, shop 4/-, web 4/-"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := p.WindowsAt(mustTime(t, tt.at))
			during := p.During(d)
			l := &during.Limits
			step, run := l.Step(), l.Run()
			if got := fmt.Sprintf("total %s, step node %s (%s), run workload %s", show(l.Total), show(step.Node.Max), step.Node.Field,
				show(run.Workload.Max)); got != tt.want {
				t.Errorf("limits: %s\nwant    %s", got, tt.want)
			}
			var byNS []string
			for _, ns := range []string{"batch", "shop", "web"} {
				s := during.For(ns, nil)
				byNS = append(byNS, fmt.Sprintf("%s %s/%s", ns, show(s.PerNamespaceLimit), show(s.PerRunNamespaceLimit)))
			}
			if got := strings.Join(byNS, ", "); got != tt.wantByNS {
				t.Errorf("namespace bounds, per step/per run: %s\nwant                                %s", got, tt.wantByNS)
			}
			if tt.wantNoteIn != "" && !strings.Contains(d.Note, tt.wantNoteIn) {
				t.Errorf("Note = %q, want it to say %q", d.Note, tt.wantNoteIn)
			}
		})
	}
	if l := p.Limits; *l.Total != 3 || *l.PerNode != 2 || l.PerStep.Node != nil || *p.Global().PerNamespaceLimit != 4 {
		t.Errorf("the policy's own limits changed: %+v", l)
	}
}

// windowLimits merges each field of Limits and LimitBounds: a new field
// must be merged there too.
func TestWindowLimitsCoverEveryField(t *testing.T) {
	for _, tt := range []struct {
		typ    reflect.Type
		merged string
	}{
		{reflect.TypeFor[Limits](), "Total PerRun PerStep PerNode PerNamespace PerWorkload"},
		{reflect.TypeFor[LimitBounds](), "Node Namespace Workload"},
	} {
		var got []string
		for f := range tt.typ.Fields() {
			got = append(got, f.Name)
		}
		if strings.Join(got, " ") != tt.merged {
			t.Errorf("%s has the fields %v; windowLimits merges %s: merge the new ones there and list them here", tt.typ.Name(), got, tt.merged)
		}
	}
}

func TestWindowsValidation(t *testing.T) {
	tests := []struct {
		name    string
		windows string
		want    []string
	}{
		{
			name:    "a time zone inside the schedule, as a CronJob refuses it",
			windows: `- {schedule: "TZ=Europe/Berlin 0 22 * * *", duration: 8h}`,
			want:    []string{`disruptionWindows[0].schedule: "TZ=Europe/Berlin 0 22 * * *" cannot use TZ or CRON_TZ in schedule, use timeZone instead`},
		},
		{
			name:    "CRON_TZ too",
			windows: `- {schedule: "CRON_TZ=UTC 0 22 * * *", duration: 8h}`,
			want:    []string{`disruptionWindows[0].schedule: "CRON_TZ=UTC 0 22 * * *" cannot use TZ or CRON_TZ in schedule, use timeZone instead`},
		},
		{
			name:    "a field out of range",
			windows: `- {schedule: "61 * * * *", duration: 8h}`,
			want:    []string{`disruptionWindows[0].schedule: "61 * * * *" end of range (61) above maximum (59): 61`},
		},
		{
			name:    "@every has no fixed times",
			windows: `- {schedule: "@every 1h", duration: 8h}`,
			want: []string{`disruptionWindows[0].schedule: "@every 1h" has no fixed times to open a window at; ` +
				`give five fields, such as "0 22 * * 1-5", or a macro such as @daily`},
		},
		{
			name:    "no schedule, no duration",
			windows: `- {timeZone: UTC}`,
			want: []string{
				`disruptionWindows[0].schedule: is required (when the window opens, in cron syntax such as "0 22 * * 1-5")`,
				`disruptionWindows[0].duration: "0s" must be positive: how long the window stays open each time its schedule fires, such as 8h`,
			},
		},
		{
			name:    "a negative duration",
			windows: `- {schedule: "@daily", duration: -1h}`,
			want:    []string{`disruptionWindows[0].duration: "-1h0m0s" must be positive: how long the window stays open each time its schedule fires, such as 8h`},
		},
		{
			name:    "an unknown time zone",
			windows: `- {schedule: "@daily", duration: 1h, timeZone: Europe/Berlinn}`,
			want:    []string{`disruptionWindows[0].timeZone: "Europe/Berlinn" is not a known IANA time zone (such as Europe/Berlin or America/New_York)`},
		},
		{
			name:    "the machine's zone",
			windows: `- {schedule: "@daily", duration: 1h, timeZone: Local}`,
			want:    []string{`disruptionWindows[0].timeZone: "Local" is the machine's own zone: name an IANA time zone, such as Europe/Berlin, or leave it out for UTC`},
		},
		{
			name:    "limits of a blackout, and a negative limit",
			windows: "- {schedule: \"@daily\", duration: 1h}\n- {schedule: \"@daily\", duration: 1h, evict: false, limits: {total: -1}}",
			want: []string{
				"disruptionWindows[1].limits.total: -1 is negative (leave it out for no limit)",
				"disruptionWindows[1].limits: a window with evict: false allows no eviction, so no limits apply while it is open",
			},
		},
		{
			name: "a workload bound as a count in one window and a percentage in another",
			windows: "- {schedule: \"@daily\", duration: 1h, limits: {perStep: {workload: 2}}}\n" +
				"- {schedule: \"@hourly\", duration: 1h, limits: {perStep: {workload: \"25%\"}, perRun: {workload: \"50%\"}}}\n" +
				"- {schedule: \"@hourly\", duration: 1h, limits: {perRun: {workload: \"10%\"}, perWorkload: 3}}",
			want: []string{
				`disruptionWindows[1].limits.perStep.workload: "25%" is a percentage where disruptionWindows[0] gives a count: ` +
					`give this bound in one form in every window, so that the lowest is known when both are open`,
			},
		},
		{
			name:    "an unknown field",
			windows: `- {schedule: "@daily", duration: 1h, evict: true, ends: 06:00}`,
			want:    []string{`disruptionWindows[0].ends: unknown field`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load([]byte(header+"disruptionWindows:\n"+tt.windows+"\n"), "policy.yaml")
			if err == nil {
				t.Fatal("loaded, want an error")
			}
			var want []string
			for _, w := range tt.want {
				want = append(want, "policy.yaml: "+w)
			}
			if got := err.Error(); got != strings.Join(want, "\n") {
				t.Errorf("error:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
			}
		})
	}
}

// A window's limits under their former names are deprecated as the
// policy's are.
func TestWindowLimitsDeprecations(t *testing.T) {
	p, err := Load([]byte(header+"disruptionWindows:\n- {schedule: \"@daily\", duration: 8h, limits: {perNode: 2}}\n"), "policy.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want := "disruptionWindows[0].limits.perNode is deprecated: write disruptionWindows[0].limits.perStep.node, the same bound on each step " +
		"(disruptionWindows[0].limits.perRun.node bounds the whole run)"
	if got := p.Deprecations(); len(got) != 1 || got[0] != want {
		t.Errorf("Deprecations() = %q, want [%q]", got, want)
	}
}
