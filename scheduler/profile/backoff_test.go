package profile

import (
	"testing"
	"time"
)

func TestLoadProfilesBackoff(t *testing.T) {
	head := "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
	tests := []struct {
		name, yaml string
		want       Backoff
		err        string
	}{
		{name: "unset: kube-scheduler's defaults", yaml: head, want: Backoff{}},
		{name: "both set, for every profile", yaml: head + "podInitialBackoffSeconds: 2\npodMaxBackoffSeconds: 30\nprofiles:\n- schedulerName: a\n- schedulerName: b\n",
			want: Backoff{Initial: 2 * time.Second, Max: 30 * time.Second}},
		{name: "only the initial one: the maximum stays 10 s", yaml: head + "podInitialBackoffSeconds: 3\n",
			want: Backoff{Initial: 3 * time.Second, Max: 10 * time.Second}},
		{name: "zero", yaml: head + "podInitialBackoffSeconds: 0\n",
			err: "sched.yaml: podInitialBackoffSeconds: 0 must be greater than 0"},
		{name: "a maximum below the initial one", yaml: head + "podInitialBackoffSeconds: 5\npodMaxBackoffSeconds: 2\n",
			err: "sched.yaml: podMaxBackoffSeconds: 2 must be greater than or equal to podInitialBackoffSeconds (5)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			profiles, err := LoadProfiles([]byte(tt.yaml), "sched.yaml")
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Errorf("error %v, want %s", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range profiles {
				if p.Backoff != tt.want {
					t.Errorf("profile %s: backoff %+v, want %+v", p.SchedulerName, p.Backoff, tt.want)
				}
			}
		})
	}
}
