package policy

import (
	"errors"
	"testing"
)

// FuzzLoad checks that no input makes Load panic, and that every failure is
// a *policy.Error naming the file, which the CLI turns into exit code 2.
func FuzzLoad(f *testing.F) {
	f.Add(DefaultYAML())
	f.Add([]byte(header + "strategies:\n  LowNodeUtilization: {thresholds: {cpu: 20}, targetThresholds: {cpu: 120}}\n"))
	f.Add([]byte(header + "overrides:\n- namespaces: [a]\n  evictable: {minPodAge: 1h}\n"))
	f.Add([]byte("{}"))
	f.Add([]byte("- a\n- b\n"))
	f.Add([]byte(header + "limits: {total: null}\ngracePeriodSeconds: 9223372036854775807\n"))
	f.Add([]byte(header + "overrides:\n- namespaces: [a]\n  limits: {perNamespace: -.inf}\n"))
	f.Add([]byte("root:$6$salt$hash:19000:0:99999:7:::\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Load(data, "fuzz.yaml")
		if err != nil {
			var perr *Error
			if !errors.As(err, &perr) || perr.File != "fuzz.yaml" || len(perr.Problems) == 0 {
				t.Fatalf("Load() error %T %q is not a *policy.Error with problems", err, err)
			}
			return
		}
		// A valid policy answers every question without panicking.
		_ = p.Enabled()
		_ = p.For("default", map[string]string{"a": "b"})
		_ = p.SelectsNode(nil)
	})
}
