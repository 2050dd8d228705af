package evictor

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kube-rebalancer/rebalancer/planner"
)

var podsResource = schema.GroupResource{Resource: "pods"}

// budgetRefusal is the API server's answer to an eviction a
// PodDisruptionBudget forbids.
func budgetRefusal() error {
	err := apierrors.NewTooManyRequests("Cannot evict pod as it would violate the pod's disruption budget.", 0)
	err.ErrStatus.Details.Causes = append(err.ErrStatus.Details.Causes, metav1.StatusCause{
		Type: policyv1.DisruptionBudgetCause, Message: "The disruption budget web needs 3 healthy pods and has 3 currently"})
	return err
}

// fakeAPI answers evictions pod by pod: a list of errors per pod, one per
// attempt, nil for success; a pod not listed is evicted.
type fakeAPI struct {
	mu       sync.Mutex
	answers  map[string][]error
	attempts map[string]int
	evicted  []string
	uids     map[string]string
}

func newClient(api *fakeAPI) *fake.Clientset {
	client := fake.NewClientset()
	api.attempts, api.uids = map[string]int{}, map[string]string{}
	client.PrependReactor("create", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if a.GetSubresource() != "eviction" {
			return false, nil, nil
		}
		ev := a.(k8stesting.CreateAction).GetObject().(*policyv1.Eviction)
		key := ev.Namespace + "/" + ev.Name
		api.mu.Lock()
		defer api.mu.Unlock()
		n := api.attempts[key]
		api.attempts[key]++
		if ev.DeleteOptions != nil && ev.DeleteOptions.Preconditions != nil && ev.DeleteOptions.Preconditions.UID != nil {
			api.uids[key] = string(*ev.DeleteOptions.Preconditions.UID)
		}
		if answers := api.answers[key]; n < len(answers) && answers[n] != nil {
			return true, nil, answers[n]
		}
		api.evicted = append(api.evicted, key)
		return true, nil, nil
	})
	return client
}

func move(pod string) planner.Move {
	return planner.Move{Pod: pod, UID: types.UID("uid-" + pod), From: "n1", To: "n2", Strategy: "Test", Reason: "test"}
}

func fastBackoff() wait.Backoff { return wait.Backoff{Duration: time.Millisecond, Factor: 1, Steps: 3} }

func TestExecute(t *testing.T) {
	transient := apierrors.NewInternalError(fmt.Errorf("etcd leader changed"))
	throttled := apierrors.NewTooManyRequests("Too many requests, please try again later.", 1)
	tests := []struct {
		name     string
		answers  map[string][]error
		want     map[string]Result
		attempts map[string]int
		fatal    bool
	}{
		{
			name: "accepted evictions",
			want: map[string]Result{"a/p1": Evicted, "a/p2": Evicted},
		},
		{
			name:     "429 from a PodDisruptionBudget is refused, not retried",
			answers:  map[string][]error{"a/p1": {budgetRefusal()}},
			want:     map[string]Result{"a/p1": Refused, "a/p2": Evicted},
			attempts: map[string]int{"a/p1": 1},
		},
		{
			name:     "429 from throttling is retried",
			answers:  map[string][]error{"a/p1": {throttled}},
			want:     map[string]Result{"a/p1": Evicted, "a/p2": Evicted},
			attempts: map[string]int{"a/p1": 2},
		},
		{
			name:    "404: the pod is already gone",
			answers: map[string][]error{"a/p1": {apierrors.NewNotFound(podsResource, "p1")}},
			want:    map[string]Result{"a/p1": Gone, "a/p2": Evicted},
		},
		{
			name:    "409: a new pod has the name (UID precondition)",
			answers: map[string][]error{"a/p1": {apierrors.NewConflict(podsResource, "p1", errors.New("Precondition failed: UID in precondition: uid-a/p1, UID in object meta: other"))}},
			want:    map[string]Result{"a/p1": Gone, "a/p2": Evicted},
		},
		{
			name:     "500 then success: retried",
			answers:  map[string][]error{"a/p1": {transient, transient}},
			want:     map[string]Result{"a/p1": Evicted, "a/p2": Evicted},
			attempts: map[string]int{"a/p1": 3},
		},
		{
			name:     "500 every time: failed after the bounded retries, the rest goes on",
			answers:  map[string][]error{"a/p1": {transient, transient, transient, transient}},
			want:     map[string]Result{"a/p1": Failed, "a/p2": Evicted},
			attempts: map[string]int{"a/p1": 3},
		},
		{
			name:    "403: no permission stops the run",
			answers: map[string][]error{"a/p1": {apierrors.NewForbidden(schema.GroupResource{Resource: "pods/eviction"}, "p1", errors.New("RBAC: access denied"))}},
			want:    map[string]Result{"a/p1": Failed, "a/p2": NotAttempted},
			fatal:   true,
		},
		{
			name:    "no answer at all: the API server is unreachable, the run stops",
			answers: map[string][]error{"a/p1": {errors.New("connection refused"), errors.New("connection refused"), errors.New("connection refused")}},
			want:    map[string]Result{"a/p1": Failed, "a/p2": NotAttempted},
			fatal:   true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			api := &fakeAPI{answers: tt.answers}
			e := &Evictor{Client: newClient(api), Backoff: fastBackoff()}
			outcomes, err := e.Execute(context.Background(), &planner.Plan{Moves: []planner.Move{move("a/p1"), move("a/p2")}})
			var fatal *FatalError
			if got := errors.As(err, &fatal); got != tt.fatal {
				t.Errorf("Execute() error = %v, want fatal %v", err, tt.fatal)
			}
			for _, o := range outcomes {
				if o.Result != tt.want[o.Pod] {
					t.Errorf("%s: %s (%s), want %s", o.Pod, o.Result, o.Message, tt.want[o.Pod])
				}
			}
			for pod, n := range tt.attempts {
				if api.attempts[pod] != n {
					t.Errorf("%s: %d attempts, want %d", pod, api.attempts[pod], n)
				}
			}
			if got := api.uids["a/p1"]; got != "uid-a/p1" {
				t.Errorf("UID precondition = %q, want uid-a/p1", got)
			}
		})
	}
}

