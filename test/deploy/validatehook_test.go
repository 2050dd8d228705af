package deploy

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kube-rebalancer/rebalancer/test/harness"
)

// Values that the chart's schema accepts and the binary refuses.
const (
	// LowNodeUtilization (on by default) and HighNodeUtilization undo each
	// other.
	conflictingStrategies = `policy:
  strategies:
    HighNodeUtilization:
      thresholds: {cpu: 20, memory: 20}
`
	// The policy simulates kube-scheduler, so only the scheduler's own
	// configuration names the plugin that does not exist.
	unknownSchedulerPlugin = `policy:
  scheduler:
    schedulerName: default-scheduler
scheduler:
  enabled: true
  profile:
    plugins:
      score:
        enabled: [{name: NoSuchPlugin}]
`
)

// release runs helm against the test control plane for one release.
type release struct {
	t        *testing.T
	cp       *harness.ControlPlane
	name, ns string
}

func (r release) fullname() string { return r.name + "-rebalancer" }
func (r release) hookJob() string  { return r.fullname() + "-validate" }

// helm runs a helm command for the release; it returns the error rather
// than failing, since failing is what some installs here must do.
func (r release) helm(args ...string) (string, string, error) {
	r.t.Helper()
	args = append(args, "--kubeconfig", r.cp.Kubeconfig, "--namespace", r.ns)
	return runErr(repoRoot(r.t), nil, tools(r.t).helm, args...)
}

// apply runs `helm install` or `helm upgrade` with values given as YAML.
func (r release) apply(verb string, values string) (string, string, error) {
	r.t.Helper()
	args := append([]string{verb, r.name, chartDir(r.t), "--timeout", "2m"}, withTestImage...)
	if values != "" {
		args = append(args, "--values", writeFile(r.t, r.t.TempDir(), "values.yaml", values))
	}
	return r.helm(args...)
}

type revision struct {
	Revision int    `json:"revision"`
	Status   string `json:"status"`
}

func (r release) history() []revision {
	r.t.Helper()
	out, stderr, err := r.helm("history", r.name, "-o", "json")
	if err != nil {
		r.t.Fatalf("helm history %s: %v\n%s", r.name, err, stderr)
	}
	var h []revision
	if err := json.Unmarshal([]byte(out), &h); err != nil {
		r.t.Fatalf("helm history: %v\n%s", err, out)
	}
	return h
}

// lastRun returns the pod of the hook Job the stand-in ran after the
// first `before` ones, failing unless exactly one new pod ran.
func lastRun(t *testing.T, k *hookKubelet, job string, before int) hookRun {
	t.Helper()
	runs := k.ran(job)
	if len(runs) != before+1 {
		t.Fatalf("the hook Job %s ran %d pods; want 1", job, len(runs)-before)
	}
	return runs[len(runs)-1]
}

func (r release) exists(kind string, get func(ctx context.Context, name string, o metav1.GetOptions) error, name string) bool {
	r.t.Helper()
	err := get(context.Background(), name, metav1.GetOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		r.t.Fatalf("%s %s: %v", kind, name, err)
	}
	return err == nil
}

// releaseObjectsPresent lists which of the release's own objects exist.
func (r release) releaseObjectsPresent() []string {
	r.t.Helper()
	c := r.cp.Client
	name := r.fullname()
	var present []string
	for _, o := range []struct {
		kind, name string
		get        func(ctx context.Context, name string, o metav1.GetOptions) error
	}{
		{"CronJob", name, func(ctx context.Context, n string, o metav1.GetOptions) error {
			_, err := c.BatchV1().CronJobs(r.ns).Get(ctx, n, o)
			return err
		}},
		{"ConfigMap", name + "-policy", func(ctx context.Context, n string, o metav1.GetOptions) error {
			_, err := c.CoreV1().ConfigMaps(r.ns).Get(ctx, n, o)
			return err
		}},
		{"ServiceAccount", name, func(ctx context.Context, n string, o metav1.GetOptions) error {
			_, err := c.CoreV1().ServiceAccounts(r.ns).Get(ctx, n, o)
			return err
		}},
		{"ClusterRole", name, func(ctx context.Context, n string, o metav1.GetOptions) error {
			_, err := c.RbacV1().ClusterRoles().Get(ctx, n, o)
			return err
		}},
		{"Deployment", name + "-scheduler", func(ctx context.Context, n string, o metav1.GetOptions) error {
			_, err := c.AppsV1().Deployments(r.ns).Get(ctx, n, o)
			return err
		}},
	} {
		if r.exists(o.kind, o.get, o.name) {
			present = append(present, o.kind+" "+o.name)
		}
	}
	return present
}

