package framework

import (
	"errors"
	"fmt"

	configv1 "k8s.io/kube-scheduler/config/v1"
	"sigs.k8s.io/json"
)

// ExtensionPoint is one stage of the scheduling framework, as a bit so that
// a plugin's stages form a set.
type ExtensionPoint uint16

// The extension points of kube-scheduler 1.36, as a profile's plugins
// section names them. The engine runs PreFilter and Filter (FilterPlugin),
// PreScore and Score (ScorePlugin); the others only decide where a profile
// may enable a plugin.
const (
	PointPreEnqueue ExtensionPoint = 1 << iota
	PointQueueSort
	PointPreFilter
	PointFilter
	PointPostFilter
	PointPreScore
	PointScore
	PointReserve
	PointPermit
	PointPreBind
	PointBind
	PointPostBind
	PointPlacementGenerate
	PointPlacementScore
)

// PluginFactory builds a plugin for one engine. args is what the plugin's
// Registration.Args returned for its pluginConfig, or, when Args is nil,
// the raw JSON of its pluginConfig args (nil when the profile has none),
// for the plugin to decode strictly.
type PluginFactory func(args any, h Handle) (Plugin, error)

// Registration is what the engine knows of a plugin.
type Registration struct {
	// Points are the extension points a profile may enable the plugin at;
	// the plugin implements FilterPlugin when Points has PointFilter and
	// ScorePlugin when it has PointScore.
	Points ExtensionPoint
	// Args decodes the raw JSON of the plugin's pluginConfig args (nil when
	// the profile has none) strictly, applies defaults and validates them;
	// errors name fields under path. Nil hands the raw JSON to New.
	Args func(raw []byte, path string) (any, error)
	// New builds the plugin. Nil marks a plugin that is known, so that
	// profiles naming it load, but not simulated: every node passes it.
	New PluginFactory
}

// Registry maps plugin names to their registrations. The engine's
// New and LoadProfiles take out-of-tree registries, merged with the
// in-tree one, as kube-scheduler's app.WithPlugin does.
type Registry map[string]Registration

// ErrNoArgs is NoArgs' error for arguments given to a plugin that takes
// none; the engine words it with the plugin's name and path.
var ErrNoArgs = errors.New("plugin takes no arguments")

// NoArgs is the Args of a plugin that takes none.
func NoArgs(raw []byte, _ string) (any, error) {
	if len(raw) != 0 {
		return nil, ErrNoArgs
	}
	return nil, nil
}

// TypedArgs returns the Args of a plugin whose arguments are
// kube-scheduler's <kind> type T: decoded strictly, with kind and
// apiVersion checked when given, then defaulted and validated. validate
// reports each bad field through bad.
func TypedArgs[T any](kind string, setDefaults func(*T), validate func(a *T, path string, bad func(field, format string, args ...any))) func([]byte, string) (any, error) {
	return func(raw []byte, path string) (any, error) {
		a := new(T)
		if len(raw) != 0 {
			if err := DecodeStrict(raw, a, path); err != nil {
				return nil, err
			}
			var meta struct {
				APIVersion string `json:"apiVersion"`
				Kind       string `json:"kind"`
			}
			_ = json.UnmarshalCaseSensitivePreserveInts(raw, &meta)
			if meta.Kind != "" && meta.Kind != kind {
				return nil, fmt.Errorf("%s.kind: %q is not %q", path, meta.Kind, kind)
			}
			if want := configv1.SchemeGroupVersion.String(); meta.APIVersion != "" && meta.APIVersion != want {
				return nil, fmt.Errorf("%s.apiVersion: %q is not %q", path, meta.APIVersion, want)
			}
		}
		if setDefaults != nil {
			setDefaults(a)
		}
		if validate != nil {
			var errs []error
			validate(a, path, func(field, format string, args ...any) {
				errs = append(errs, fmt.Errorf("%s.%s: %s", path, field, fmt.Sprintf(format, args...)))
			})
			if err := errors.Join(errs...); err != nil {
				return nil, err
			}
		}
		return a, nil
	}
}

// UnusedArgs checks the args of a plugin the engine does not simulate the
// way kube-scheduler decodes them, and then drops them.
func UnusedArgs[T any](name string) func([]byte, string) (any, error) {
	return TypedArgs[T](name+"Args", nil, nil)
}
