package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
)

// A small run on a real control plane: 20 nodes, 100 pods, one round.
// Both schedulers bind every pod (the run fails otherwise), the table has
// a row each and the ratio, and `rebalancer schedule` writes the CPU
// profile asked for. Timings on a shared machine say nothing here: none is
// checked.
func TestBothSchedulersBindEveryPodAndTheTablePrints(t *testing.T) {
	dir := t.TempDir()
	binary := filepath.Join(dir, "rebalancer")
	if out, err := exec.Command("go", "build", "-o", binary, "../../../cmd/rebalancer").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	profiles := filepath.Join(dir, "profiles")
	var out, progress bytes.Buffer
	err := run(t.Context(), []string{"-nodes", "20", "-pods", "100", "-rounds", "1", "-rebalancer", binary, "-cpuprofile-dir", profiles}, &out, &progress)
	if err != nil {
		t.Fatalf("%v\n%s", err, progress.String())
	}
	for _, want := range []string{
		`(?m)^scheduler +nodes +pods +created in +started +first bound +last bound +pods/s created→bound +pods/s bind phase$`,
		`(?m)^kube-scheduler +20 +100 +[0-9.]+m?s +[0-9.]+m?s +[0-9.]+m?s +[0-9.]+m?s +[0-9.]+ +[0-9.]+$`,
		`(?m)^rebalancer +20 +100 +[0-9.]+m?s +[0-9.]+m?s +[0-9.]+m?s +[0-9.]+m?s +[0-9.]+ +[0-9.]+$`,
		`(?m)^rebalancer/kube-scheduler: [0-9.]+× created→bound, [0-9.]+× bind phase$`,
		`(?m)^\(medians of 1 rounds; both schedulers with client qps 50, burst 100; `,
	} {
		if !regexp.MustCompile(want).Match(out.Bytes()) {
			t.Errorf("output does not match %s:\n%s", want, out.String())
		}
	}
	if st, err := os.Stat(filepath.Join(profiles, "schedule-round-1.pprof")); err != nil || st.Size() == 0 {
		t.Errorf("no CPU profile of rebalancer schedule: %v", err)
	}
	t.Logf("%s", progress.String())
}
