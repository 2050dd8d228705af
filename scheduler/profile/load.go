package profile

import (
	stdjson "encoding/json"
	"errors"
	"fmt"
	"strings"

	configv1 "k8s.io/kube-scheduler/config/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	"github.com/kube-rebalancer/rebalancer/internal/inputfile"
	"github.com/kube-rebalancer/rebalancer/scheduler/framework"
)

// MaxConfigFileSize bounds a KubeSchedulerConfiguration file: far above
// any real one, which is a few KiB.
const MaxConfigFileSize = inputfile.MiB

// ReadProfiles reads the profiles of a KubeSchedulerConfiguration file, a
// regular file of at most MaxConfigFileSize; outOfTree registers the
// plugins it may name besides the in-tree ones.
func ReadProfiles(path string, outOfTree ...framework.Registry) ([]Profile, error) {
	data, err := inputfile.Read(path, MaxConfigFileSize)
	if err != nil {
		return nil, err
	}
	return LoadProfiles(data, path, outOfTree...)
}

// LoadProfiles decodes a kubescheduler.config.k8s.io/v1
// KubeSchedulerConfiguration (YAML or JSON) strictly, applies
// kube-scheduler's defaults and validates it. Errors name the file and the
// field, e.g. `sched.yaml: profiles[0].plugins.score.enabled[1].name: "Foo"
// is not a known plugin`; a plugin is known when it is in-tree or in one of
// the outOfTree registries. Fields that matter only to a running
// kube-scheduler (leaderElection, clientConnection…) are accepted and
// ignored. The extenders are given to every profile (Profile.Extenders);
// the engine calls them only once an edge has made them callable
// (Engine.SetExtenders). With no data, the result is the default profile.
func LoadProfiles(data []byte, file string, outOfTree ...framework.Registry) ([]Profile, error) {
	profiles, err := loadProfiles(data, outOfTree)
	if err != nil {
		return nil, linesUnder(file, err)
	}
	return profiles, nil
}

// checkType refuses a document that does not say it is a
// KubeSchedulerConfiguration before its fields are looked at: a file
// named by mistake (a password file, a key) would otherwise have each of
// its lines quoted back as an unknown field, in a log or a run's record.
func checkType(raw []byte) error {
	var head struct {
		APIVersion, Kind *string
	}
	if stdjson.Unmarshal(raw, &head) != nil {
		return nil // not an object: decodeStrict says what it is
	}
	missing := "apiVersion"
	switch {
	case head.APIVersion == nil:
	case head.Kind == nil:
		missing = "kind"
	default:
		return nil
	}
	return fmt.Errorf("%s: required: the file is no KubeSchedulerConfiguration (apiVersion: %s, kind: KubeSchedulerConfiguration)",
		missing, configv1.SchemeGroupVersion.String())
}

// linesUnder puts prefix before each line of err, each a problem of its
// own, so that every one names the file, as a policy's problems do.
func linesUnder(prefix string, err error) error {
	if prefix == "" {
		return err
	}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) == 1 {
		return fmt.Errorf("%s: %w", prefix, err)
	}
	for i, l := range lines {
		lines[i] = prefix + ": " + l
	}
	return errors.New(strings.Join(lines, "\n"))
}

func loadProfiles(data []byte, outOfTree []framework.Registry) ([]Profile, error) {
	reg, err := MergeRegistries(outOfTree)
	if err != nil {
		return nil, err
	}
	if len(strings.TrimSpace(string(data))) == 0 {
		return []Profile{DefaultProfile()}, nil
	}
	raw, err := yaml.YAMLToJSON(data)
	if err != nil {
		if !strings.HasPrefix(err.Error(), "yaml: ") {
			// A key YAML has and JSON has not (null, a list): still the
			// YAML of the file that is wrong, not a field.
			err = fmt.Errorf("yaml: %w", err)
		}
		return nil, err
	}
	if err := checkType(raw); err != nil {
		return nil, err
	}
	var cfg configv1.KubeSchedulerConfiguration
	if err := framework.DecodeStrict(raw, &cfg, ""); err != nil {
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
	backoff, err := backoffOf(&cfg)
	if err != nil {
		return nil, err
	}
	extenders, err := loadExtenders(cfg.Extenders)
	if err != nil {
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
		p, err := loadProfile(&cfg.Profiles[i], path, reg)
		if err != nil {
			return nil, err
		}
		if p.PercentageOfNodesToScore == nil {
			p.PercentageOfNodesToScore = cfg.PercentageOfNodesToScore
		}
		p.Backoff = backoff
		if j, dup := names[p.SchedulerName]; dup {
			return nil, fmt.Errorf("%s.schedulerName: %q is already the name of profiles[%d]", path, p.SchedulerName, j)
		}
		names[p.SchedulerName] = i
		// Extenders serve every profile of the scheduler, as in kube-scheduler.
		p.Extenders = extenders
		if err := ignoreInFit(&p, reg, ignoredByExtenders(extenders), path+".pluginConfig"); err != nil {
			return nil, err
		}
		profiles = append(profiles, p)
	}
	return profiles, nil
}

func loadProfile(in *configv1.KubeSchedulerProfile, path string, reg framework.Registry) (Profile, error) {
	p := Profile{
		SchedulerName:            ptr.Deref(in.SchedulerName, ""),
		PercentageOfNodesToScore: in.PercentageOfNodesToScore,
		Plugins:                  in.Plugins,
		PluginConfig:             in.PluginConfig,
	}
	if p.SchedulerName == "" {
		return Profile{}, fmt.Errorf("%s.schedulerName: required", path)
	}
	if err := checkPercentage(path+".percentageOfNodesToScore", p.PercentageOfNodesToScore); err != nil {
		return Profile{}, err
	}
	if _, err := Resolve(p.Plugins, path+".plugins", reg); err != nil {
		return Profile{}, err
	}
	seen := make(map[string]int)
	for i, pc := range in.PluginConfig {
		at := fmt.Sprintf("%s.pluginConfig[%d]", path, i)
		if j, dup := seen[pc.Name]; dup {
			return Profile{}, fmt.Errorf("%s.name: %q is already configured by pluginConfig[%d]", at, pc.Name, j)
		}
		seen[pc.Name] = i
		if _, ok := reg[pc.Name]; !ok {
			return Profile{}, fmt.Errorf("%s.name: %q is not a known plugin", at, pc.Name)
		}
		if _, err := PluginArgs(reg, pc.Name, pc.Args.Raw, at+".args"); err != nil {
			return Profile{}, err
		}
	}
	return p, nil
}

func checkPercentage(path string, v *int32) error {
	if v != nil && (*v < 0 || *v > 100) {
		return fmt.Errorf("%s: %d is not in [0, 100]", path, *v)
	}
	return nil
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
