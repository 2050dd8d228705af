// Package profile reads scheduling profiles from a KubeSchedulerConfiguration
// as kube-scheduler does (strict decoding, its defaults and validation, the
// extenders, the backoff) and resolves which plugins a profile runs at each
// extension point, merged with kube-scheduler's default profile. It knows
// the plugins through their registrations (the in-tree table and the
// out-of-tree registries a program passes), never the engine.
package profile

import (
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	configv1 "k8s.io/kube-scheduler/config/v1"
	"k8s.io/utils/ptr"

	"github.com/kube-rebalancer/rebalancer/scheduler/framework"
)

// DefaultSchedulerName is the profile name pods get when they name no
// scheduler.
const DefaultSchedulerName = corev1.DefaultSchedulerName

// Profile is one scheduling profile of a KubeSchedulerConfiguration: a
// scheduler name, the plugins as the file sets them (merged with
// kube-scheduler's defaults when the engine is built) and the plugins'
// arguments as the file gives them, which each plugin's Registration.Args
// decodes, defaults and validates.
type Profile struct {
	SchedulerName string
	// PercentageOfNodesToScore bounds how many feasible nodes are found and
	// scored, as in kube-scheduler; nil is its adaptive default (see
	// docs/scheduler.md).
	PercentageOfNodesToScore *int32
	// Backoff is the configuration's podInitialBackoffSeconds and
	// podMaxBackoffSeconds, which a live scheduler waits before trying a
	// failed pod again; zero for kube-scheduler's defaults.
	Backoff Backoff
	// Plugins is the profile's plugins section as written; nil means
	// kube-scheduler's default plugins.
	Plugins *configv1.Plugins
	// PluginConfig is the profile's pluginConfig section: each plugin's
	// arguments as JSON, at most one entry a plugin.
	PluginConfig []configv1.PluginConfig
	// Extenders are the configuration's extenders, defaulted and validated:
	// the same for every profile of a file.
	Extenders []configv1.Extender
}

// SetArgs sets the arguments of plugin name to args (a kube-scheduler args
// type, or anything an out-of-tree plugin decodes), replacing those the
// profile had.
func (p *Profile) SetArgs(name string, args any) error {
	raw, err := json.Marshal(args)
	if err != nil {
		return fmt.Errorf("%s args: %w", name, err)
	}
	out := make([]configv1.PluginConfig, 0, len(p.PluginConfig)+1)
	for _, pc := range p.PluginConfig {
		if pc.Name != name {
			out = append(out, pc)
		}
	}
	p.PluginConfig = append(out, configv1.PluginConfig{Name: name, Args: runtime.RawExtension{Raw: raw}})
	return nil
}

// RawArgs returns the JSON arguments the profile gives plugin name, or nil.
func (p *Profile) RawArgs(name string) []byte {
	for _, pc := range p.PluginConfig {
		if pc.Name == name {
			return pc.Args.Raw
		}
	}
	return nil
}

// WeightedPlugin is a score plugin with its weight.
type WeightedPlugin struct {
	Name   string `json:"name"`
	Weight int32  `json:"weight"`
}

// EnabledPlugins is what a profile runs, after kube-scheduler's rules for
// merging a profile's plugins with the defaults and expanding multiPoint.
type EnabledPlugins struct {
	// Filter lists the filter plugins in the order they run.
	Filter []string
	// Score lists the score plugins in order with their weights.
	Score []WeightedPlugin
	// PostFilter and Permit list the plugins of those points in the order
	// they run; the engine runs those with a factory (out-of-tree ones).
	PostFilter, Permit []string
	// NotSimulated lists the enabled plugins the engine accepts but does not
	// run (volume, DRA, preemption, binding, queueing plugins), sorted as
	// the profile lists them.
	NotSimulated []string
}

// DefaultProfile returns kube-scheduler's default profile: the default
// plugins and weights and the default arguments.
func DefaultProfile() Profile {
	return Profile{SchedulerName: DefaultSchedulerName}
}

// EnabledPlugins resolves the profile's plugins the way kube-scheduler
// does: the file's multiPoint set is merged into the default one (disabled
// names and "*" remove defaults, an enabled default is reconfigured in
// place), then each extension point takes the multiPoint plugins that
// implement it, minus its own disabled ones, with its own enabled plugins
// overriding them; a score weight set at the score point wins over the
// multiPoint one, and a missing weight is 1.
// Only in-tree plugins are known here; Engine.EnabledPlugins knows the
// engine's out-of-tree ones too.
func (p Profile) EnabledPlugins() (EnabledPlugins, error) {
	reg, _ := MergeRegistries(nil)
	return Resolve(p.Plugins, "plugins", reg)
}

