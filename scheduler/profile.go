package scheduler

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	configv1 "k8s.io/kube-scheduler/config/v1"
	"k8s.io/utils/ptr"
)

// DefaultSchedulerName is the profile name pods get when they name no
// scheduler.
const DefaultSchedulerName = corev1.DefaultSchedulerName

// Profile is one scheduling profile of a KubeSchedulerConfiguration: a
// scheduler name, the plugins as the file sets them (merged with
// kube-scheduler's defaults when the engine is built) and the arguments of
// the plugins the engine simulates, defaulted.
type Profile struct {
	SchedulerName string
	// PercentageOfNodesToScore bounds how many feasible nodes are found and
	// scored, as in kube-scheduler; nil is its adaptive default (see
	// docs/scheduler.md).
	PercentageOfNodesToScore *int32
	// Plugins is the profile's plugins section as written; nil means
	// kube-scheduler's default plugins.
	Plugins *configv1.Plugins

	NodeResourcesFit                configv1.NodeResourcesFitArgs
	NodeResourcesBalancedAllocation configv1.NodeResourcesBalancedAllocationArgs
	PodTopologySpread               configv1.PodTopologySpreadArgs
	InterPodAffinity                configv1.InterPodAffinityArgs
	NodeAffinity                    configv1.NodeAffinityArgs
}

// ScorePlugin is a score plugin with its weight.
type ScorePlugin struct {
	Name   string `json:"name"`
	Weight int32  `json:"weight"`
}

// EnabledPlugins is what a profile runs, after kube-scheduler's rules for
// merging a profile's plugins with the defaults and expanding multiPoint.
type EnabledPlugins struct {
	// Filter lists the filter plugins in the order they run.
	Filter []string
	// Score lists the score plugins in order with their weights.
	Score []ScorePlugin
	// NotSimulated lists the enabled plugins the engine accepts but does not
	// run (volume, DRA, preemption, binding, queueing plugins), sorted as
	// the profile lists them.
	NotSimulated []string
}

// DefaultProfile returns kube-scheduler's default profile: the default
// plugins and weights and the default arguments.
func DefaultProfile() Profile {
	p := Profile{SchedulerName: DefaultSchedulerName}
	p.setDefaults()
	return p
}

// setDefaults fills in the arguments kube-scheduler's defaulting fills in.
func (p *Profile) setDefaults() {
	fit := &p.NodeResourcesFit
	if fit.ScoringStrategy == nil {
		fit.ScoringStrategy = &configv1.ScoringStrategy{Type: configv1.LeastAllocated}
	}
	if fit.ScoringStrategy.Type == "" {
		fit.ScoringStrategy.Type = configv1.LeastAllocated
	}
	fit.ScoringStrategy.Resources = defaultResources(fit.ScoringStrategy.Resources)
	p.NodeResourcesBalancedAllocation.Resources = defaultResources(p.NodeResourcesBalancedAllocation.Resources)
	if p.PodTopologySpread.DefaultingType == "" {
		p.PodTopologySpread.DefaultingType = configv1.SystemDefaulting
	}
	if p.InterPodAffinity.HardPodAffinityWeight == nil {
		p.InterPodAffinity.HardPodAffinityWeight = ptr.To[int32](1)
	}
}

// defaultResources gives CPU and memory with weight 1 when no resource is
// listed, and weight 1 to a listed resource without one.
func defaultResources(rs []configv1.ResourceSpec) []configv1.ResourceSpec {
	if len(rs) == 0 {
		return []configv1.ResourceSpec{{Name: string(corev1.ResourceCPU), Weight: 1}, {Name: string(corev1.ResourceMemory), Weight: 1}}
	}
	out := make([]configv1.ResourceSpec, len(rs))
	for i, r := range rs {
		if r.Weight == 0 {
			r.Weight = 1
		}
		out[i] = r
	}
	return out
}

