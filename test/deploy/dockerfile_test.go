package deploy

import (
	"debug/elf"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// buildLine is a `go build` command line, taken apart so that two spellings
// of the same build compare equal: Make's $$ and $(GO), and a variable
// written ${V}, $V or ${V:-default}, all reduce to the same tokens.
type buildLine struct {
	Env      []string // assignments before the command, e.g. CGO_ENABLED=0
	Flags    []string // go build flags other than -o and -ldflags
	LDFlags  []string // the words of -ldflags
	Output   string   // -o; the one part allowed to differ
	Packages []string
	// Defaults of the variables the line uses: ${VERSION:-dev} in the
	// Makefile, ARG VERSION=dev in the Dockerfile.
	Defaults map[string]string
}

var shellVar = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(:-([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)`)

func parseBuildLine(line string) (buildLine, error) {
	b := buildLine{Defaults: map[string]string{}}
	line = shellVar.ReplaceAllStringFunc(line, func(m string) string {
		sm := shellVar.FindStringSubmatch(m)
		name := sm[1] + sm[4]
		if sm[2] != "" {
			b.Defaults[name] = sm[3]
		}
		return "$" + name
	})
	words, err := shellWords(line)
	if err != nil {
		return b, err
	}
	i := 0
	for ; i < len(words) && strings.Contains(words[i], "=") && !strings.HasPrefix(words[i], "-"); i++ {
		b.Env = append(b.Env, words[i])
	}
	if i+1 >= len(words) || words[i] != "go" || words[i+1] != "build" {
		return b, fmt.Errorf("not a `go build` line: %q", line)
	}
	for i += 2; i < len(words); i++ {
		w := words[i]
		switch {
		case w == "-o" || w == "-ldflags":
			if i+1 == len(words) {
				return b, fmt.Errorf("%s without a value in %q", w, line)
			}
			i++
			if w == "-o" {
				b.Output = words[i]
			} else {
				b.LDFlags = strings.Fields(words[i])
			}
		case strings.HasPrefix(w, "-o="):
			b.Output = strings.TrimPrefix(w, "-o=")
		case strings.HasPrefix(w, "-ldflags="):
			b.LDFlags = strings.Fields(strings.TrimPrefix(w, "-ldflags="))
		case strings.HasPrefix(w, "-"):
			b.Flags = append(b.Flags, w)
		default:
			b.Packages = append(b.Packages, w)
		}
	}
	return b, nil
}

// shellWords splits a command line as sh does for the quoting these two
// files use: whitespace outside quotes separates words, quotes are removed.
func shellWords(s string) ([]string, error) {
	var (
		words []string
		cur   strings.Builder
		quote rune
		in    bool
	)
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '"' || r == '\'':
			quote, in = r, true
		case r == ' ' || r == '\t':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		case r == '\\' || r == '`' || r == ';' || r == '&' || r == '|':
			return nil, fmt.Errorf("%q: %q is beyond what this parser understands; keep the build line a plain command", s, r)
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unterminated quote in %q", s)
	}
	if in {
		words = append(words, cur.String())
	}
	return words, nil
}

// dockerfile is what the tests need of the Dockerfile.
type dockerfile struct {
	stages []dockerStage
}

type dockerStage struct {
	from, name string
	args       map[string]string // ARG name=default
	runs       []string
	copies     [][]string // COPY words, flags included
	user       string
	entrypoint string
}

func readDockerfile(t testing.TB) dockerfile {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot(t), "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	// Continuation lines are joined first, as Docker does.
	text := strings.ReplaceAll(string(data), "\\\n", " ")
	var df dockerfile
	for _, raw := range strings.Split(text, "\n") {
		line := strings.TrimSpace(raw)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		instr, rest, _ := strings.Cut(line, " ")
		rest = strings.TrimSpace(rest)
		instr = strings.ToUpper(instr)
		if instr == "FROM" {
			f := strings.Fields(rest)
			st := dockerStage{from: f[0], args: map[string]string{}}
			if len(f) == 3 && strings.EqualFold(f[1], "AS") {
				st.name = f[2]
			}
			df.stages = append(df.stages, st)
			continue
		}
		if len(df.stages) == 0 {
			continue // a global ARG or the syntax directive
		}
		st := &df.stages[len(df.stages)-1]
		switch instr {
		case "ARG":
			name, def, _ := strings.Cut(rest, "=")
			st.args[name] = def
		case "RUN":
			st.runs = append(st.runs, rest)
		case "COPY":
			st.copies = append(st.copies, strings.Fields(rest))
		case "USER":
			st.user = rest
		case "ENTRYPOINT":
			st.entrypoint = rest
		}
	}
	if len(df.stages) < 2 {
		t.Fatalf("Dockerfile has %d stages; want a build stage and a final one", len(df.stages))
	}
	return df
}

// dockerBuildLine returns the build stage's `go build` RUN line, parsed, with
// the ARG defaults the line relies on.
func dockerBuildLine(t testing.TB, df dockerfile) (string, buildLine) {
	t.Helper()
	var found []string
	var stage dockerStage
	for _, st := range df.stages {
		for _, r := range st.runs {
			if strings.Contains(r, "go build") {
				found = append(found, r)
				stage = st
			}
		}
	}
	if len(found) != 1 {
		t.Fatalf("Dockerfile has %d `go build` RUN lines, want 1: %q", len(found), found)
	}
	b, err := parseBuildLine(found[0])
	if err != nil {
		t.Fatal(err)
	}
	for name, def := range stage.args {
		if _, ok := b.Defaults[name]; !ok {
			b.Defaults[name] = def
		}
	}
	return found[0], b
}

func makefileBuildLine(t testing.TB) buildLine {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot(t), "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	var recipe []string
	inBuild := false
	for _, line := range strings.Split(string(data), "\n") {
		switch {
		case strings.HasPrefix(line, "build:"):
			inBuild = true
		case inBuild && strings.HasPrefix(line, "\t"):
			recipe = append(recipe, strings.TrimSpace(line))
		case inBuild && strings.TrimSpace(line) != "" && !strings.HasPrefix(line, "#"):
			inBuild = false
		}
	}
	var lines []string
	for _, r := range recipe {
		if strings.Contains(r, "go build") || strings.Contains(r, "$(GO) build") {
			lines = append(lines, r)
		}
	}
	if len(lines) != 1 {
		t.Fatalf("the Makefile's build target has %d go build lines, want 1: %q", len(lines), recipe)
	}
	// What make hands to the shell: $(GO) is "go" unless overridden, $$ is $.
	line := strings.ReplaceAll(strings.ReplaceAll(lines[0], "$(GO)", "go"), "$$", "$")
	b, err := parseBuildLine(line)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestDockerfileBuildLineMatchesMakefile: the image and `make build` (what
// CI and developers run) compile the same binary — same environment, flags,
// linker flags, stamped variables and package — and only the output path
// differs.
func TestDockerfileBuildLineMatchesMakefile(t *testing.T) {
	df := readDockerfile(t)
	_, docker := dockerBuildLine(t, df)
	mk := makefileBuildLine(t)
	docker.Output, mk.Output = "", ""
	if !reflect.DeepEqual(docker, mk) {
		t.Errorf("the Dockerfile's go build line and the Makefile's differ:\nDockerfile: %+v\nMakefile:   %+v", docker, mk)
	}
	for _, want := range []string{"CGO_ENABLED=0"} {
		if !contains(docker.Env, want) {
			t.Errorf("build line env %q lacks %s", docker.Env, want)
		}
	}
	if !contains(docker.Flags, "-trimpath") {
		t.Errorf("build line flags %q lack -trimpath", docker.Flags)
	}
	for _, want := range []string{"-X main.version=$VERSION", "-X main.commit=$COMMIT"} {
		if !strings.Contains(strings.Join(docker.LDFlags, " "), want) {
			t.Errorf("-ldflags %q do not stamp %q", docker.LDFlags, want)
		}
	}
}

// TestDockerfileStages: the build stage uses the Go release go.mod asks for,
// and the final stage is a static, non-root image whose entrypoint is the
// binary the build stage produced.
func TestDockerfileStages(t *testing.T) {
	df := readDockerfile(t)
	_, b := dockerBuildLine(t, df)

	gomod, err := os.ReadFile(filepath.Join(repoRoot(t), "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^go (\d+\.\d+)`).FindSubmatch(gomod)
	if m == nil {
		t.Fatal("go.mod has no go directive")
	}
	build := df.stages[0]
	if want := "golang:" + string(m[1]); build.from != want && !strings.HasPrefix(build.from, want+"-") && !strings.HasPrefix(build.from, want+".") {
		t.Errorf("build stage FROM %s; want %s (go.mod says go %s)", build.from, want, m[1])
	}

	final := df.stages[len(df.stages)-1]
	if final.from != "gcr.io/distroless/static:nonroot" && final.from != "scratch" {
		t.Errorf("final stage FROM %s; want gcr.io/distroless/static:nonroot or scratch", final.from)
	}
	uid, _, _ := strings.Cut(final.user, ":")
	if uid == "" || uid == "0" || strings.Trim(uid, "0123456789") != "" {
		t.Errorf("final stage USER %q; want a numeric non-root user, which runAsNonRoot can verify", final.user)
	}
	var copied string
	for _, c := range final.copies {
		if len(c) == 3 && c[0] == "--from="+build.name && c[1] == b.Output {
			copied = c[2]
		}
	}
	if copied == "" {
		t.Fatalf("final stage does not COPY --from=%s %s (the build line's output); COPY lines: %q", build.name, b.Output, final.copies)
	}
	if want := fmt.Sprintf("[%q]", copied); final.entrypoint != want {
		t.Errorf("ENTRYPOINT %s; want %s, the copied binary in exec form", final.entrypoint, want)
	}
}

// Version and commit the tests stamp into the binary they build.
const (
	testVersion = "v0.0.0-deploytest"
	testCommit  = "0123abc"
)

var (
	binaryOnce sync.Once
	binaryPath string
	binaryErr  error
)

// rebalancerBinary builds the binary as `docker build` would: the
// Dockerfile's own build line, run in a copy of the build context that
// .dockerignore leaves, with the build arguments VERSION and COMMIT.
func rebalancerBinary(t testing.TB) string {
	t.Helper()
	binaryOnce.Do(func() {
		binaryPath, binaryErr = buildFromDockerContext(t)
	})
	if binaryErr != nil {
		t.Fatalf("building rebalancer with the Dockerfile's build line: %v", binaryErr)
	}
	return binaryPath
}

func buildFromDockerContext(t testing.TB) (string, error) {
	root := repoRoot(t)
	line, b := dockerBuildLine(t, readDockerfile(t))
	// Lives for the whole test process, since later tests run this binary;
	// TestMain removes it.
	dir, err := os.MkdirTemp("", "rebalancer-deploy-build-")
	if err != nil {
		return "", err
	}
	tempDirs = append(tempDirs, dir)
	ctxDir := filepath.Join(dir, "context")
	if err := copyBuildContext(root, ctxDir); err != nil {
		return "", err
	}
	out := filepath.Join(dir, "rebalancer")
	oldOut := "-o " + b.Output
	if !strings.Contains(line, oldOut) {
		return "", fmt.Errorf("cannot find %q in %q to redirect the output", oldOut, line)
	}
	line = strings.Replace(line, oldOut, "-o "+out, 1)
	_, stderr, err := runErrWithin(buildTimeout, ctxDir, []string{"VERSION=" + testVersion, "COMMIT=" + testCommit, "GOWORK=off"}, "sh", "-c", line)
	if err != nil {
		return "", fmt.Errorf("%s: %v\n%s", line, err, stderr)
	}
	return out, nil
}

// TestDockerBuildLineStampsAStaticBinary runs the Dockerfile's build line (in
// the context .dockerignore leaves, so a pattern that drops a needed file
// fails here) and checks the binary: version and commit stamped, and
// statically linked, as a distroless/static or scratch image requires.
func TestDockerBuildLineStampsAStaticBinary(t *testing.T) {
	bin := rebalancerBinary(t)
	out := run(t, "", nil, bin, "version")
	want := fmt.Sprintf("rebalancer %s (commit %s,", testVersion, testCommit)
	if !strings.HasPrefix(out, want) {
		t.Errorf("version printed %q; want it to start with %q", out, want)
	}
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Errorf("%s has a dynamic loader (PT_INTERP): not static, it would not start on distroless/static", bin)
		}
	}
	if libs, _ := f.ImportedLibraries(); len(libs) > 0 {
		t.Errorf("%s links %q dynamically", bin, libs)
	}
}

// ignoreRule is one .dockerignore line.
type ignoreRule struct {
	re     *regexp.Regexp
	negate bool
}

// readDockerignore parses .dockerignore with Docker's rules for the syntax
// used there: '*' and '?' within a path element, '**' across elements, '!'
// to re-include, and a match on a directory covers everything below it.
// Character classes and escapes fail the test rather than be misread.
func readDockerignore(root string) ([]ignoreRule, error) {
	data, err := os.ReadFile(filepath.Join(root, ".dockerignore"))
	if err != nil {
		return nil, err
	}
	var rules []ignoreRule
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		r := ignoreRule{}
		if strings.HasPrefix(line, "!") {
			r.negate, line = true, strings.TrimSpace(line[1:])
		}
		if strings.ContainsAny(line, `[]\`) {
			return nil, fmt.Errorf(".dockerignore pattern %q: character classes and escapes are not understood by this test", line)
		}
		pattern := strings.TrimPrefix(filepath.ToSlash(filepath.Clean(line)), "/")
		var re strings.Builder
		re.WriteString("^")
		for i := 0; i < len(pattern); i++ {
			switch c := pattern[i]; {
			case strings.HasPrefix(pattern[i:], "**/"):
				re.WriteString("(.*/)?")
				i += 2
			case strings.HasPrefix(pattern[i:], "**"):
				re.WriteString(".*")
				i++
			case c == '*':
				re.WriteString("[^/]*")
			case c == '?':
				re.WriteString("[^/]")
			default:
				re.WriteString(regexp.QuoteMeta(string(c)))
			}
		}
		re.WriteString("$")
		r.re = regexp.MustCompile(re.String())
		rules = append(rules, r)
	}
	return rules, nil
}

// ignored applies the rules in order, the last match winning; a rule that
// matches a parent directory matches the path.
func ignored(rules []ignoreRule, rel string) bool {
	excluded := false
	for _, r := range rules {
		for p := rel; ; {
			if r.re.MatchString(p) {
				excluded = !r.negate
				break
			}
			i := strings.LastIndex(p, "/")
			if i < 0 {
				break
			}
			p = p[:i]
		}
	}
	return excluded
}

// copyBuildContext copies the files of root that .dockerignore keeps to dst.
func copyBuildContext(root, dst string) error {
	rules, err := readDockerignore(root)
	if err != nil {
		return err
	}
	negations := false
	for _, r := range rules {
		negations = negations || r.negate
	}
	return filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil || rel == "." {
			return err
		}
		rel = filepath.ToSlash(rel)
		if ignored(rules, rel) {
			// Without '!' rules nothing below an ignored directory can
			// come back, so the walk need not enter it (.git is large).
			if d.IsDir() && !negations {
				return filepath.SkipDir
			}
			return nil
		}
		target := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(target, 0o755)
		case d.Type().IsRegular():
			return copyFile(path, target)
		}
		return nil
	})
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// TestDockerignore checks the matcher the build test relies on against
// Docker's documented behaviour for the patterns .dockerignore uses, and that
// the context keeps what the build needs and leaves out what it must not
// carry.
func TestDockerignore(t *testing.T) {
	root := repoRoot(t)
	rules, err := readDockerignore(root)
	if err != nil {
		t.Fatal(err)
	}
	for rel, want := range map[string]bool{
		"go.mod":                            false,
		"go.sum":                            false,
		"cmd/rebalancer/main.go":            false,
		"policy/default.yaml":               false, // embedded by the policy package
		"policy/load_test.go":               true,
		".git/HEAD":                         true,
		"bin/rebalancer":                    true,
		"charts/rebalancer/values.yaml":     true,
		"test/harness/controlplane.go":      true,
		"scheduler/testdata/x/cluster.yaml": true,
		"Dockerfile":                        true,
	} {
		if got := ignored(rules, rel); got != want {
			t.Errorf("ignored(%s) = %v, want %v", rel, got, want)
		}
	}
	// The matcher itself, on patterns with Docker's documented meaning.
	probe := func(pattern, rel string) bool {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, ".dockerignore"), []byte(pattern+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := readDockerignore(dir)
		if err != nil {
			t.Fatal(err)
		}
		return ignored(r, rel)
	}
	for _, c := range []struct {
		pattern, rel string
		want         bool
	}{
		{"*.md", "README.md", true},
		{"*.md", "docs/install.md", false}, // '*' stays in the top directory
		{"**/*.md", "docs/install.md", true},
		{"**/*.md", "README.md", true},
		{"docs", "docs/a/b.md", true},
		{"/bin", "bin/x", true},
		{"b?n", "bin", true},
		{"b?n", "bn", false},
	} {
		if got := probe(c.pattern, c.rel); got != c.want {
			t.Errorf("pattern %q on %s: ignored = %v, want %v", c.pattern, c.rel, got, c.want)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
