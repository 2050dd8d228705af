package profile

import (
	"os"
	"reflect"
	"slices"
	"testing"

	configv1 "k8s.io/kube-scheduler/config/v1"

	"github.com/kube-rebalancer/rebalancer/scheduler/plugins/imagelocality"
	"github.com/kube-rebalancer/rebalancer/scheduler/plugins/interpodaffinity"
	"github.com/kube-rebalancer/rebalancer/scheduler/plugins/nodeaffinity"
	"github.com/kube-rebalancer/rebalancer/scheduler/plugins/nodename"
	"github.com/kube-rebalancer/rebalancer/scheduler/plugins/nodeports"
	"github.com/kube-rebalancer/rebalancer/scheduler/plugins/noderesources"
	"github.com/kube-rebalancer/rebalancer/scheduler/plugins/nodeunschedulable"
	"github.com/kube-rebalancer/rebalancer/scheduler/plugins/nodevolumelimits"
	"github.com/kube-rebalancer/rebalancer/scheduler/plugins/podtopologyspread"
	"github.com/kube-rebalancer/rebalancer/scheduler/plugins/tainttoleration"
	"github.com/kube-rebalancer/rebalancer/scheduler/plugins/volumebinding"
	"github.com/kube-rebalancer/rebalancer/scheduler/plugins/volumerestrictions"
	"github.com/kube-rebalancer/rebalancer/scheduler/plugins/volumezone"
)

func TestDefaultProfileIsKubeSchedulers(t *testing.T) {
	p := DefaultProfile()
	got, err := p.EnabledPlugins()
	if err != nil {
		t.Fatal(err)
	}
	wantFilter := []string{nodeunschedulable.Name, nodename.Name, tainttoleration.Name, nodeaffinity.Name, nodeports.Name, noderesources.FitName,
		volumerestrictions.Name, nodevolumelimits.Name, volumebinding.Name, volumezone.Name, podtopologyspread.Name, interpodaffinity.Name, "DynamicResources", "NodeDeclaredFeatures"}
	if !slices.Equal(got.Filter, wantFilter) {
		t.Errorf("filters\n %v\nwant\n %v", got.Filter, wantFilter)
	}
	wantScore := []WeightedPlugin{{tainttoleration.Name, 3}, {nodeaffinity.Name, 2}, {noderesources.FitName, 1}, {volumebinding.Name, 1},
		{podtopologyspread.Name, 2}, {interpodaffinity.Name, 2}, {"DynamicResources", 2}, {noderesources.BalancedAllocationName, 1}, {imagelocality.Name, 1}}
	if !slices.Equal(got.Score, wantScore) {
		t.Errorf("scores\n %v\nwant\n %v", got.Score, wantScore)
	}
	wantNot := []string{"SchedulingGates", "PrioritySort",
		"DynamicResources", "DefaultPreemption", "DefaultBinder", "NodeDeclaredFeatures"}
	if !slices.Equal(got.NotSimulated, wantNot) {
		t.Errorf("not simulated\n %v\nwant\n %v", got.NotSimulated, wantNot)
	}
	if p.SchedulerName != "default-scheduler" || argsOf[configv1.NodeResourcesFitArgs](t, p, noderesources.FitName).ScoringStrategy.Type != configv1.LeastAllocated ||
		*argsOf[configv1.InterPodAffinityArgs](t, p, interpodaffinity.Name).HardPodAffinityWeight != 1 || argsOf[configv1.PodTopologySpreadArgs](t, p, podtopologyspread.Name).DefaultingType != configv1.SystemDefaulting {
		t.Errorf("default arguments not as kube-scheduler's: %+v", p)
	}
}

// twoProfiles is a configuration with kube-scheduler's default profile and
// a bin-packing one; the engine's tests read it too.
var twoProfiles = readFile("testdata/two-profiles.yaml")

func readFile(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		panic(err)
	}
	return string(data)
}

