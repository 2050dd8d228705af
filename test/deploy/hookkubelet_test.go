package deploy

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"

	"github.com/kube-rebalancer/rebalancer/test/harness"
)

// hookKubelet stands in for the kubelet for the pods of Helm hook Jobs in
// one namespace, which the test control plane has no kubelet for: it binds
// each new one to a Node of its own (one kwok does not manage, so nothing
// else plays the pod), runs every container's command on this machine with
// the binary the Dockerfile builds and its ConfigMap mounts written to a
// directory, and writes the outcome to the pod's status as a kubelet does.
// The Job controller and Helm take it from there.
type hookKubelet struct {
	t        *testing.T
	cp       *harness.ControlPlane
	ns, node string

	mu   sync.Mutex
	runs []hookRun
	seen map[types.UID]bool

	stop, done chan struct{}
}

// hookRun is one pod the stand-in ran.
type hookRun struct {
	job, pod   string
	containers []containerRun
}

type containerRun struct {
	name     string
	exitCode int32
	output   string // stdout and stderr, as `kubectl logs` shows them
}

// failed returns the containers that exited with a non-zero code.
func (r hookRun) failed() []string {
	var names []string
	for _, c := range r.containers {
		if c.exitCode != 0 {
			names = append(names, c.name)
		}
	}
	return names
}

// Limits of the termination message the kubelet takes from the end of the
// logs under FallbackToLogsOnError.
const (
	terminationMessageLines = 80
	terminationMessageBytes = 2048
)

// startHookKubelet starts the stand-in for namespace ns; it stops, and its
// Node is deleted, when the test ends.
func startHookKubelet(t *testing.T, cp *harness.ControlPlane, ns string) *hookKubelet {
	t.Helper()
	ctx := context.Background()
	// Built before the first hook runs, so that a cold build does not eat
	// into the Job's activeDeadlineSeconds.
	rebalancerBinary(t)
	node := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: "hook-kubelet-" + ns, Labels: map[string]string{"rebalancer.test/hook-kubelet": ns}},
		Spec: corev1.NodeSpec{
			// Binding ignores both; the rebalancer's cycles, which other
			// tests run against the same cluster, must not see a free node.
			Unschedulable: true,
			Taints:        []corev1.Taint{{Key: "rebalancer.test/hook-kubelet", Effect: corev1.TaintEffectNoSchedule}},
		},
	}
	if _, err := cp.Client.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil {
		t.Fatalf("the hook pods' Node: %v", err)
	}
	k := &hookKubelet{t: t, cp: cp, ns: ns, node: node.Name, seen: map[types.UID]bool{}, stop: make(chan struct{}), done: make(chan struct{})}
	go k.loop()
	t.Cleanup(func() {
		close(k.stop)
		<-k.done
		if err := cp.Client.CoreV1().Nodes().Delete(context.Background(), node.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("deleting Node %s: %v", node.Name, err)
		}
	})
	return k
}

func (k *hookKubelet) loop() {
	defer close(k.done)
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-k.stop:
			return
		case <-tick.C:
			k.sync()
		}
	}
}

// sync runs the hook pods that appeared since the last call.
func (k *hookKubelet) sync() {
	ctx := context.Background()
	pods, err := k.cp.Client.CoreV1().Pods(k.ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		k.t.Errorf("listing pods in %s: %v", k.ns, err)
		return
	}
	for i := range pods.Items {
		p := &pods.Items[i]
		if k.seen[p.UID] || p.Status.Phase != corev1.PodPending || p.DeletionTimestamp != nil {
			continue
		}
		job, hook, err := k.hookJob(ctx, p)
		if err != nil {
			k.t.Errorf("the Job of pod %s/%s: %v", k.ns, p.Name, err)
			continue
		}
		if !hook {
			k.seen[p.UID] = true
			continue
		}
		run, ok := k.runPod(ctx, job, p)
		if !ok {
			// A ConfigMap it mounts is not there (yet): a kubelet keeps
			// such a pod in ContainerCreating and tries again.
			continue
		}
		k.seen[p.UID] = true
		k.mu.Lock()
		k.runs = append(k.runs, run)
		k.mu.Unlock()
	}
}

