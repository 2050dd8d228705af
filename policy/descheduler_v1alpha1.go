package policy

import (
	"encoding/json"
	"fmt"
	"sort"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// deschedulerV1alpha1 is the descheduler's older policy,
// descheduler/v1alpha1: strategies by name with their params, and the
// evictor's settings at the top. The descheduler ran each strategy in a
// profile of its own, with the thresholdPriority and nodeFit of its params.
type deschedulerV1alpha1 struct {
	APIVersion                     string                      `json:"apiVersion"`
	Kind                           string                      `json:"kind"`
	Strategies                     map[string]v1alpha1Strategy `json:"strategies,omitempty"`
	NodeSelector                   *string                     `json:"nodeSelector,omitempty"`
	EvictFailedBarePods            *bool                       `json:"evictFailedBarePods,omitempty"`
	EvictLocalStoragePods          *bool                       `json:"evictLocalStoragePods,omitempty"`
	EvictSystemCriticalPods        *bool                       `json:"evictSystemCriticalPods,omitempty"`
	EvictDaemonSetPods             *bool                       `json:"evictDaemonSetPods,omitempty"`
	IgnorePvcPods                  *bool                       `json:"ignorePvcPods,omitempty"`
	MaxNoOfPodsToEvictPerNode      *int64                      `json:"maxNoOfPodsToEvictPerNode,omitempty"`
	MaxNoOfPodsToEvictPerNamespace *int64                      `json:"maxNoOfPodsToEvictPerNamespace,omitempty"`
}

type v1alpha1Strategy struct {
	Enabled bool            `json:"enabled,omitempty"`
	Weight  int             `json:"weight,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
}

// v1alpha1EvictorParams are the params every strategy had that configured
// its evictor rather than itself.
var v1alpha1EvictorParams = map[string]bool{"thresholdPriority": true, "thresholdPriorityClassName": true, "nodeFit": true}

// translateV1alpha1 translates a descheduler/v1alpha1 document.
func translateV1alpha1(j []byte) *translation {
	var doc deschedulerV1alpha1
	t := newTranslation()
	t.problems = decodeProblemsOf(j, &doc, "")
	if doc.Kind != DeschedulerKind {
		t.errs = append(t.errs, field.NotSupported(field.NewPath("kind"), doc.Kind, []string{DeschedulerKind}))
	}
	t.topLevel(doc.NodeSelector, doc.MaxNoOfPodsToEvictPerNode, doc.MaxNoOfPodsToEvictPerNamespace, nil)

	names := make([]string, 0, len(doc.Strategies))
	for name := range doc.Strategies {
		names = append(names, name)
	}
	sort.Strings(names)
	var profiles []profile
	for _, name := range names {
		path := field.NewPath("strategies").Key(name)
		row := deschedulerStrategyNamed(name)
		if row == nil {
			t.errs = append(t.errs, field.NotSupported(path, name, deschedulerStrategyNames()))
			continue
		}
		s := doc.Strategies[name]
		if !s.Enabled {
			continue // the descheduler neither runs nor checks it
		}
		if s.Weight != 0 {
			t.note("strategies."+name, "weight: has no effect, as in the descheduler")
		}
		profiles = append(profiles, t.v1alpha1Strategy(row, path, s.Params, &doc))
	}
	t.finish(profiles)
	return t
}

// v1alpha1Strategy translates one enabled strategy into the profile the
// descheduler made of it.
func (t *translation) v1alpha1Strategy(row *deschedulerStrategy, path *field.Path, params json.RawMessage, doc *deschedulerV1alpha1) profile {
	pp := path.Child("params")
	raw, errs := rawObject(params, pp)
	t.errs = append(t.errs, errs...)
	// The strategy's own object, when it has one, holds more params.
	own := map[string]json.RawMessage{}
	ownPath := map[string]*field.Path{}
	common := map[string]*field.Path{}
	for name := range raw {
		common[name] = pp.Child(name)
	}
	if row.v1alpha1Params != "" {
		if inner, ok := raw[row.v1alpha1Params]; ok {
			obj, errs := rawObject(inner, pp.Child(row.v1alpha1Params))
			t.errs = append(t.errs, errs...)
			for k, v := range obj {
				own[k] = v
				ownPath[k] = pp.Child(row.v1alpha1Params, k)
			}
			delete(raw, row.v1alpha1Params)
		}
	}

	args := map[string]json.RawMessage{}
	argPath := map[string]*field.Path{}
	var evictor deschedulerEvictor
	evictorPath := map[string]*field.Path{}
	put := func(name string, value json.RawMessage, at *field.Path) {
		to, ok := row.v1alpha1Args[name]
		if !ok {
			if isZeroJSON(value) {
				return // the descheduler's params had every field; unset ones mean nothing
			}
			t.errs = append(t.errs, field.Forbidden(at, fmt.Sprintf("is not a parameter of %s", row.name)))
			return
		}
		switch name {
		case "includeSoftConstraints":
			if string(value) == "true" {
				value = json.RawMessage(`["DoNotSchedule","ScheduleAnyway"]`)
			} else {
				return
			}
		case "podStatusPhases", "states":
			// The descheduler's conversion appends phases to states.
			if prev, ok := args[to]; ok {
				var a, b []string
				_ = json.Unmarshal(prev, &a)
				_ = json.Unmarshal(value, &b)
				if name == "podStatusPhases" {
					a, b = b, a
				}
				value, _ = json.Marshal(append(a, b...))
			}
		}
		args[to] = value
		argPath[to] = at
	}
	for _, name := range sortedNames(raw) {
		if v1alpha1EvictorParams[name] {
			evictorPath[name] = common[name]
			continue
		}
		put(name, raw[name], common[name])
	}
	for _, name := range sortedNames(own) {
		put(name, own[name], ownPath[name])
	}
	// The evictor params, decoded by their type.
	var ep struct {
		ThresholdPriority          *int32 `json:"thresholdPriority"`
		ThresholdPriorityClassName string `json:"thresholdPriorityClassName"`
		NodeFit                    bool   `json:"nodeFit"`
	}
	if len(evictorPath) > 0 {
		sub := map[string]json.RawMessage{}
		for name := range evictorPath {
			sub[name] = raw[name]
		}
		b, _ := json.Marshal(sub)
		t.problems = append(t.problems, decodeProblemsOf(b, &ep, pp.String())...)
	}
	if ep.ThresholdPriority != nil || ep.ThresholdPriorityClassName != "" {
		evictor.PriorityThreshold = &PriorityThreshold{Value: ep.ThresholdPriority, Name: ep.ThresholdPriorityClassName}
	}
	// The descheduler's conversion gave PodLifeTime no nodeFit.
	evictor.NodeFit = ep.NodeFit && row.v1alpha1Params != "podLifeTime"
	evictor.EvictFailedBarePods = IsTrue(doc.EvictFailedBarePods)
	evictor.EvictLocalStoragePods = IsTrue(doc.EvictLocalStoragePods)
	evictor.EvictSystemCriticalPods = IsTrue(doc.EvictSystemCriticalPods)
	evictor.EvictDaemonSetPods = IsTrue(doc.EvictDaemonSetPods)
	evictor.IgnorePvcPods = IsTrue(doc.IgnorePvcPods)

	// Translate the arguments by the v1alpha2 rules, from their v1alpha1 paths.
	translated, paths, notes, errs := strategyArgs(row, args, func(arg string) *field.Path {
		if p, ok := argPath[arg]; ok {
			return p
		}
		return pp.Child(arg)
	})
	t.errs = append(t.errs, errs...)
	s := strategyConfig{row: row, enabled: true, args: translated, path: path, argPaths: paths, notes: notes}

	at := func(arg string) *field.Path {
		switch arg {
		case "priorityThreshold":
			if ep.ThresholdPriority == nil {
				return pp.Child("thresholdPriorityClassName")
			}
			return pp.Child("thresholdPriority")
		case "nodeFit":
			return pp.Child("nodeFit")
		}
		return field.NewPath(arg)
	}
	e := translateEvictor(&evictor, at, doc.NodeSelector, []strategyConfig{s})
	t.errs = append(t.errs, e.errs...)
	return profile{name: row.name, path: path, evictor: pp, evictable: e.ev, evOrigins: e.origins, evNotes: e.notes, strategies: []strategyConfig{s}}
}

// isZeroJSON reports whether a JSON value is null, false, 0, "" or empty.
func isZeroJSON(v json.RawMessage) bool {
	switch string(v) {
	case "", "null", "false", "0", `""`, "[]", "{}":
		return true
	}
	return false
}
