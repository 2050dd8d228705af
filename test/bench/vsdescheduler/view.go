package main

import (
	"regexp"
	"strconv"
	"time"
)

// The two tools must plan on the same cluster for their figures to
// compare. Each says, in its -v=1 log, how many pods it saw: rebalancer in
// its "Read the cluster" line, the descheduler in LowNodeUtilization's
// classification of each node (the pods of its usage). The descheduler's
// dry run plans on a copy of the cluster that it fills from LISTs and
// reads through informers; it has been seen to classify every node with
// no pods at all, and so to plan nothing, which makes it look fast.

var (
	rebalancerRead = regexp.MustCompile(`"Read the cluster".* pods=(\d+)`)
	deschedulerUse = regexp.MustCompile(`"Node has been classified".*usage=\{[^}]*"pods":"(\d+)"`)
	floorRead      = regexp.MustCompile(`(?m)^floor .* pods=(\d+)`)
	// The part of run's time the floor stands for: from the start of the
	// cycle to the snapshot built from what it read.
	rebalancerTook = regexp.MustCompile(`"Read the cluster".* took="([^"]+)"`)
)

// readTook returns the "took" of run's "Read the cluster" line, or zero
// when the log has none.
func readTook(log string) time.Duration {
	m := rebalancerTook.FindStringSubmatch(log)
	if m == nil {
		return 0
	}
	d, err := time.ParseDuration(m[1])
	if err != nil {
		return 0
	}
	return d
}

// podsSeen returns the pods the tool's log says it saw on the nodes, or -1
// when the log does not say.
func podsSeen(tool, log string) int {
	switch tool {
	case "rebalancer", "floor":
		re := rebalancerRead
		if tool == "floor" {
			re = floorRead
		}
		m := re.FindStringSubmatch(log)
		if m == nil {
			return -1
		}
		n, _ := strconv.Atoi(m[1])
		return n
	default:
		all := deschedulerUse.FindAllStringSubmatch(log, -1)
		if all == nil {
			return -1
		}
		sum := 0
		for _, m := range all {
			n, _ := strconv.Atoi(m[1])
			sum += n
		}
		return sum
	}
}
