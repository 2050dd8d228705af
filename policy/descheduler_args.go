package policy

// The descheduler's strategies (its plugins), each mapped to rebalancer's
// strategy of the same name. A row says at which extension point the
// descheduler runs the plugin, what each of its arguments becomes, and
// where the older descheduler/v1alpha1 kept them. Each strategy registers
// its row with its arguments (RegisterStrategy).

// argRule is what becomes of one argument of a descheduler strategy.
type argRule struct {
	// to is the argument's name in rebalancer's arguments of the strategy,
	// when it has one.
	to string
	// instead says why rebalancer has no such argument and what to use
	// instead; the argument is refused.
	instead string
	// note, for an argument that rebalancer's strategy always behaves by,
	// says how; the argument is accepted and not carried over.
	note string
}

// deschedulerStrategy is a row of the table.
type deschedulerStrategy struct {
	name string
	// point is the extension point the descheduler runs it at.
	point string
	args  map[string]argRule
	// v1alpha1Params names the object of v1alpha1's params that holds the
	// strategy's own parameters, "" when it has none; v1alpha1Args maps the
	// params (common ones and those of that object) to the v1alpha2
	// argument they became in the descheduler's own conversion.
	v1alpha1Params string
	v1alpha1Args   map[string]string
	// failedOnly: the strategy moves only pods in the Failed phase.
	failedOnly bool
	// differs, when set, says how rebalancer's defaults differ from the
	// descheduler's for these arguments, or "".
	differs func(args map[string]any) string
}

// DeschedulerPlugin maps the descheduler's plugin of a strategy's name
// onto the strategy, for policies written for the descheduler.
type DeschedulerPlugin struct {
	// Point is the extension point the descheduler runs the plugin at:
	// PointDeschedule or PointBalance.
	Point string
	// Args says what becomes of each of the plugin's arguments; an argument
	// it does not list is refused.
	Args map[string]ArgRule
	// V1alpha1Params names the object of v1alpha1's params that holds the
	// strategy's own parameters, "" when it has none; V1alpha1Args maps the
	// params (common ones and those of that object) to the v1alpha2
	// argument they became in the descheduler's own conversion.
	V1alpha1Params string
	V1alpha1Args   map[string]string
	// FailedOnly: the strategy moves only pods in the Failed phase.
	FailedOnly bool
	// Differs, when set, says how rebalancer's defaults differ from the
	// descheduler's for these arguments, or "".
	Differs func(args map[string]any) string
}

// ArgRule is what becomes of one argument of a descheduler plugin: set
// one of its fields.
type ArgRule struct {
	// To is the argument's name in rebalancer's arguments of the strategy.
	To string
	// Instead says why rebalancer has no such argument and what to use
	// instead; the argument is refused.
	Instead string
	// Note, for an argument that rebalancer's strategy always behaves by,
	// says how; the argument is accepted and not carried over.
	Note string
}

// The descheduler's extension points.
const (
	PointDeschedule = "deschedule"
	PointBalance    = "balance"
)

// The rules of the arguments most plugins share.
var (
	NamespacesArg          = ArgRule{To: "namespaces"}
	LabelSelectorArg       = ArgRule{To: "labelSelector"}
	EvictableNamespacesArg = ArgRule{To: "evictableNamespaces"}
)

// SameArgs maps each name to itself: parameters of v1alpha1 that v1alpha2
// kept.
func SameArgs(names ...string) map[string]string {
	m := make(map[string]string, len(names))
	for _, n := range names {
		m[n] = n
	}
	return m
}

// deschedulerStrategies holds the registered rows, in the order the
// strategies run.
var deschedulerStrategies []deschedulerStrategy

// addDeschedulerPlugin adds the row of a strategy being registered; the
// caller holds the registry's lock.
func addDeschedulerPlugin(name string, p *DeschedulerPlugin) {
	args := make(map[string]argRule, len(p.Args))
	for k, r := range p.Args {
		args[k] = argRule{to: r.To, instead: r.Instead, note: r.Note}
	}
	deschedulerStrategies = append(deschedulerStrategies, deschedulerStrategy{
		name: name, point: p.Point, args: args,
		v1alpha1Params: p.V1alpha1Params, v1alpha1Args: p.V1alpha1Args,
		failedOnly: p.FailedOnly, differs: p.Differs,
	})
}

// deschedulerStrategyNamed returns the row of a descheduler strategy, or nil.
func deschedulerStrategyNamed(name string) *deschedulerStrategy {
	registry.RLock()
	defer registry.RUnlock()
	for i := range deschedulerStrategies {
		if deschedulerStrategies[i].name == name {
			return &deschedulerStrategies[i]
		}
	}
	return nil
}

func deschedulerStrategyNames() []string {
	registry.RLock()
	defer registry.RUnlock()
	names := make([]string, len(deschedulerStrategies))
	for i, s := range deschedulerStrategies {
		names[i] = s.name
	}
	return names
}
