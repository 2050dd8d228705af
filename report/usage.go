package report

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"
)

// printUsage says, when nodes were classified by usage, how much of it
// was measured, and what the strategies said of the nodes they left out.
func printUsage(w io.Writer, r *Report) {
	if u := r.Usage; u != nil {
		fmt.Fprintf(w, "\nUSAGE (%s)", strings.Join(u.Sources, ", "))
		if !u.At.IsZero() {
			fmt.Fprintf(w, " read %s", u.At.UTC().Format(time.RFC3339))
		}
		fmt.Fprintf(w, ": %d node(s) with a sample, %d pod(s) on them without one counted by their requests\n", u.Nodes, u.PodsByRequests)
		if u.Error != "" {
			fmt.Fprintf(w, "METRICS ERROR: %s\n", u.Error)
		}
	}
	if len(r.Notes) > 0 {
		fmt.Fprintln(w, "\nNOTES\nSTRATEGY\tNODE\tNOTE")
		for _, n := range r.Notes {
			// A note of no strategy, or of no node, is about the cycle or
			// the whole strategy.
			strategy, node := n.Strategy, n.Node
			if strategy == "" {
				strategy = "-"
			}
			if node == "" {
				node = "-"
			}
			fmt.Fprintf(w, "%s\t%s\t%s\n", strategy, node, n.Text)
		}
	}
}

// usageColumns lists the measured resources any node has a sample of:
// cpu, memory, then the Prometheus query's value.
func usageColumns(r *Report) []string {
	seen := map[string]bool{}
	for _, n := range r.Nodes {
		for res := range n.UsageBefore {
			seen[res] = true
		}
	}
	var out []string
	for res := range seen {
		out = append(out, res)
	}
	order := map[string]int{"cpu": 0, "memory": 1, "query": 2}
	sort.Slice(out, func(i, j int) bool { return order[out[i]] < order[out[j]] })
	return out
}

func usageHeading(res string) string {
	if res == "query" {
		return "QUERY"
	}
	return strings.ToUpper(res) + " USED"
}
