package jsonwalk

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

type limits struct {
	PerNode *int32           `json:"perNode,omitempty"`
	Total   int32            `json:"total,omitempty"`
	Names   []string         `json:"names,omitempty"`
	Weights map[string]int32 `json:"weights,omitempty"`
}

type policy struct {
	meta   `json:",inline"`
	Limits limits `json:"limits"`
}

type meta struct {
	Kind string `json:"kind"`
}

// Every value of the wrong type is found, with its path, and dropped from
// what Walk returns: a field left out, a list item made null, a map value
// made zero.
func TestWalk(t *testing.T) {
	tests := []struct {
		name  string
		doc   string
		byKey bool
		// want is the values judged wrong, then what Walk returned.
		want string
	}{
		{
			name: "every value of the right type: nothing dropped",
			doc:  `{"kind":"Policy","limits":{"perNode":1,"names":["a"],"weights":{"x":1}},"unknown":true}`,
			want: `edited=false ok=true {"kind":"Policy","limits":{"perNode":1,"names":["a"],"weights":{"x":1}},"unknown":true}`,
		},
		{
			name: "fields in the order the type declares them",
			doc:  `{"limits":{"names":[1],"total":"2"},"kind":3}`,
			want: `kind=3 limits.total="2" limits.names[0]=1 edited=true ok=true {"limits":{"names":[null]}}`,
		},
		{
			name:  "fields in the order of the document's keys",
			doc:   `{"limits":{"names":[1],"total":"2"},"kind":3}`,
			byKey: true,
			want:  `kind=3 limits.names[0]=1 limits.total="2" edited=true ok=true {"limits":{"names":[null]}}`,
		},
		{
			name: "a list item made null, a map value made zero",
			doc:  `{"limits":{"names":["a",1,"c"],"weights":{"x":"one","y":2}}}`,
			want: `limits.names[1]=1 limits.weights.x="one" edited=true ok=true {"limits":{"names":["a",null,"c"],"weights":{"x":0,"y":2}}}`,
		},
		{
			name: "a list where an object is expected",
			doc:  `{"limits":[1]}`,
			want: `limits=mismatch edited=true ok=true {}`,
		},
		{
			name: "not an object at all",
			doc:  `"policy"`,
			want: `=mismatch edited=false ok=false "policy"`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			w := Walker[string]{
				Field: func(p, name string) string { return strings.TrimPrefix(p+"."+name, ".") },
				Key:   func(p string, _ reflect.Type, k string) string { return p + "." + k },
				Index: func(p string, i int) string { return fmt.Sprintf("%s[%d]", p, i) },
				Leaf: func(raw json.RawMessage, ty reflect.Type, p string) bool {
					if json.Unmarshal(raw, reflect.New(ty).Interface()) == nil {
						return true
					}
					got = append(got, p+"="+string(raw))
					return false
				},
				Mismatch: func(raw json.RawMessage, _ reflect.Type, p string) bool {
					got = append(got, p+"=mismatch")
					return false
				},
				ByKey: tt.byKey,
			}
			out, edited, ok := w.Walk(json.RawMessage(tt.doc), reflect.TypeFor[*policy](), "")
			got = append(got, fmt.Sprintf("edited=%t ok=%t %s", edited, ok, out))
			if g := strings.Join(got, " "); g != tt.want {
				t.Errorf("got  %s\nwant %s", g, tt.want)
			}
		})
	}
}