func Resolve(custom *configv1.Plugins, path string, reg framework.Registry) (EnabledPlugins, error) {
	var c configv1.Plugins
	if custom != nil {
		c = *custom
	}
	if err := checkPluginNames(&c, path, reg); err != nil {
		return EnabledPlugins{}, err
	}
	multi := mergeMultiPoint(defaultMultiPoint(), c.MultiPoint)

	var out EnabledPlugins
	filters, err := expandPoint(multi, c.Filter, framework.PointFilter, path+".filter", reg)
	if err != nil {
		return EnabledPlugins{}, err
	}
	for _, pl := range filters {
		out.Filter = append(out.Filter, pl.Name)
	}
	scores, err := expandPoint(multi, c.Score, framework.PointScore, path+".score", reg)
	if err != nil {
		return EnabledPlugins{}, err
	}
	weights := make(map[string]int32)
	for _, pl := range append(append([]configv1.Plugin(nil), c.Score.Enabled...), multi...) {
		if _, seen := weights[pl.Name]; seen {
			continue
		}
		w := ptr.Deref(pl.Weight, 0)
		if w == 0 {
			w = 1
		}
		weights[pl.Name] = w
	}
	for _, pl := range scores {
		if w := weights[pl.Name]; w < 0 {
			return EnabledPlugins{}, fmt.Errorf("%s: score plugin %q has negative weight %d", path+".score", pl.Name, w)
		}
		out.Score = append(out.Score, WeightedPlugin{Name: pl.Name, Weight: weights[pl.Name]})
	}

	for _, point := range []struct {
		set   configv1.PluginSet
		point framework.ExtensionPoint
		name  string
		out   *[]string
	}{{c.PostFilter, framework.PointPostFilter, "postFilter", &out.PostFilter}, {c.Permit, framework.PointPermit, "permit", &out.Permit}} {
		pls, err := expandPoint(multi, point.set, point.point, path+"."+point.name, reg)
		if err != nil {
			return EnabledPlugins{}, err
		}
		for _, pl := range pls {
			*point.out = append(*point.out, pl.Name)
		}
	}

	// Every enabled plugin the engine does not simulate, once, in the
	// order the profile enables it.
	seen := make(map[string]bool)
	note := func(name string) {
		if !seen[name] && reg[name].New == nil {
			seen[name] = true
			out.NotSimulated = append(out.NotSimulated, name)
		}
	}
	for _, pl := range multi {
		note(pl.Name)
	}
	for _, set := range pointSets(&c) {
		for _, pl := range set.set.Enabled {
			note(pl.Name)
		}
	}
	return out, nil
}

// namedSet is one extension point's plugin set with its name in a profile.
type namedSet struct {
	name  string
	point framework.ExtensionPoint
	set   configv1.PluginSet
}

func pointSets(c *configv1.Plugins) []namedSet {
	return []namedSet{
		{"preEnqueue", framework.PointPreEnqueue, c.PreEnqueue},
		{"queueSort", framework.PointQueueSort, c.QueueSort},
		{"preFilter", framework.PointPreFilter, c.PreFilter},
		{"filter", framework.PointFilter, c.Filter},
		{"postFilter", framework.PointPostFilter, c.PostFilter},
		{"preScore", framework.PointPreScore, c.PreScore},
		{"score", framework.PointScore, c.Score},
		{"reserve", framework.PointReserve, c.Reserve},
		{"permit", framework.PointPermit, c.Permit},
		{"preBind", framework.PointPreBind, c.PreBind},
		{"bind", framework.PointBind, c.Bind},
		{"postBind", framework.PointPostBind, c.PostBind},
		{"placementGenerate", framework.PointPlacementGenerate, c.PlacementGenerate},
		{"placementScore", framework.PointPlacementScore, c.PlacementScore},
	}
}

