// Package klogtest captures what klog writes during a test.
package klogtest

import (
	"bytes"
	"flag"
	"os"
	"strconv"
	"testing"

	"k8s.io/klog/v2"
)

// Capture sends klog's output to the returned buffer until the test ends,
// at verbosity v (a command under test may set its own with -v), and then
// restores stderr and verbosity 0: klog's settings are global and would
// otherwise outlive the test. Each line is written once: klog writes a line
// to the output of its severity and of every lower one.
func Capture(t testing.TB, v int) *bytes.Buffer {
	t.Helper()
	fs := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(fs)
	if err := fs.Set("v", strconv.Itoa(v)); err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	klog.LogToStderr(false)
	klog.SetOutputBySeverity("INFO", &logs)
	t.Cleanup(func() {
		klog.Flush()
		klog.SetOutput(os.Stderr)
		klog.LogToStderr(true)
		if err := fs.Set("v", "0"); err != nil {
			t.Error(err)
		}
	})
	return &logs
}
