package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"time"

	"github.com/kube-rebalancer/rebalancer/test/bench/figures"
)

type measurement struct {
	wall time.Duration
	// cpu is the process's user and system time: on a machine shared with
	// other work it says what the process cost, when its wall time says
	// mostly how long it waited for a CPU and for the API server.
	cpu     time.Duration
	peakRSS int64 // bytes
	// seen is how many pods the tool's log says it planned on; -1 when
	// it does not say.
	seen int
	// read is the "Read the cluster" part of a rebalancer run, by its log;
	// zero for the other tools.
	read time.Duration
}

// measure runs argv under GNU time, which reports its child's peak RSS.
// Reading ru_maxrss of a direct child would not do: Go starts children
// sharing its memory until exec, and the kernel then counts the parent's
// high-water mark, this process's (which holds a clientset and lists of the
// cluster), as the child's.
func measure(ctx context.Context, name string, argv []string) (measurement, error) {
	rss, err := os.CreateTemp("", "rss-*")
	if err != nil {
		return measurement{}, err
	}
	if err := rss.Close(); err != nil {
		return measurement{}, err
	}
	defer func() { _ = os.Remove(rss.Name()) }()
	cmd := exec.CommandContext(ctx, "/usr/bin/time", append([]string{"-f", "%M %U %S", "-o", rss.Name(), "--"}, argv...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	err = cmd.Run()
	wall := time.Since(start)
	if err != nil {
		return measurement{}, fmt.Errorf("%s: %w: %s", argv[0], err, figures.LastLines(stderr.String(), 5))
	}
	raw, err := os.ReadFile(rss.Name())
	if err != nil {
		return measurement{}, err
	}
	var (
		kib       int64
		user, sys float64
	)
	if _, err := fmt.Sscanf(figures.LastLines(string(raw), 1), "%d %f %f", &kib, &user, &sys); err != nil {
		return measurement{}, fmt.Errorf("peak RSS and CPU time from GNU time %q: %w", raw, err)
	}
	return measurement{wall: wall, cpu: time.Duration((user + sys) * float64(time.Second)), peakRSS: kib * 1024,
		seen: podsSeen(name, stderr.String()), read: readTook(stderr.String())}, nil
}