func (r release) job(name string) (*batchv1.Job, bool) {
	r.t.Helper()
	j, err := r.cp.Client.BatchV1().Jobs(r.ns).Get(context.Background(), name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, false
	}
	if err != nil {
		r.t.Fatal(err)
	}
	return j, true
}

// checkFailedHook checks what a user finds after a refused policy: the
// failed Job is kept, and its pod's status names the reason.
func (r release) checkFailedHook(run hookRun, wantFailed []string, wantMessage string) {
	t := r.t
	t.Helper()
	if got := run.failed(); !reflect.DeepEqual(got, wantFailed) {
		t.Errorf("failed containers %q; want %q", got, wantFailed)
	}
	j, ok := r.job(r.hookJob())
	if !ok {
		t.Fatalf("the failed Job %s was deleted; it must stay for kubectl logs", r.hookJob())
	}
	failed := false
	for _, c := range j.Status.Conditions {
		failed = failed || (c.Type == batchv1.JobFailed && c.Status == corev1.ConditionTrue)
	}
	if !failed {
		t.Errorf("Job %s conditions %+v; want Failed", j.Name, j.Status.Conditions)
	}
	pod, err := r.cp.Client.CoreV1().Pods(r.ns).Get(context.Background(), run.pod, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("the failed check's pod: %v", err)
	}
	for _, cs := range pod.Status.ContainerStatuses {
		if !contains(wantFailed, cs.Name) {
			continue
		}
		term := cs.State.Terminated
		if term == nil || term.ExitCode != 2 || !strings.Contains(term.Message, wantMessage) {
			t.Errorf("container %s ended %+v; want exit code 2 and a message that says %q", cs.Name, term, wantMessage)
		}
	}
}

