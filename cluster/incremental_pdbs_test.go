package cluster_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kube-rebalancer/rebalancer/cluster"
	ct "github.com/kube-rebalancer/rebalancer/cluster/clustertest"
)

// describeBudgets prints the snapshot's budgets and, for each pod, the
// budgets that cover it with what they allow.
func describeBudgets(s *cluster.Snapshot) string {
	var b strings.Builder
	for _, pdb := range s.PDBs() {
		fmt.Fprintf(&b, "budget %s allows %d\n", pdb.Key, pdb.Status.DisruptionsAllowed)
	}
	for _, p := range s.Pods() {
		var keys []string
		for _, pdb := range s.PDBsFor(p) {
			keys = append(keys, fmt.Sprintf("%s(%d)", pdb.Key, pdb.Status.DisruptionsAllowed))
		}
		fmt.Fprintf(&b, "pod %s covered by %v\n", p.Key, keys)
	}
	return b.String()
}

// A snapshot whose budgets are kept up to date one by one says what a
// snapshot built from the final objects says.
func TestIncrementalBudgetsMatchAFreshSnapshot(t *testing.T) {
	web1 := ct.Pod("shop", "web-1").Label("app", "web").Obj()
	web2 := ct.Pod("shop", "web-2").Label("app", "web").Obj()
	db := ct.Pod("shop", "db-0").Label("app", "db").Obj()
	other := ct.Pod("other", "web-1").Label("app", "web").Obj()
	webPDB, dbPDB := ct.PDB("shop", "web", 0), ct.PDB("shop", "db", 1)
	webAllows1 := ct.PDB("shop", "web", 1)
	// The budget named web now selects app=db.
	webOnDB := ct.PDB("shop", "web", 0)
	webOnDB.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}}

	type step func(t *testing.T, s *cluster.Snapshot)
	setPDB := func(pdb policyv1.PodDisruptionBudget) step {
		return func(t *testing.T, s *cluster.Snapshot) {
			if err := s.SetPDB(&pdb); err != nil {
				t.Fatal(err)
			}
		}
	}
	deletePDB := func(namespace, name string) step {
		return func(_ *testing.T, s *cluster.Snapshot) { s.DeletePDB(namespace, name) }
	}
	setPod := func(pods ...any) step {
		return func(_ *testing.T, s *cluster.Snapshot) {
			for _, p := range ct.Objects(pods...).Pods {
				s.SetPod(&p, cluster.Workload{})
			}
		}
	}
	tests := []struct {
		name  string
		steps []step
		want  []any
	}{
		{
			name:  "budgets before their pods",
			steps: []step{setPDB(webPDB), setPDB(dbPDB), setPod(other, web2, db, web1)},
			want:  []any{webPDB, dbPDB, web1, web2, db, other},
		},
		{
			name:  "budgets after their pods",
			steps: []step{setPod(web1, db, web2, other), setPDB(dbPDB), setPDB(webPDB)},
			want:  []any{webPDB, dbPDB, web1, web2, db, other},
		},
		{
			name:  "a budget's status changes",
			steps: []step{setPod(web1, web2), setPDB(webPDB), setPDB(webAllows1)},
			want:  []any{webAllows1, web1, web2},
		},
		{
			name:  "a budget's selector changes",
			steps: []step{setPod(web1, db), setPDB(webPDB), setPDB(webOnDB)},
			want:  []any{webOnDB, web1, db},
		},
		{
			name:  "a budget deleted",
			steps: []step{setPod(web1, db), setPDB(webPDB), setPDB(dbPDB), deletePDB("shop", "web")},
			want:  []any{dbPDB, web1, db},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := cluster.New(cluster.Objects{}, time.Time{})
			if err != nil {
				t.Fatal(err)
			}
			for _, st := range tt.steps {
				st(t, s)
			}
			fresh, err := cluster.New(ct.Objects(tt.want...), time.Time{})
			if err != nil {
				t.Fatal(err)
			}
			if got, want := describeBudgets(s), describeBudgets(fresh); got != want {
				t.Errorf("kept up to date:\n%s\nbuilt afresh:\n%s", got, want)
			}
		})
	}
}

// A budget whose selector the API server would not accept covers nothing:
// SetPDB says why and drops the copy it had.
func TestSetPDBWithABadSelector(t *testing.T) {
	s, err := cluster.New(ct.Objects(ct.Pod("shop", "web-1").Label("app", "web").Obj()), time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	good := ct.PDB("shop", "web", 0)
	if err := s.SetPDB(&good); err != nil {
		t.Fatal(err)
	}
	bad := ct.PDB("shop", "web", 0)
	bad.Spec.Selector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: "Near"}}}
	if err := s.SetPDB(&bad); err == nil || !strings.Contains(err.Error(), "shop/web") {
		t.Errorf("SetPDB of a bad selector: %v, want an error naming shop/web", err)
	}
	if len(s.PDBs()) != 0 || len(s.PDBsFor(s.Pod("shop/web-1"))) != 0 {
		t.Errorf("budgets %d, covering web-1 %d; want none", len(s.PDBs()), len(s.PDBsFor(s.Pod("shop/web-1"))))
	}
}
