package app

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	yaml "go.yaml.in/yaml/v3"

	"github.com/kube-rebalancer/rebalancer/policy"
)

func newConvertCommand(s *settings) *cobra.Command {
	var output string
	c := &cobra.Command{
		Use:   "convert POLICY_FILE",
		Short: "Print the RebalancePolicy that a descheduler policy amounts to",
		Long: `Print, as a RebalancePolicy, what a policy file means to rebalancer.

A descheduler policy (apiVersion descheduler/v1alpha2 or descheduler/v1alpha1)
is translated into the RebalancePolicy that plans the same moves: the same
strategies with the same arguments, the DefaultEvictor's protections as
evictable settings, the eviction limits. Where rebalancer's defaults differ
from the descheduler's, the descheduler's meaning is written out, and a
comment above the field says what differs. This is the policy --policy loads
when given the descheduler's file, so what convert prints is what plan and run
do. A field rebalancer cannot honour is an error naming its path in the
descheduler's document and what to use instead (exit code 2).

A RebalancePolicy is printed back normalized: checked, its fields in order,
its comments dropped.

The output passes rebalancer validate: a policy validate would refuse (a
PriorityClass name the API server reserves, a scheduler configuration that
does not load) is not printed, and its problems are the error (exit code 2).
docs/migrating.md lists every difference between the descheduler and
rebalancer. POLICY_FILE is a regular file of at most 1 MiB.`,
		Example: "  rebalancer convert descheduler-policy.yaml > policy.yaml\n  rebalancer validate policy.yaml",
		Args:    cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if output != "yaml" {
				return fmt.Errorf("-o %s: convert prints yaml", output)
			}
			data, err := policy.ReadFile(args[0])
			if err != nil {
				return fileError("POLICY_FILE", args[0], err)
			}
			conv, err := policy.Convert(data, args[0])
			if err != nil {
				return err
			}
			out, err := renderConverted(conv, args[0])
			if err != nil {
				return err
			}
			// What is printed is what validate reads: a policy it would
			// refuse (a PriorityClass name the API server reserves) is
			// refused here, with its reasons, rather than printed.
			pol, err := policy.Load(out, args[0])
			if err != nil {
				return err
			}
			if _, err := checkPolicy(pol, s.plugins); err != nil {
				return err
			}
			_, err = c.OutOrStdout().Write(out)
			return err
		},
	}
	c.Flags().StringVarP(&output, "output", "o", "yaml", "output format: yaml")
	return c
}

// renderConverted writes the converted document as YAML, in the order of
// its fields, with each note as a comment above the field it is about.
func renderConverted(conv *policy.Converted, file string) ([]byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(conv.Document, &doc); err != nil {
		return nil, err
	}
	root := doc.Content[0]
	blockStyle(root)
	prune(root, false)
	var head []string
	if conv.From != policy.APIVersion {
		head = append(head, fmt.Sprintf("Converted from %s (%s) by rebalancer convert.", file, conv.From))
	}
	for _, n := range conv.Notes {
		key := find(root, n.Path)
		if key == nil {
			head = append(head, n.Text)
			continue
		}
		key.HeadComment = joinComment(key.HeadComment, n.Text)
	}
	root.HeadComment = strings.Join(head, "\n")
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(root); err != nil {
		return nil, err
	}
	return b.Bytes(), enc.Close()
}

// blockStyle drops the flow style and quoting that JSON brought, so that
// the document reads as YAML is written.
func blockStyle(n *yaml.Node) {
	n.Style = 0
	for _, c := range n.Content {
		blockStyle(c)
	}
}

// prune drops the empty objects that the document's types marshal; under
// strategies an empty object is a strategy run with its defaults, and stays.
func prune(n *yaml.Node, keepEmpty bool) {
	if n.Kind != yaml.MappingNode {
		return
	}
	var kept []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		prune(v, k.Value == "strategies")
		if !keepEmpty && v.Kind == yaml.MappingNode && len(v.Content) == 0 {
			continue
		}
		kept = append(kept, k, v)
	}
	n.Content = kept
}

// find returns the key node at a dotted path, or nil.
func find(n *yaml.Node, path string) *yaml.Node {
	var key *yaml.Node
	for _, part := range strings.Split(path, ".") {
		if n == nil || n.Kind != yaml.MappingNode {
			return nil
		}
		var next *yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == part {
				key, next = n.Content[i], n.Content[i+1]
				break
			}
		}
		if next == nil {
			return nil
		}
		n = next
	}
	return key
}

func joinComment(a, b string) string {
	if a == "" {
		return b
	}
	return a + "\n" + b
}
