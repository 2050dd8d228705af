package main

import (
	"bytes"
	"os"
	"testing"
)

// The committed example must be what the generator writes, so that the
// README's output and the generator never drift apart.
func TestClusterYAMLIsUpToDate(t *testing.T) {
	want, err := render()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../cluster.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("examples/cluster.yaml is stale: run `go run ./examples/gen > examples/cluster.yaml`")
	}
}
