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
		{"identifier", `var _ = s.PodLifeTime`, true},
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
			if got := mentions(f, "PodLifeTime"); got != tt.want {
				t.Errorf("mentions() = %v, want %v", got, tt.want)
			}
		})
	}
}
