package extenderclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	corev1 "k8s.io/api/core/v1"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/client-go/rest"
	configv1 "k8s.io/kube-scheduler/config/v1"
	extenderv1 "k8s.io/kube-scheduler/extender/v1"

	"github.com/kube-rebalancer/rebalancer/cluster"
	"github.com/kube-rebalancer/rebalancer/scheduler/engine"
	"github.com/kube-rebalancer/rebalancer/scheduler/plugins/nodename"
)

// Client is one extender.
type Client struct {
	cfg     configv1.Extender
	managed map[string]bool
	http    *http.Client
}

var _ engine.Extender = (*Client)(nil)

// New makes the client of an extender as profile.LoadProfiles gives it
// (defaulted: httpTimeout is set).
func New(cfg configv1.Extender) (*Client, error) {
	tr, err := transport(cfg)
	if err != nil {
		return nil, fmt.Errorf("extender %q: %w", cfg.URLPrefix, err)
	}
	c := &Client{cfg: cfg, managed: map[string]bool{}, http: &http.Client{Transport: tr, Timeout: cfg.HTTPTimeout.Duration}}
	for _, r := range cfg.ManagedResources {
		c.managed[r.Name] = true
	}
	return c, nil
}

// NewAll makes the clients of a profile's extenders, in configuration
// order.
func NewAll(cfgs []configv1.Extender) ([]*Client, error) {
	out := make([]*Client, 0, len(cfgs))
	for _, cfg := range cfgs {
		c, err := New(cfg)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// Extenders returns the clients as the engine takes them.
func Extenders(cs []*Client) []engine.Extender {
	out := make([]engine.Extender, len(cs))
	for i, c := range cs {
		out[i] = c
	}
	return out
}

// transport is kube-scheduler's: the tlsConfig's certificates; with
// enableHTTPS and no CA, the server's certificate is not verified.
func transport(cfg configv1.Extender) (http.RoundTripper, error) {
	var rc rest.Config
	if t := cfg.TLSConfig; t != nil {
		rc.TLSClientConfig = rest.TLSClientConfig{
			Insecure: t.Insecure, ServerName: t.ServerName,
			CertFile: t.CertFile, KeyFile: t.KeyFile, CAFile: t.CAFile,
			CertData: t.CertData, KeyData: t.KeyData, CAData: t.CAData,
		}
	}
	if cfg.EnableHTTPS && len(rc.CAFile) == 0 && len(rc.CAData) == 0 {
		rc.Insecure = true
	}
	tlsConfig, err := rest.TLSConfigFor(&rc)
	if err != nil {
		return nil, err
	}
	return utilnet.SetTransportDefaults(&http.Transport{TLSClientConfig: tlsConfig}), nil
}

// Name implements engine.Extender: the urlPrefix.
func (c *Client) Name() string { return c.cfg.URLPrefix }

// IsIgnorable implements engine.Extender.
func (c *Client) IsIgnorable() bool { return c.cfg.Ignorable }

// Weight implements engine.Extender.
func (c *Client) Weight() int64 { return c.cfg.Weight }

// NodeCacheCapable implements engine.Extender.
func (c *Client) NodeCacheCapable() bool { return c.cfg.NodeCacheCapable }

// IsBinder reports whether the extender binds pods (it has a bindVerb).
func (c *Client) IsBinder() bool { return c.cfg.BindVerb != "" }

// IsInterested implements engine.Extender.
func (c *Client) IsInterested(pod *corev1.Pod) bool { return engine.ManagesPod(c.managed, pod) }

// args is the body of a filter or prioritize call: the node names alone to
// an extender that caches nodes, else the nodes.
func (c *Client) args(pod *cluster.Pod, nodes []*cluster.Node) *extenderv1.ExtenderArgs {
	a := &extenderv1.ExtenderArgs{Pod: pending(pod.Pod)}
	if c.cfg.NodeCacheCapable {
		names := make([]string, len(nodes))
		for i, n := range nodes {
			names[i] = n.Name
		}
		a.NodeNames = &names
		return a
	}
	a.Nodes = &corev1.NodeList{Items: make([]corev1.Node, len(nodes))}
	for i, n := range nodes {
		a.Nodes.Items[i] = *n.Node
	}
	return a
}

// Filter implements engine.Extender.
func (c *Client) Filter(pod *cluster.Pod, nodes []*cluster.Node) (engine.ExtenderFilterResult, error) {
	if c.cfg.FilterVerb == "" {
		out := engine.ExtenderFilterResult{Nodes: make([]string, len(nodes))}
		for i, n := range nodes {
			out.Nodes[i] = n.Name
		}
		return out, nil
	}
	var res extenderv1.ExtenderFilterResult
	if err := c.send(c.cfg.FilterVerb, c.args(pod, nodes), &res); err != nil {
		return engine.ExtenderFilterResult{}, err
	}
	if res.Error != "" {
		return engine.ExtenderFilterResult{}, errors.New(res.Error)
	}
	sent := make(map[string]bool, len(nodes))
	for _, n := range nodes {
		sent[n.Name] = true
	}
	out := engine.ExtenderFilterResult{Failed: res.FailedNodes, FailedAndUnresolvable: res.FailedAndUnresolvableNodes}
	switch {
	case c.cfg.NodeCacheCapable && res.NodeNames != nil:
		out.Nodes = *res.NodeNames
	case res.Nodes != nil:
		for i := range res.Nodes.Items {
			out.Nodes = append(out.Nodes, res.Nodes.Items[i].Name)
		}
	}
	for _, n := range out.Nodes {
		if !sent[n] {
			return engine.ExtenderFilterResult{}, fmt.Errorf("extender %q claims a filtered node %q which is not found in the input node list", c.cfg.URLPrefix, n)
		}
	}
	return out, nil
}

// Prioritize implements engine.Extender.
func (c *Client) Prioritize(pod *cluster.Pod, nodes []*cluster.Node) (map[string]int64, error) {
	if c.cfg.PrioritizeVerb == "" {
		return nil, nil
	}
	var res extenderv1.HostPriorityList
	if err := c.send(c.cfg.PrioritizeVerb, c.args(pod, nodes), &res); err != nil {
		return nil, err
	}
	out := make(map[string]int64, len(res))
	for _, h := range res {
		out[h.Host] = h.Score
	}
	return out, nil
}

// Bind asks the extender to bind the pod to node.
func (c *Client) Bind(ctx context.Context, pod *corev1.Pod, node string) error {
	if !c.IsBinder() {
		return fmt.Errorf("extender %q has no bindVerb", c.cfg.URLPrefix)
	}
	args := &extenderv1.ExtenderBindingArgs{PodName: pod.Name, PodNamespace: pod.Namespace, PodUID: pod.UID, Node: node}
	var res extenderv1.ExtenderBindingResult
	if err := c.sendContext(ctx, c.cfg.BindVerb, args, &res); err != nil {
		return err
	}
	if res.Error != "" {
		return errors.New(res.Error)
	}
	return nil
}

func (c *Client) send(verb string, args, result any) error {
	return c.sendContext(context.Background(), verb, args, result)
}

// sendContext POSTs args as JSON to urlPrefix/verb and decodes the answer
// into result; a status other than 200 is an error.
func (c *Client) sendContext(ctx context.Context, verb string, args, result any) error {
	body, err := json.Marshal(args)
	if err != nil {
		return err
	}
	url := strings.TrimRight(c.cfg.URLPrefix, "/") + "/" + verb
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("failed %v with extender at URL %v, code %v", verb, url, resp.StatusCode)
	}
	return json.NewDecoder(resp.Body).Decode(result)
}

// pending is the pod as kube-scheduler would send it: a pod the planner
// asks about runs somewhere, and what is placed is its replacement, which
// is not bound yet. A pod that names a node it was never bound to keeps
// the name.
func pending(p *corev1.Pod) *corev1.Pod {
	if p.Spec.NodeName == "" || nodename.PinnedNodeName(p) {
		return p
	}
	cp := *p
	cp.Spec.NodeName = ""
	return &cp
}
