package main

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kube-rebalancer/rebalancer/test/harness"
)

// An API server loaded by the fill may answer the count of Running pods
// with a timeout: the fill counts again at the next poll; any other error
// ends it.
func TestWaitRunningCountsAgainWhenTheAPIServerTimesOut(t *testing.T) {
	pods := schema.GroupResource{Resource: "pods"}
	for _, tt := range []struct {
		name    string
		first   error
		wantErr bool
	}{
		{name: "a server timeout", first: apierrors.NewServerTimeout(pods, "list", 1)},
		{name: "a request timeout", first: apierrors.NewTimeoutError("the request took too long", 1)},
		{name: "a refusal", first: apierrors.NewForbidden(pods, "", fmt.Errorf("no")), wantErr: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			client := fake.NewClientset()
			counts := 0
			client.PrependReactor("list", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
				if a.(k8stesting.ListActionImpl).ListOptions.FieldSelector != "" {
					return true, &corev1.PodList{}, nil // none pending
				}
				counts++
				if counts == 1 {
					return true, nil, tt.first
				}
				running := corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "team-0", Name: "app-0-x"},
					Status: corev1.PodStatus{Phase: corev1.PodRunning}}
				return true, &corev1.PodList{Items: []corev1.Pod{running}}, nil
			})
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			var c cluster
			err := c.waitRunning(ctx, &harness.ControlPlane{Client: client}, []string{"kwok-0"}, 1)
			if gotErr := err != nil; gotErr != tt.wantErr {
				t.Fatalf("waitRunning() = %v, want an error: %v", err, tt.wantErr)
			}
			if want := map[bool]int{false: 2, true: 1}[tt.wantErr]; counts != want {
				t.Errorf("counted %d times, want %d", counts, want)
			}
		})
	}
}
