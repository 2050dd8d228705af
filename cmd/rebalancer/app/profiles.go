package app

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"

	"github.com/spf13/cobra"
	"k8s.io/klog/v2"
)

// profileFlags are the pprof profiles a user with a slow cluster can send:
// a CPU profile of the whole command and a heap profile taken at its end.
type profileFlags struct {
	cpu, mem string
}

func (p *profileFlags) addFlags(c *cobra.Command) {
	c.Flags().StringVar(&p.cpu, "cpuprofile", "", "write a CPU profile of the command to this file (go tool pprof reads it)")
	c.Flags().StringVar(&p.mem, "memprofile", "", "write a heap profile, taken when the command ends, to this file (go tool pprof reads it)")
}

// start begins the CPU profile; the returned stop ends it and writes the
// heap profile. A profile that cannot be written is a warning at the end,
// not a failed command: the command's own work is done by then.
func (p *profileFlags) start() (stop func(), err error) {
	var cpu *os.File
	if p.cpu != "" {
		if cpu, err = os.Create(p.cpu); err != nil {
			return nil, fmt.Errorf("--cpuprofile: %w", err)
		}
		if err := pprof.StartCPUProfile(cpu); err != nil {
			return nil, errors.Join(fmt.Errorf("--cpuprofile: %w", err), cpu.Close())
		}
	}
	return func() {
		if cpu != nil {
			pprof.StopCPUProfile()
			if err := cpu.Close(); err != nil {
				klog.Warningf("--cpuprofile: %v", err)
			}
		}
		if p.mem != "" {
			if err := writeHeapProfile(p.mem); err != nil {
				klog.Warningf("--memprofile: %v", err)
			}
		}
	}, nil
}

func writeHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	// Up-to-date statistics: without a collection the profile shows the
	// heap as of the last one.
	runtime.GC()
	return errors.Join(pprof.Lookup("heap").WriteTo(f, 0), f.Close())
}
