package policy

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"
)

// The descheduler's policy documents, which Load accepts as they are: each
// is translated into the RebalancePolicy that plans the same moves, and
// that document is loaded as if the user had written it. Convert prints it.
const (
	DeschedulerV1alpha1 = "descheduler/v1alpha1"
	DeschedulerV1alpha2 = "descheduler/v1alpha2"
	DeschedulerKind     = "DeschedulerPolicy"
)

// Note says where a converted policy means something other than the
// descheduler's document would, or why a setting that is not the default
// is written out: Path is the field of the RebalancePolicy it is about.
type Note struct {
	Path string
	Text string
}

// Converted is a policy as a RebalancePolicy document.
type Converted struct {
	// Document is the RebalancePolicy as JSON, its fields in the order of
	// the type and the strategies in the order they run.
	Document []byte
	// Notes are the differences of meaning a reader of the descheduler's
	// document should know about, by path; none for a RebalancePolicy.
	Notes []Note
	// From is the apiVersion of the document that was converted.
	From string
}

// Convert returns the RebalancePolicy a policy file amounts to: a
// descheduler policy translated, or a RebalancePolicy normalized (fields
// in order, comments dropped). Either way the result is valid: the errors
// are those Load reports.
func Convert(data []byte, file string) (*Converted, error) {
	p, conv, err := load(data, file)
	if err != nil {
		return nil, err
	}
	if conv == nil {
		conv = &Converted{From: APIVersion}
	}
	// The document as written, without the defaults Load filled in.
	var doc RebalancePolicy
	if err := json.Unmarshal(p.source, &doc); err != nil {
		return nil, &Error{File: file, Problems: []string{err.Error()}}
	}
	out, err := json.Marshal(doc)
	if err != nil {
		return nil, &Error{File: file, Problems: []string{err.Error()}}
	}
	conv.Document = out
	return conv, nil
}

// apiVersionOf reads the apiVersion of a document, "" when it has none or
// is not an object.
func apiVersionOf(data []byte) string {
	var head struct {
		APIVersion string `json:"apiVersion"`
	}
	if j, err := yaml.YAMLToJSON(data); err == nil {
		_ = json.Unmarshal(j, &head)
	}
	return head.APIVersion
}

// translation is a descheduler policy on its way to a RebalancePolicy.
type translation struct {
	doc map[string]any
	// origins maps a path of the RebalancePolicy to the path in the
	// descheduler's document it came from, so that errors name the field
	// the user wrote.
	origins map[string]string
	notes   []Note
	errs    field.ErrorList
	// problems are what decoding found, worded with their paths.
	problems []string
}

func newTranslation() *translation {
	return &translation{
		doc:     map[string]any{"apiVersion": APIVersion, "kind": Kind},
		origins: map[string]string{},
	}
}

func (t *translation) note(path, text string) { t.notes = append(t.notes, Note{path, text}) }

// from records that the RebalancePolicy's path came from the descheduler's.
func (t *translation) from(native string, desched *field.Path) { t.origins[native] = desched.String() }

// rewrite puts the descheduler's path in place of the RebalancePolicy's
// at the start of a problem.
func (t *translation) rewrite(problem string) string {
	path, rest, ok := strings.Cut(problem, ": ")
	if !ok {
		return problem
	}
	best := ""
	for native := range t.origins {
		if (path == native || strings.HasPrefix(path, native+".") || strings.HasPrefix(path, native+"[")) && len(native) > len(best) {
			best = native
		}
	}
	if best == "" {
		return problem
	}
	return t.origins[best] + path[len(best):] + ": " + rest
}

// topLevel translates the settings both versions share: the node
// selector, a string in the descheduler, and the eviction limits.
func (t *translation) topLevel(nodeSelector *string, perNode, perNamespace, total *int64) {
	if nodeSelector != nil && *nodeSelector != "" {
		path := field.NewPath("nodeSelector")
		sel, err := metav1.ParseToLabelSelector(*nodeSelector)
		if err != nil {
			t.errs = append(t.errs, field.Invalid(path, *nodeSelector, "is not a label selector: "+err.Error()))
		} else {
			t.doc["nodeSelector"] = sel
			t.from("nodeSelector", path)
		}
	}
	// The descheduler's limits hold for its whole run: rebalancer's
	// per-run bounds.
	limits, perRun := map[string]any{}, map[string]any{}
	for _, l := range []struct {
		to   string
		from string
		v    *int64
	}{
		{"perRun.node", "maxNoOfPodsToEvictPerNode", perNode},
		{"perRun.namespace", "maxNoOfPodsToEvictPerNamespace", perNamespace},
		{"total", "maxNoOfPodsToEvictTotal", total},
	} {
		if l.v == nil {
			continue
		}
		path := field.NewPath(l.from)
		switch {
		case *l.v < 0:
			t.errs = append(t.errs, field.Invalid(path, *l.v, "is negative"))
		case *l.v > math.MaxInt32:
			t.errs = append(t.errs, field.Invalid(path, *l.v, fmt.Sprintf("is above %d", math.MaxInt32)))
		default:
			if child, ok := strings.CutPrefix(l.to, "perRun."); ok {
				perRun[child] = *l.v
			} else {
				limits[l.to] = *l.v
			}
			t.from("limits."+l.to, path)
		}
	}
	if len(perRun) > 0 {
		limits["perRun"] = perRun
	}
	if len(limits) > 0 {
		t.doc["limits"] = limits
	}
	// The descheduler judges every cycle afresh.
	t.doc["cooldown"] = "0s"
	t.note("cooldown", "the descheduler has no cooldown; rebalancer's default (5m) leaves a workload alone after one of its pods was evicted, "+
		"so that two cycles never undo each other: remove this line to have it")
}

