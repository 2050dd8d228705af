package app

import (
	"bytes"
	"flag"
	"os"
	"testing"

	"k8s.io/klog/v2"
)

// captureLogs sends klog's output to the returned buffer until the test
// ends, and then restores stderr and verbosity 0: -v sets klog's global
// verbosity, which would otherwise outlive the command that set it.
func captureLogs(t *testing.T) *bytes.Buffer {
	t.Helper()
	var logs bytes.Buffer
	klog.LogToStderr(false)
	// Each line once: klog writes a line to the output of its severity and
	// of every lower one.
	klog.SetOutputBySeverity("INFO", &logs)
	t.Cleanup(func() {
		klog.Flush()
		klog.SetOutput(os.Stderr)
		klog.LogToStderr(true)
		fs := flag.NewFlagSet("klog", flag.ContinueOnError)
		klog.InitFlags(fs)
		if err := fs.Set("v", "0"); err != nil {
			t.Error(err)
		}
	})
	return &logs
}
