package app

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// inlineCode is a Markdown code span.
var inlineCode = regexp.MustCompile("`([^`\n]+)`")

// commandStart finds where a shell command may begin in a line: its start,
// or after a pipe, a list operator or a command substitution.
var commandStart = regexp.MustCompile(`(?:^|\|\|?|&&|;|\$\()\s*`)

// commandName is what a subcommand's name looks like, unlike a flag.
var commandName = regexp.MustCompile(`^[a-z][a-z-]*$`)

// plainWord is a word of a sentence.
var plainWord = regexp.MustCompile(`^[a-z]+$`)

// documentedCommands returns, for each `rebalancer X` the Markdown file
// shows as a command (in a code span or a line of a code block), X and
// where it is.
func documentedCommands(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	found := map[string]string{}
	collect := func(code, at string) {
		for _, loc := range commandStart.FindAllStringIndex(code, -1) {
			fields := strings.Fields(strings.TrimPrefix(code[loc[1]:], "$ "))
			// A message quoted in code ("rebalancer planned this
			// replacement of …") reads on in plain words; a command goes on
			// with an argument, a flag, or nothing.
			prose := len(fields) >= 4 && plainWord.MatchString(fields[2]) && plainWord.MatchString(fields[3])
			if len(fields) >= 2 && fields[0] == "rebalancer" && commandName.MatchString(fields[1]) && !prose {
				if _, seen := found[fields[1]]; !seen {
					found[fields[1]] = at
				}
			}
		}
	}
	sc := bufio.NewScanner(f)
	fenced := false
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		at := path + ":" + strconv.Itoa(n)
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			collect(line, at)
			continue
		}
		for _, m := range inlineCode.FindAllStringSubmatch(line, -1) {
			collect(m[1], at)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return found
}

// Every command the README and docs/*.md tell a reader to run is one that
// `rebalancer --help` lists: a documented command never turns out to be
// hidden or gone.
func TestDocumentedCommandsAreInHelp(t *testing.T) {
	t.Chdir("../../..")
	files, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	files = append([]string{"README.md"}, files...)
	help, code, err := execute(t, "--help")
	if code != exitOK {
		t.Fatal(err)
	}
	listed := helpCommands(help)
	documented := map[string]bool{}
	for _, file := range files {
		for cmd, at := range documentedCommands(t, file) {
			documented[cmd] = true
			if !slices.Contains(listed, cmd) {
				t.Errorf("%s: `rebalancer %s` is not a command `rebalancer --help` lists (%v)", at, cmd, listed)
			}
		}
	}
	// The scan must see the commands the docs are built around.
	for _, cmd := range []string{"run", "plan", "place", "schedule", "validate"} {
		if !documented[cmd] {
			t.Errorf("no `rebalancer %s` found in the docs: the scan is broken", cmd)
		}
	}
}

// helpCommands returns the names under "Available Commands:" of a help text.
func helpCommands(help string) []string {
	var names []string
	_, rest, ok := strings.Cut(help, "Available Commands:\n")
	if !ok {
		return nil
	}
	for _, line := range strings.Split(rest, "\n") {
		if strings.TrimSpace(line) == "" {
			break
		}
		names = append(names, strings.Fields(line)[0])
	}
	return names
}
