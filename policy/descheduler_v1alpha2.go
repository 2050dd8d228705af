package policy

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// deschedulerV1alpha2 is the descheduler's policy, descheduler/v1alpha2.
type deschedulerV1alpha2 struct {
	APIVersion                       string            `json:"apiVersion"`
	Kind                             string            `json:"kind"`
	Profiles                         []v1alpha2Profile `json:"profiles,omitempty"`
	NodeSelector                     *string           `json:"nodeSelector,omitempty"`
	MaxNoOfPodsToEvictPerNode        *int64            `json:"maxNoOfPodsToEvictPerNode,omitempty"`
	MaxNoOfPodsToEvictPerNamespace   *int64            `json:"maxNoOfPodsToEvictPerNamespace,omitempty"`
	MaxNoOfPodsToEvictTotal          *int64            `json:"maxNoOfPodsToEvictTotal,omitempty"`
	EvictionFailureEventNotification *bool             `json:"evictionFailureEventNotification,omitempty"`
	MetricsCollector                 *struct {
		Enabled bool `json:"enabled,omitempty"`
	} `json:"metricsCollector,omitempty"`
	MetricsProviders   []json.RawMessage `json:"metricsProviders,omitempty"`
	GracePeriodSeconds *int64            `json:"gracePeriodSeconds,omitempty"`
}

type v1alpha2Profile struct {
	Name         string                 `json:"name"`
	PluginConfig []v1alpha2PluginConfig `json:"pluginConfig"`
	Plugins      v1alpha2Plugins        `json:"plugins"`
}

type v1alpha2PluginConfig struct {
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
}

// v1alpha2Plugins are the extension points, spelled as the descheduler
// spells them.
type v1alpha2Plugins struct {
	PreSort           pluginSet `json:"presort"`
	Sort              pluginSet `json:"sort"`
	Deschedule        pluginSet `json:"deschedule"`
	Balance           pluginSet `json:"balance"`
	Filter            pluginSet `json:"filter"`
	PreEvictionFilter pluginSet `json:"preevictionfilter"`
}

type pluginSet struct {
	Enabled  []string `json:"enabled"`
	Disabled []string `json:"disabled"`
}

// defaultEvictorName is the descheduler's evictor plugin.
const defaultEvictorName = "DefaultEvictor"

// translateV1alpha2 translates a descheduler/v1alpha2 document.
func translateV1alpha2(j []byte) *translation {
	var doc deschedulerV1alpha2
	t := newTranslation()
	t.problems = decodeProblemsOf(j, &doc, "")
	if doc.Kind != DeschedulerKind {
		t.errs = append(t.errs, field.NotSupported(field.NewPath("kind"), doc.Kind, []string{DeschedulerKind}))
	}
	t.topLevel(doc.NodeSelector, doc.MaxNoOfPodsToEvictPerNode, doc.MaxNoOfPodsToEvictPerNamespace, doc.MaxNoOfPodsToEvictTotal)
	if doc.GracePeriodSeconds != nil {
		t.doc["gracePeriodSeconds"] = *doc.GracePeriodSeconds
		t.from("gracePeriodSeconds", field.NewPath("gracePeriodSeconds"))
	}
	// metricsProviders has the same shape in a RebalancePolicy; the
	// deprecated metricsCollector.enabled names the metrics API, which a
	// RebalancePolicy reaches without an entry.
	if len(doc.MetricsProviders) > 0 {
		t.doc["metricsProviders"] = doc.MetricsProviders
		t.from("metricsProviders", field.NewPath("metricsProviders"))
	}
	if doc.EvictionFailureEventNotification != nil && *doc.EvictionFailureEventNotification {
		t.note("", "evictionFailureEventNotification: rebalancer always reports an eviction the API server refused, in its report and in an event")
	}
	var profiles []profile
	for i := range doc.Profiles {
		profiles = append(profiles, t.v1alpha2Profile(i, &doc.Profiles[i], doc.NodeSelector))
	}
	t.finish(profiles)
	return t
}

