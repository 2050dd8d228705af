package profile

import (
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/kube-rebalancer/rebalancer/scheduler/framework"
	"github.com/kube-rebalancer/rebalancer/scheduler/plugins/noderesources"
)

// DefaultExtenderTimeout is how long an extender call may take when the
// configuration sets no httpTimeout: kube-scheduler's default.
const DefaultExtenderTimeout = 5 * time.Second

// loadExtenders defaults and validates a KubeSchedulerConfiguration's
// extenders as kube-scheduler does, with its messages and field paths.
func loadExtenders(in []configv1.Extender) ([]configv1.Extender, error) {
	if len(in) == 0 {
		return nil, nil
	}
	out := make([]configv1.Extender, len(in))
	copy(out, in)
	path := field.NewPath("extenders")
	var errs field.ErrorList
	binders := 0
	managed := make(map[string]bool)
	for i := range out {
		x := &out[i]
		at := path.Index(i)
		if x.HTTPTimeout.Duration == 0 {
			x.HTTPTimeout.Duration = DefaultExtenderTimeout
		}
		if x.PrioritizeVerb != "" && x.Weight <= 0 {
			errs = append(errs, field.Invalid(at.Child("weight"), x.Weight, "must have a positive weight applied to it"))
		}
		if x.BindVerb != "" {
			binders++
		}
		for j, r := range x.ManagedResources {
			rat := at.Child("managedResources").Index(j).Child("name")
			errs = append(errs, checkExtendedResourceName(rat, r.Name)...)
			// Names are unique across every extender, not within one.
			if managed[r.Name] {
				errs = append(errs, field.Invalid(rat, r.Name, "duplicate extender managed resource name"))
			}
			managed[r.Name] = true
		}
	}
	if binders > 1 {
		errs = append(errs, field.Invalid(path, fmt.Sprintf("found %d extenders implementing bind", binders), "only one extender can implement bind"))
	}
	if len(errs) > 0 {
		lines := make([]error, len(errs))
		for i, e := range errs {
			lines[i] = e
		}
		return nil, errors.Join(lines...)
	}
	return out, nil
}

// checkExtendedResourceName accepts a qualified name outside the
// kubernetes.io namespace, as kube-scheduler does for managedResources.
func checkExtendedResourceName(at *field.Path, name string) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range validation.IsQualifiedName(name) {
		errs = append(errs, field.Invalid(at, name, msg))
	}
	if len(errs) == 0 && !noderesources.IsExtendedResource(corev1.ResourceName(name)) {
		errs = append(errs, field.Invalid(at, name, "is an invalid extended resource name"))
	}
	return errs
}

// ignoredByExtenders returns the resources the extenders manage and mark
// ignoredByScheduler, in configuration order.
func ignoredByExtenders(exts []configv1.Extender) []string {
	var out []string
	for _, x := range exts {
		for _, r := range x.ManagedResources {
			if r.IgnoredByScheduler {
				out = append(out, r.Name)
			}
		}
	}
	return out
}

// ignoreInFit makes the profile's NodeResourcesFit skip the resources an
// extender checks instead: kube-scheduler replaces the plugin's
// ignoredResources with them in every profile.
func ignoreInFit(p *Profile, reg framework.Registry, ignored []string, path string) error {
	if len(ignored) == 0 {
		return nil
	}
	a, err := PluginArgs(reg, noderesources.FitName, p.RawArgs(noderesources.FitName), path)
	if err != nil {
		return err
	}
	args := *a.(*configv1.NodeResourcesFitArgs)
	args.IgnoredResources = append([]string(nil), ignored...)
	return p.SetArgs(noderesources.FitName, &args)
}
