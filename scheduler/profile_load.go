package scheduler

import (
	"errors"
	"fmt"
	"os"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	configv1 "k8s.io/kube-scheduler/config/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// ReadProfiles reads the profiles of a KubeSchedulerConfiguration file.
func ReadProfiles(path string) ([]Profile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return LoadProfiles(data, path)
}

// LoadProfiles decodes a kubescheduler.config.k8s.io/v1
// KubeSchedulerConfiguration (YAML or JSON) strictly, applies
// kube-scheduler's defaults and validates it. Errors name the file and the
// field, e.g. `sched.yaml: profiles[0].plugins.score.enabled[1].name: "Foo"
// is not a known plugin`. Fields that matter only to a running
// kube-scheduler (leaderElection, clientConnection, extenders…) are
// accepted and ignored. With no data, the result is the default profile.
func LoadProfiles(data []byte, file string) ([]Profile, error) {
	profiles, err := loadProfiles(data)
	if err != nil {
		if file != "" {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		return nil, err
	}
	return profiles, nil
}

func loadProfiles(data []byte) ([]Profile, error) {
	if len(strings.TrimSpace(string(data))) == 0 {
		return []Profile{DefaultProfile()}, nil
	}
	raw, err := yaml.YAMLToJSON(data)
	if err != nil {
		return nil, err
	}
	var cfg configv1.KubeSchedulerConfiguration
	if err := decodeStrict(raw, &cfg, ""); err != nil {
		return nil, err
	}
	if want := configv1.SchemeGroupVersion.String(); cfg.APIVersion != want {
		return nil, fmt.Errorf("apiVersion: %q is not %q", cfg.APIVersion, want)
	}
	if cfg.Kind != "KubeSchedulerConfiguration" {
		return nil, fmt.Errorf("kind: %q is not \"KubeSchedulerConfiguration\"", cfg.Kind)
	}
	if err := checkPercentage("percentageOfNodesToScore", cfg.PercentageOfNodesToScore); err != nil {
		return nil, err
	}
	if len(cfg.Profiles) == 0 {
		cfg.Profiles = []configv1.KubeSchedulerProfile{{}}
	}
	if len(cfg.Profiles) == 1 && cfg.Profiles[0].SchedulerName == nil {
		cfg.Profiles[0].SchedulerName = ptr.To(DefaultSchedulerName)
	}
	var profiles []Profile
	names := make(map[string]int)
	for i := range cfg.Profiles {
		path := fmt.Sprintf("profiles[%d]", i)
		p, err := loadProfile(&cfg.Profiles[i], path)
		if err != nil {
			return nil, err
		}
		if p.PercentageOfNodesToScore == nil {
			p.PercentageOfNodesToScore = cfg.PercentageOfNodesToScore
		}
		if j, dup := names[p.SchedulerName]; dup {
			return nil, fmt.Errorf("%s.schedulerName: %q is already the name of profiles[%d]", path, p.SchedulerName, j)
		}
		names[p.SchedulerName] = i
		profiles = append(profiles, p)
	}
	return profiles, nil
}

func loadProfile(in *configv1.KubeSchedulerProfile, path string) (Profile, error) {
	p := Profile{
		SchedulerName:            ptr.Deref(in.SchedulerName, ""),
		PercentageOfNodesToScore: in.PercentageOfNodesToScore,
		Plugins:                  in.Plugins,
	}
	if p.SchedulerName == "" {
		return Profile{}, fmt.Errorf("%s.schedulerName: required", path)
	}
	if err := checkPercentage(path+".percentageOfNodesToScore", p.PercentageOfNodesToScore); err != nil {
		return Profile{}, err
	}
	if _, err := resolvePlugins(p.Plugins, path+".plugins"); err != nil {
		return Profile{}, err
	}
	seen := make(map[string]int)
	for i, pc := range in.PluginConfig {
		at := fmt.Sprintf("%s.pluginConfig[%d]", path, i)
		if j, dup := seen[pc.Name]; dup {
			return Profile{}, fmt.Errorf("%s.name: %q is already configured by pluginConfig[%d]", at, pc.Name, j)
		}
		seen[pc.Name] = i
		if _, ok := knownPlugins[pc.Name]; !ok {
			return Profile{}, fmt.Errorf("%s.name: %q is not a known plugin", at, pc.Name)
		}
		if err := p.decodeArgs(pc.Name, pc.Args.Raw, at+".args"); err != nil {
			return Profile{}, err
		}
	}
	p.setDefaults()
	for i, pc := range in.PluginConfig {
		if err := p.validateArgs(pc.Name, fmt.Sprintf("%s.pluginConfig[%d].args", path, i)); err != nil {
			return Profile{}, err
		}
	}
	return p, nil
}

// decodeArgs decodes one plugin's args strictly into its kube-scheduler
// type. Args of plugins the engine does not simulate are checked the same
// way and then dropped.
func (p *Profile) decodeArgs(plugin string, raw []byte, path string) error {
	if len(raw) == 0 {
		return nil
	}
	var target any
	kind := plugin + "Args"
	switch plugin {
	case NodeResourcesFit:
		target = &p.NodeResourcesFit
	case NodeResourcesBalancedAllocation:
		target = &p.NodeResourcesBalancedAllocation
	case PodTopologySpread:
		target = &p.PodTopologySpread
	case InterPodAffinity:
		target = &p.InterPodAffinity
	case NodeAffinity:
		target = &p.NodeAffinity
	case DefaultPreemption:
		target = &configv1.DefaultPreemptionArgs{}
	case VolumeBinding:
		target = &configv1.VolumeBindingArgs{}
	case DynamicResources:
		target = &configv1.DynamicResourcesArgs{}
	default:
		return fmt.Errorf("%s: plugin %q takes no arguments", path, plugin)
	}
	if err := decodeStrict(raw, target, path); err != nil {
		return err
	}
	var meta struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
	}
	_ = json.UnmarshalCaseSensitivePreserveInts(raw, &meta)
	if meta.Kind != "" && meta.Kind != kind {
		return fmt.Errorf("%s.kind: %q is not %q", path, meta.Kind, kind)
	}
	if meta.APIVersion != "" && meta.APIVersion != configv1.SchemeGroupVersion.String() {
		return fmt.Errorf("%s.apiVersion: %q is not %q", path, meta.APIVersion, configv1.SchemeGroupVersion.String())
	}
	return nil
}

// decodeStrict decodes JSON case-sensitively, refusing unknown and
// duplicate fields, as kube-scheduler's own loader does.
func decodeStrict(raw []byte, v any, path string) error {
	strict, err := json.UnmarshalStrict(raw, v)
	if err != nil {
		if path != "" {
			return fmt.Errorf("%s: %w", path, err)
		}
		return err
	}
	if len(strict) == 0 {
		return nil
	}
	errs := make([]error, len(strict))
	for i, e := range strict {
		var fe json.FieldError
		if errors.As(e, &fe) {
			at := fe.FieldPath()
			if path != "" {
				at = path + "." + at
			}
			reason := "unknown field"
			if strings.HasPrefix(e.Error(), "duplicate field") {
				reason = "duplicate field"
			}
			errs[i] = fmt.Errorf("%s: %s", at, reason)
			continue
		}
		errs[i] = e
	}
	return errors.Join(errs...)
}

func checkPercentage(path string, v *int32) error {
	if v != nil && (*v < 0 || *v > 100) {
		return fmt.Errorf("%s: %d is not in [0, 100]", path, *v)
	}
	return nil
}

// validateArgs applies kube-scheduler's validation to the defaulted
// arguments of one plugin the engine uses; path names the args in the file.
func (p *Profile) validateArgs(plugin, path string) error {
	var errs []error
	bad := func(field string, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s.%s: %s", path, field, fmt.Sprintf(format, args...)))
	}
	switch plugin {
	case NodeResourcesFit:
		p.validateFitArgs(bad, path, &errs)
	case NodeResourcesBalancedAllocation:
		seen := make(map[string]bool)
		for i, r := range p.NodeResourcesBalancedAllocation.Resources {
			if seen[r.Name] {
				bad(fmt.Sprintf("resources[%d].name", i), "%q is listed twice", r.Name)
			}
			seen[r.Name] = true
			if r.Weight != 1 {
				bad(fmt.Sprintf("resources[%d].weight", i), "%d is not 1", r.Weight)
			}
		}
	case PodTopologySpread:
		p.validateSpreadArgs(bad)
	case InterPodAffinity:
		if w := *p.InterPodAffinity.HardPodAffinityWeight; w < 0 || w > 100 {
			bad("hardPodAffinityWeight", "%d is not in [0, 100]", w)
		}
	case NodeAffinity:
		if added := p.NodeAffinity.AddedAffinity; added != nil {
			if ns := added.RequiredDuringSchedulingIgnoredDuringExecution; ns != nil {
				if _, err := nodeaffinity.NewNodeSelector(ns); err != nil {
					bad("addedAffinity.requiredDuringSchedulingIgnoredDuringExecution", "%v", err)
				}
			}
			if terms := added.PreferredDuringSchedulingIgnoredDuringExecution; len(terms) > 0 {
				if _, err := nodeaffinity.NewPreferredSchedulingTerms(terms); err != nil {
					bad("addedAffinity.preferredDuringSchedulingIgnoredDuringExecution", "%v", err)
				}
			}
		}
	}
	return errors.Join(errs...)
}

func (p *Profile) validateFitArgs(bad func(string, string, ...any), path string, errs *[]error) {
	fit := p.NodeResourcesFit
	for i, r := range fit.IgnoredResources {
		if msgs := validation.IsQualifiedName(r); len(msgs) > 0 {
			bad(fmt.Sprintf("ignoredResources[%d]", i), "%q is not a resource name: %s", r, strings.Join(msgs, "; "))
		}
	}
	for i, g := range fit.IgnoredResourceGroups {
		if strings.Contains(g, "/") || len(validation.IsQualifiedName(g)) > 0 {
			bad(fmt.Sprintf("ignoredResourceGroups[%d]", i), "%q is not a resource group name", g)
		}
	}
	st := fit.ScoringStrategy
	switch st.Type {
	case configv1.LeastAllocated, configv1.MostAllocated:
		if st.RequestedToCapacityRatio != nil {
			bad("scoringStrategy.requestedToCapacityRatio", "must be empty when type is %s", st.Type)
		}
	case configv1.RequestedToCapacityRatio:
		if st.RequestedToCapacityRatio == nil {
			bad("scoringStrategy.requestedToCapacityRatio", "required when type is RequestedToCapacityRatio")
		} else {
			*errs = append(*errs, checkShape(st.RequestedToCapacityRatio.Shape, path+".scoringStrategy.requestedToCapacityRatio.shape")...)
		}
	default:
		bad("scoringStrategy.type", "%q is not one of LeastAllocated, MostAllocated, RequestedToCapacityRatio", st.Type)
	}
	for i, r := range st.Resources {
		if r.Weight <= 0 || r.Weight > 100 {
			bad(fmt.Sprintf("scoringStrategy.resources[%d].weight", i), "%d is not in (0, 100]", r.Weight)
		}
	}
}

func (p *Profile) validateSpreadArgs(bad func(string, string, ...any)) {
	spread := p.PodTopologySpread
	switch spread.DefaultingType {
	case configv1.SystemDefaulting:
		if len(spread.DefaultConstraints) > 0 {
			bad("defaultingType", "System does not allow defaultConstraints")
		}
	case configv1.ListDefaulting:
	default:
		bad("defaultingType", "%q is not System or List", spread.DefaultingType)
	}
	for i, c := range spread.DefaultConstraints {
		at := fmt.Sprintf("defaultConstraints[%d]", i)
		if c.MaxSkew <= 0 {
			bad(at+".maxSkew", "%d is not above 0", c.MaxSkew)
		}
		if c.TopologyKey == "" {
			bad(at+".topologyKey", "required")
		} else if msgs := validation.IsQualifiedName(c.TopologyKey); len(msgs) > 0 {
			bad(at+".topologyKey", "%q is not a label name: %s", c.TopologyKey, strings.Join(msgs, "; "))
		}
		if c.WhenUnsatisfiable != corev1.DoNotSchedule && c.WhenUnsatisfiable != corev1.ScheduleAnyway {
			bad(at+".whenUnsatisfiable", "%q is not DoNotSchedule or ScheduleAnyway", c.WhenUnsatisfiable)
		}
		if c.LabelSelector != nil {
			bad(at+".labelSelector", "must be empty: the selector is deduced for each pod")
		}
		for j := range i {
			if o := spread.DefaultConstraints[j]; o.TopologyKey == c.TopologyKey && o.WhenUnsatisfiable == c.WhenUnsatisfiable {
				bad(at, "repeats {%s, %s} of defaultConstraints[%d]", c.TopologyKey, c.WhenUnsatisfiable, j)
			}
		}
	}
}

// checkShape validates a RequestedToCapacityRatio shape: utilization
// increasing within [0, 100], scores within [0, 10].
func checkShape(shape []configv1.UtilizationShapePoint, path string) []error {
	if len(shape) == 0 {
		return []error{fmt.Errorf("%s: at least one point is required", path)}
	}
	var errs []error
	for i, pt := range shape {
		if i > 0 && shape[i-1].Utilization >= pt.Utilization {
			errs = append(errs, fmt.Errorf("%s[%d].utilization: %d is not above the previous point's %d", path, i, pt.Utilization, shape[i-1].Utilization))
		}
		if pt.Utilization < 0 || pt.Utilization > 100 {
			errs = append(errs, fmt.Errorf("%s[%d].utilization: %d is not in [0, 100]", path, i, pt.Utilization))
		}
		if pt.Score < 0 || pt.Score > maxCustomScore {
			errs = append(errs, fmt.Errorf("%s[%d].score: %d is not in [0, %d]", path, i, pt.Score, maxCustomScore))
		}
	}
	return errs
}

// ProfileByName returns the profile with the given scheduler name; an empty
// name means the default scheduler, as for a pod without spec.schedulerName.
func ProfileByName(profiles []Profile, schedulerName string) (Profile, bool) {
	if schedulerName == "" {
		schedulerName = DefaultSchedulerName
	}
	for _, p := range profiles {
		if p.SchedulerName == schedulerName {
			return p, true
		}
	}
	return Profile{}, false
}
