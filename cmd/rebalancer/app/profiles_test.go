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

// A profile that cannot be written is bad input, found before any work:
// before plan reads its snapshot, before schedule connects to a cluster.
func TestAProfileThatCannotBeWrittenIsRefused(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-such-dir", "cpu.pprof")
	for _, args := range [][]string{
		{"plan", "--snapshot", "../../../examples/cluster.yaml", "--cpuprofile", missing},
		{"schedule", "--kubeconfig", filepath.Join(t.TempDir(), "no-such-kubeconfig"), "--cpuprofile", missing},
	} {
		t.Run(args[0], func(t *testing.T) {
			_, code, err := execute(t, args...)
			// Named with the file, so that an unknown flag does not pass.
			if code != exitUsage || err == nil || !strings.Contains(err.Error(), "--cpuprofile: ") || !strings.Contains(err.Error(), "no-such-dir") {
				t.Fatalf("exit %d, %v; want exit %d naming --cpuprofile and its file", code, err, exitUsage)
			}
		})
	}
}
