package policy_test

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/kube-rebalancer/rebalancer/policy"
	// The strategy table registers the strategies a policy may configure;
	// linked into this test binary, it serves the package's own tests too.
	_ "github.com/kube-rebalancer/rebalancer/strategies"
)

// documentedOrder reads the order the strategies run in from the "Order and
// interplay" section of docs/strategies.md, the order users are promised.
func documentedOrder(t *testing.T) []string {
	t.Helper()
	doc, err := os.ReadFile("../docs/strategies.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "## Order and interplay")
	if !ok {
		t.Fatal(`docs/strategies.md has no "Order and interplay" section`)
	}
	_, sentence, ok := strings.Cut(section, "Strategies run in this order:")
	if !ok {
		t.Fatal(`"Order and interplay" does not say "Strategies run in this order:"`)
	}
	sentence, _, _ = strings.Cut(sentence, ".")
	sentence = strings.ReplaceAll(sentence, " then ", " ")
	return regexp.MustCompile(`[A-Z][A-Za-z]+`).FindAllString(sentence, -1)
}

// Order is the documented one: violations fixed first, balancing after.
// Every strategy decodes from its name and comes back from Get and from
// MarshalJSON once.
func TestOrder(t *testing.T) {
	want := documentedOrder(t)
	if got, w := strings.Join(policy.Order(), ","), strings.Join(want, ","); got != w {
		t.Errorf("Order() = %s\ndocs/strategies.md says %s", got, w)
	}
	// A document that mentions every strategy with empty arguments.
	doc := make(map[string]any)
	for _, name := range want {
		doc[name] = map[string]any{}
	}
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	var all policy.Strategies
	if err := json.Unmarshal(b, &all); err != nil {
		t.Fatal(err)
	}
	for _, name := range want {
		if all.Get(name) == nil {
			t.Errorf("Get(%s) = nil with every strategy set", name)
		}
	}
	if (&policy.Strategies{}).Get("LowNodeUtilization") != nil {
		t.Error("Get returns arguments for a strategy the policy does not mention")
	}
	out, err := json.Marshal(all)
	if err != nil {
		t.Fatal(err)
	}
	// The keys come back in Order, as users read them.
	var keys []string
	dec := json.NewDecoder(strings.NewReader(string(out)))
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	if got, w := strings.Join(keys, ","), strings.Join(want, ","); got != w {
		t.Errorf("MarshalJSON keys = %s\nwant %s", got, w)
	}
}
