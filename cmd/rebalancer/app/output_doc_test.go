package app

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/kube-rebalancer/rebalancer/report"
)

// outputDoc is where users read what each field of the output means.
const outputDoc = "../../../docs/output.md"

// TestOutputDocListsEveryField keeps docs/output.md true to the types that
// are printed: each section's table lists exactly the JSON fields the type
// can emit (so a field added, renamed or removed fails here until the doc
// says so), its JSON examples decode into the type with no unknown field,
// and the skip categories and eviction results it explains are exactly the
// constants the strategies (planner.Category is theirs) and the evictor
// declare.
func TestOutputDocListsEveryField(t *testing.T) {
	doc, err := os.ReadFile(outputDoc)
	if err != nil {
		t.Fatal(err)
	}
	sections := []struct {
		heading string
		typ     reflect.Type
	}{
		{"## Report: `plan` and `run`", reflect.TypeFor[report.Report]()},
		{"## Placement: `place`", reflect.TypeFor[placement]()},
	}
	for _, s := range sections {
		t.Run(s.heading, func(t *testing.T) {
			// The field table is the section's own text, before its
			// subsections.
			text := section(t, string(doc), s.heading)
			if loc := regexp.MustCompile(`(?m)^#+ `).FindStringIndex(text); loc != nil {
				text = text[:loc[0]]
			}
			want := jsonPaths(s.typ, "")
			got := documentedFields(text)
			for _, f := range want {
				if !slices.Contains(got, f) {
					t.Errorf("field %s is printed but not in the table", f)
				}
			}
			for _, f := range got {
				if !slices.Contains(want, f) {
					t.Errorf("field %s is in the table but no longer printed", f)
				}
			}
			examples := jsonBlocks(text)
			if len(examples) == 0 {
				t.Error("no JSON example")
			}
			for _, ex := range examples {
				dec := json.NewDecoder(strings.NewReader(ex))
				dec.DisallowUnknownFields()
				if err := dec.Decode(reflect.New(s.typ).Interface()); err != nil {
					t.Errorf("example does not decode: %v\n%s", err, ex)
				}
			}
		})
	}

	constants := []struct {
		heading, file, typ string
	}{
		{"### Skip categories", "../../../strategies/framework/strategy.go", "Category"},
		{"### Eviction results", "../../../evictor/outcome.go", "Result"},
	}
	for _, c := range constants {
		t.Run(c.heading, func(t *testing.T) {
			want := stringConstants(t, c.file, c.typ)
			if len(want) == 0 {
				t.Fatalf("%s declares no %s constants", c.file, c.typ)
			}
			got := documentedFields(section(t, string(doc), c.heading))
			slices.Sort(want)
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Errorf("documented %v, declared %v", got, want)
			}
		})
	}
}

// section returns the text under a heading, up to the next heading of the
// same or a higher level.
func section(t *testing.T, doc, heading string) string {
	t.Helper()
	_, rest, ok := strings.Cut(doc, "\n"+heading+"\n")
	if !ok {
		t.Fatalf("docs/output.md has no heading %q", heading)
	}
	level := strings.IndexByte(heading, ' ')
	next := regexp.MustCompile(fmt.Sprintf("(?m)^#{1,%d} ", level))
	if loc := next.FindStringIndex(rest); loc != nil {
		return rest[:loc[0]]
	}
	return rest
}

// tableRow matches a table row whose first cell is one code span: a field
// path, a category or a result.
var tableRow = regexp.MustCompile("(?m)^\\| `([^`]+)` \\|")

func documentedFields(text string) []string {
	var out []string
	for _, m := range tableRow.FindAllStringSubmatch(text, -1) {
		out = append(out, m[1])
	}
	return out
}

var jsonBlock = regexp.MustCompile("(?s)```json\n(.*?)```")

func jsonBlocks(text string) []string {
	var out []string
	for _, m := range jsonBlock.FindAllStringSubmatch(text, -1) {
		out = append(out, m[1])
	}
	return out
}

// jsonPaths lists the JSON fields a type can emit, as dotted paths with []
// for the elements of a list ("moves[].pod"). A type with its own
// marshalling (a time) and a map are single fields; an embedded struct
// without a JSON name adds its fields, as encoding/json does.
func jsonPaths(t reflect.Type, prefix string) []string {
	var out []string
	for f := range t.Fields() {
		tag := f.Tag.Get("json")
		name, _, _ := strings.Cut(tag, ",")
		if name == "-" || !f.IsExported() && !f.Anonymous {
			continue
		}
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if f.Anonymous && name == "" && ft.Kind() == reflect.Struct {
			out = append(out, jsonPaths(ft, prefix)...)
			continue
		}
		if name == "" {
			name = f.Name
		}
		path := prefix + name
		out = append(out, path)
		elem, sub := ft, path+"."
		if ft.Kind() == reflect.Slice {
			elem, sub = ft.Elem(), path+"[]."
		}
		if elem.Kind() == reflect.Struct && !elem.Implements(reflect.TypeFor[json.Marshaler]()) && !reflect.PointerTo(elem).Implements(reflect.TypeFor[json.Marshaler]()) {
			out = append(out, jsonPaths(elem, sub)...)
		}
	}
	return out
}

// stringConstants returns the values of the string constants of a named
// type that a Go file declares.
func stringConstants(t *testing.T, file, typ string) []string {
	t.Helper()
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	f, err := parser.ParseFile(token.NewFileSet(), file, bytes.NewReader(src), 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, spec := range g.Specs {
			v := spec.(*ast.ValueSpec)
			if id, ok := v.Type.(*ast.Ident); !ok || id.Name != typ {
				continue
			}
			for _, val := range v.Values {
				if lit, ok := val.(*ast.BasicLit); ok && lit.Kind == token.STRING {
					s, err := strconv.Unquote(lit.Value)
					if err != nil {
						t.Fatal(err)
					}
					out = append(out, s)
				}
			}
		}
	}
	return out
}