// TestValidationHook installs and upgrades the chart with helm against the
// test control plane, its pre-install/pre-upgrade hook run by the stand-in
// kubelet: a valid policy installs and the check's objects are gone; a
// policy the binary refuses (though the schema accepts it) fails `helm
// install` before any of the release's objects exist, and keeps the failed
// Job with the reason in its pod's status; a refused `helm upgrade` leaves
// the running revision and its policy as they were, and the next good
// upgrade replaces the failed Job.
func TestValidationHook(t *testing.T) {
	cp := controlPlane(t)

	t.Run("valid policy installs", func(t *testing.T) {
		r := release{t: t, cp: cp, name: "good", ns: "validate-good"}
		restrictedNamespace(t, cp, r.ns)
		k := startHookKubelet(t, cp, r.ns)
		if _, stderr, err := r.apply("install", ""); err != nil {
			t.Fatalf("helm install: %v\n%s", err, stderr)
		}
		run := lastRun(t, k, r.hookJob(), 0)
		if len(run.containers) != 1 || run.containers[0].exitCode != 0 || !strings.Contains(run.containers[0].output, "valid; strategies: RemoveDuplicates, LowNodeUtilization") {
			t.Errorf("the check ran %+v; want one container that validates the default policy", run.containers)
		}
		if got := r.releaseObjectsPresent(); len(got) != 4 {
			t.Errorf("after the install: %q; want the CronJob, its policy, ServiceAccount and ClusterRole", got)
		}
		if h := r.history(); len(h) != 1 || h[0].Status != "deployed" {
			t.Errorf("helm history %+v; want revision 1 deployed", h)
		}
		if _, ok := r.job(r.hookJob()); ok {
			t.Errorf("the succeeded check's Job %s is still there", r.hookJob())
		}
		if _, err := cp.Client.CoreV1().ConfigMaps(r.ns).Get(context.Background(), r.hookJob(), metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("the succeeded check's ConfigMap is still there (err %v)", err)
		}
	})

	for _, c := range []struct {
		name, release, values string
		wantFailed            []string
		wantMessage           string
	}{
		{"conflicting strategies", "conflict", conflictingStrategies, []string{"policy"}, "cannot be configured together with LowNodeUtilization"},
		{"unknown scheduler plugin", "plugin", unknownSchedulerPlugin, []string{"scheduler-config"}, `"NoSuchPlugin" is not a known plugin`},
	} {
		t.Run("install refused: "+c.name, func(t *testing.T) {
			r := release{t: t, cp: cp, name: c.release, ns: "validate-" + c.release}
			// The schema has nothing against it: only the binary's rules do.
			helmTemplate(t, r.name, r.ns, "--values", writeFile(t, t.TempDir(), "values.yaml", c.values))
			restrictedNamespace(t, cp, r.ns)
			k := startHookKubelet(t, cp, r.ns)
			_, stderr, err := r.apply("install", c.values)
			if err == nil || !strings.Contains(stderr, "pre-install") {
				t.Fatalf("helm install: err %v; want a failed pre-install hook:\n%s", err, stderr)
			}
			run := lastRun(t, k, r.hookJob(), 0)
			if got := r.releaseObjectsPresent(); len(got) > 0 {
				t.Errorf("a refused install created %q", got)
			}
			r.checkFailedHook(run, c.wantFailed, c.wantMessage)
		})
	}

	t.Run("validation.enabled=false installs a refused policy", func(t *testing.T) {
		r := release{t: t, cp: cp, name: "unchecked", ns: "validate-unchecked"}
		restrictedNamespace(t, cp, r.ns)
		k := startHookKubelet(t, cp, r.ns)
		if _, stderr, err := r.apply("install", conflictingStrategies+"validation:\n  enabled: false\n"); err != nil {
			t.Fatalf("helm install: %v\n%s", err, stderr)
		}
		if runs := k.ran(r.hookJob()); len(runs) != 0 {
			t.Errorf("the check ran %d times", len(runs))
		}
		if got := r.releaseObjectsPresent(); len(got) != 4 {
			t.Errorf("after the install: %q", got)
		}
	})

	t.Run("refused upgrade keeps the running revision", func(t *testing.T) {
		ctx := context.Background()
		r := release{t: t, cp: cp, name: "upgrade", ns: "validate-upgrade"}
		restrictedNamespace(t, cp, r.ns)
		k := startHookKubelet(t, cp, r.ns)
		if _, stderr, err := r.apply("install", ""); err != nil {
			t.Fatalf("helm install: %v\n%s", err, stderr)
		}
		policyCM := r.fullname() + "-policy"
		before, err := cp.Client.CoreV1().ConfigMaps(r.ns).Get(ctx, policyCM, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}

		_, stderr, err := r.apply("upgrade", conflictingStrategies)
		if err == nil || !strings.Contains(stderr, "pre-upgrade") {
			t.Fatalf("helm upgrade: err %v; want a failed pre-upgrade hook:\n%s", err, stderr)
		}
		r.checkFailedHook(lastRun(t, k, r.hookJob(), 1), []string{"policy"}, "cannot be configured together with LowNodeUtilization")
		after, err := cp.Client.CoreV1().ConfigMaps(r.ns).Get(ctx, policyCM, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if after.ResourceVersion != before.ResourceVersion || !reflect.DeepEqual(after.Data, before.Data) {
			t.Errorf("the refused upgrade changed the running policy:\n%s", after.Data["policy.yaml"])
		}
		want := []revision{{1, "deployed"}, {2, "failed"}}
		if h := r.history(); !reflect.DeepEqual(h, want) {
			t.Errorf("helm history %+v; want %+v", h, want)
		}

		// The failed Job goes before the next check is created.
		if _, stderr, err := r.apply("upgrade", "policy:\n  limits:\n    total: 10\n"); err != nil {
			t.Fatalf("a valid upgrade after the refused one: %v\n%s", err, stderr)
		}
		if run := lastRun(t, k, r.hookJob(), 2); len(run.failed()) > 0 {
			t.Errorf("the valid upgrade's check failed: %+v", run.containers)
		}
		if _, ok := r.job(r.hookJob()); ok {
			t.Errorf("the check's Job %s is still there after a valid upgrade", r.hookJob())
		}
		cm, err := cp.Client.CoreV1().ConfigMaps(r.ns).Get(ctx, policyCM, metav1.GetOptions{})
		if err != nil || !strings.Contains(cm.Data["policy.yaml"], "total: 10") {
			t.Errorf("the valid upgrade did not reach the policy (err %v):\n%s", err, cm.Data["policy.yaml"])
		}
		if h := r.history(); len(h) != 3 || h[2].Status != "deployed" {
			t.Errorf("helm history %+v; want revision 3 deployed", h)
		}
	})
}
