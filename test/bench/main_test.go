package main

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
)

// A short run on three small clusters: the table has a row per size and a
// verdict per measure for each step and for the whole range, as `make
// bench` prints them on large ones.
func TestBenchPrintsTheTable(t *testing.T) {
	dir := t.TempDir()
	binary := buildRebalancer(t, dir)
	var out bytes.Buffer
	err := run([]string{"-nodes", "20,40,60", "-pods-per-node", "10", "-runs", "1", "-rebalancer", binary,
		"-cache", filepath.Join(dir, "cache"), "-policy", "every-strategy.yaml"}, &out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`(?m)^nodes +pods +moves +dump +planning +wall +peak RSS +RSS/dump$`,
		`(?m)^20 +200 +\d+ +\d+ MiB +[0-9.]+[µm]?s +[0-9.]+m?s +\d+ MiB +[0-9.]+×$`,
		`(?m)^40 +400 `,
		`(?m)^60 +600 `,
		`(?m)^\(medians of 1 runs; policy every-strategy\.yaml\)$`,
		`(?m)^200 → 400 pods: planning ×[0-9.]+ \(n·log n allows ×2\.26\): (within|grows FASTER than) n·log n$`,
		`(?m)^200 → 400 pods: peak RSS ×`,
		`(?m)^400 → 600 pods: planning ×`,
		`(?m)^200 → 600 pods: planning ×[0-9.]+ \(n·log n allows ×3\.62\): `,
	} {
		if !regexp.MustCompile(want).Match(out.Bytes()) {
			t.Errorf("output does not match %s:\n%s", want, out.String())
		}
	}
}

// The policies `make bench` takes (BENCH_POLICY) are ones plan accepts, the
// scheduler configuration of the fixed-share one included.
func TestBenchPoliciesAreValid(t *testing.T) {
	binary := buildRebalancer(t, t.TempDir())
	for _, file := range []string{"every-strategy.yaml", "every-strategy-fixed-share.yaml"} {
		if out, err := exec.Command(binary, "validate", file).CombinedOutput(); err != nil {
			t.Errorf("rebalancer validate %s: %v\n%s", file, err, out)
		}
	}
}

func buildRebalancer(t *testing.T, dir string) string {
	t.Helper()
	binary := filepath.Join(dir, "rebalancer")
	if out, err := exec.Command("go", "build", "-o", binary, "../../cmd/rebalancer").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return binary
}
