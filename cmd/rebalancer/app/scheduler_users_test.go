package app

import (
	"context"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/utils/ptr"
)

func podSpecFor(scheduler string) corev1.PodSpec {
	return corev1.PodSpec{SchedulerName: scheduler, Containers: []corev1.Container{{Name: "app", Image: "registry.example/app"}}}
}

func objMeta(ns, name string, owner ...metav1.OwnerReference) metav1.ObjectMeta {
	return metav1.ObjectMeta{Namespace: ns, Name: name, OwnerReferences: owner}
}

func controller(kind, name string) metav1.OwnerReference {
	return metav1.OwnerReference{Kind: kind, Name: name, Controller: ptr.To(true)}
}

// What would wait for ever once the scheduler is gone: pods it has not
// bound yet, and every workload whose new pods would name it. Bound pods
// run without it; a ReplicaSet of a Deployment and a Job of a CronJob are
// named by their owner; a finished Job makes no more pods.
func TestSchedulerUsers(t *testing.T) {
	tmpl := func(s string) corev1.PodTemplateSpec { return corev1.PodTemplateSpec{Spec: podSpecFor(s)} }
	objs := []runtime.Object{
		&appsv1.Deployment{ObjectMeta: objMeta("shop", "web"), Spec: appsv1.DeploymentSpec{Template: tmpl("rebalancer")}},
		&appsv1.Deployment{ObjectMeta: objMeta("shop", "api"), Spec: appsv1.DeploymentSpec{Template: tmpl("default-scheduler")}},
		&appsv1.ReplicaSet{ObjectMeta: objMeta("shop", "web-7d9f8", controller("Deployment", "web")), Spec: appsv1.ReplicaSetSpec{Template: tmpl("rebalancer")}},
		&appsv1.ReplicaSet{ObjectMeta: objMeta("shop", "legacy"), Spec: appsv1.ReplicaSetSpec{Template: tmpl("rebalancer")}},
		&appsv1.StatefulSet{ObjectMeta: objMeta("data", "db"), Spec: appsv1.StatefulSetSpec{Template: tmpl("rebalancer")}},
		&appsv1.DaemonSet{ObjectMeta: objMeta("kube-system", "agent"), Spec: appsv1.DaemonSetSpec{Template: tmpl("rebalancer")}},
		&batchv1.CronJob{ObjectMeta: objMeta("batch", "report"), Spec: batchv1.CronJobSpec{JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{Template: tmpl("rebalancer")}}}},
		&batchv1.Job{ObjectMeta: objMeta("batch", "report-29123", controller("CronJob", "report")), Spec: batchv1.JobSpec{Template: tmpl("rebalancer")}},
		&batchv1.Job{ObjectMeta: objMeta("batch", "migrate"), Spec: batchv1.JobSpec{Template: tmpl("rebalancer")}},
		&batchv1.Job{ObjectMeta: objMeta("batch", "done"), Spec: batchv1.JobSpec{Template: tmpl("rebalancer")},
			Status: batchv1.JobStatus{CompletionTime: &metav1.Time{}}},
		&corev1.Pod{ObjectMeta: objMeta("shop", "web-7d9f8-pending"), Spec: podSpecFor("rebalancer"), Status: corev1.PodStatus{Phase: corev1.PodPending}},
		&corev1.Pod{ObjectMeta: objMeta("shop", "web-7d9f8-running"), Spec: func() corev1.PodSpec { s := podSpecFor("rebalancer"); s.NodeName = "n1"; return s }(),
			Status: corev1.PodStatus{Phase: corev1.PodRunning}},
		&corev1.Pod{ObjectMeta: objMeta("shop", "api-pending"), Spec: podSpecFor("default-scheduler"), Status: corev1.PodStatus{Phase: corev1.PodPending}},
	}
	client := fake.NewClientset(objs...)
	users, err := schedulerUsers(context.Background(), client, "rebalancer")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, u := range users {
		got = append(got, u.kind+" "+u.namespace+"/"+u.name)
	}
	want := []string{
		"Deployment shop/web", "StatefulSet data/db", "DaemonSet kube-system/agent", "ReplicaSet shop/legacy",
		"CronJob batch/report", "Job batch/migrate", "Pod shop/web-7d9f8-pending",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("users:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
	checkPermissions(t, schedulerUsersPermissions(), client.Actions())
}
