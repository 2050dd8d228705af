package strategies_test

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kube-rebalancer/rebalancer/policy"
	"github.com/kube-rebalancer/rebalancer/strategies/framework"
)

// keepOffArgs and keepOff stand for a strategy a program adds from outside
// the repository.
type keepOffArgs struct {
	policy.Common `json:",inline"`
	Label         string `json:"label,omitempty"`
}

func (a *keepOffArgs) Default() {}

func (a *keepOffArgs) NodeLevelFields() []string { return nil }

func (a *keepOffArgs) Validate(path *field.Path) field.ErrorList {
	errs := field.ErrorList{}
	if a.Label == "" {
		errs = append(errs, field.Required(path.Child("label"), "a node label"))
	}
	return errs
}

type keepOff struct{}

func (keepOff) Name() string            { return "KeepOffLabelledNodes" }
func (keepOff) Run(in *framework.Cycle) {}

// A strategy registered from outside is configured, validated and run like
// a built-in one, after the built-in ones.
func TestRegisterFromOutside(t *testing.T) {
	r := framework.Registration{
		Name:    "KeepOffLabelledNodes",
		NewArgs: func() policy.StrategyArgs { return &keepOffArgs{} },
		New:     func() framework.Strategy { return keepOff{} },
	}
	if err := framework.Register(r); err != nil {
		t.Fatal(err)
	}
	if err := framework.Register(r); err == nil {
		t.Error("registering a name twice is not an error")
	}
	wrongName := r
	wrongName.Name = "Other"
	if err := framework.Register(wrongName); err == nil {
		t.Error("a registration whose strategy has another Name is not an error")
	}

	const head = "apiVersion: rebalancer.dev/v1alpha1\nkind: RebalancePolicy\n"
	p, err := policy.Load([]byte(head+"strategies:\n  KeepOffLabelledNodes: {label: draining}\n  RemoveDuplicates: {}\n"), "p.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(p.Enabled(), ","); got != "RemoveDuplicates,KeepOffLabelledNodes" {
		t.Errorf("Enabled() = %s, want the registered strategy after the built-in ones", got)
	}
	if a, ok := p.Global().Args("KeepOffLabelledNodes").(*keepOffArgs); !ok || a.Label != "draining" {
		t.Errorf("Args = %#v, want the registered type with label draining", p.Global().Args("KeepOffLabelledNodes"))
	}
	if s := framework.Get("KeepOffLabelledNodes"); s == nil || s.Name() != "KeepOffLabelledNodes" {
		t.Errorf("Get = %v, want the registered strategy", s)
	}
	_, err = policy.Load([]byte(head+"strategies:\n  KeepOffLabelledNodes: {lable: x}\n"), "p.yaml")
	want := "p.yaml: strategies.KeepOffLabelledNodes.lable: unknown field\np.yaml: strategies.KeepOffLabelledNodes.label: is required (a node label)"
	if err == nil || err.Error() != want {
		t.Errorf("Load() error:\n%v\nwant:\n%s", err, want)
	}
}
