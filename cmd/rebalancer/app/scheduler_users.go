package app

import (
	"context"
	"fmt"
	"io"
	"sort"
	"text/tabwriter"

	"github.com/spf13/cobra"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/pager"
)

// schedulerUser is what waits for a scheduler once it is gone: a pod that
// only it would bind, or a workload whose new pods would name it.
type schedulerUser struct {
	kind, namespace, name string
}

func newSchedulerUsersCommand(s *settings) *cobra.Command {
	o := struct {
		kube          kubeFlags
		schedulerName string
	}{kube: kubeFlags{qps: 20, burst: 30}, schedulerName: "rebalancer"}
	c := &cobra.Command{
		Use:   "scheduler-users",
		Short: "List what would wait for ever if the scheduler were removed",
		Long: `List the pods and workloads that depend on a scheduler: Pending pods that name
it and are not bound yet, and the Deployments, StatefulSets, DaemonSets,
ReplicaSets, Jobs and CronJobs whose pod template names it. Once that
scheduler is gone nothing binds their pods, which stay Pending (a pod's
schedulerName cannot be changed).

Exit code 0 when nothing uses the scheduler, 1 when something does: the Helm
chart runs it before 'helm uninstall' (scheduler.uninstallGuard) and keeps
the scheduler while anything still needs it. docs/operations.md says how to
move workloads to another scheduler.`,
		Example: `  rebalancer scheduler-users --kubeconfig ~/.kube/config --scheduler-name rebalancer`,
		Args:    cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			client, _, err := o.kube.client(s.userAgent("rebalancer"))
			if err != nil {
				return err
			}
			users, err := schedulerUsers(c.Context(), client, o.schedulerName)
			if err != nil {
				return runtimeErr(err)
			}
			if len(users) == 0 {
				fmt.Fprintf(c.OutOrStdout(), "Nothing uses scheduler %q.\n", o.schedulerName)
				return nil
			}
			printSchedulerUsers(c.OutOrStdout(), users)
			return runtimeErr(fmt.Errorf("%d object(s) still use scheduler %q: point their pod templates at another scheduler "+
				"(spec.schedulerName) and delete their Pending pods first, or they stay Pending once it is gone", len(users), o.schedulerName))
		},
	}
	f := c.Flags()
	f.StringVar(&o.kube.kubeconfig, "kubeconfig", "", "kubeconfig file (default: $KUBECONFIG, ~/.kube/config, or the in-cluster configuration)")
	f.StringVar(&o.kube.context, "context", "", "kubeconfig context to use (default: the current context)")
	f.StringVar(&o.schedulerName, "scheduler-name", o.schedulerName, "the scheduler's name, as pods give it in spec.schedulerName")
	return c
}

func printSchedulerUsers(w io.Writer, users []schedulerUser) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "KIND\tNAMESPACE\tNAME")
	for _, u := range users {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", u.kind, u.namespace, u.name)
	}
	_ = tw.Flush()
}

// schedulerUsers lists, with paginated LISTs, what depends on the
// scheduler: workloads first, then unbound pods, each kind sorted by name.
// A ReplicaSet of a Deployment and a Job of a CronJob are left out: their
// owner is listed, and its template is the one to change.
func schedulerUsers(ctx context.Context, client kubernetes.Interface, name string) ([]schedulerUser, error) {
	var users []schedulerUser
	// collect lists one kind; template returns the object's pod template
	// spec, nil to leave the object out.
	collect := func(kind string, list pager.ListPageFunc, opts metav1.ListOptions, template func(runtime.Object) (metav1.Object, *corev1.PodSpec)) error {
		var found []schedulerUser
		err := pager.New(list).EachListItem(ctx, opts, func(obj runtime.Object) error {
			if meta, spec := template(obj); spec != nil && spec.SchedulerName == name {
				found = append(found, schedulerUser{kind: kind, namespace: meta.GetNamespace(), name: meta.GetName()})
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("listing %ss: %w", kind, err)
		}
		sort.Slice(found, func(i, j int) bool {
			return found[i].namespace+"/"+found[i].name < found[j].namespace+"/"+found[j].name
		})
		users = append(users, found...)
		return nil
	}
	controlledBy := func(o metav1.Object, kind string) bool {
		c := metav1.GetControllerOf(o)
		return c != nil && c.Kind == kind
	}
	apps, batch, core := client.AppsV1(), client.BatchV1(), client.CoreV1()
	all := metav1.ListOptions{}
	// Pods that only this scheduler would bind: Pending and unbound.
	waiting := metav1.ListOptions{FieldSelector: fields.AndSelectors(
		fields.OneTermEqualSelector("spec.schedulerName", name),
		fields.OneTermEqualSelector("spec.nodeName", ""),
		fields.OneTermEqualSelector("status.phase", string(corev1.PodPending)),
	).String()}
	for _, step := range []func() error{
		func() error {
			return collect("Deployment", func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
				return apps.Deployments("").List(ctx, o)
			}, all, func(obj runtime.Object) (metav1.Object, *corev1.PodSpec) {
				d := obj.(*appsv1.Deployment)
				return d, &d.Spec.Template.Spec
			})
		},
		func() error {
			return collect("StatefulSet", func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
				return apps.StatefulSets("").List(ctx, o)
			}, all, func(obj runtime.Object) (metav1.Object, *corev1.PodSpec) {
				d := obj.(*appsv1.StatefulSet)
				return d, &d.Spec.Template.Spec
			})
		},
		func() error {
			return collect("DaemonSet", func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
				return apps.DaemonSets("").List(ctx, o)
			}, all, func(obj runtime.Object) (metav1.Object, *corev1.PodSpec) {
				d := obj.(*appsv1.DaemonSet)
				return d, &d.Spec.Template.Spec
			})
		},
		func() error {
			return collect("ReplicaSet", func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
				return apps.ReplicaSets("").List(ctx, o)
			}, all, func(obj runtime.Object) (metav1.Object, *corev1.PodSpec) {
				rs := obj.(*appsv1.ReplicaSet)
				if controlledBy(rs, "Deployment") {
					return rs, nil
				}
				return rs, &rs.Spec.Template.Spec
			})
		},
		func() error {
			return collect("CronJob", func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
				return batch.CronJobs("").List(ctx, o)
			}, all, func(obj runtime.Object) (metav1.Object, *corev1.PodSpec) {
				cj := obj.(*batchv1.CronJob)
				return cj, &cj.Spec.JobTemplate.Spec.Template.Spec
			})
		},
		func() error {
			return collect("Job", func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
				return batch.Jobs("").List(ctx, o)
			}, all, func(obj runtime.Object) (metav1.Object, *corev1.PodSpec) {
				j := obj.(*batchv1.Job)
				// A finished Job makes no more pods.
				if controlledBy(j, "CronJob") || j.Status.CompletionTime != nil || jobFailed(j) {
					return j, nil
				}
				return j, &j.Spec.Template.Spec
			})
		},
		func() error {
			return collect("Pod", func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
				return core.Pods("").List(ctx, o)
			}, waiting, func(obj runtime.Object) (metav1.Object, *corev1.PodSpec) {
				p := obj.(*corev1.Pod)
				if p.Spec.NodeName != "" || p.Status.Phase != corev1.PodPending {
					return p, nil // bound already: it runs without the scheduler
				}
				return p, &p.Spec
			})
		},
	} {
		if err := step(); err != nil {
			return nil, err
		}
	}
	return users, nil
}

func jobFailed(j *batchv1.Job) bool {
	for _, c := range j.Status.Conditions {
		if c.Type == batchv1.JobFailed && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}
