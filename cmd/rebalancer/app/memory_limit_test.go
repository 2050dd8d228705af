package app

import "testing"

func TestMemoryLimit(t *testing.T) {
	const mib = 1 << 20
	tests := []struct {
		name      string
		cgroup    string // memory.max, "" outside a cgroup
		dumpBytes int64
		want      int64 // 0: no limit
	}{
		{name: "run outside a container", want: 0},
		{name: "run in the chart's CronJob, limited to 512Mi", cgroup: "536870912\n", want: 512*mib - 512*mib/10},
		{name: "run in a container without a limit", cgroup: "max\n", want: 0},
		{name: "run in a cgroup v1 container without a limit", cgroup: "9223372036854771712\n", want: 0},
		{name: "plan on a 608 MiB dump", dumpBytes: 608 * mib, want: 912 * mib},
		{name: "plan on a small dump", dumpBytes: 2 * mib, want: 256 * mib},
		{name: "plan in a container smaller than the dump allows", cgroup: "536870912", dumpBytes: 608 * mib, want: 512*mib - 512*mib/10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var cgroup int64
			inCgroup := false
			if tt.cgroup != "" {
				cgroup, inCgroup = parseCgroupLimit(tt.cgroup)
			}
			got, ok := memoryLimit(cgroup, inCgroup, tt.dumpBytes)
			if !ok {
				got = 0
			}
			if got != tt.want {
				t.Errorf("memoryLimit() = %d MiB, want %d MiB", got/mib, tt.want/mib)
			}
		})
	}
}
