package app

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A user with a slow cluster sends profiles of the command that was slow:
// both are pprof's gzip-compressed protocol buffers, written when the
// command ends.
func TestPlanWritesTheProfilesAskedFor(t *testing.T) {
	dir := t.TempDir()
	cpu, mem := filepath.Join(dir, "cpu.pprof"), filepath.Join(dir, "mem.pprof")
	if _, code, err := execute(t, "plan", "--snapshot", "../../../examples/cluster.yaml",
		"--cpuprofile", cpu, "--memprofile", mem); code != exitOK {
		t.Fatal(err)
	}
	for _, path := range []string{cpu, mem} {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s is not a pprof profile: %v", filepath.Base(path), err)
		}
		raw, err := io.ReadAll(zr)
		if err != nil || len(raw) == 0 {
			t.Errorf("%s holds no profile (%d bytes, %v)", filepath.Base(path), len(raw), err)
		}
	}
}

// A profile that cannot be written is bad input, found before any work.
func TestAProfileThatCannotBeWrittenIsRefused(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-such-dir", "cpu.pprof")
	_, code, err := execute(t, "plan", "--snapshot", "../../../examples/cluster.yaml", "--cpuprofile", missing)
	if code != exitUsage || err == nil || !strings.Contains(err.Error(), "--cpuprofile") {
		t.Fatalf("exit %d, %v; want exit %d naming --cpuprofile", code, err, exitUsage)
	}
}
