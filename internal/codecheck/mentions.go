// Package codecheck holds checks that tests run over the repository's own
// source, such as how many files know a registered name.
package codecheck

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// FilesMentioning returns, for each name, the non-test Go files under root
// (paths relative to root, sorted) whose code mentions it. Code mentions a
// name with an identifier spelled exactly as the name (a constant, or a
// package's exported name such as scheduler.NodeAffinity when the package
// belongs to the module at root) or with a string literal in which the
// name stands as a word ("LowNodeUtilization" or "node(s) would go above
// LowNodeUtilization's target", not "maxPodLifeTimeSeconds" for
// PodLifeTime). Comments do not count, and neither do identifiers that only
// start with the name (a type such as LowNodeUtilizationArgs), fields and
// methods of values (pod.Spec.Affinity.NodeAffinity), nor the names and
// fields of other modules' types (corev1.NodeAffinity,
// corev1.Affinity{NodeAffinity: …}): those are the Kubernetes API's words,
// not the registered name. Directories named testdata or starting with a
// dot are skipped.
func FilesMentioning(root string, names []string) (map[string][]string, error) {
	module, err := modulePath(root)
	if err != nil {
		return nil, err
	}
	found := make(map[string][]string, len(names))
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
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
			if mentions(f, name, module) {
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

// modulePath reads the module path from root's go.mod.
func modulePath(root string) (string, error) {
	data, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`), nil
		}
	}
	return "", fmt.Errorf("%s: no module line", filepath.Join(root, "go.mod"))
}

// fileMentions is the search for one name in one file.
type fileMentions struct {
	name string
	// own and foreign are the names the file imports packages under: of
	// the module, and of other modules.
	own, foreign map[string]bool
}

// mentions reports whether the code of f mentions name. Packages whose
// import path starts with module are the module's own.
func mentions(f *ast.File, name, module string) bool {
	m := fileMentions{name: name, own: make(map[string]bool), foreign: make(map[string]bool)}
	for _, spec := range f.Imports {
		path, _ := strconv.Unquote(spec.Path.Value)
		local := path[strings.LastIndex(path, "/")+1:]
		if spec.Name != nil {
			local = spec.Name.Name
		}
		if module != "" && (path == module || strings.HasPrefix(path, module+"/")) {
			m.own[local] = true
		} else {
			m.foreign[local] = true
		}
	}
	return m.in(f)
}

// in reports whether the code under n mentions the name.
func (m fileMentions) in(n ast.Node) bool {
	hit := false
	ast.Inspect(n, func(n ast.Node) bool {
		if hit {
			return false
		}
		switch n := n.(type) {
		case *ast.SelectorExpr:
			if pkg, ok := n.X.(*ast.Ident); ok && (m.own[pkg.Name] || m.foreign[pkg.Name]) {
				hit = m.own[pkg.Name] && n.Sel.Name == m.name
				return false
			}
			// A field or method of a value: only the receiver can name it.
			hit = m.in(n.X)
			return false
		case *ast.CompositeLit:
			if m.isForeignType(n.Type) {
				// The keys are fields of another module's type.
				for _, e := range n.Elts {
					if kv, ok := e.(*ast.KeyValueExpr); ok {
						e = kv.Value
					}
					if hit = m.in(e); hit {
						break
					}
				}
				return false
			}
		case *ast.Ident:
			hit = n.Name == m.name
		case *ast.BasicLit:
			if n.Kind == token.STRING {
				if s, err := strconv.Unquote(n.Value); err == nil {
					hit = containsWord(s, m.name)
				}
			}
		}
		return !hit
	})
	return hit
}

// isForeignType reports whether t names a type of another module's package
// (corev1.Affinity), or a pointer, slice or map of one.
func (m fileMentions) isForeignType(t ast.Expr) bool {
	switch t := t.(type) {
	case *ast.SelectorExpr:
		pkg, ok := t.X.(*ast.Ident)
		return ok && m.foreign[pkg.Name]
	case *ast.StarExpr:
		return m.isForeignType(t.X)
	case *ast.ArrayType:
		return m.isForeignType(t.Elt)
	}
	return false
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