// profile is a descheduler profile, translated: the evictable settings its
// DefaultEvictor gives, and its strategies.
type profile struct {
	name string
	path *field.Path
	// evictor is where its DefaultEvictor is configured (or the profile).
	evictor    *field.Path
	evictable  map[string]any
	evOrigins  map[string]string
	evNotes    []Note
	strategies []strategyConfig
}

// strategyConfig is a strategy of a profile with its arguments as
// rebalancer names them.
type strategyConfig struct {
	row     *deschedulerStrategy
	enabled bool
	args    map[string]any
	// path is where the strategy is configured in the descheduler's
	// document; argPaths where each argument came from.
	path     *field.Path
	argPaths map[string]*field.Path
	notes    []Note
}

// finish merges the profiles into one RebalancePolicy. The descheduler
// runs the strategies of each profile with the profile's DefaultEvictor:
// what the profiles that run strategies share becomes the policy's
// evictable, and each strategy carries in its own evictable what its
// profile sets otherwise (see evictables).
func (t *translation) finish(profiles []profile) {
	own := t.evictables(profiles)
	strategies := map[string]any{}
	placed := map[string]*strategyConfig{}
	placedFrom := map[string]int{}
	for i := range profiles {
		for j := range profiles[i].strategies {
			s := &profiles[i].strategies[j]
			if prev := placed[s.row.name]; prev != nil {
				from := &profiles[placedFrom[s.row.name]]
				switch {
				case !s.enabled:
					continue // configured, not run: the enabled one counts
				case !prev.enabled:
				case differingKeys(prev.args, s.args) != nil:
					t.errs = append(t.errs, field.Invalid(s.path, s.row.name, fmt.Sprintf(
						"runs in %s too, with other arguments; rebalancer runs a strategy once, with one set of arguments (per namespace only, with overrides)", prev.path)))
					continue
				case differingKeys(from.evictable, profiles[i].evictable) != nil:
					t.errs = append(t.errs, field.Invalid(s.path, s.row.name, fmt.Sprintf(
						"runs in %s too, whose DefaultEvictor differs (%s): the descheduler runs it twice, each time with its profile's evictor, "+
							"and rebalancer runs a strategy once, with one set of evictable settings: run it in one of the profiles, or give both the same DefaultEvictor args",
						from.path, strings.Join(differingKeys(from.evictable, profiles[i].evictable), ", "))))
					continue
				default:
					continue // the same strategy twice plans nothing more
				}
			}
			placed[s.row.name] = s
			placedFrom[s.row.name] = i
			args := s.args
			if !s.enabled {
				args = copyMap(args)
				args["enabled"] = false
			} else if ev := own[i]; len(ev) > 0 {
				args = copyMap(args)
				args["evictable"] = ev
			}
			strategies[s.row.name] = args
		}
	}
	for _, name := range sortedNames(placed) {
		s := placed[name]
		base := "strategies." + name
		t.from(base, s.path)
		for arg, p := range s.argPaths {
			t.from(base+"."+arg, p)
		}
		t.notes = append(t.notes, s.notes...)
		if p := &profiles[placedFrom[name]]; s.enabled && len(own[placedFrom[name]]) > 0 {
			t.profileEvictable(base+".evictable", p, own[placedFrom[name]])
		}
	}
	if len(strategies) > 0 {
		t.doc["strategies"] = strategies
	}
}

