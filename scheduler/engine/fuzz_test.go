package engine

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/kube-rebalancer/rebalancer/scheduler/profile"
)

// A problem of a KubeSchedulerConfiguration names the file, then the field
// (a path such as profiles[0].pluginConfig[1].args.scoringStrategy.type);
// what YAML cannot parse, the line; what is no configuration at all, what
// it is instead.
var (
	fieldProblem = regexp.MustCompile(`^fuzz\.yaml: [A-Za-z][A-Za-z0-9]*(?:\[\d+\]|\.[A-Za-z][A-Za-z0-9]*|\[[^\]]*\])*: `)
	// A field the file should not have is named as written, whatever it is.
	strictProblem = regexp.MustCompile(`^fuzz\.yaml: .+: (?:unknown|duplicate) field$`)
	yamlProblem   = regexp.MustCompile(`^fuzz\.yaml: (?:error converting YAML to JSON: )?yaml: `)
	wholeProblem  = regexp.MustCompile(`^fuzz\.yaml: (?:a|an) [a-z]+ where a KubeSchedulerConfiguration \(`)
)

// FuzzLoadProfiles checks that no input makes LoadProfiles panic, that every
// problem it reports names the file and the field, and that every profile
// it accepts builds an engine: a configuration it lets through must not
// fail later, when plan or run simulate it.
func FuzzLoadProfiles(f *testing.F) {
	for _, doc := range []string{"../../docs/scheduler.md", "../../docs/extender.md"} {
		for _, block := range yamlBlocks(f, doc) {
			if strings.Contains(block, "kind: KubeSchedulerConfiguration") {
				f.Add([]byte(block))
			}
		}
	}
	sample, err := os.ReadFile("../../examples/custom-plugin/scheduler.yaml")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(sample)
	f.Add([]byte(twoProfiles))
	f.Add([]byte("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\npercentageOfNodesToScore: half\n"))
	f.Add([]byte("root:$6$salt$hash:19000:0:99999:7:::\ndaemon:*:19000:0:99999:7:::\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		profiles, err := profile.LoadProfiles(data, "fuzz.yaml")
		if err != nil {
			for _, line := range strings.Split(err.Error(), "\n") {
				if !fieldProblem.MatchString(line) && !strictProblem.MatchString(line) && !yamlProblem.MatchString(line) && !wholeProblem.MatchString(line) {
					t.Errorf("problem %q does not name the file and the field", line)
				}
			}
			return
		}
		for _, p := range profiles {
			if _, err := New(p); err != nil {
				t.Errorf("profile %q loaded, but builds no engine: %v", p.SchedulerName, err)
			}
		}
	})
}

// yamlBlocks returns the ```yaml blocks of a Markdown file.
func yamlBlocks(f *testing.F, path string) []string {
	data, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	var blocks []string
	for _, part := range strings.Split(string(data), "```yaml\n")[1:] {
		block, _, _ := strings.Cut(part, "```")
		blocks = append(blocks, block)
	}
	return blocks
}
