package policy

import (
	"bufio"
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation/field"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/klog/v2"
	"sigs.k8s.io/yaml"

	"github.com/kube-rebalancer/rebalancer/internal/inputfile"
)

// Replacements is how the replacements of evicted pods find their nodes.
type Replacements string

const (
	// ReplacementsSteered: the rebalancer scheduler (pods opt in with
	// spec.schedulerName) or a scheduler extender places each replacement
	// on the node the plan chose, never on the node its pod left.
	ReplacementsSteered Replacements = "steered"
	// ReplacementsPredicted: the pods' own scheduler places the
	// replacements as it sees fit, the node the pod left included. The plan
	// predicts its choice and leaves out a move whose replacement would
	// land back where it was, or where the strategy would not want it.
	ReplacementsPredicted Replacements = "predicted"
)

// DefaultCooldown is how long a workload is left alone after an eviction
// when the policy does not say: two or three CronJob periods.
const DefaultCooldown = 5 * time.Minute

// MaxGracePeriodSeconds bounds gracePeriodSeconds: a day.
const MaxGracePeriodSeconds = 24 * 60 * 60

//go:embed default.yaml
var defaultPolicy []byte

// DefaultYAML returns the policy used when none is given.
func DefaultYAML() []byte { return defaultPolicy }

// Default returns the policy used when none is given.
func Default() *Policy {
	p, err := Load(defaultPolicy, "default policy")
	if err != nil {
		panic(fmt.Sprintf("the embedded default policy is invalid: %v", err))
	}
	return p
}

// MaxFileSize bounds a policy file: far above any real policy, which is a
// few KiB, and far below what would take the time and memory of a run.
const MaxFileSize = inputfile.MiB

// ReadFile reads a policy file, a regular file of at most MaxFileSize.
func ReadFile(path string) ([]byte, error) {
	return inputfile.Read(path, MaxFileSize)
}

// LoadFile reads and loads a policy file; errors name the file as given.
func LoadFile(path string) (*Policy, error) {
	data, err := ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Load(data, path)
}

// Load decodes a policy strictly, fills in defaults and validates it. The
// error, when there is one, is an *Error listing every problem. A
// descheduler policy (descheduler/v1alpha1 or v1alpha2) is loaded as the
// RebalancePolicy Convert makes of it, its problems named by its own paths.
func Load(data []byte, file string) (*Policy, error) {
	p, _, err := load(data, file)
	return p, err
}

func load(data []byte, file string) (*Policy, *Converted, error) {
	// A second document would otherwise be dropped without a word, and an
	// empty file would read as a policy that moves nothing.
	switch docs := documents(data); {
	case docs == 0:
		return nil, nil, &Error{File: file, Problems: []string{"the file holds no policy (it is empty, or only comments): " +
			"a RebalancePolicy (apiVersion: rebalancer.dev/v1alpha1) is expected; examples/policy.yaml shows one"}}
	case docs > 1:
		return nil, nil, &Error{File: file, Problems: []string{fmt.Sprintf("the file holds %d YAML documents: a policy file holds one RebalancePolicy", docs)}}
	}
	j, err := yaml.YAMLToJSONStrict(data)
	if err != nil {
		return nil, nil, &Error{File: file, Problems: []string{yamlProblem(data, err)}}
	}
	if untyped(j) {
		return nil, nil, &Error{File: file, Problems: []string{"the file is not a policy: it has neither apiVersion nor kind " +
			"(a RebalancePolicy, apiVersion: rebalancer.dev/v1alpha1, is expected; examples/policy.yaml shows one)"}}
	}
	var t *translation
	switch v := apiVersionOf(data); v {
	case DeschedulerV1alpha2:
		t = translateV1alpha2(j)
	case DeschedulerV1alpha1:
		t = translateV1alpha1(j)
	}
	if t == nil {
		p, err := loadJSON(j, file)
		return p, nil, err
	}
	// What the translation dropped as wrong is left out of the document;
	// the rest is checked too, so that every problem is reported at once.
	problems := append(t.problems, newError(file, t.errs).Problems...)
	j, err = json.Marshal(t.doc)
	if err != nil {
		return nil, nil, &Error{File: file, Problems: []string{err.Error()}}
	}
	p, err := loadJSON(j, file)
	if e, ok := err.(*Error); ok {
		for _, pr := range e.Problems {
			problems = append(problems, t.rewrite(pr))
		}
	}
	if len(problems) > 0 {
		sort.Strings(problems)
		return nil, nil, &Error{File: file, Problems: slices.Compact(problems)}
	}
	if err != nil {
		return nil, nil, err
	}
	sort.SliceStable(t.notes, func(a, b int) bool { return t.notes[a].Path < t.notes[b].Path })
	return p, &Converted{Notes: t.notes, From: apiVersionOf(data)}, nil
}

