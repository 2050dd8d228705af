// Package app builds rebalancer's command line, so that a program can run
// the whole CLI with scheduler plugins and strategies of its own, as
// kube-scheduler's app.NewSchedulerCommand(app.WithPlugin(…)) does:
//
//	func main() {
//		os.Exit(app.Main(app.WithPlugin("Draining", draining.Registration)))
//	}
//
// The plugins reach every command that simulates a scheduler (run, plan,
// place, schedule, validate), so that a KubeSchedulerConfiguration, in a
// file or in a policy's scheduler section, may enable them. The strategies
// are registered before any policy is loaded, so that a policy may
// configure them. examples/custom-plugin and examples/custom-strategy are
// complete programs.
package app

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"

	"k8s.io/klog/v2"

	schedframework "github.com/kube-rebalancer/rebalancer/scheduler/framework"
	"github.com/kube-rebalancer/rebalancer/scheduler/profile"
	stratframework "github.com/kube-rebalancer/rebalancer/strategies/framework"
)

// Option adds to the CLI that NewCommand and Main build.
type Option func(*settings)

// settings is what the options give the commands.
type settings struct {
	// plugins are the out-of-tree scheduler plugins, passed to every
	// profile load and engine build.
	plugins schedframework.Registry
	// registrations register strategies; each runs its registration once
	// however many commands are built with it.
	registrations []func() error
	version       string
	commit        string
	// errs are the options' own errors, returned by every command.
	errs []error
}

// WithPlugin adds an out-of-tree scheduler plugin under name, which a
// KubeSchedulerConfiguration then enables like an in-tree one. A name
// given twice, or already an in-tree plugin's, fails every command.
func WithPlugin(name string, r schedframework.Registration) Option {
	return func(s *settings) {
		if _, dup := s.plugins[name]; dup {
			s.errs = append(s.errs, fmt.Errorf("plugin %q is given twice", name))
			return
		}
		if s.plugins == nil {
			s.plugins = schedframework.Registry{}
		}
		s.plugins[name] = r
	}
}

// WithStrategy registers a strategy (see stratframework.Register) when the
// command is built, before any policy is loaded. Strategies live in one
// table for the whole process, so the registration happens once per
// Option value; a failed one (a name already registered) fails every
// command.
func WithStrategy(r stratframework.Registration) Option {
	var (
		once sync.Once
		err  error
	)
	register := func() error {
		once.Do(func() { err = stratframework.Register(r) })
		return err
	}
	return func(s *settings) { s.registrations = append(s.registrations, register) }
}

// WithVersion sets what `rebalancer version` prints and the version in
// the User-Agent of API requests; by default "dev" and "unknown". A main
// package passes the values its build stamped in with -ldflags -X.
func WithVersion(version, commit string) Option {
	return func(s *settings) { s.version, s.commit = version, commit }
}

// newSettings applies the options and registers their strategies.
func newSettings(opts []Option) *settings {
	s := &settings{version: "dev", commit: "unknown"}
	for _, o := range opts {
		o(s)
	}
	for _, register := range s.registrations {
		if err := register(); err != nil {
			s.errs = append(s.errs, err)
		}
	}
	// Profiles with no data are the default profile: loading them checks
	// the plugins against the in-tree ones, once, for every command.
	if _, err := profile.LoadProfiles(nil, "", s.plugins); err != nil {
		s.errs = append(s.errs, err)
	}
	return s
}

// userAgent is the User-Agent of a command's API requests.
func (s *settings) userAgent(program string) string {
	return program + "/" + s.version
}

// Main runs the command line of os.Args with the options, on the process's
// standard output and error, and returns the exit code for os.Exit.
func Main(opts ...Option) int {
	return Run(os.Args[1:], os.Stdout, os.Stderr, opts...)
}

// Run runs the command line args (without the program name) with the
// options and returns the exit code: 0 done, 1 the run failed (API server
// unreachable, permission denied, failed evictions), 2 bad usage or
// invalid input, and then nothing was evicted. The error, if any, is
// printed on stderr; logs go where klog writes them.
func Run(args []string, stdout, stderr io.Writer, opts ...Option) int {
	c := NewCommand(opts...)
	c.SetArgs(verbosityArgs(args))
	c.SetOut(stdout)
	c.SetErr(stderr)
	err := c.Execute()
	klog.Flush()
	if err != nil {
		fmt.Fprintln(stderr, "Error:", err)
	}
	return exitCode(err)
}

// verbosityArgs joins "-v 2" and "--v 2" into "-v=2". -v alone means 1 (as
// the README's "add -v" does), so its flag takes an optional value, which
// pflag reads only when attached; klog and kubectl users write it apart.
func verbosityArgs(args []string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		if (args[i] == "-v" || args[i] == "--v") && i+1 < len(args) {
			if _, err := strconv.ParseUint(args[i+1], 10, 8); err == nil {
				out = append(out, args[i]+"="+args[i+1])
				i++
				continue
			}
		}
		if args[i] == "--" {
			return append(out, args[i:]...)
		}
		out = append(out, args[i])
	}
	return out
}
