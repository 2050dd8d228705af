package policy

// The descheduler's strategies (its plugins), each mapped to rebalancer's
// strategy of the same name. A row says at which extension point the
// descheduler runs the plugin, what each of its arguments becomes, and
// where the older descheduler/v1alpha1 kept them.

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

const (
	pointDeschedule = "deschedule"
	pointBalance    = "balance"
)

var (
	namespacesArg    = argRule{to: "namespaces"}
	labelSelectorArg = argRule{to: "labelSelector"}
	nodeFitNote      = "rebalancer never evicts a pod that no other node can take, as the descheduler's nodeFit does"
	evictableNsArg   = argRule{to: "evictableNamespaces"}
)

func same(names ...string) map[string]string {
	m := make(map[string]string, len(names))
	for _, n := range names {
		m[n] = n
	}
	return m
}

var deschedulerStrategies = []deschedulerStrategy{
	{
		name: "RemovePodsViolatingNodeTaints", point: pointDeschedule,
		args: map[string]argRule{
			"namespaces": namespacesArg, "labelSelector": labelSelectorArg,
			"includePreferNoSchedule": {to: "includePreferNoSchedule"},
			"excludedTaints":          {to: "excludedTaints"},
			"includedTaints":          {to: "includedTaints"},
		},
		v1alpha1Args: same("namespaces", "labelSelector", "includePreferNoSchedule", "excludedTaints", "includedTaints"),
		differs: func(args map[string]any) string {
			_, ex := args["excludedTaints"]
			_, in := args["includedTaints"]
			if ex || in {
				return ""
			}
			return "with neither excludedTaints nor includedTaints the descheduler acts on every NoSchedule taint, the cordon's " +
				"(node.kubernetes.io/unschedulable) and the node conditions' included; rebalancer leaves those alone (docs/strategies.md)"
		},
	},
	{
		name: "RemovePodsViolatingNodeAffinity", point: pointDeschedule,
		args: map[string]argRule{
			"namespaces": namespacesArg, "labelSelector": labelSelectorArg,
			"nodeAffinityType": {to: "nodeAffinityType"},
		},
		v1alpha1Args: same("namespaces", "labelSelector", "nodeAffinityType"),
	},
	{
		name: "RemovePodsViolatingInterPodAntiAffinity", point: pointDeschedule,
		args:         map[string]argRule{"namespaces": namespacesArg, "labelSelector": labelSelectorArg},
		v1alpha1Args: same("namespaces", "labelSelector"),
	},
	{
		name: "RemovePodsHavingTooManyRestarts", point: pointDeschedule,
		args: map[string]argRule{
			"namespaces": namespacesArg, "labelSelector": labelSelectorArg,
			"podRestartThreshold":     {to: "podRestartThreshold"},
			"includingInitContainers": {to: "includingInitContainers"},
			"states":                  {to: "states"},
		},
		v1alpha1Params: "podsHavingTooManyRestarts",
		v1alpha1Args:   same("namespaces", "labelSelector", "podRestartThreshold", "includingInitContainers"),
	},
	{
		name: "PodLifeTime", point: pointDeschedule,
		args: map[string]argRule{
			"namespaces": namespacesArg, "labelSelector": labelSelectorArg,
			"maxPodLifeTimeSeconds":        {to: "maxPodLifeTimeSeconds"},
			"states":                       {to: "states"},
			"includingInitContainers":      {to: "includingInitContainers"},
			"conditions":                   {to: "conditions"},
			"exitCodes":                    {to: "exitCodes"},
			"ownerKinds":                   {to: "ownerKinds"},
			"includingEphemeralContainers": {to: "includingEphemeralContainers"},
		},
		v1alpha1Params: "podLifeTime",
		// The descheduler's conversion appends podStatusPhases to states.
		v1alpha1Args: map[string]string{"namespaces": "namespaces", "labelSelector": "labelSelector",
			"maxPodLifeTimeSeconds": "maxPodLifeTimeSeconds", "states": "states", "podStatusPhases": "states"},
	},
	{
		name: "RemoveFailedPods", point: pointDeschedule,
		args: map[string]argRule{
			"namespaces": namespacesArg, "labelSelector": labelSelectorArg,
			"excludeOwnerKinds":       {to: "excludeOwnerKinds"},
			"minPodLifetimeSeconds":   {to: "minPodLifetimeSeconds"},
			"reasons":                 {to: "reasons"},
			"exitCodes":               {to: "exitCodes"},
			"includingInitContainers": {to: "includingInitContainers"},
		},
		v1alpha1Params: "failedPods",
		v1alpha1Args:   same("namespaces", "labelSelector", "excludeOwnerKinds", "minPodLifetimeSeconds", "reasons", "includingInitContainers"),
		failedOnly:     true,
	},
	{
		name: "RemoveDuplicates", point: pointBalance,
		args: map[string]argRule{
			"namespaces":        namespacesArg,
			"excludeOwnerKinds": {to: "excludeOwnerKinds"},
		},
		v1alpha1Params: "removeDuplicates",
		v1alpha1Args:   same("namespaces", "excludeOwnerKinds"),
	},
	{
		name: "RemovePodsViolatingTopologySpreadConstraint", point: pointBalance,
		args: map[string]argRule{
			"namespaces": namespacesArg, "labelSelector": labelSelectorArg,
			"constraints":            {to: "constraints"},
			"topologyBalanceNodeFit": {note: nodeFitNote + ", when it picks the domains to balance too"},
		},
		// includeSoftConstraints becomes constraints: [DoNotSchedule, ScheduleAnyway].
		v1alpha1Args: map[string]string{"namespaces": "namespaces", "labelSelector": "labelSelector", "includeSoftConstraints": "constraints"},
	},
	{
		name: "LowNodeUtilization", point: pointBalance,
		args: map[string]argRule{
			"thresholds":             {to: "thresholds"},
			"targetThresholds":       {to: "targetThresholds"},
			"useDeviationThresholds": {to: "useDeviationThresholds"},
			"numberOfNodes":          {to: "numberOfNodes"},
			"evictableNamespaces":    evictableNsArg,
			"evictionLimits":         {to: "evictionLimits"},
			"metricsUtilization":     {to: "metricsUtilization"},
		},
		v1alpha1Params: "nodeResourceUtilizationThresholds",
		v1alpha1Args: map[string]string{"namespaces": "evictableNamespaces", "thresholds": "thresholds", "targetThresholds": "targetThresholds",
			"useDeviationThresholds": "useDeviationThresholds", "numberOfNodes": "numberOfNodes"},
	},
	{
		name: "HighNodeUtilization", point: pointBalance,
		args: map[string]argRule{
			"thresholds":          {to: "thresholds"},
			"numberOfNodes":       {to: "numberOfNodes"},
			"evictionModes":       {to: "evictionModes"},
			"evictableNamespaces": evictableNsArg,
		},
		v1alpha1Params: "nodeResourceUtilizationThresholds",
		v1alpha1Args:   map[string]string{"namespaces": "evictableNamespaces", "thresholds": "thresholds", "numberOfNodes": "numberOfNodes"},
	},
}

// deschedulerStrategyNamed returns the row of a descheduler strategy, or nil.
func deschedulerStrategyNamed(name string) *deschedulerStrategy {
	for i := range deschedulerStrategies {
		if deschedulerStrategies[i].name == name {
			return &deschedulerStrategies[i]
		}
	}
	return nil
}

func deschedulerStrategyNames() []string {
	names := make([]string, len(deschedulerStrategies))
	for i, s := range deschedulerStrategies {
		names[i] = s.name
	}
	return names
}
