package deploy

import (
	"context"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kube-rebalancer/rebalancer/test/harness"
)

// TestSchedulerUninstallGuard: with the chart's scheduler, `helm uninstall`
// is refused while a workload still names that scheduler (its pods would
// stay Pending for ever once the scheduler is gone): the release and its
// objects stay, and the kept Job's pod lists the workload and its waiting
// pods. Once the workload is gone, the uninstall goes through and takes
// the guard's own ServiceAccount and ClusterRole with it.
func TestSchedulerUninstallGuard(t *testing.T) {
	cp := controlPlane(t)
	ctx := context.Background()
	r := release{t: t, cp: cp, name: "guarded", ns: "uninstall-guard"}
	guardJob := r.fullname() + "-uninstall-guard"
	// A name of its own, so that other tests' workloads do not count.
	const scheduler = "guarded-scheduler"
	restrictedNamespace(t, cp, r.ns)
	k := startHookKubelet(t, cp, r.ns)
	if _, stderr, err := r.apply("install", "scheduler:\n  enabled: true\n  schedulerName: "+scheduler+"\n"); err != nil {
		t.Fatalf("helm install: %v\n%s", err, stderr)
	}

	apps := "uninstall-guard-apps"
	if _, err := cp.CreateNamespace(ctx, apps); err != nil {
		t.Fatal(err)
	}
	web := harness.WorkloadSpec{Namespace: apps, Name: "web", Replicas: 2, CPU: "100m", SchedulerName: scheduler}
	if _, err := cp.CreateDeployment(ctx, web); err != nil {
		t.Fatal(err)
	}
	// The ReplicaSet controller creates its pods, which nothing binds.
	err := harness.WaitFor(ctx, time.Minute, "web's Pending pods", func(ctx context.Context) (bool, error) {
		pods, err := cp.Client.CoreV1().Pods(apps).List(ctx, metav1.ListOptions{LabelSelector: web.Selector()})
		return err == nil && len(pods.Items) == 2, err
	})
	if err != nil {
		t.Fatal(err)
	}

	_, stderr, err := r.helm("uninstall", r.name, "--timeout", "2m")
	// Helm names the hook Job that failed.
	if err == nil || !strings.Contains(stderr, "job "+guardJob+" failed") {
		t.Fatalf("helm uninstall: err %v; want the guard's Job failed:\n%s", err, stderr)
	}
	run := lastRun(t, k, guardJob, 0)
	if len(run.containers) != 1 || run.containers[0].exitCode != 1 {
		t.Fatalf("the guard ran %+v; want one container that exits 1", run.containers)
	}
	out := strings.Join(strings.Fields(run.containers[0].output), " ") // the table's column widths do not matter
	for _, want := range []string{"Deployment " + apps + " web", "Pod " + apps + " web-", `3 object(s) still use scheduler "guarded-scheduler"`} {
		if !strings.Contains(out, want) {
			t.Errorf("the guard's output does not say %q:\n%s", want, run.containers[0].output)
		}
	}
	if got := r.releaseObjectsPresent(); len(got) != 5 {
		t.Errorf("after the refused uninstall: %q; want every object of the release kept", got)
	}
	if _, ok := r.job(guardJob); !ok {
		t.Errorf("the refusing Job %s was deleted; it must stay for kubectl logs", guardJob)
	}

	// The workload goes (in real life: moves to another scheduler).
	if err := cp.Client.AppsV1().Deployments(apps).Delete(ctx, "web", metav1.DeleteOptions{PropagationPolicy: ptrTo(metav1.DeletePropagationForeground)}); err != nil {
		t.Fatal(err)
	}
	err = harness.WaitFor(ctx, 2*time.Minute, "web and its pods to be gone", func(ctx context.Context) (bool, error) {
		pods, err := cp.Client.CoreV1().Pods(apps).List(ctx, metav1.ListOptions{LabelSelector: web.Selector()})
		if err != nil {
			return false, err
		}
		_, err = cp.Client.AppsV1().Deployments(apps).Get(ctx, "web", metav1.GetOptions{})
		return len(pods.Items) == 0 && apierrors.IsNotFound(err), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, stderr, err := r.helm("uninstall", r.name, "--timeout", "2m"); err != nil {
		t.Fatalf("helm uninstall with nothing using the scheduler: %v\n%s", err, stderr)
	}
	if run := lastRun(t, k, guardJob, 1); len(run.failed()) > 0 || !strings.Contains(run.containers[0].output, `Nothing uses scheduler "guarded-scheduler"`) {
		t.Errorf("the second guard run: %+v", run.containers)
	}
	if got := r.releaseObjectsPresent(); len(got) > 0 {
		t.Errorf("after the uninstall: %q are left", got)
	}
	if _, err := cp.Client.RbacV1().ClusterRoles().Get(ctx, guardJob, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the guard's ClusterRole outlived the uninstall (err %v)", err)
	}
}

func ptrTo[T any](v T) *T { return &v }
