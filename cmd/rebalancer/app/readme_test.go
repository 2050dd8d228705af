package app

import (
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kube-rebalancer/rebalancer/cluster"
)

// quickStart is the README's Quick start section: the command a reader
// runs first, the output the README says it prints, and the text that
// explains it.
type quickStart struct {
	args        []string // after `go run ./cmd/rebalancer`
	output      []string
	explanation string
}

// readQuickStart reads the section from the README at the repository's root.
func readQuickStart(t *testing.T) quickStart {
	t.Helper()
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	start := strings.Index(doc, "\n## Quick start\n")
	if start < 0 {
		t.Fatal("README.md has no Quick start section")
	}
	section := doc[start+1:]
	if end := strings.Index(section[1:], "\n## "); end >= 0 {
		section = section[:end+1]
	}
	blocks := regexp.MustCompile("(?s)\n```([a-z]*)\n(.*?)\n```\n").FindAllStringSubmatchIndex(section, -1)
	var q quickStart
	for i, m := range blocks {
		lang, body := section[m[2]:m[3]], section[m[4]:m[5]]
		switch {
		case lang == "sh" && q.args == nil:
			for _, line := range strings.Split(body, "\n") {
				if rest, ok := strings.CutPrefix(line, "go run ./cmd/rebalancer "); ok {
					q.args = strings.Fields(rest)
					break
				}
			}
		case lang == "" && q.args != nil && q.output == nil:
			q.output = strings.Split(body, "\n")
			q.explanation = section[m[1]:]
			if i+1 < len(blocks) {
				q.explanation = section[m[1]:blocks[i+1][0]]
			}
		}
	}
	if q.args == nil || q.output == nil {
		t.Fatalf("README.md's Quick start has no `go run ./cmd/rebalancer` command followed by its output:\n%s", section)
	}
	return q
}

// The README's first command prints what the README says it prints, and
// its explanation names exactly the pods SKIPPED counts. The node table may
// be abridged with a last line "...", which the README announces; nothing
// else may differ but trailing blanks, which Markdown does not show (the
// table writer pads every cell).
func TestReadmeQuickStartOutput(t *testing.T) {
	t.Chdir("../../..")
	q := readQuickStart(t)
	if len(q.args) == 0 || q.args[0] != "plan" {
		t.Fatalf("the Quick start command is %q; this test runs `plan`", q.args)
	}
	out, code, err := execute(t, q.args...)
	if code != exitOK {
		t.Fatalf("%s: exit %d: %v", strings.Join(q.args, " "), code, err)
	}
	got := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	for i := range got {
		got[i] = strings.TrimRight(got[i], " ")
	}
	want := q.output
	if want[len(want)-1] == "..." {
		if !strings.Contains(strings.Join(want, "\n"), "\nNODES ") {
			t.Fatal(`the README's output ends with "..." outside the node table: only the node table may be abridged`)
		}
		if len(got) < len(want) {
			t.Fatalf("the README shows %d lines and abridges more; the command printed %d", len(want)-1, len(got))
		}
		want, got = want[:len(want)-1], got[:len(want)-1]
	}
	if len(got) != len(want) {
		t.Errorf("the command printed %d lines, the README shows %d", len(got), len(want))
	}
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			t.Errorf("line %d:\nREADME:  %q\nprinted: %q", i+1, want[i], got[i])
		}
	}

	// The explanation names each skipped pod as "`workload` on `node`".
	jsonOut, code, err := execute(t, append(slices.Clone(q.args), "-o", "json")...)
	if code != exitOK {
		t.Fatalf("-o json: exit %d: %v", code, err)
	}
	var plan struct {
		Skipped []struct{ Pod string } `json:"skipped"`
	}
	if err := json.Unmarshal([]byte(jsonOut), &plan); err != nil {
		t.Fatal(err)
	}
	objs, _, err := cluster.ReadFile(snapshotArg(t, q.args))
	if err != nil {
		t.Fatal(err)
	}
	snap, err := cluster.New(objs, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	var skipped []string
	for _, s := range plan.Skipped {
		p := snap.Pod(s.Pod)
		if p == nil {
			t.Fatalf("skipped pod %s is not in the snapshot", s.Pod)
		}
		skipped = append(skipped, "`"+p.Workload.Namespace+"/"+p.Workload.Name+"` on `"+p.Spec.NodeName+"`")
	}
	named := regexp.MustCompile("`[a-z0-9-]+/[a-z0-9-]+` on `[a-z0-9-]+`").FindAllString(q.explanation, -1)
	slices.Sort(skipped)
	slices.Sort(named)
	if !slices.Equal(skipped, named) {
		t.Errorf("the README's explanation names the skipped pods\n  %s\nthe command skips\n  %s",
			strings.Join(named, "\n  "), strings.Join(skipped, "\n  "))
	}
}

// snapshotArg returns the value of --snapshot.
func snapshotArg(t *testing.T, args []string) string {
	t.Helper()
	for i, a := range args {
		if a == "--snapshot" && i+1 < len(args) {
			return args[i+1]
		}
		if v, ok := strings.CutPrefix(a, "--snapshot="); ok {
			return v
		}
	}
	t.Fatalf("the Quick start command %q has no --snapshot", args)
	return ""
}
