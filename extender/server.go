package extender

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
	extenderv1 "k8s.io/kube-scheduler/extender/v1"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/kube-rebalancer/rebalancer/cluster"
)

// Server answers kube-scheduler's filter and prioritize calls.
type Server struct {
	Intents *Intents
	// Workload resolves the workload a pod belongs to: the Deployment of
	// its ReplicaSet, as the plan names it.
	Workload func(*corev1.Pod) cluster.Workload
	// Departed tells, from the pod watch, whether an intent's pod has
	// left; nil: every one has (no watch to ask).
	Departed Departed
	// CatchUp waits, briefly, until the pod watch holds the pod of a
	// request, and tells whether it does. The watch delivers events in
	// order: once it holds a replacement, it holds the eviction that
	// made way for it too. Nil: no watch to wait for.
	CatchUp func(*corev1.Pod) bool
	// HoldOver tells, from the pod watch, whether a hold's pod is bound
	// or gone; nil: none is (no watch to ask).
	HoldOver HoldOver
	Metrics  *Metrics
	// Now is the clock; nil: time.Now.
	Now func() time.Time
}

// The paths kube-scheduler calls: the KubeSchedulerConfiguration's
// urlPrefix followed by its filterVerb and prioritizeVerb.
const (
	FilterPath     = "/filter"
	PrioritizePath = "/prioritize"
)

// maxRequestBytes bounds a request body: a pod and up to 5,000 node names
// take well under a megabyte.
const maxRequestBytes = 16 << 20

// Handler serves the extender's verbs, /healthz, /readyz (ready once the
// state has been read) and /metrics.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST "+FilterPath, func(w http.ResponseWriter, r *http.Request) {
		s.serve(w, r, "filter", func(args *extenderv1.ExtenderArgs) any { return s.filter(args) },
			func(err error) any { return &extenderv1.ExtenderFilterResult{Error: err.Error()} })
	})
	mux.HandleFunc("POST "+PrioritizePath, func(w http.ResponseWriter, r *http.Request) {
		s.serve(w, r, "prioritize", func(args *extenderv1.ExtenderArgs) any { return s.prioritize(args) },
			func(err error) any { return &extenderv1.HostPriorityList{} })
	})
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") })
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, _ *http.Request) {
		if !s.Intents.Loaded() {
			http.Error(w, "the state ConfigMap has not been read yet", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ok")
	})
	mux.Handle("GET /metrics", promhttp.HandlerFor(s.Metrics.Registry, promhttp.HandlerOpts{}))
	return mux
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request, verb string, answer func(*extenderv1.ExtenderArgs) any, failed func(error) any) {
	start := time.Now()
	defer func() { s.Metrics.latency.WithLabelValues(verb).Observe(time.Since(start).Seconds()) }()
	w.Header().Set("Content-Type", "application/json")
	var args extenderv1.ExtenderArgs
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxRequestBytes)).Decode(&args); err != nil || args.Pod == nil {
		if err == nil {
			err = fmt.Errorf("no pod in the request")
		}
		s.Metrics.requests.WithLabelValues(verb, "bad-request").Inc()
		w.WriteHeader(http.StatusBadRequest)
		_ = json.NewEncoder(w).Encode(failed(fmt.Errorf("decoding the %s request: %w", verb, err)))
		return
	}
	s.Metrics.requests.WithLabelValues(verb, "ok").Inc()
	if err := json.NewEncoder(w).Encode(answer(&args)); err != nil {
		klog.ErrorS(err, "Writing the answer to kube-scheduler", "verb", verb)
	}
}

func (s *Server) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// planned returns the node the plan chose for the pod, when the pod
// replaces one a run evicted or surges. waiting tells that the pod's
// workload has intents, not surges, whose pods are still running: an
// eviction that never happened (a run killed between recording and
// evicting) steers no new pod.
func (s *Server) planned(pod *corev1.Pod) (e cluster.Eviction, ok, waiting bool) {
	departed := s.Departed
	if departed == nil {
		departed = func(cluster.Eviction) bool { return true }
	}
	w := s.Workload(pod)
	e, ok, waiting = s.Intents.Claim(pod.UID, w, s.now(), departed)
	if !ok && waiting && s.CatchUp != nil && s.CatchUp(pod) {
		e, ok, waiting = s.Intents.Claim(pod.UID, w, s.now(), departed)
	}
	return e, ok, waiting
}

