package report

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"text/tabwriter"

	"sigs.k8s.io/yaml"
)

// Formats accepted by Print.
const (
	Table = "table"
	JSON  = "json"
	YAML  = "yaml"
)

// Formats lists the output formats, for flag help and validation.
var Formats = []string{Table, JSON, YAML}

// Print writes the report in a format. verbose lists every skipped pod in
// the table instead of counting them.
func Print(w io.Writer, r *Report, format string, verbose bool) error {
	switch format {
	case JSON:
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	case YAML:
		b, err := yaml.Marshal(r)
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	case Table, "":
		return printTable(w, r, verbose)
	}
	return fmt.Errorf("unknown output format %q (want one of %s)", format, strings.Join(Formats, ", "))
}

func printTable(out io.Writer, r *Report, verbose bool) error {
	// tabwriter writes each cell by itself: thousands of moves would be
	// tens of thousands of writes to an unbuffered stdout.
	buf := bufio.NewWriter(out)
	w := tabwriter.NewWriter(buf, 0, 4, 2, ' ', 0)
	executed := len(r.Moves) > 0 && r.Moves[0].Result != ""

	if win := r.DisruptionWindows; win != nil {
		if win.Evict {
			fmt.Fprintf(w, "DISRUPTION WINDOWS: %s\n\n", win.Note)
		} else {
			fmt.Fprintf(w, "DISRUPTION WINDOWS: %s; nothing is evicted at this time\n\n", win.Note)
		}
	}
	title := "MOVES"
	if r.DryRun {
		title = "MOVES (dry run: nothing was evicted)"
	}
	// A plan of several steps leads each move with its step: the moves of a
	// step go together, and the run waits before the next.
	steps := r.Steps()
	if steps > 1 {
		fmt.Fprintf(w, "%s: %d in %d steps\n", title, len(r.Moves), steps)
	} else {
		fmt.Fprintf(w, "%s: %d\n", title, len(r.Moves))
	}
	if len(r.Moves) > 0 {
		to := "TO"
		if r.Predicted {
			to = "TO (predicted)"
		}
		head := []string{"POD", "FROM", "", to, "STRATEGY"}
		if steps > 1 {
			head = append([]string{"STEP"}, head...)
		}
		if executed {
			head = append(head, "RESULT")
		}
		fmt.Fprintln(w, strings.Join(append(head, "REASON"), "\t"))
		for _, m := range r.Moves {
			to := m.To
			if to == "" {
				to = "(not replaced)"
			}
			if m.Surge {
				to += " (surge)"
			}
			reason := m.Reason
			if m.Message != "" {
				reason += " [" + m.Message + "]"
			}
			row := []string{m.Pod, m.From, "→", to, m.Strategy}
			if steps > 1 {
				row = append([]string{fmt.Sprint(m.Step)}, row...)
			}
			if executed {
				row = append(row, string(m.Result))
			}
			fmt.Fprintln(w, strings.Join(append(row, reason), "\t"))
		}
	}

	if len(r.Placements) > 0 {
		fmt.Fprintf(w, "\nPLACEMENTS: %d (pending pods planned onto the room the moves make)\n", len(r.Placements))
		fmt.Fprintln(w, "POD\tNODE\tSTRATEGY\tREASON")
		for _, p := range r.Placements {
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", p.Pod, p.Node, p.Strategy, p.Reason)
		}
	}
	if n := surges(r.Moves); n > 0 {
		moves := "moves are"
		if n == 1 {
			moves = "move is"
		}
		fmt.Fprintf(w, "\nSURGES: %d %s made before the pod goes (evictable.makeBeforeBreak): its Deployment gets one replica more, "+
			"and once the new pod is Ready on TO it goes back to its replicas, removing the old pod\n", n, moves)
	}
	if budgets := implicitBudgets(r.Moves); len(budgets) > 0 {
		fmt.Fprintln(w, "\nIMPLICIT BUDGETS (no PodDisruptionBudget covers these workloads: each keeps to its own maxUnavailable a step)")
		for _, b := range budgets {
			fmt.Fprintln(w, b)
		}
	}
	if r.Predicted && len(r.Moves) > 0 {
		fmt.Fprintln(w, "\nTO is a prediction, not a promise: nothing steers the replacements (replacements: predicted), and their scheduler decides when they are created.")
	}
	if r.Stopped != "" {
		fmt.Fprintf(w, "\nSTOPPED: %s\n", r.Stopped)
	}
	if l := r.EventsLost; l != nil {
		fmt.Fprintf(w, "\nEVENTS LOST: %d of %d (the evictions happened; the pods do not show them): %s\n", l.Lost, l.Recorded, l.Why)
	}
	fmt.Fprintf(w, "\nSKIPPED: %d", len(r.Skipped))
	if cats := r.Summary.skippedCategories(); len(cats) > 0 {
		parts := make([]string, len(cats))
		for i, c := range cats {
			parts[i] = fmt.Sprintf("%d %s", r.Summary.Skipped[c], c)
		}
		fmt.Fprintf(w, " (%s)", strings.Join(parts, ", "))
		if !verbose {
			fmt.Fprint(w, "; -v lists them")
		}
	}
	fmt.Fprintln(w)
	if verbose && len(r.Skipped) > 0 {
		fmt.Fprintln(w, "POD\tSTRATEGY\tCATEGORY\tREASON")
		for _, s := range r.Skipped {
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", s.Pod, s.Strategy, s.Category, s.Reason)
		}
	}

	printUsage(w, r)
	if len(r.Nodes) > 0 {
		resources := resourceColumns(r)
		usage := usageColumns(r)
		fmt.Fprintf(w, "\nNODES (requested %% of allocatable, before → after)\nNODE\t")
		for _, res := range resources {
			fmt.Fprintf(w, "%s\t", strings.ToUpper(res))
		}
		for _, res := range usage {
			fmt.Fprintf(w, "%s\t", usageHeading(res))
		}
		fmt.Fprintln(w)
		for _, n := range r.Nodes {
			name := n.Name
			if n.Unschedulable {
				name += " (cordoned)"
			}
			fmt.Fprintf(w, "%s\t", name)
			for _, res := range resources {
				fmt.Fprintf(w, "%s\t", change(n.Before[res], n.After[res]))
			}
			for _, res := range usage {
				v := "no sample"
				if b, ok := n.UsageBefore[res]; ok {
					v = change(b, n.UsageAfter[res])
				}
				fmt.Fprintf(w, "%s\t", v)
			}
			fmt.Fprintln(w)
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return buf.Flush()
}

func surges(moves []Move) int {
	n := 0
	for _, m := range moves {
		if m.Surge {
			n++
		}
	}
	return n
}

// implicitBudgets lists the implicit budgets the moves count against, each
// once, in the order of the moves.
func implicitBudgets(moves []Move) []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range moves {
		if b := strings.TrimPrefix(m.Budget, "implicit budget: "); m.Budget != "" && !seen[b] {
			seen[b] = true
			out = append(out, b)
		}
	}
	return out
}

func resourceColumns(r *Report) []string {
	seen := map[string]bool{"cpu": true, "memory": true, "pods": true}
	var extra []string
	for _, n := range r.Nodes {
		for res := range n.Before {
			if !seen[res] {
				seen[res] = true
				extra = append(extra, res)
			}
		}
	}
	sort.Strings(extra)
	return append([]string{"cpu", "memory", "pods"}, extra...)
}

func change(before, after float64) string {
	if before == after {
		return percent(before)
	}
	return percent(before) + " → " + percent(after)
}

func percent(v float64) string {
	if v < 0 {
		return "n/a"
	}
	return fmt.Sprintf("%g%%", math.Round(v*10)/10)
}
