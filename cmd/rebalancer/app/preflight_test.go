package app

import (
	"context"
	"errors"
	"strings"
	"testing"

	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kube-rebalancer/rebalancer/cluster/kube"
)

// reviewing answers access reviews: everything is allowed but what deny
// names, as describeGrant words it.
func reviewing(deny ...string) *fake.Clientset {
	client := fake.NewClientset()
	client.PrependReactor("create", "selfsubjectaccessreviews", func(a k8stesting.Action) (bool, runtime.Object, error) {
		review := a.(k8stesting.CreateAction).GetObject().(*authorizationv1.SelfSubjectAccessReview)
		what := describeGrant(*review.Spec.ResourceAttributes)
		review.Status.Allowed = true
		for _, d := range deny {
			review.Status.Allowed = review.Status.Allowed && what != d
		}
		if len(deny) == 1 && deny[0] == "error" {
			return true, nil, errors.New("the API server cannot review access")
		}
		return true, review, nil
	})
	return client
}

// A scheduler that may not list or watch what it caches, or take its
// Lease, fails before it starts, naming each permission it lacks, in the
// namespace and under the name it was told; one whose API server cannot
// review access starts anyway.
func TestRequirePermissionsNamesWhatIsMissing(t *testing.T) {
	where := scheduleScope(&kube.HistoryStore{Namespace: "ops", Name: "state"})
	where.namespaces["leases"], where.names[electionLease("schedule")] = "ops", "sched"
	tests := []struct {
		name string
		deny []string
		want []string // in the error; none: no error
	}{
		{name: "every permission granted"},
		{name: "no list on nodes", deny: []string{"list nodes cluster-wide"}, want: []string{"list nodes cluster-wide", "rebalancer rbac schedule"}},
		{name: "no watch on pods, no list of claims", deny: []string{"watch pods cluster-wide", "list persistentvolumeclaims cluster-wide"},
			want: []string{"watch pods cluster-wide", "list persistentvolumeclaims cluster-wide"}},
		// Refused one request at a time, with the API server's message,
		// and retried: a scheduler that may not bind yet still starts.
		{name: "no binding, no state", deny: []string{"create pods/binding cluster-wide", `get configmaps "state" in namespace ops`}},
		{name: "no update on the Lease", deny: []string{`update leases.coordination.k8s.io "sched" in namespace ops`},
			want: []string{`update leases.coordination.k8s.io "sched" in namespace ops`}},
		{name: "no access review", deny: []string{"error"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := requirePermissions(context.Background(), reviewing(tt.deny...), "schedule", schedulePermissions(true), where)
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatalf("requirePermissions() = %v, want nil", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("requirePermissions() = nil, want an error naming %q", tt.want)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not name %q", err, w)
				}
			}
		})
	}
}