// hookJob returns the name of the Helm hook Job that owns the pod. Other
// pods (a CronJob's run) are left alone, as on a cluster whose kubelet is
// somewhere else.
func (k *hookKubelet) hookJob(ctx context.Context, p *corev1.Pod) (string, bool, error) {
	o := metav1.GetControllerOf(p)
	if o == nil || o.Kind != "Job" {
		return "", false, nil
	}
	j, err := k.cp.Client.BatchV1().Jobs(k.ns).Get(ctx, o.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		// The Job was deleted before the garbage collector reached its
		// pod: an orphan about to go, not a hook to run.
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	_, hook := j.Annotations[hookAnnotation]
	return j.Name, hook && j.UID == o.UID, nil
}

// runPod binds the pod, runs its containers and writes its status.
func (k *hookKubelet) runPod(ctx context.Context, job string, p *corev1.Pod) (hookRun, bool) {
	t := k.t
	root, err := os.MkdirTemp("", "rebalancer-hook-pod-")
	if err != nil {
		t.Errorf("%v", err)
		return hookRun{}, false
	}
	defer os.RemoveAll(root)
	mounts, ok := k.writeVolumes(ctx, p, root)
	if !ok {
		return hookRun{}, false
	}
	if p.Spec.NodeName == "" {
		if err := k.cp.BindPod(ctx, k.ns, p.Name, k.node); err != nil {
			t.Errorf("binding %s/%s: %v", k.ns, p.Name, err)
			return hookRun{}, false
		}
	}
	run := hookRun{job: job, pod: p.Name}
	started := metav1.Now()
	var statuses []corev1.ContainerStatus
	for _, c := range p.Spec.Containers {
		cr, st := k.runContainer(p, c, mounts)
		run.containers = append(run.containers, cr)
		st.State.Terminated.StartedAt = started
		statuses = append(statuses, st)
	}
	phase := corev1.PodSucceeded
	if len(run.failed()) > 0 {
		phase = corev1.PodFailed
	}
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cur, err := k.cp.Client.CoreV1().Pods(k.ns).Get(ctx, p.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		cur.Status.Phase = phase
		cur.Status.StartTime = &started
		cur.Status.ContainerStatuses = statuses
		_, err = k.cp.Client.CoreV1().Pods(k.ns).UpdateStatus(ctx, cur, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Errorf("writing the status of %s/%s: %v", k.ns, p.Name, err)
	}
	return run, true
}

// writeVolumes writes the ConfigMaps the pod mounts, as the API server has
// them now, each to a directory; it returns volume name -> directory. Any
// other kind of volume is one this stand-in cannot provide.
func (k *hookKubelet) writeVolumes(ctx context.Context, p *corev1.Pod, root string) (map[string]string, bool) {
	dirs := map[string]string{}
	for _, v := range p.Spec.Volumes {
		if v.Projected != nil && strings.HasPrefix(v.Name, "kube-api-access-") {
			continue // the ServiceAccount token: runContainer gives it as a kubeconfig
		}
		if v.ConfigMap == nil {
			k.t.Errorf("pod %s/%s has volume %s, which is not a ConfigMap", k.ns, p.Name, v.Name)
			return nil, false
		}
		cm, err := k.cp.Client.CoreV1().ConfigMaps(k.ns).Get(ctx, v.ConfigMap.Name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return nil, false
		}
		if err != nil {
			k.t.Errorf("ConfigMap %s/%s: %v", k.ns, v.ConfigMap.Name, err)
			return nil, false
		}
		dir := filepath.Join(root, v.Name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			k.t.Errorf("%v", err)
			return nil, false
		}
		for name, data := range cm.Data {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
				k.t.Errorf("%v", err)
				return nil, false
			}
		}
		dirs[v.Name] = dir
	}
	return dirs, true
}

// runContainer runs the container's args with the image's entrypoint, the
// rebalancer binary. A pod that mounts its ServiceAccount's token talks to
// the API server as that ServiceAccount; any other has no way to reach it.
func (k *hookKubelet) runContainer(p *corev1.Pod, c corev1.Container, mounts map[string]string) (containerRun, corev1.ContainerStatus) {
	where := fmt.Sprintf("pod %s/%s container %s", k.ns, p.Name, c.Name)
	if len(c.Command) > 0 || len(c.Env) > 0 || len(c.EnvFrom) > 0 {
		k.t.Errorf("%s: command %q, env %v: this stand-in runs the image's entrypoint without environment", where, c.Command, c.Env)
	}
	args := append([]string(nil), c.Args...)
	for _, m := range c.VolumeMounts {
		for i, a := range args {
			if a == m.MountPath || strings.HasPrefix(a, m.MountPath+"/") {
				args[i] = mounts[m.Name] + strings.TrimPrefix(a, m.MountPath)
			}
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), commandTimeout)
	defer cancel()
	if p.Spec.AutomountServiceAccountToken == nil || *p.Spec.AutomountServiceAccountToken {
		sa := p.Spec.ServiceAccountName
		if sa == "" {
			sa = "default"
		}
		kubeconfig, _, err := k.cp.ServiceAccountKubeconfig(ctx, k.ns, sa)
		if err != nil {
			k.t.Errorf("%s: the token of ServiceAccount %s: %v", where, sa, err)
		}
		args = append(args, "--kubeconfig="+kubeconfig)
	}
	cmd := exec.CommandContext(ctx, rebalancerBinary(k.t), args...)
	// helmEnv's KUBECONFIG names no cluster: a check that needed one fails.
	cmd.Env = helmEnv()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	code := int32(0)
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			k.t.Errorf("%s: %v", where, err)
			code = 128
		} else {
			code = int32(ee.ExitCode())
		}
	}
	run := containerRun{name: c.Name, exitCode: code, output: out.String()}
	term := &corev1.ContainerStateTerminated{ExitCode: code, Reason: "Completed", FinishedAt: metav1.Now()}
	if code != 0 {
		term.Reason = "Error"
		// The binary writes no /dev/termination-log.
		if c.TerminationMessagePolicy == corev1.TerminationMessageFallbackToLogsOnError {
			term.Message = logTail(run.output)
		}
	}
	return run, corev1.ContainerStatus{
		Name:        c.Name,
		Image:       c.Image,
		ImageID:     c.Image,
		ContainerID: "hook-kubelet://" + string(p.UID) + "/" + c.Name,
		State:       corev1.ContainerState{Terminated: term},
	}
}

// logTail is the end of a container's logs the kubelet makes its
// termination message: the last lines, cut to the size limit from the end.
func logTail(logs string) string {
	lines := strings.SplitAfter(logs, "\n")
	if len(lines) > terminationMessageLines+1 {
		lines = lines[len(lines)-terminationMessageLines-1:]
	}
	s := strings.Join(lines, "")
	if len(s) > terminationMessageBytes {
		s = s[len(s)-terminationMessageBytes:]
	}
	return s
}

// ran returns the pods of a hook Job the stand-in has run, oldest first.
func (k *hookKubelet) ran(job string) []hookRun {
	k.mu.Lock()
	defer k.mu.Unlock()
	var out []hookRun
	for _, r := range k.runs {
		if r.job == job {
			out = append(out, r)
		}
	}
	return out
}