// evictables sets the policy's evictable to what the DefaultEvictors of
// the profiles that run strategies share, and returns, by profile, what
// each sets otherwise: its strategies carry that in their own evictable. A
// key a profile leaves out is rebalancer's default there, as it is for one
// profile alone.
func (t *translation) evictables(profiles []profile) map[int]map[string]any {
	var running []int
	for i := range profiles {
		if profiles[i].runsStrategies() {
			running = append(running, i)
		}
	}
	if len(running) == 0 {
		if len(profiles) == 0 {
			return nil
		}
		running = []int{0}
	}
	first := &profiles[running[0]]
	shared := map[string]any{}
	for k, v := range first.evictable {
		same := true
		for _, i := range running[1:] {
			w, ok := profiles[i].evictable[k]
			if !ok || differingKeys(map[string]any{k: v}, map[string]any{k: w}) != nil {
				same = false
				break
			}
		}
		if same {
			shared[k] = v
			if o, ok := first.evOrigins["evictable."+k]; ok {
				t.origins["evictable."+k] = o
			}
		}
	}
	if len(shared) > 0 {
		t.doc["evictable"] = shared
	}
	seen := map[Note]bool{}
	for _, i := range running {
		for _, n := range profiles[i].evNotes {
			k, keyed := strings.CutPrefix(n.Path, "evictable.")
			if _, ok := shared[k]; (!keyed || ok) && !seen[n] {
				seen[n] = true
				t.notes = append(t.notes, n)
			}
		}
	}

	own := map[int]map[string]any{}
	for _, i := range running {
		p := &profiles[i]
		ev := map[string]any{}
		for k, v := range p.evictable {
			if _, ok := shared[k]; !ok {
				ev[k] = v
			}
		}
		if _, ok := ev["namespaceSelector"]; ok {
			at := p.evictor
			if o, ok := p.evOrigins["evictable.namespaceSelector"]; ok {
				at = field.NewPath(o)
			}
			t.errs = append(t.errs, field.Forbidden(at, "differs from the namespaceLabelSelector of the other profiles: rebalancer chooses the namespaces it works in once, "+
				"for every strategy; give every profile that runs strategies the same namespaceLabelSelector"))
			delete(ev, "namespaceSelector")
		}
		if len(ev) > 0 {
			own[i] = ev
		}
	}
	return own
}

// profileEvictable records where a strategy's own evictable settings came
// from, at path, and says why the strategy has them.
func (t *translation) profileEvictable(path string, p *profile, ev map[string]any) {
	for k := range ev {
		if o, ok := p.evOrigins["evictable."+k]; ok {
			t.origins[path+"."+k] = o
		}
	}
	t.note(path, fmt.Sprintf("the descheduler runs this with the DefaultEvictor of %s (%s), which differs from the other profiles' here; "+
		"the rest is evictable's", p.path, p.name))
	for _, n := range p.evNotes {
		if k, ok := strings.CutPrefix(n.Path, "evictable."); ok {
			if _, own := ev[k]; own {
				t.note(path+"."+k, n.Text)
			}
		}
	}
}

func (p *profile) runsStrategies() bool {
	for _, s := range p.strategies {
		if s.enabled {
			return true
		}
	}
	return false
}

// differingKeys lists the keys whose values differ between two JSON
// objects, sorted; nil when they are equal.
func differingKeys(a, b map[string]any) []string {
	var diff []string
	keys := map[string]bool{}
	for k := range a {
		keys[k] = true
	}
	for k := range b {
		keys[k] = true
	}
	for k := range keys {
		x, _ := json.Marshal(a[k])
		y, _ := json.Marshal(b[k])
		if string(x) != string(y) {
			diff = append(diff, k)
		}
	}
	sort.Strings(diff)
	return diff
}

func copyMap(m map[string]any) map[string]any {
	out := make(map[string]any, len(m)+1)
	for k, v := range m {
		out[k] = v
	}
	return out
}

func sortedNames[T any](m map[string]T) []string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// strategyArgs translates the arguments of a descheduler strategy, given
// as a JSON object at path, by the strategy's row.
func strategyArgs(row *deschedulerStrategy, raw map[string]json.RawMessage, argPath func(arg string) *field.Path) (map[string]any, map[string]*field.Path, []Note, field.ErrorList) {
	args := map[string]any{}
	paths := map[string]*field.Path{}
	var notes []Note
	var errs field.ErrorList
	for _, name := range sortedNames(raw) {
		path := argPath(name)
		rule, ok := row.args[name]
		switch {
		case !ok:
			errs = append(errs, field.Forbidden(path, fmt.Sprintf("is not an argument of the descheduler's %s (it takes %s)", row.name, strings.Join(sortedNames(row.args), ", "))))
		case rule.instead != "":
			errs = append(errs, field.Forbidden(path, rule.instead))
		case rule.note != "":
			notes = append(notes, Note{"strategies." + row.name, name + ": " + rule.note})
		default:
			if string(raw[name]) == "null" {
				continue
			}
			args[rule.to] = raw[name]
			paths[rule.to] = path
		}
	}
	if row.differs != nil {
		if text := row.differs(args); text != "" {
			notes = append(notes, Note{"strategies." + row.name, text})
		}
	}
	return args, paths, notes, errs
}

// rawObject splits a JSON object into its fields; null or absent is an
// empty object.
func rawObject(data json.RawMessage, path *field.Path) (map[string]json.RawMessage, field.ErrorList) {
	raw := map[string]json.RawMessage{}
	if len(data) == 0 || string(data) == "null" {
		return raw, nil
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, field.ErrorList{field.Invalid(path, string(data), "is not an object")}
	}
	return raw, nil
}
