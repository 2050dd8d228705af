package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestParseSizes(t *testing.T) {
	for _, tt := range []struct {
		in      string
		want    []size
		wantErr string
	}{
		{in: "600x10000,2000x40000", want: []size{{600, 10000}, {2000, 40000}}},
		{in: " 3x20 ", want: []size{{3, 20}}},
		{in: "600", wantErr: `"600" is not NODESxPODS`},
		{in: "0x10", wantErr: `"0x10" is not NODESxPODS`},
		{in: "2000x40000,600x10000", wantErr: "the cluster only grows"},
	} {
		got, err := parseSizes(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("parseSizes(%q) error = %v, want %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || len(got) != len(tt.want) {
			t.Errorf("parseSizes(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
			continue
		}
		for i := range got {
			if got[i] != tt.want[i] {
				t.Errorf("parseSizes(%q) = %v, want %v", tt.in, got, tt.want)
			}
		}
	}
}

// The table shows medians and the ratios against the targets of the size:
// at 600 nodes, 0.1× the descheduler's time and 0.3× its peak RSS; at
// 40,000 pods, 0.02× and 0.2×.
func TestPrintTableRatiosAgainstTargets(t *testing.T) {
	m := func(wall time.Duration, mib int64) measurement {
		return measurement{wall: wall, cpu: wall / 4, peakRSS: mib << 20}
	}
	rows := []row{
		{size: size{600, 10000}, runs: [toolCount][]measurement{
			{m(2*time.Second, 100), m(1*time.Second, 90), m(9*time.Second, 400)},
			{m(20*time.Second, 470), m(15*time.Second, 450), m(30*time.Second, 500)},
		}},
		{size: size{2000, 40000}, runs: [toolCount][]measurement{
			{m(8*time.Second, 300)},
			{m(200*time.Second, 1700)},
		}},
	}
	var out bytes.Buffer
	printTable(&out, rows, 3)
	lines := strings.Split(out.String(), "\n")
	for _, want := range []struct {
		line   int
		fields []string
	}{
		{1, []string{"600", "10000", "2s", "20s", "0.100× (≤0.1× met)", "100 MiB", "470 MiB", "0.213× (≤0.3× met)", "500ms", "5s", "0.100×"}},
		{2, []string{"2000", "40000", "8s", "3m20s", "0.040× (≤0.02× MISSED)", "300 MiB", "1700 MiB", "0.176× (≤0.2× met)"}},
	} {
		for _, f := range want.fields {
			if !strings.Contains(lines[want.line], f) {
				t.Errorf("line %d %q lacks %q", want.line, lines[want.line], f)
			}
		}
	}
	if !strings.Contains(out.String(), "medians of 3 rounds") {
		t.Errorf("table does not say what it shows:\n%s", out.String())
	}
}

// The log lines are the two tools' own, at -v=1.
func TestPodsSeen(t *testing.T) {
	for _, tt := range []struct {
		tool, log string
		want      int
	}{
		{tool: "rebalancer", log: `I1124 15:36:44.439620    4088 runner.go:180] "Read the cluster" nodes=600 pods=10000 pdbs=34 took="944ms"`, want: 10000},
		{tool: "descheduler", log: `I1124 15:37:05.308603 lownodeutilization.go:231] "Node has been classified" plugin="LowNodeUtilization" ExtensionPoint="Balance" category="underutilized" node="bench-96" usage={"cpu":"0","memory":"0","pods":"0"} usagePercentage={"cpu":0,"memory":0,"pods":0}
I1124 15:37:05.308714 lownodeutilization.go:231] "Node has been classified" plugin="LowNodeUtilization" ExtensionPoint="Balance" category="overutilized" node="bench-1" usage={"cpu":"3","memory":"8Gi","pods":"21"} usagePercentage={"cpu":75,"memory":50,"pods":19}
I1124 15:37:05.308714 lownodeutilization.go:231] "Node has been classified" plugin="LowNodeUtilization" ExtensionPoint="Balance" category="underutilized" node="bench-2" usage={"cpu":"1","memory":"1Gi","pods":"4"} usagePercentage={"cpu":25,"memory":6,"pods":3}`, want: 25},
		{tool: "descheduler", log: `I1124 "Number of evictions/requests" totalEvicted=0`, want: -1},
	} {
		if got := podsSeen(tt.tool, tt.log); got != tt.want {
			t.Errorf("%s: podsSeen = %d, want %d", tt.tool, got, tt.want)
		}
	}
}
