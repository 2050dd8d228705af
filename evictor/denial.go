package evictor

import (
	"context"
	"errors"
	"fmt"
	"strings"

	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"

	"github.com/kube-rebalancer/rebalancer/planner"
)

// forbidden sorts out a 403. RBAC answers 403 when rebalancer lacks the
// permission, and so do an admission webhook or a ValidatingAdmissionPolicy
// that denies the eviction (with reason Forbidden), the NamespaceLifecycle
// plugin in a namespace being deleted, and the eviction subresource's own
// checks of a PodDisruptionBudget it cannot trust. Only the first makes
// every later eviction fail; the others concern one pod, and a run that
// stopped on them would stop on the same pod in every later run, since plans
// are deterministic. The authorizer itself tells which it is.
func (e *Evictor) forbidden(ctx context.Context, m planner.Move, err error) (Outcome, error) {
	ns, name, _ := strings.Cut(m.Pod, "/")
	review, reviewErr := e.Client.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, &authorizationv1.SelfSubjectAccessReview{
		Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &authorizationv1.ResourceAttributes{
			Namespace: ns, Verb: "create", Resource: "pods", Subresource: "eviction", Name: name,
		}},
	}, metav1.CreateOptions{})
	switch {
	case reviewErr != nil:
		// Without the authorizer's answer a missing permission cannot be
		// ruled out, and stopping is the side that evicts nothing wrongly.
		return Outcome{Move: m, Result: Failed, Message: err.Error()},
			&FatalError{fmt.Errorf("evicting %s: %w (and asking the API server whether rebalancer may create pods/eviction in %s failed: %v)", m.Pod, err, ns, reviewErr)}
	case !review.Status.Allowed:
		why := ""
		if review.Status.Reason != "" {
			why = ": " + review.Status.Reason
		}
		return Outcome{Move: m, Result: Failed, Message: err.Error()},
			&FatalError{fmt.Errorf("evicting %s: %w (the identity rebalancer runs as lacks create on pods/eviction in namespace %s%s)", m.Pod, err, ns, why)}
	}
	return e.denied(m, err), nil
}

// isDenial tells a refusal that retrying cannot change: a
// ValidatingAdmissionPolicy without a reason answers 422 Invalid, and a
// webhook may answer 400.
func isDenial(err error) bool {
	return apierrors.IsInvalid(err) || apierrors.IsBadRequest(err)
}

// denied is the outcome of an eviction the API server refused for this pod
// alone: the run goes on with the next move.
func (e *Evictor) denied(m planner.Move, err error) Outcome {
	msg := err.Error()
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		msg = status.Status().Message
	}
	klog.InfoS("Eviction denied by the API server", "pod", m.Pod, "message", msg)
	if e.Recorder != nil {
		e.Recorder.Denied(m, msg)
	}
	return Outcome{Move: m, Result: Denied, Message: msg}
}