// EnabledPlugins resolves the profile's plugins the way kube-scheduler
// does: the file's multiPoint set is merged into the default one (disabled
// names and "*" remove defaults, an enabled default is reconfigured in
// place), then each extension point takes the multiPoint plugins that
// implement it, minus its own disabled ones, with its own enabled plugins
// overriding them; a score weight set at the score point wins over the
// multiPoint one, and a missing weight is 1.
func (p Profile) EnabledPlugins() (EnabledPlugins, error) {
	return resolvePlugins(p.Plugins, "plugins")
}

func resolvePlugins(custom *configv1.Plugins, path string) (EnabledPlugins, error) {
	var c configv1.Plugins
	if custom != nil {
		c = *custom
	}
	if err := checkPluginNames(&c, path); err != nil {
		return EnabledPlugins{}, err
	}
	multi := mergeMultiPoint(defaultMultiPoint(), c.MultiPoint)

	var out EnabledPlugins
	filters, err := expandPoint(multi, c.Filter, pointFilter, path+".filter")
	if err != nil {
		return EnabledPlugins{}, err
	}
	for _, pl := range filters {
		out.Filter = append(out.Filter, pl.Name)
	}
	scores, err := expandPoint(multi, c.Score, pointScore, path+".score")
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
		out.Score = append(out.Score, ScorePlugin{Name: pl.Name, Weight: weights[pl.Name]})
	}

	// Every enabled plugin the engine does not simulate, once, in the
	// order the profile enables it.
	seen := make(map[string]bool)
	note := func(name string) {
		if !seen[name] && !knownPlugins[name].simulated {
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
	point extensionPoint
	set   configv1.PluginSet
}

func pointSets(c *configv1.Plugins) []namedSet {
	return []namedSet{
		{"preEnqueue", pointPreEnqueue, c.PreEnqueue},
		{"queueSort", pointQueueSort, c.QueueSort},
		{"preFilter", pointPreFilter, c.PreFilter},
		{"filter", pointFilter, c.Filter},
		{"postFilter", pointPostFilter, c.PostFilter},
		{"preScore", pointPreScore, c.PreScore},
		{"score", pointScore, c.Score},
		{"reserve", pointReserve, c.Reserve},
		{"permit", pointPermit, c.Permit},
		{"preBind", pointPreBind, c.PreBind},
		{"bind", pointBind, c.Bind},
		{"postBind", pointPostBind, c.PostBind},
		{"placementGenerate", pointPlacementGenerate, c.PlacementGenerate},
		{"placementScore", pointPlacementScore, c.PlacementScore},
	}
}

// checkPluginNames rejects unknown plugins, a plugin enabled at a point it
// does not implement and a plugin enabled twice in one set, naming the
// field.
func checkPluginNames(c *configv1.Plugins, path string) error {
	sets := append([]namedSet{{"multiPoint", 0, c.MultiPoint}}, pointSets(c)...)
	for _, s := range sets {
		seen := make(map[string]bool)
		for i, pl := range s.set.Enabled {
			at := fmt.Sprintf("%s.%s.enabled[%d].name", path, s.name, i)
			info, ok := knownPlugins[pl.Name]
			if !ok {
				return fmt.Errorf("%s: %q is not a known plugin", at, pl.Name)
			}
			if s.point != 0 && info.points&s.point == 0 {
				return fmt.Errorf("%s: %q does not extend %s", at, pl.Name, s.name)
			}
			if seen[pl.Name] {
				return fmt.Errorf("%s: %q is enabled twice", at, pl.Name)
			}
			seen[pl.Name] = true
			if pl.Weight != nil && (*pl.Weight < 0 || *pl.Weight > 100) && (s.point == pointScore || s.point == 0) {
				return fmt.Errorf("%s.%s.enabled[%d].weight: %d is not in [0, 100]", path, s.name, i, *pl.Weight)
			}
		}
		for i, pl := range s.set.Disabled {
			if _, ok := knownPlugins[pl.Name]; !ok && pl.Name != "*" {
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
func expandPoint(multi []configv1.Plugin, set configv1.PluginSet, point extensionPoint, path string) ([]configv1.Plugin, error) {
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
		if knownPlugins[pl.Name].points&point == 0 || disabled[pl.Name] {
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
