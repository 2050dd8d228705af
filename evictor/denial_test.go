package evictor

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kube-rebalancer/rebalancer/planner"
)

// The API server's 403s and 422s on pods/eviction, as it words them.
var (
	rbacDenial = &apierrors.StatusError{ErrStatus: metav1.Status{
		Status: metav1.StatusFailure, Code: http.StatusForbidden, Reason: metav1.StatusReasonForbidden,
		Details: &metav1.StatusDetails{Name: "p1", Kind: "pods"},
		Message: `pods "p1" is forbidden: User "system:serviceaccount:rebalancer:rebalancer" cannot create resource "pods/eviction" in API group "" in the namespace "a"`}}
	webhookDenial = &apierrors.StatusError{ErrStatus: metav1.Status{
		Status: metav1.StatusFailure, Code: http.StatusForbidden, Reason: metav1.StatusReasonForbidden,
		Message: `admission webhook "validate.kyverno.svc-fail" denied the request: pod a/p1 may not be evicted during business hours`}}
	policyDenial = apierrors.NewForbidden(podsResource, "p1",
		errors.New(`ValidatingAdmissionPolicy 'no-evict' with binding 'no-evict' denied request: p1 is pinned`))
	policyInvalid = apierrors.NewInvalid(schema.GroupKind{Group: "policy", Kind: "Eviction"}, "p1", field.ErrorList{
		field.Invalid(field.NewPath(""), "p1", "ValidatingAdmissionPolicy 'no-evict' with binding 'no-evict' denied request: p1 is pinned")})
	namespaceTerminating = apierrors.NewForbidden(podsResource, "p1",
		errors.New("unable to create new content in namespace a because it is being terminated"))
	budgetNegative = apierrors.NewForbidden(schema.GroupResource{Group: "policy", Resource: "poddisruptionbudget"}, "web",
		errors.New("pdb disruptions allowed is negative"))
)

// reviews answers SelfSubjectAccessReviews with allowed, or with err, and
// keeps what was asked.
func reviews(api *fakeAPI, allowed bool, err error, asked *[]authorizationv1.ResourceAttributes) k8stesting.ReactionFunc {
	return func(a k8stesting.Action) (bool, runtime.Object, error) {
		r := a.(k8stesting.CreateAction).GetObject().(*authorizationv1.SelfSubjectAccessReview)
		api.mu.Lock()
		*asked = append(*asked, *r.Spec.ResourceAttributes)
		api.mu.Unlock()
		if err != nil {
			return true, nil, err
		}
		r = r.DeepCopy()
		r.Status.Allowed = allowed
		if !allowed {
			r.Status.Reason = "no RBAC policy matched"
		}
		return true, r, nil
	}
}

// A 403 is fatal only when rebalancer lacks the permission, as the
// authorizer says through a SelfSubjectAccessReview; any other refusal of one
// pod's eviction (admission, a namespace being deleted, the eviction
// subresource's own checks) is that move's result, and the run goes on.
func TestEvictionDenials(t *testing.T) {
	tests := []struct {
		name      string
		answer    error
		allowed   bool  // the SelfSubjectAccessReview's answer
		reviewErr error // or its failure
		want      Result
		message   string // in the outcome of p1
		fatal     bool
		reviewed  bool
	}{
		{
			name: "403: no RBAC permission stops the run", answer: rbacDenial, allowed: false,
			want: Failed, fatal: true, reviewed: true, message: "cannot create resource",
		},
		{
			name: "403 from an admission webhook: denied, the run goes on", answer: webhookDenial, allowed: true,
			want: Denied, reviewed: true, message: `admission webhook "validate.kyverno.svc-fail" denied the request`,
		},
		{
			name: "403 from a ValidatingAdmissionPolicy with reason Forbidden", answer: policyDenial, allowed: true,
			want: Denied, reviewed: true, message: "ValidatingAdmissionPolicy 'no-evict' with binding 'no-evict' denied request",
		},
		{
			name: "403 in a namespace being deleted", answer: namespaceTerminating, allowed: true,
			want: Denied, reviewed: true, message: "because it is being terminated",
		},
		{
			name: "403 from the eviction subresource's own PodDisruptionBudget check", answer: budgetNegative, allowed: true,
			want: Denied, reviewed: true, message: "pdb disruptions allowed is negative",
		},
		{
			name: "403 and the access review fails: stop, a missing permission cannot be ruled out", answer: webhookDenial,
			reviewErr: apierrors.NewServiceUnavailable("etcd leader changed"),
			want:      Failed, fatal: true, reviewed: true,
		},
		{
			name: "422 from a ValidatingAdmissionPolicy without a reason: denied without retries", answer: policyInvalid,
			want: Denied, message: "ValidatingAdmissionPolicy 'no-evict' with binding 'no-evict' denied request",
		},
		{
			name: "401: the credentials are refused, the run stops", answer: apierrors.NewUnauthorized("Unauthorized"),
			want: Failed, fatal: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			api := &fakeAPI{answers: map[string][]error{"a/p1": {tt.answer, tt.answer, tt.answer}}}
			client := newClient(api)
			var asked []authorizationv1.ResourceAttributes
			client.PrependReactor("create", "selfsubjectaccessreviews", reviews(api, tt.allowed, tt.reviewErr, &asked))
			rec := &recording{}
			e := &Evictor{Client: client, Backoff: fastBackoff(), Recorder: rec}
			outcomes, err := e.Execute(context.Background(), &planner.Plan{Moves: []planner.Move{move("a/p1"), move("a/p2")}})

			var fatal *FatalError
			if got := errors.As(err, &fatal); got != tt.fatal {
				t.Errorf("Execute() error = %v, want fatal %v", err, tt.fatal)
			}
			if o := outcomes[0]; o.Result != tt.want || !strings.Contains(o.Message, tt.message) {
				t.Errorf("a/p1: %s (%q), want %s with %q", o.Result, o.Message, tt.want, tt.message)
			}
			wantNext := Evicted
			if tt.fatal {
				wantNext = NotAttempted
			}
			if o := outcomes[1]; o.Result != wantNext {
				t.Errorf("a/p2: %s (%s), want %s", o.Result, o.Message, wantNext)
			}
			if n := api.attempts["a/p1"]; n != 1 {
				t.Errorf("a/p1: %d attempts, want 1: the answer would not change", n)
			}
			want := authorizationv1.ResourceAttributes{Namespace: "a", Verb: "create", Resource: "pods", Subresource: "eviction", Name: "p1"}
			switch {
			case tt.reviewed && (len(asked) != 1 || asked[0] != want):
				t.Errorf("access reviews %+v, want one for %+v", asked, want)
			case !tt.reviewed && len(asked) != 0:
				t.Errorf("access reviews %+v, want none", asked)
			}
			if tt.want == Denied && (len(rec.denied) != 1 || rec.denied[0] != outcomes[0].Message) {
				t.Errorf("recorded denials %q, want the outcome's message", rec.denied)
			}
			if tt.fatal && fatal != nil && tt.reviewErr == nil && tt.reviewed && !strings.Contains(fatal.Error(), "lacks create on pods/eviction in namespace a") {
				t.Errorf("fatal error %q does not say which permission is missing", fatal)
			}
		})
	}
}

type recording struct{ denied []string }

func (*recording) Evicted(planner.Move)         {}
func (*recording) Refused(planner.Move, string) {}
func (r *recording) Denied(_ planner.Move, message string) {
	r.denied = append(r.denied, message)
}
