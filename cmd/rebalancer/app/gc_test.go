package app

import (
	"os"
	"runtime/debug"
	"testing"
)

// run collects garbage at runGCPercent, unless $GOGC chooses, as it does
// for any Go program.
func TestTightenGC(t *testing.T) {
	for _, tt := range []struct {
		name        string
		gogc        *string
		wantChanged bool
		wantPercent int
	}{
		{name: "GOGC unset: runGCPercent", wantChanged: true, wantPercent: runGCPercent},
		{name: "GOGC=200 is the user's choice", gogc: new("200"), wantChanged: false, wantPercent: 100},
		{name: "GOGC=off is the user's choice", gogc: new("off"), wantChanged: false, wantPercent: 100},
	} {
		t.Run(tt.name, func(t *testing.T) {
			prev := debug.SetGCPercent(100)
			defer debug.SetGCPercent(prev)
			if tt.gogc != nil {
				t.Setenv("GOGC", *tt.gogc)
			} else if v, ok := os.LookupEnv("GOGC"); ok {
				t.Setenv("GOGC", v) // restored after the test
				if err := os.Unsetenv("GOGC"); err != nil {
					t.Fatal(err)
				}
			}
			if got := tightenGC(); got != tt.wantChanged {
				t.Errorf("tightenGC() = %t, want %t", got, tt.wantChanged)
			}
			if got := debug.SetGCPercent(100); got != tt.wantPercent {
				t.Errorf("GC percent %d, want %d", got, tt.wantPercent)
			}
		})
	}
}