// checkPluginNames rejects unknown plugins, a plugin enabled at a point it
// does not implement and a plugin enabled twice in one set, naming the
// field.
func checkPluginNames(c *configv1.Plugins, path string, reg framework.Registry) error {
	sets := append([]namedSet{{"multiPoint", 0, c.MultiPoint}}, pointSets(c)...)
	for _, s := range sets {
		seen := make(map[string]bool)
		for i, pl := range s.set.Enabled {
			at := fmt.Sprintf("%s.%s.enabled[%d].name", path, s.name, i)
			info, ok := reg[pl.Name]
			if !ok {
				return fmt.Errorf("%s: %q is not a known plugin", at, pl.Name)
			}
			if s.point != 0 && info.Points&s.point == 0 {
				return fmt.Errorf("%s: %q does not extend %s", at, pl.Name, s.name)
			}
			if seen[pl.Name] {
				return fmt.Errorf("%s: %q is enabled twice", at, pl.Name)
			}
			seen[pl.Name] = true
			if pl.Weight != nil && (*pl.Weight < 0 || *pl.Weight > 100) && (s.point == framework.PointScore || s.point == 0) {
				return fmt.Errorf("%s.%s.enabled[%d].weight: %d is not in [0, 100]", path, s.name, i, *pl.Weight)
			}
		}
		for i, pl := range s.set.Disabled {
			if _, ok := reg[pl.Name]; !ok && pl.Name != "*" {
				return fmt.Errorf("%s.%s.disabled[%d].name: %q is not a known plugin", path, s.name, i, pl.Name)
			}
		}
	}
	return nil
}

// mergeMultiPoint applies a profile's multiPoint set to the default one.
func mergeMultiPoint(defaults []configv1.Plugin, custom configv1.PluginSet) []configv1.Plugin {
	disabled := make(map[string]bool)
	for _, pl := range custom.Disabled {
		disabled[pl.Name] = true
	}
	override := make(map[string]int)
	for i, pl := range custom.Enabled {
		override[pl.Name] = i
	}
	replaced := make(map[int]bool)
	var out []configv1.Plugin
	if !disabled["*"] {
		for _, pl := range defaults {
			if disabled[pl.Name] {
				continue
			}
			if i, ok := override[pl.Name]; ok {
				pl = custom.Enabled[i]
				replaced[i] = true
			}
			out = append(out, pl)
		}
	}
	for i, pl := range custom.Enabled {
		if !replaced[i] {
			out = append(out, pl)
		}
	}
	return out
}

// expandPoint returns the plugins that run at one extension point.
func expandPoint(multi []configv1.Plugin, set configv1.PluginSet, point framework.ExtensionPoint, path string, reg framework.Registry) ([]configv1.Plugin, error) {
	disabled := make(map[string]bool)
	for _, pl := range set.Disabled {
		disabled[pl.Name] = true
	}
	if disabled["*"] {
		return set.Enabled, nil
	}
	explicit := make(map[string]bool)
	for _, pl := range set.Enabled {
		explicit[pl.Name] = true
	}
	overridden := make(map[string]bool)
	var fromMulti []configv1.Plugin
	inMulti := make(map[string]bool)
	for _, pl := range multi {
		if reg[pl.Name].Points&point == 0 || disabled[pl.Name] {
			continue
		}
		if explicit[pl.Name] {
			overridden[pl.Name] = true
			continue
		}
		if inMulti[pl.Name] {
			return nil, fmt.Errorf("%s: plugin %q is enabled twice through multiPoint", path, pl.Name)
		}
		inMulti[pl.Name] = true
		fromMulti = append(fromMulti, pl)
	}
	var out []configv1.Plugin
	for _, pl := range set.Enabled {
		if overridden[pl.Name] {
			out = append(out, pl)
		}
	}
	out = append(out, fromMulti...)
	for _, pl := range set.Enabled {
		if !overridden[pl.Name] {
			out = append(out, pl)
		}
	}
	return out, nil
}

// PointPlugins returns the profile's in-tree plugins of one extension
// point in the order they run.
func (p Profile) PointPlugins(point framework.ExtensionPoint) []string {
	var c configv1.Plugins
	if p.Plugins != nil {
		c = *p.Plugins
	}
	var set namedSet
	for _, s := range pointSets(&c) {
		if s.point == point {
			set = s
		}
	}
	reg, _ := MergeRegistries(nil)
	multi := mergeMultiPoint(defaultMultiPoint(), c.MultiPoint)
	plugins, _ := expandPoint(multi, set.set, point, "plugins."+set.name, reg)
	names := make([]string, len(plugins))
	for i, pl := range plugins {
		names[i] = pl.Name
	}
	return names
}