// loadJSON loads a RebalancePolicy document given as JSON.
func loadJSON(j []byte, file string) (*Policy, error) {
	var doc RebalancePolicy
	strict, types, err := decodeAll(j, &doc)
	if err != nil {
		return nil, &Error{File: file, Problems: []string{describeTypeError(err.Error())}}
	}
	if len(types) > 0 && types[0].path == "" {
		return nil, &Error{File: file, Problems: []string{types[0].String()}}
	}
	types = append(types, doc.Strategies.decoding.typesAt("strategies")...)
	for i := range doc.Overrides {
		types = append(types, doc.Overrides[i].Strategies.decoding.typesAt(fmt.Sprintf("overrides[%d].strategies", i))...)
	}
	strict = append(strict, doc.strategiesStrictErrors()...)
	problems := newError(file, nil)
	for _, se := range strict {
		problems.Problems = append(problems.Problems, describeStrict(se))
	}
	for _, t := range types {
		problems.Problems = append(problems.Problems, t.String())
	}
	// The decoder reports unknown fields in no useful order; by path, the
	// problems read in the order of the file's keys.
	sort.Strings(problems.Problems)

	p := &Policy{File: file, source: j}
	errs := withoutDropped(p.build(doc), types)
	problems.Problems = append(problems.Problems, newError(file, errs).Problems...)
	if len(problems.Problems) > 0 {
		return nil, problems
	}
	for _, d := range p.Deprecations() {
		klog.Warningf("%s: %s", file, d)
	}
	return p, nil
}

// withoutDropped leaves out the errors of values decodeAll dropped for
// their type: a dropped value is unset, which validation may call missing.
func withoutDropped(errs field.ErrorList, types []typeProblem) field.ErrorList {
	var out field.ErrorList
	for _, e := range errs {
		dropped := false
		for _, t := range types {
			if e.Field == t.path || strings.HasPrefix(e.Field, t.path+".") || strings.HasPrefix(e.Field, t.path+"[") {
				dropped = true
				break
			}
		}
		if !dropped {
			out = append(out, e)
		}
	}
	return out
}

// strategiesStrictErrors returns the unknown strategies and arguments,
// with their paths in the document.
func (p *RebalancePolicy) strategiesStrictErrors() []error {
	errs := p.Strategies.decoding.strictAt("strategies")
	for i := range p.Overrides {
		errs = append(errs, p.Overrides[i].Strategies.decoding.strictAt(fmt.Sprintf("overrides[%d].strategies", i))...)
	}
	return errs
}

// describeStrict formats an unknown or duplicate field found while decoding.
func describeStrict(err error) string {
	fe, ok := err.(interface{ FieldPath() string })
	if !ok {
		return err.Error()
	}
	msg := err.Error()
	switch {
	case strings.HasPrefix(msg, "unknown strategy"):
		return fe.FieldPath() + ": " + msg
	case strings.HasPrefix(msg, "unknown field"):
		return fe.FieldPath() + ": unknown field"
	case strings.HasPrefix(msg, "duplicate field"):
		return fe.FieldPath() + ": is set twice"
	}
	return msg
}

// build defaults and validates doc and resolves its overrides into p.
func (p *Policy) build(doc RebalancePolicy) field.ErrorList {
	// Overrides overlay what the user wrote, so they are merged before the
	// global settings are defaulted: a default must not look like a choice.
	written := doc.settings()
	if doc.Cooldown == nil {
		doc.Cooldown = &metav1.Duration{Duration: DefaultCooldown}
	}
	if doc.Replacements == "" {
		doc.Replacements = ReplacementsSteered
	}
	if doc.ImplicitBudgets == nil {
		on := true
		doc.ImplicitBudgets = &on
	}
	doc.Evictable.defaults()
	for _, n := range doc.Strategies.List() {
		n.Args.Default()
	}
	errs := doc.validate()
	var cerrs field.ErrorList
	p.nodeSelector, cerrs = compileSelector(doc.NodeSelector, field.NewPath("nodeSelector"))
	p.RebalancePolicy = doc
	p.windows, _ = compileWindows(doc.DisruptionWindows, field.NewPath("disruptionWindows"))
	p.global = doc.settings()
	cerrs = append(cerrs, p.global.compile(nil)...)
	if len(errs) == 0 {
		// Validation already explains any selector that does not compile.
		errs = cerrs
	}

	for i := range doc.Overrides {
		path := field.NewPath("overrides").Index(i)
		o, oerrs := resolveOverride(&doc.Overrides[i], written, path)
		errs = append(errs, withoutRepeats(oerrs, errs, path)...)
		p.overrides = append(p.overrides, o)
	}
	return errs
}