// nodeNames returns the candidate nodes of a request, by name: NodeNames
// with nodeCacheCapable, else the names of Nodes.
func nodeNames(args *extenderv1.ExtenderArgs) []string {
	if args.NodeNames != nil {
		return *args.NodeNames
	}
	if args.Nodes == nil {
		return nil
	}
	names := make([]string, len(args.Nodes.Items))
	for i := range args.Nodes.Items {
		names[i] = args.Nodes.Items[i].Name
	}
	return names
}

// filter keeps only the planned node of a replacement, when kube-scheduler
// found it feasible; any other pod, and a replacement whose planned node
// no longer fits, keeps every candidate.
//
// A pending pod a run freed a node for goes to that node when it is
// feasible; other pods of no higher priority are kept off the nodes held
// for pending pods (see held).
func (s *Server) filter(args *extenderv1.ExtenderArgs) *extenderv1.ExtenderFilterResult {
	names := nodeNames(args)
	pass := &extenderv1.ExtenderFilterResult{NodeNames: args.NodeNames, Nodes: args.Nodes}
	own, isHeld, against := s.held(args.Pod)
	if isHeld {
		if slices.Contains(names, own.Node) {
			s.Metrics.steered.Inc()
			klog.V(2).InfoS("Pending pod steered to the node held for it", "pod", klog.KObj(args.Pod), "node", own.Node)
			return steer(args, names, own.Node, fmt.Sprintf("rebalancer holds node %s for this pod, for which its moves freed the node", own.Node))
		}
		s.Metrics.declined.WithLabelValues(declinedInfeasible).Inc()
		klog.V(2).InfoS("Pending pod not steered: the node held for it is not among the feasible ones", "pod", klog.KObj(args.Pod), "held", own.Node)
	}
	e, ok, waiting := s.planned(args.Pod)
	if !ok {
		if waiting {
			s.Metrics.declined.WithLabelValues(declinedStillRunning).Inc()
			klog.V(2).InfoS("Pod not steered: the pods its workload's intents evict are still running under their UIDs",
				"pod", klog.KObj(args.Pod))
		}
		if out := keepOff(args, names, against); out != nil {
			return out
		}
		return pass
	}
	feasible := false
	for _, n := range names {
		feasible = feasible || n == e.To
	}
	if !feasible {
		s.Metrics.declined.WithLabelValues(declinedInfeasible).Inc()
		klog.V(2).InfoS("Replacement not steered: its planned node is not among the feasible ones", "pod", klog.KObj(args.Pod), "planned", e.To)
		return pass
	}
	s.Metrics.steered.Inc()
	klog.V(2).InfoS("Replacement steered to its planned node", "pod", klog.KObj(args.Pod), "planned", e.To, "replaces", e.Pod, "surge", e.Surge)
	return steer(args, names, e.To, fmt.Sprintf("rebalancer planned this replacement of %s on node %s", e.Pod, e.To))
}

// steer answers a filter with the one node, every other failed for why.
func steer(args *extenderv1.ExtenderArgs, names []string, node, why string) *extenderv1.ExtenderFilterResult {
	out := &extenderv1.ExtenderFilterResult{FailedNodes: make(extenderv1.FailedNodesMap, len(names))}
	for _, n := range names {
		if n != node {
			out.FailedNodes[n] = why
		}
	}
	only(args, out, []string{node})
	return out
}

// only sets the feasible nodes of an answer to those named, in the form
// of the request: names with nodeCacheCapable, else whole nodes.
func only(args *extenderv1.ExtenderArgs, out *extenderv1.ExtenderFilterResult, names []string) {
	if args.NodeNames != nil {
		kept := slices.Clone(names)
		if kept == nil {
			kept = []string{}
		}
		out.NodeNames = &kept
		return
	}
	out.Nodes = &corev1.NodeList{}
	if args.Nodes == nil {
		return
	}
	for i := range args.Nodes.Items {
		if slices.Contains(names, args.Nodes.Items[i].Name) {
			out.Nodes.Items = append(out.Nodes.Items, args.Nodes.Items[i])
		}
	}
}

// prioritize gives a replacement's planned node the highest score and
// every other node none; any other pod gets equal scores everywhere, which
// leave kube-scheduler's ranking as it is.
func (s *Server) prioritize(args *extenderv1.ExtenderArgs) *extenderv1.HostPriorityList {
	names := nodeNames(args)
	to := ""
	if own, isHeld, _ := s.held(args.Pod); isHeld {
		to = own.Node
	} else if e, ok, _ := s.planned(args.Pod); ok {
		to = e.To
	}
	out := make(extenderv1.HostPriorityList, len(names))
	for i, n := range names {
		out[i] = extenderv1.HostPriority{Host: n}
		if to != "" && n == to {
			out[i].Score = extenderv1.MaxExtenderPriority
		}
	}
	return &out
}
