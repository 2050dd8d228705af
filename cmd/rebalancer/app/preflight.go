package app

import (
	"context"
	"fmt"
	"slices"
	"strings"

	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"

	"github.com/kube-rebalancer/rebalancer/cluster/kube"
)

// scope says where a command's namespace rules apply: the namespace of
// each resource (its state ConfigMap's, its Lease's), and the names it was
// told in place of the defaults its permissions name.
type scope struct {
	namespaces map[string]string // resource -> namespace; none: not checked
	names      map[string]string // default name -> the name in use
}

// requirePermissions asks the API server whether the client may do what
// a long-lived command cannot do without, of all that perms list, and
// names everything it may not: list and watch (a watch that may not list
// retries for ever and fills no cache, quietly), and what leader election
// needs of its Lease (it would never lead). The command calls it before
// its watches start, or its election, and fails at once saying what to
// grant (and, given its name, where `rebalancer rbac` lists it). The other
// rules are for single requests (a binding, an event), which the API
// server refuses one by one with its own message, and which the command
// retries as it does any failed request. It goes on when the API server
// cannot answer the question.
func requirePermissions(ctx context.Context, client kubernetes.Interface, command string, perms permissions, where scope) error {
	var missing []string
	check := func(r rbacv1.PolicyRule, namespace string) error {
		if !slices.Contains(r.Resources, "leases") {
			r.Verbs = slices.DeleteFunc(slices.Clone(r.Verbs), func(v string) bool { return v != "list" && v != "watch" })
		}
		names := r.ResourceNames
		if len(names) == 0 {
			names = []string{""}
		}
		for _, group := range r.APIGroups {
			for _, res := range r.Resources {
				resource, sub, _ := strings.Cut(res, "/")
				for _, verb := range r.Verbs {
					for _, name := range names {
						if n, ok := where.names[name]; ok {
							name = n
						}
						attrs := authorizationv1.ResourceAttributes{Namespace: namespace, Verb: verb, Group: group,
							Resource: resource, Subresource: sub, Name: name}
						review, err := client.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx,
							&authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &attrs}},
							metav1.CreateOptions{})
						if err != nil {
							return err
						}
						if !review.Status.Allowed {
							missing = append(missing, describeGrant(attrs))
						}
					}
				}
			}
		}
		return nil
	}
	for _, r := range perms.Cluster {
		if err := check(r, ""); err != nil {
			klog.ErrorS(err, "Could not check the permissions; starting anyway", "command", command)
			return nil
		}
	}
	for _, r := range perms.Namespace {
		for _, res := range r.Resources {
			ns, ok := where.namespaces[res]
			if !ok {
				continue
			}
			one := r
			one.Resources = []string{res}
			if err := check(one, ns); err != nil {
				klog.ErrorS(err, "Could not check the permissions; starting anyway", "command", command)
				return nil
			}
		}
	}
	switch {
	case len(missing) > 0 && command != "":
		return fmt.Errorf("missing permission(s): %s; `rebalancer rbac %s` lists what it needs", strings.Join(missing, "; "), command)
	case len(missing) > 0:
		return fmt.Errorf("missing permission(s): %s", strings.Join(missing, "; "))
	}
	return nil
}

// describeGrant says what a request is, as RBAC sees it: `list pods
// cluster-wide`, `get configmaps "rebalancer-state" in namespace x`.
func describeGrant(a authorizationv1.ResourceAttributes) string {
	res := a.Resource
	if a.Subresource != "" {
		res += "/" + a.Subresource
	}
	if a.Group != "" {
		res += "." + a.Group
	}
	s := a.Verb + " " + res
	if a.Name != "" {
		s += fmt.Sprintf(" %q", a.Name)
	}
	if a.Namespace == "" {
		return s + " cluster-wide"
	}
	return s + " in namespace " + a.Namespace
}

// scheduleScope is where `rebalancer schedule` keeps what its namespace
// rules name: the state ConfigMap. The election checks its own Lease.
func scheduleScope(history *kube.HistoryStore) scope {
	where := scope{namespaces: map[string]string{}, names: map[string]string{}}
	if history != nil {
		where.namespaces["configmaps"] = history.Namespace
		where.names[defaultStateName] = history.Name
	}
	return where
}