func TestRefusalMessageNamesTheBudget(t *testing.T) {
	api := &fakeAPI{answers: map[string][]error{"a/p1": {budgetRefusal()}}}
	outcomes, _ := (&Evictor{Client: newClient(api)}).Execute(context.Background(), &planner.Plan{Moves: []planner.Move{move("a/p1")}})
	if got := outcomes[0].Message; !strings.Contains(got, "The disruption budget web needs 3 healthy pods") {
		t.Errorf("message = %q, want the PDB's explanation", got)
	}
}

func TestGracePeriodIsPassed(t *testing.T) {
	client := fake.NewClientset()
	var got *int64
	client.PrependReactor("create", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		got = a.(k8stesting.CreateAction).GetObject().(*policyv1.Eviction).DeleteOptions.GracePeriodSeconds
		return true, nil, nil
	})
	grace := int64(30)
	if _, err := (&Evictor{Client: client, GracePeriodSeconds: &grace}).Execute(context.Background(), &planner.Plan{Moves: []planner.Move{move("a/p1")}}); err != nil {
		t.Fatal(err)
	}
	if got == nil || *got != 30 {
		t.Errorf("grace period = %v, want 30", got)
	}
}

// A stopped run (SIGTERM) makes no further eviction and says so per move.
func TestStopLeavesTheRestNotAttempted(t *testing.T) {
	api := &fakeAPI{}
	client := newClient(api)
	ctx, cancel := context.WithCancel(context.Background())
	client.PrependReactor("create", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		cancel() // the signal arrives during the first eviction
		return false, nil, nil
	})
	outcomes, err := (&Evictor{Client: client}).Execute(ctx, &planner.Plan{Moves: []planner.Move{move("a/p1"), move("a/p2"), move("a/p3")}})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Execute() error = %v, want context.Canceled", err)
	}
	got := []Result{outcomes[0].Result, outcomes[1].Result, outcomes[2].Result}
	if got[0] != Evicted || got[1] != NotAttempted || got[2] != NotAttempted {
		t.Errorf("results %v, want evicted, not-attempted, not-attempted", got)
	}
	if len(api.evicted) != 1 {
		t.Errorf("evicted %v after the stop, want only the first", api.evicted)
	}
}

