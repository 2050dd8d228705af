package main

import (
	"fmt"
	"io"
	"strings"
)

// The tables are Markdown, as docs/outcome.md shows them.

func row(out io.Writer, cells ...any) {
	s := make([]string, len(cells))
	for i, c := range cells {
		if f, ok := c.(float64); ok {
			c = fmt.Sprintf("%.1f", f)
		}
		s[i] = fmt.Sprint(c)
	}
	fmt.Fprintf(out, "| %s |\n", strings.Join(s, " | "))
}

func header(out io.Writer, cells ...any) {
	row(out, cells...)
	seps := make([]any, len(cells))
	for i := range seps {
		seps[i] = "---"
	}
	row(out, seps...)
}

// printScenario prints a scenario's table: the cluster before, then a row
// per arm. kube-scheduler places the same objects alike but not always
// identically (ties), so a before row is printed for each arm whose
// cluster differed from the first's.
func printScenario(out io.Writer, sc scenario, rs []result) {
	fmt.Fprintf(out, "\n#### %s\n\n", sc.title)
	header(out, "arm", "cycles until quiet", "evictions", "minimal moves", "wasted", "landed back", "PDB refusals",
		"Pending", "Deployments short", "CPU max %", "CPU min %", "CPU sd", "empty nodes", "skew", "violations")
	for i, r := range rs {
		if i > 0 && r.before == rs[0].before {
			continue
		}
		label := "(before)"
		if i > 0 {
			label = "(before, " + r.arm.title + ")"
		}
		b := r.before
		row(out, label, "", "", "", "", "", "", b.pending, "", b.cpuMax, b.cpuMin, b.cpuStdDev, b.empty, b.skew, b.violations)
	}
	for _, r := range rs {
		a := r.after
		row(out, r.arm.title, r.untilQuiet(), r.evictions, r.minimal, r.wasted(), r.landedBack, r.pdbRefused,
			a.pending, r.fewerReady, a.cpuMax, a.cpuMin, a.cpuStdDev, a.empty, a.skew, a.violations)
	}
}

// printSummary prints a line per scenario and arm: the figures every
// scenario is judged on and the one it is about.
func printSummary(out io.Writer, scs []scenario, all [][]result) {
	fmt.Fprintf(out, "\n#### Summary\n\n")
	header(out, "scenario", "arm", "evictions", "wasted", "Pending", "cycles until quiet", "goal (before → after)")
	for i, sc := range scs {
		for _, r := range all[i] {
			row(out, sc.key, r.arm.title, r.evictions, r.wasted(), r.after.pending, r.untilQuiet(), goal(sc.goal, r))
		}
	}
}

func goal(name string, r result) string {
	b, a := r.before, r.after
	switch name {
	case "empty":
		return fmt.Sprintf("empty nodes %d → %d", b.empty, a.empty)
	case "violations":
		return fmt.Sprintf("violations %d → %d", b.violations, a.violations)
	case "skew":
		return fmt.Sprintf("skew %d → %d", b.skew, a.skew)
	default:
		return fmt.Sprintf("CPU sd %.1f → %.1f", b.cpuStdDev, a.cpuStdDev)
	}
}
