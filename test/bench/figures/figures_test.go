package figures

import (
	"testing"
	"time"
)

func TestMedian(t *testing.T) {
	tests := []struct {
		name string
		xs   []time.Duration
		want time.Duration
	}{
		{"none", nil, 0},
		{"one", []time.Duration{3}, 3},
		{"odd count, unsorted", []time.Duration{9, 1, 5}, 5},
		{"even count: the mean of the middle two", []time.Duration{4, 1, 10, 2}, 3},
	}
	for _, tt := range tests {
		xs := append([]time.Duration(nil), tt.xs...)
		if got := Median(xs); got != tt.want {
			t.Errorf("%s: Median(%v) = %v, want %v", tt.name, tt.xs, got, tt.want)
		}
		for i := range xs {
			if xs[i] != tt.xs[i] {
				t.Errorf("%s: Median reordered its input: %v", tt.name, xs)
				break
			}
		}
	}
}

func TestLastLines(t *testing.T) {
	if got := LastLines("a\nb\nc\n", 2); got != "b\nc" {
		t.Errorf("LastLines = %q, want %q", got, "b\nc")
	}
	if got := LastLines("only\n", 5); got != "only" {
		t.Errorf("LastLines = %q, want %q", got, "only")
	}
}
