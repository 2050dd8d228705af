package deploy

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kube-rebalancer/rebalancer/test/harness"
)

// docStep is a command of a ```sh block, or a file a ```yaml block names in
// its first line ("# my-values.yaml").
type docStep struct {
	command      string
	file, source string
}

var docFileLine = regexp.MustCompile(`^# (\S+\.yaml)$`)

func readDocSteps(t *testing.T, path string) []docStep {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var (
		steps []docStep
		block []string
		lang  string
		in    bool
	)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case !in && strings.HasPrefix(line, "```"):
			in, lang, block = true, strings.TrimPrefix(line, "```"), nil
		case in && line == "```":
			in = false
			switch lang {
			case "sh":
				steps = append(steps, shellCommands(block)...)
			case "yaml":
				if len(block) > 0 && docFileLine.MatchString(block[0]) {
					name := docFileLine.FindStringSubmatch(block[0])[1]
					steps = append(steps, docStep{file: name, source: strings.Join(block, "\n") + "\n"})
				}
			default:
				t.Errorf("%s: a ```%s block; the tests run only sh and yaml blocks", path, lang)
			}
		case in:
			block = append(block, line)
		}
	}
	if in {
		t.Fatalf("%s: unterminated code block", path)
	}
	return steps
}

func shellCommands(lines []string) []docStep {
	var steps []docStep
	var cur string
	for _, l := range lines {
		if strings.HasSuffix(l, `\`) {
			cur += strings.TrimSuffix(l, `\`)
			continue
		}
		cur += l
		if c := strings.TrimSpace(cur); c != "" && !strings.HasPrefix(c, "#") {
			steps = append(steps, docStep{command: c})
		}
		cur = ""
	}
	return steps
}

// substitutions returns the $(...) parts of a command line.
func substitutions(cmd string) []string {
	var out []string
	for i := 0; i < len(cmd)-1; i++ {
		if cmd[i] != '$' || cmd[i+1] != '(' {
			continue
		}
		depth, quote := 0, byte(0)
		for j := i + 1; j < len(cmd); j++ {
			c := cmd[j]
			switch {
			case quote != 0:
				if c == quote {
					quote = 0
				}
			case c == '\'' || c == '"':
				quote = c
			case c == '(':
				depth++
			case c == ')':
				depth--
				if depth == 0 {
					out = append(out, cmd[i+2:j])
					i = j
					j = len(cmd)
				}
			}
		}
	}
	return out
}

// docRunner runs documented commands the way a reader would, in a
// directory laid out like a checkout (charts/ of this one, and a copy of
// its kustomize/, which the reader edits to name the image), with helm,
// kubectl and rebalancer on PATH and the test control plane as the current
// kubeconfig.
type docRunner struct {
	t        *testing.T
	cp       *harness.ControlPlane
	dir      string
	env      []string
	commands map[string]bool // every command the document has
	lastJob  string          // the Job the last `create job` made
}

func newDocRunner(t *testing.T, cp *harness.ControlPlane) *docRunner {
	ts := tools(t)
	bin := rebalancerBinary(t)
	dir := t.TempDir()
	if err := os.Symlink(filepath.Join(repoRoot(t), "charts"), filepath.Join(dir, "charts")); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(filepath.Join(dir, "kustomize"), os.DirFS(shippedKustomizeDir(t, ""))); err != nil {
		t.Fatal(err)
	}
	// Each helm install and upgrade waits for the chart's check of the
	// policy, a hook Job whose pod nothing else would run.
	startHookKubelet(t, cp, docNamespace)
	return &docRunner{t: t, cp: cp, dir: dir, commands: map[string]bool{}, env: []string{
		"PATH=" + ts.dir + string(os.PathListSeparator) + filepath.Dir(bin) + string(os.PathListSeparator) + os.Getenv("PATH"),
		"KUBECONFIG=" + cp.Kubeconfig,
	}}
}

func (r *docRunner) shell(cmd string) (string, string, error) {
	return runErr(r.dir, r.env, "bash", "-c", "set -o pipefail; "+cmd)
}

// run runs one documented command. `make image` needs a container engine
// and `kubectl logs` a kubelet, neither of which the test machine has: `make
// image` is run with -n in this checkout and must build and push the image
// it names; of a logs command the lookup of what to read ($(...)) is run
// and must name the newest Job.
func (r *docRunner) run(cmd string) string {
	t := r.t
	t.Helper()
	switch {
	case strings.HasPrefix(cmd, "make image "):
		name, args := cleanMake(append([]string{"-n"}, strings.Fields(strings.TrimPrefix(cmd, "make "))...)...)
		out := run(t, repoRoot(t), nil, name, args...)
		image := strings.TrimPrefix(regexp.MustCompile(`IMAGE=\S+`).FindString(cmd), "IMAGE=")
		if !strings.Contains(out, "docker build -t "+image+" ") || !strings.Contains(out, "docker push "+image) {
			t.Errorf("%s would not build and push %q:\n%s", cmd, image, out)
		}
		t.Logf("run with -n (no container engine): %s", cmd)
		return ""
	case strings.HasPrefix(cmd, "kubectl ") && strings.Contains(cmd, " logs "):
		subs := substitutions(cmd)
		if len(subs) == 0 {
			t.Logf("not run (no kubelet): %s", cmd)
			return ""
		}
		for _, s := range subs {
			out, stderr, err := r.shell(s)
			if err != nil {
				t.Fatalf("%s\n%v\n%s", s, err, stderr)
			}
			if r.lastJob != "" && strings.TrimSpace(out) != r.lastJob {
				t.Errorf("%s\nprints %q; the newest Job is %q", s, out, r.lastJob)
			}
		}
		t.Logf("run without logs (no kubelet): %s", cmd)
		return ""
	}
	out, stderr, err := r.shell(cmd)
	if err != nil {
		t.Fatalf("documented command failed: %s\n%v\n%s%s", cmd, err, stderr, out)
	}
	t.Logf("ok: %s", cmd)
	if m := regexp.MustCompile(`job.batch/(\S+) created`).FindStringSubmatch(out); m != nil {
		r.lastJob = m[1]
	}
	return out
}

func (r *docRunner) cronJobArgs(ns, name string) (args []string, image string) {
	cj, err := r.cp.Client.BatchV1().CronJobs(ns).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		r.t.Fatalf("CronJob %s/%s: %v", ns, name, err)
	}
	c := cj.Spec.JobTemplate.Spec.Template.Spec.Containers[0]
	return c.Args, c.Image
}

// TestInstallDoc runs docs/install.md from top to bottom against the test
// control plane: every helm, kubectl and rebalancer command must succeed as
// written, and leave the cluster as the text says (a dry run first, then
// real evictions; the kustomize overlays' image, policy and dry run). The
// commands NOTES.txt prints after `helm install` are run too.
func TestInstallDoc(t *testing.T) {
	cp := controlPlane(t)
	r := newDocRunner(t, cp)
	steps := readDocSteps(t, filepath.Join(repoRoot(t), "docs", "install.md"))
	for _, s := range steps {
		r.commands[s.command] = true
	}
	for _, s := range steps {
		if s.file != "" {
			p := filepath.Join(r.dir, filepath.FromSlash(s.file))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			writeFile(t, filepath.Dir(p), filepath.Base(p), s.source)
			continue
		}
		out := r.run(s.command)
		switch {
		case strings.HasPrefix(s.command, "helm install rebalancer"):
			args, image := r.cronJobArgs("rebalancer", "rebalancer")
			if !contains(args, "--dry-run") || image != testImage {
				t.Errorf("after the documented install: args %q, image %s; want a dry run of %s", args, image, testImage)
			}
			r.checkNotes(notesOf(t, out))
		case strings.Contains(s.command, "--set dryRun=false"):
			if args, _ := r.cronJobArgs("rebalancer", "rebalancer"); contains(args, "--dry-run") {
				t.Errorf("after dryRun=false the CronJob still dry-runs: %q", args)
			}
		case strings.HasPrefix(s.command, "kubectl apply --server-side -k kustomize/cronjob"):
			if _, image := r.cronJobArgs("rebalancer", "rebalancer"); image != testImage {
				t.Errorf("the overlay with the documented image.yaml runs image %s, want %s", image, testImage)
			}
			// local-config: read by kustomize, never applied.
			if _, err := cp.Client.CoreV1().ConfigMaps("rebalancer").Get(context.Background(), "rebalancer-image", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				t.Errorf("ConfigMap rebalancer-image reached the cluster (err %v)", err)
			}
		case strings.HasPrefix(s.command, "kubectl apply --server-side -k my-rebalancer"):
			args, image := r.cronJobArgs("rebalancer", "rebalancer")
			if !contains(args, "--dry-run") || image != testImage {
				t.Errorf("the documented overlay: args %q, image %s; want a dry run of %s", args, image, testImage)
			}
			cm, err := cp.Client.CoreV1().ConfigMaps("rebalancer").Get(context.Background(), "rebalancer-policy", metav1.GetOptions{})
			want, _ := os.ReadFile(filepath.Join(r.dir, "my-rebalancer", "policy.yaml"))
			if err != nil || cm.Data["policy.yaml"] != string(want) {
				t.Errorf("the overlay's policy is not the documented one (err %v):\n%s", err, cm.Data["policy.yaml"])
			}
		}
	}
}

// checkNotes checks what NOTES.txt tells the user to run: a command that
// docs/install.md has too is run there, in its place; any other is run now.
func (r *docRunner) checkNotes(notes string) {
	t := r.t
	found := 0
	for _, line := range strings.Split(notes, "\n") {
		cmd := strings.TrimSpace(line)
		switch {
		case !strings.HasPrefix(cmd, "helm ") && !strings.HasPrefix(cmd, "kubectl "):
		case r.commands[cmd]:
			found++
		case strings.HasPrefix(cmd, "helm "):
			// It would change the release under the document's feet.
			t.Errorf("NOTES.txt tells to run %q, which docs/install.md does not (and so no test runs)", cmd)
		default:
			found++
			r.run(cmd)
		}
	}
	if found < 4 {
		t.Errorf("NOTES.txt has %d commands; want the dry-run switch, the report, a manual run and the events:\n%s", found, notes)
	}
}