func TestLoadProfiles(t *testing.T) {
	profiles, err := LoadProfiles([]byte(twoProfiles), "sched.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(profiles) != 2 || profiles[0].SchedulerName != "default-scheduler" || profiles[1].SchedulerName != "bin-packing" {
		t.Fatalf("got profiles %+v", profiles)
	}
	p, ok := ProfileByName(profiles, "bin-packing")
	if !ok {
		t.Fatal("no bin-packing profile")
	}
	enabled, err := p.EnabledPlugins()
	if err != nil {
		t.Fatal(err)
	}
	// The score set's enabled plugins come first, in its order and with
	// its weights (a missing weight is 1, not multiPoint's 3), then the
	// rest of multiPoint.
	wantScore := []WeightedPlugin{{noderesources.FitName, 5}, {tainttoleration.Name, 1}, {nodeaffinity.Name, 2}, {podtopologyspread.Name, 2}, {interpodaffinity.Name, 2}, {"DynamicResources", 2}}
	if !slices.Equal(enabled.Score, wantScore) {
		t.Errorf("scores\n %v\nwant\n %v", enabled.Score, wantScore)
	}
	if slices.Contains(enabled.Filter, "VolumeBinding") || slices.Contains(enabled.NotSimulated, "VolumeBinding") {
		t.Errorf("VolumeBinding is still enabled: %v", enabled)
	}
	st := argsOf[configv1.NodeResourcesFitArgs](t, p, noderesources.FitName).ScoringStrategy
	if st.Type != configv1.MostAllocated || !reflect.DeepEqual(st.Resources, []configv1.ResourceSpec{{Name: "cpu", Weight: 2}, {Name: "memory", Weight: 1}}) {
		t.Errorf("scoring strategy %+v", st)
	}
	if *argsOf[configv1.InterPodAffinityArgs](t, p, interpodaffinity.Name).HardPodAffinityWeight != 10 || argsOf[configv1.PodTopologySpreadArgs](t, p, podtopologyspread.Name).DefaultingType != configv1.ListDefaulting || *p.PercentageOfNodesToScore != 50 {
		t.Errorf("arguments not read: %+v", p)
	}
	if _, ok := ProfileByName(profiles, ""); !ok {
		t.Errorf("an empty scheduler name does not find default-scheduler")
	}
	if _, ok := ProfileByName(profiles, "nope"); ok {
		t.Errorf("found a profile that does not exist")
	}

	defaults, err := LoadProfiles(nil, "")
	if err != nil || len(defaults) != 1 || !reflect.DeepEqual(defaults[0], DefaultProfile()) {
		t.Errorf("no file: got %+v, %v; want the default profile", defaults, err)
	}
}

