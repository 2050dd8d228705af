// Package codecheck holds checks that tests run over the repository's own
// source, such as how many files know a registered name.
package codecheck

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// FilesMentioning returns, for each name, the non-test Go files under root
// (paths relative to root, sorted) whose code mentions it. Code mentions a
// name with an identifier spelled exactly as the name (a constant or a
// field named after it) or with a string literal in which the name stands
// as a word ("LowNodeUtilization" or "node(s) would go above
// LowNodeUtilization's target", not "maxPodLifeTimeSeconds" for
// PodLifeTime). Comments do not count, and neither do identifiers that only
// start with the name (a type such as LowNodeUtilizationArgs): using a
// thing's API is not knowing it by name. Directories named testdata or
// starting with a dot are skipped.
func FilesMentioning(root string, names []string) (map[string][]string, error) {
	found := make(map[string][]string, len(names))
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		for _, name := range names {
			if mentions(f, name) {
				found[name] = append(found[name], filepath.ToSlash(rel))
			}
		}
		return nil
	})
	for _, files := range found {
		slices.Sort(files)
	}
	return found, err
}

// mentions reports whether the code of f mentions name.
func mentions(f *ast.File, name string) bool {
	hit := false
	ast.Inspect(f, func(n ast.Node) bool {
		if hit {
			return false
		}
		switch n := n.(type) {
		case *ast.Ident:
			hit = n.Name == name
		case *ast.BasicLit:
			if n.Kind == token.STRING {
				if s, err := strconv.Unquote(n.Value); err == nil {
					hit = containsWord(s, name)
				}
			}
		}
		return !hit
	})
	return hit
}

// containsWord reports whether name occurs in s with no letter, digit or
// underscore right before or after it.
func containsWord(s, name string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], name)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(name)
		if (start == 0 || !isWordByte(s[start-1])) && (end == len(s) || !isWordByte(s[end])) {
			return true
		}
		i = start + 1
	}
}

func isWordByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}