func TestEventsAreWrittenBeforeFlushReturns(t *testing.T) {
	client := fake.NewClientset()
	events := NewEvents(client)
	recorder := Recorder(events)
	api := &fakeAPI{answers: map[string][]error{"shop/p2": {budgetRefusal()}}}
	client.PrependReactor("create", "pods", newClient(api).ReactionChain[0].React)
	e := &Evictor{Client: client, Recorder: recorder}
	if _, err := e.Execute(context.Background(), &planner.Plan{Moves: []planner.Move{move("shop/p1"), move("shop/p2")}}); err != nil {
		t.Fatal(err)
	}
	written, recorded := events.Flush(5 * time.Second)
	if written != 2 || recorded != 2 {
		t.Fatalf("Flush() = %d written of %d recorded, want 2 of 2", written, recorded)
	}
	list, err := client.CoreV1().Events("shop").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	byPod := map[string]corev1.Event{}
	for _, ev := range list.Items {
		byPod[ev.InvolvedObject.Name] = ev
	}
	if ev := byPod["p1"]; ev.Reason != ReasonRebalanced || ev.Type != corev1.EventTypeNormal ||
		ev.Message != "Evicted by rebalancer (Test): test; replacement planned on n2" || ev.InvolvedObject.UID != "uid-shop/p1" {
		t.Errorf("event on p1 = %s %s %q", ev.Type, ev.Reason, ev.Message)
	}
	if ev := byPod["p2"]; ev.Reason != ReasonRefused || ev.Type != corev1.EventTypeWarning || !strings.Contains(ev.Message, "disruption budget") {
		t.Errorf("event on p2 = %s %s %q", ev.Type, ev.Reason, ev.Message)
	}
	if src := byPod["p1"].Source.Component; src != "rebalancer" {
		t.Errorf("event source = %q, want rebalancer", src)
	}
}

// Events the API server refuses are not retried by the broadcaster, which
// only logs them: Flush does not wait for them, and Lost counts them with
// the API server's answer, so that the run can say that the pods do not
// show what happened to them.
func TestLostEventsAreCountedWithTheirReason(t *testing.T) {
	tests := []struct {
		name        string
		refusal     error
		wantReasons map[string]int
		wantWhy     string
	}{
		{name: "no permission to create events",
			refusal:     apierrors.NewForbidden(corev1.Resource("events"), "", errors.New(`User "system:serviceaccount:rebalancer:rebalancer" cannot create resource "events"`)),
			wantReasons: map[string]int{LostForbidden: 2}, wantWhy: "lacks create on events"},
		{name: "refused by admission",
			refusal:     apierrors.NewBadRequest("events are read-only here"),
			wantReasons: map[string]int{LostRejected: 2}, wantWhy: "events are read-only here"},
		{name: "written", wantReasons: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client := fake.NewClientset()
			if tt.refusal != nil {
				client.PrependReactor("create", "events", func(k8stesting.Action) (bool, runtime.Object, error) {
					return true, nil, tt.refusal
				})
			}
			client.PrependReactor("create", "pods", newClient(&fakeAPI{}).ReactionChain[0].React)
			events := NewEvents(client)
			e := &Evictor{Client: client, Recorder: events}
			outs, err := e.Execute(context.Background(), &planner.Plan{Moves: []planner.Move{move("shop/p1"), move("shop/p2")}})
			if err != nil || outs[0].Result != Evicted || outs[1].Result != Evicted {
				t.Fatalf("Execute() = %v, %v; want both evicted", outs, err)
			}
			start := time.Now()
			events.Flush(5 * time.Second)
			if took := time.Since(start); took > 3*time.Second {
				t.Errorf("Flush waited %s for events the API server had refused", took.Round(time.Millisecond))
			}
			lost := events.Lost()
			if tt.wantReasons == nil {
				if lost != nil {
					t.Errorf("Lost() = %+v, want nil: every event was written", lost)
				}
				return
			}
			if lost == nil {
				t.Fatal("Lost() = nil, want the refused events")
			}
			if lost.Recorded != 2 || lost.Lost != 2 || !maps.Equal(lost.Reasons, tt.wantReasons) || !strings.Contains(lost.Why, tt.wantWhy) {
				t.Errorf("Lost() = %+v, want 2 of 2 lost by %v, why saying %q", lost, tt.wantReasons, tt.wantWhy)
			}
		})
	}
}