func (t *translation) v1alpha2Profile(i int, p *v1alpha2Profile, nodeSelector *string) profile {
	path := field.NewPath("profiles").Index(i)
	out := profile{name: p.Name, path: path, evictor: path}
	configs := map[string]int{}
	for j, c := range p.PluginConfig {
		cp := path.Child("pluginConfig").Index(j)
		if _, dup := configs[c.Name]; dup {
			t.errs = append(t.errs, field.Duplicate(cp.Child("name"), c.Name))
			continue
		}
		if c.Name != defaultEvictorName && deschedulerStrategyNamed(c.Name) == nil {
			t.errs = append(t.errs, field.NotSupported(cp.Child("name"), c.Name, append([]string{defaultEvictorName}, deschedulerStrategyNames()...)))
			continue
		}
		configs[c.Name] = j
	}

	plugins := path.Child("plugins")
	enabled := map[string]bool{}
	for _, point := range []struct {
		key string
		set pluginSet
	}{{PointDeschedule, p.Plugins.Deschedule}, {PointBalance, p.Plugins.Balance}} {
		for k, name := range point.set.Enabled {
			ep := plugins.Child(point.key, "enabled").Index(k)
			row := deschedulerStrategyNamed(name)
			switch {
			case row == nil && name == defaultEvictorName:
				t.errs = append(t.errs, field.Invalid(ep, name, "is the evictor: it belongs under plugins.filter and plugins.preevictionfilter, where it is enabled by default"))
			case row == nil:
				t.errs = append(t.errs, field.NotSupported(ep, name, deschedulerStrategyNames()))
			case row.point != point.key:
				t.errs = append(t.errs, field.Invalid(ep, name, fmt.Sprintf("is a %s plugin: list it under plugins.%s", row.point, row.point)))
			case enabled[name]:
				t.errs = append(t.errs, field.Duplicate(ep, name))
			default:
				enabled[name] = true
				out.strategies = append(out.strategies, t.v1alpha2Strategy(row, true, p, path, configs, ep))
			}
		}
		for k, name := range point.set.Disabled {
			if slices.Contains(point.set.Enabled, name) {
				t.errs = append(t.errs, field.Forbidden(plugins.Child(point.key, "disabled").Index(k),
					"is enabled too; the descheduler ignores disabled and runs it: remove it from one of the lists"))
			}
		}
	}
	for _, name := range sortedNames(configs) {
		if row := deschedulerStrategyNamed(name); row != nil && !enabled[name] {
			// Configured and not run, as in the descheduler; its arguments
			// are still checked.
			out.strategies = append(out.strategies, t.v1alpha2Strategy(row, false, p, path, configs, nil))
		}
	}
	for _, point := range []struct {
		key     string
		set     pluginSet
		allowed []string
	}{
		{"filter", p.Plugins.Filter, []string{defaultEvictorName}},
		{"preevictionfilter", p.Plugins.PreEvictionFilter, []string{defaultEvictorName}},
		{"presort", p.Plugins.PreSort, nil},
		{"sort", p.Plugins.Sort, nil},
	} {
		for k, name := range point.set.Enabled {
			if slices.Contains(point.allowed, name) {
				continue
			}
			at := plugins.Child(point.key, "enabled").Index(k)
			if len(point.allowed) == 0 {
				// With no value to list, NotSupported's message would end
				// unfinished.
				t.errs = append(t.errs, &field.Error{Type: field.ErrorTypeNotSupported, Field: at.String(), BadValue: name,
					Detail: "rebalancer supports no " + point.key + " plugin"})
				continue
			}
			t.errs = append(t.errs, field.NotSupported(at, name, point.allowed))
		}
	}

	var ev deschedulerEvictor
	argsPath := path
	if j, ok := configs[defaultEvictorName]; ok {
		argsPath = path.Child("pluginConfig").Index(j).Child("args")
		out.evictor = argsPath
		if raw := p.PluginConfig[j].Args; len(raw) > 0 && string(raw) != "null" {
			t.problems = append(t.problems, decodeProblemsOf(raw, &ev, argsPath.String())...)
		}
	}
	e := translateEvictor(&ev, func(arg string) *field.Path { return argsPath.Child(arg) }, nodeSelector, out.strategies)
	t.errs = append(t.errs, e.errs...)
	out.evictable, out.evOrigins, out.evNotes = e.ev, e.origins, e.notes
	return out
}

// v1alpha2Strategy translates a strategy of a profile; enabledAt is where
// it is enabled, nil when it is only configured.
func (t *translation) v1alpha2Strategy(row *deschedulerStrategy, enabled bool, p *v1alpha2Profile, path *field.Path, configs map[string]int, enabledAt *field.Path) strategyConfig {
	s := strategyConfig{row: row, enabled: enabled, path: enabledAt, args: map[string]any{}}
	j, ok := configs[row.name]
	if !ok {
		return s
	}
	argsPath := path.Child("pluginConfig").Index(j).Child("args")
	s.path = argsPath
	raw, errs := rawObject(p.PluginConfig[j].Args, argsPath)
	t.errs = append(t.errs, errs...)
	args, paths, notes, errs := strategyArgs(row, raw, func(arg string) *field.Path { return argsPath.Child(arg) })
	t.errs = append(t.errs, errs...)
	s.args, s.argPaths, s.notes = args, paths, notes
	return s
}

// decodeProblemsOf decodes data into v strictly and words what is wrong
// with it, each problem with its path under prefix.
func decodeProblemsOf(data []byte, v any, prefix string) []string {
	strict, types, err := decodeAll(data, v)
	if err != nil {
		return []string{typeProblem{msg: describeTypeError(err.Error())}.under(prefix).String()}
	}
	var out []string
	for _, se := range strict {
		msg := describeStrict(se)
		if fe, ok := se.(interface{ FieldPath() string }); ok && strings.HasSuffix(msg, ": unknown field") {
			if hint := spellingHint(fe.FieldPath()); hint != "" {
				msg += "; " + hint
			}
		}
		if prefix != "" {
			msg = prefix + "." + msg
		}
		out = append(out, msg)
	}
	for _, tp := range types {
		out = append(out, tp.under(prefix).String())
	}
	return out
}

// spellingHint names the extension point the descheduler spells in lower
// case when a document spells it otherwise.
func spellingHint(path string) string {
	i := strings.LastIndex(path, ".")
	key := path[i+1:]
	for _, k := range []string{"presort", "sort", "deschedule", "balance", "filter", "preevictionfilter"} {
		if strings.EqualFold(key, k) && key != k {
			return "the descheduler spells it " + k
		}
	}
	return ""
}
