package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kube-rebalancer/rebalancer/cluster/kube"
)

// lists records the resource and page size of every LIST a client makes.
func lists(client *fake.Clientset) func() []string {
	var (
		mu  sync.Mutex
		got []string
	)
	client.PrependReactor("list", "*", func(a k8stesting.Action) (bool, runtime.Object, error) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, fmt.Sprintf("%s limit=%d", a.GetResource().Resource, a.(k8stesting.ListActionImpl).ListOptions.Limit))
		return false, nil, nil
	})
	return func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Sorted(slices.Values(got))
	}
}

// The floor asks for what run asks for, page for page: the kinds of
// kube.ReadObjects with its page sizes, read at once or one after another.
func TestFloorListsWhatRunLists(t *testing.T) {
	runClient := fake.NewClientset()
	runLists := lists(runClient)
	if _, err := kube.ReadObjects(context.Background(), runClient); err != nil {
		t.Fatal(err)
	}
	want := runLists()
	for _, concurrent := range []bool{false, true} {
		client := fake.NewClientset(
			&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-a"}},
			&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web-1"}},
			&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web-2"}},
		)
		got := lists(client)
		counts, err := read(context.Background(), client, concurrent, wayPages)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got(), want) {
			t.Errorf("concurrent=%t: the floor lists\n%q\nrun lists\n%q", concurrent, got(), want)
		}
		if counts["nodes"] != 1 || counts["pods"] != 2 {
			t.Errorf("concurrent=%t: read %v, want 1 node and 2 pods", concurrent, counts)
		}
	}
}

// The streaming way counts each kind's ADDED events up to the bookmark that
// ends the initial events, and asks for them as the WatchList feature
// wants: sendInitialEvents, NotOlderThan, bookmarks.
func TestStreamReadsUntilTheInitialEventsEnd(t *testing.T) {
	client := fake.NewClientset()
	var (
		mu   sync.Mutex
		asks []metav1.ListOptions
	)
	client.PrependWatchReactor("*", func(a k8stesting.Action) (bool, watch.Interface, error) {
		mu.Lock()
		asks = append(asks, a.(k8stesting.WatchActionImpl).ListOptions)
		mu.Unlock()
		w := watch.NewFakeWithChanSize(4, false)
		if a.GetResource().Resource == "pods" {
			w.Add(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web-1"}})
			w.Add(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web-2"}})
			// A bookmark of progress, not the end.
			w.Action(watch.Bookmark, &corev1.Pod{})
		}
		w.Action(watch.Bookmark, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{
			Annotations: map[string]string{metav1.InitialEventsAnnotationKey: "true"},
		}})
		return true, w, nil
	})
	counts, err := read(context.Background(), client, true, wayStream)
	if err != nil {
		t.Fatal(err)
	}
	if counts["pods"] != 2 || counts["nodes"] != 0 {
		t.Errorf("read %v, want 2 pods and no node", counts)
	}
	if len(asks) != len(kinds(client)) {
		t.Errorf("%d watches, want one a kind (%d)", len(asks), len(kinds(client)))
	}
	for _, o := range asks {
		if o.SendInitialEvents == nil || !*o.SendInitialEvents || o.ResourceVersionMatch != metav1.ResourceVersionMatchNotOlderThan || !o.AllowWatchBookmarks {
			t.Errorf("watch options %+v do not ask for a streaming list", o)
		}
	}
}

// An API server under load may close a streaming list's watch before the
// initial events end; the kind is then streamed again from the start, and
// counted once, up to streamAttempts times.
func TestStreamStartsAgainWhenTheWatchEndsEarly(t *testing.T) {
	tests := []struct {
		name        string
		closedEarly int // pods' watches closed before the end bookmark
		wantPods    int
		wantErr     string
	}{
		{name: "the whole stream at once", closedEarly: 0, wantPods: 2},
		{name: "closed once, then whole", closedEarly: 1, wantPods: 2},
		{name: "closed every time", closedEarly: streamAttempts, wantErr: "streaming pods: the watch ended before the initial events did, 3 times"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client := fake.NewClientset()
			var (
				mu        sync.Mutex
				podStarts int
			)
			client.PrependWatchReactor("*", func(a k8stesting.Action) (bool, watch.Interface, error) {
				w := watch.NewFakeWithChanSize(4, false)
				if a.GetResource().Resource == "pods" {
					mu.Lock()
					podStarts++
					early := podStarts <= tt.closedEarly
					mu.Unlock()
					w.Add(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web-1"}})
					if early {
						w.Stop()
						return true, w, nil
					}
					w.Add(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web-2"}})
				}
				w.Action(watch.Bookmark, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{
					Annotations: map[string]string{metav1.InitialEventsAnnotationKey: "true"},
				}})
				return true, w, nil
			})
			counts, err := read(context.Background(), client, false, wayStream)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if counts["pods"] != tt.wantPods {
				t.Errorf("read %d pods, want %d", counts["pods"], tt.wantPods)
			}
			if want := tt.closedEarly + 1; podStarts != want {
				t.Errorf("pods streamed %d times, want %d", podStarts, want)
			}
		})
	}
}