func TestLoadProfilesErrors(t *testing.T) {
	head := "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
	tests := []struct {
		name, yaml, want string
	}{
		{"an unknown plugin", head + "profiles:\n- plugins:\n    score:\n      enabled:\n      - name: ImageLocality\n      - name: Foo\n",
			`sched.yaml: profiles[0].plugins.score.enabled[1].name: "Foo" is not a known plugin`},
		{"an unknown field", head + "profiles:\n- schedulerName: x\n  plugin: {}\n",
			`sched.yaml: profiles[0].plugin: unknown field`},
		{"an unknown args field", head + "profiles:\n- pluginConfig:\n  - name: InterPodAffinity\n    args:\n      hardPodAffinityWeigth: 3\n",
			`sched.yaml: profiles[0].pluginConfig[0].args.hardPodAffinityWeigth: unknown field`},
		{"a weight out of range", head + "profiles:\n- pluginConfig:\n  - name: InterPodAffinity\n    args:\n      hardPodAffinityWeight: 120\n",
			`sched.yaml: profiles[0].pluginConfig[0].args.hardPodAffinityWeight: 120 is not in [0, 100]`},
		{"an unknown scoring strategy", head + "profiles:\n- pluginConfig:\n  - name: NodeResourcesFit\n    args:\n      scoringStrategy:\n        type: Random\n",
			`sched.yaml: profiles[0].pluginConfig[0].args.scoringStrategy.type: "Random" is not one of LeastAllocated, MostAllocated, RequestedToCapacityRatio`},
		{"a shape out of order", head + "profiles:\n- pluginConfig:\n  - name: NodeResourcesFit\n    args:\n      scoringStrategy:\n        type: RequestedToCapacityRatio\n        requestedToCapacityRatio:\n          shape:\n          - {utilization: 50, score: 1}\n          - {utilization: 10, score: 5}\n",
			`sched.yaml: profiles[0].pluginConfig[0].args.scoringStrategy.requestedToCapacityRatio.shape[1].utilization: 10 is not above the previous point's 50`},
		{"system defaulting with constraints", head + "profiles:\n- pluginConfig:\n  - name: PodTopologySpread\n    args:\n      defaultConstraints:\n      - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: ScheduleAnyway}\n",
			`sched.yaml: profiles[0].pluginConfig[0].args.defaultingType: System does not allow defaultConstraints`},
		{"args of the wrong kind", head + "profiles:\n- pluginConfig:\n  - name: InterPodAffinity\n    args:\n      kind: NodeResourcesFitArgs\n",
			`sched.yaml: profiles[0].pluginConfig[0].args.kind: "NodeResourcesFitArgs" is not "InterPodAffinityArgs"`},
		{"a plugin at a point it does not extend", head + "profiles:\n- plugins:\n    score:\n      enabled:\n      - name: NodePorts\n",
			`sched.yaml: profiles[0].plugins.score.enabled[0].name: "NodePorts" does not extend score`},
		{"two profiles with one name", head + "profiles:\n- schedulerName: a\n- schedulerName: a\n",
			`sched.yaml: profiles[1].schedulerName: "a" is already the name of profiles[0]`},
		{"a second profile without a name", head + "profiles:\n- schedulerName: a\n- {}\n",
			`sched.yaml: profiles[1].schedulerName: required`},
		{"another API version", "apiVersion: kubescheduler.config.k8s.io/v1beta3\nkind: KubeSchedulerConfiguration\n",
			`sched.yaml: apiVersion: "kubescheduler.config.k8s.io/v1beta3" is not "kubescheduler.config.k8s.io/v1"`},
		{"no configuration at all, whose lines are not quoted back", "root:$6$salt$hash:19000:0:99999:7:::\ndaemon:*:19000:0:99999:7:::\n",
			`sched.yaml: apiVersion: required: the file is no KubeSchedulerConfiguration (apiVersion: kubescheduler.config.k8s.io/v1, kind: KubeSchedulerConfiguration)`},
		{"no kind", "apiVersion: kubescheduler.config.k8s.io/v1\nprofiles: {}\n",
			`sched.yaml: kind: required: the file is no KubeSchedulerConfiguration (apiVersion: kubescheduler.config.k8s.io/v1, kind: KubeSchedulerConfiguration)`},
		{"args for an unknown plugin", head + "profiles:\n- pluginConfig:\n  - name: Bar\n    args: {}\n",
			`sched.yaml: profiles[0].pluginConfig[0].name: "Bar" is not a known plugin`},
		{"a percentage above 100", head + "percentageOfNodesToScore: 120\n",
			`sched.yaml: percentageOfNodesToScore: 120 is not in [0, 100]`},
		{"args for a plugin that takes none", head + "profiles:\n- pluginConfig:\n  - name: NodePorts\n    args: {}\n",
			`sched.yaml: profiles[0].pluginConfig[0].args: plugin "NodePorts" takes no arguments`},
		{"values of the wrong type, each with its field", head + "percentageOfNodesToScore: half\nprofiles:\n- schedulerName: 5\n  pluginConfig:\n  - name: NodeResourcesFit\n    args: {scoringStrategy: {resources: {name: cpu}}}\n",
			"sched.yaml: percentageOfNodesToScore: Invalid value: \"half\": must be a whole number from -2147483648 to 2147483647\n" +
				"sched.yaml: profiles[0].schedulerName: Invalid value: 5: must be a string"},
		{"args of the wrong type", head + "profiles:\n- pluginConfig:\n  - name: NodeResourcesFit\n    args: {scoringStrategy: {resources: {name: cpu}}}\n",
			`sched.yaml: profiles[0].pluginConfig[0].args.scoringStrategy.resources: Invalid value: {"name":"cpu"}: must be a list`},
		{"args that are no object", head + "profiles:\n- pluginConfig:\n  - name: InterPodAffinity\n    args: [3]\n",
			`sched.yaml: profiles[0].pluginConfig[0].args: Invalid value: [3]: must be an object`},
		{"a duration that is none", head + "leaderElection: {leaseDuration: 5 parsecs}\n",
			`sched.yaml: leaderElection.leaseDuration: Invalid value: "5 parsecs": must be a duration such as 90s, 5m or 1h30m`},
		{"a list, not a configuration", "- profiles: []\n",
			`sched.yaml: a list where a KubeSchedulerConfiguration (apiVersion: kubescheduler.config.k8s.io/v1) is expected`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := LoadProfiles([]byte(tc.yaml), "sched.yaml")
			if err == nil || err.Error() != tc.want {
				t.Errorf("error\n %v\nwant\n %s", err, tc.want)
			}
		})
	}
}

// argsOf returns plugin name's arguments in p as the engine sees them:
// decoded, defaulted and validated.
func argsOf[T any](t *testing.T, p Profile, name string) *T {
	t.Helper()
	reg, err := MergeRegistries(nil)
	if err != nil {
		t.Fatal(err)
	}
	a, err := PluginArgs(reg, name, p.RawArgs(name), name+".args")
	if err != nil {
		t.Fatal(err)
	}
	return a.(*T)
}

// A scheduler configuration is read only when it is a regular file of at
// most MaxConfigFileSize: a policy's scheduler.configFile naming a device
// must fail at once, not read without end.
func TestReadProfilesBoundsTheFile(t *testing.T) {
	dir := t.TempDir()
	large := dir + "/large.yaml"
	if err := os.WriteFile(large, make([]byte, MaxConfigFileSize+1), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path, want string
	}{
		{name: "a device that never ends", path: "/dev/zero",
			want: "file /dev/zero: is not a regular file (it is a character device)"},
		{name: "a directory", path: dir, want: "file " + dir + ": is not a regular file (it is a directory)"},
		{name: "a file above the limit", path: large,
			want: "file " + large + ": is 1048577 bytes, larger than the limit of 1048576 bytes (1 MiB)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadProfiles(tt.path)
			if err == nil || err.Error() != tt.want {
				t.Fatalf("ReadProfiles() error = %v, want %q", err, tt.want)
			}
		})
	}
}