// withoutRepeats drops the errors of an override that only repeat, under the
// override's path, an error already reported for the global settings it
// inherits.
func withoutRepeats(errs, global field.ErrorList, prefix *field.Path) field.ErrorList {
	seen := make(map[string]bool, len(global))
	for _, g := range global {
		seen[describe(g)] = true
	}
	var out field.ErrorList
	for _, e := range errs {
		inherited := *e
		inherited.Field = strings.TrimPrefix(e.Field, prefix.String()+".")
		if !seen[describe(&inherited)] {
			out = append(out, e)
		}
	}
	return out
}

// Policy is a loaded, defaulted and valid RebalancePolicy.
type Policy struct {
	// RebalancePolicy is the document with its defaults filled in.
	RebalancePolicy
	// File is where the policy came from, for messages.
	File string
	// source is the RebalancePolicy document as JSON, before defaults.
	source []byte

	nodeSelector labels.Selector
	global       Settings
	overrides    []override
	windows      []window
}

type override struct {
	names    []string
	selector labels.Selector
	settings Settings
}

// SelectsNode reports whether the policy's nodeSelector selects a node with
// these labels.
func (p *Policy) SelectsNode(nodeLabels map[string]string) bool {
	return p.nodeSelector == nil || p.nodeSelector.Matches(labels.Set(nodeLabels))
}

// AllowsNamespace reports whether the policy's namespaces setting lets
// rebalancer evict pods of the namespace.
func (p *Policy) AllowsNamespace(namespace string) bool {
	return p.Namespaces.Allows(namespace)
}

// Global returns the settings of pods that no override matches.
func (p *Policy) Global() *Settings { return &p.global }

// For returns the settings of the pods of a namespace: those of the first
// override that matches it, else the global ones.
func (p *Policy) For(namespace string, namespaceLabels map[string]string) *Settings {
	for i := range p.overrides {
		o := &p.overrides[i]
		if contains(o.names, namespace) || (o.selector != nil && o.selector.Matches(labels.Set(namespaceLabels))) {
			return &o.settings
		}
	}
	return &p.global
}

// Enabled returns the names of the strategies enabled for some pods, globally
// or by an override, in the order they run.
func (p *Policy) Enabled() []string {
	on := make(map[string]bool)
	for _, s := range p.allSettings() {
		for _, n := range s.Strategies.List() {
			if n.Args.CommonArgs().IsEnabled() {
				on[n.Name] = true
			}
		}
	}
	var names []string
	for _, name := range Order() {
		if on[name] {
			names = append(names, name)
		}
	}
	return names
}

// ArgsOf returns the arguments of the strategy wherever it is enabled: in
// the global settings and in each override, in that order.
func (p *Policy) ArgsOf(name string) []StrategyArgs {
	var out []StrategyArgs
	for _, s := range p.allSettings() {
		if a := s.Args(name); a != nil {
			out = append(out, a)
		}
	}
	return out
}

func (p *Policy) allSettings() []*Settings {
	all := []*Settings{&p.global}
	for i := range p.overrides {
		all = append(all, &p.overrides[i].settings)
	}
	return all
}

// untyped reports whether j is an object with neither apiVersion nor kind:
// a file named by mistake, whose keys (a password file's lines) are not
// to be quoted back as unknown fields, in a log or a run's record.
func untyped(j []byte) bool {
	var head map[string]json.RawMessage
	if json.Unmarshal(j, &head) != nil || head == nil {
		return false
	}
	_, api := head["apiVersion"]
	_, kind := head["kind"]
	return !api && !kind
}

// documents counts the YAML documents of data that hold something: a
// document of only comments or whitespace does not count.
func documents(data []byte) int {
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	n := 0
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return n
		}
		if err != nil {
			return max(n, 1) // the decoder reports what is wrong with it
		}
		if j, err := yaml.YAMLToJSON(doc); err == nil && strings.TrimSpace(string(j)) == "null" {
			continue
		}
		n++
	}
}
