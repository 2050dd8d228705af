package codecheck

import (
	"go/parser"
	"go/token"
	"testing"
)

func TestMentions(t *testing.T) {
	tests := []struct {
		name, src string
		want      bool
	}{
		{"constant", `const X = "PodLifeTime"`, true},
		{"in a message", `var m = "age is past PodLifeTime's limit"`, true},
		{"identifier", `var _ = PodLifeTime`, true},
		{"receiver of a selector", `var _ = PodLifeTime.Args`, true},
		{"field of another value", `var _ = s.PodLifeTime`, false},
		{"exported by a package of the module", "import \"example.com/m/strategies\"\nvar _ = strategies.PodLifeTime", true},
		{"exported by a renamed package of the module", "import st \"example.com/m/strategies\"\nvar _ = st.PodLifeTime", true},
		{"a type of another module", "import corev1 \"k8s.io/api/core/v1\"\nvar _ corev1.PodLifeTime", false},
		{"a field of another module's type", "import corev1 \"k8s.io/api/core/v1\"\nvar _ = corev1.Affinity{PodLifeTime: nil}", false},
		{"a value under another module's field", "import corev1 \"k8s.io/api/core/v1\"\nvar _ = corev1.Affinity{X: PodLifeTime}", true},
		{"a key of the module's own map", "var _ = map[string]int{PodLifeTime: 1}", true},
		{"part of a longer word", `var m = "maxPodLifeTimeSeconds"`, false},
		{"type named after it", `var _ PodLifeTimeArgs`, false},
		{"comment", "// PodLifeTime\nvar x = 1", false},
		{"raw string", "var m = `PodLifeTime: {}`", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := parser.ParseFile(token.NewFileSet(), "x.go", "package x\n"+tt.src+"\n", 0)
			if err != nil {
				t.Fatal(err)
			}
			if got := mentions(f, "PodLifeTime", "example.com/m"); got != tt.want {
				t.Errorf("mentions() = %v, want %v", got, tt.want)
			}
		})
	}
}
