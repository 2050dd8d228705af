package main

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
)

// A short run on two small clusters: the table has a row per size and a
// verdict per measure, as `make bench` prints them on large ones.
func TestBenchPrintsTheTable(t *testing.T) {
	dir := t.TempDir()
	binary := filepath.Join(dir, "rebalancer")
	if out, err := exec.Command("go", "build", "-o", binary, "../../cmd/rebalancer").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	var out bytes.Buffer
	err := run([]string{"-nodes", "20,40", "-pods-per-node", "10", "-runs", "1", "-rebalancer", binary,
		"-cache", filepath.Join(dir, "cache"), "-policy", "every-strategy.yaml"}, &out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`(?m)^nodes +pods +dump +planning +wall +peak RSS +RSS/dump$`,
		`(?m)^20 +200 +\d+ MiB +[0-9.]+[µm]?s +[0-9.]+m?s +\d+ MiB +[0-9.]+×$`,
		`(?m)^40 +400 `,
		`(?m)^200 → 400 pods: planning ×[0-9.]+ \(n·log n allows ×2\.26\): (within|grows FASTER than) n·log n$`,
		`(?m)^200 → 400 pods: peak RSS ×`,
	} {
		if !regexp.MustCompile(want).Match(out.Bytes()) {
			t.Errorf("output does not match %s:\n%s", want, out.String())
		}
	}
}
