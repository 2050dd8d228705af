package cluster

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
)

// FuzzDecodeTyped holds decodeTyped to what the API machinery's decoder
// makes of every valid JSON input, as a dump's objects are once read: the
// same object, kind and error.
func FuzzDecodeTyped(f *testing.F) {
	for _, seed := range []string{
		`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"n"},"spec":{"containers":[{"name":"c"}]}}`,
		`{"kind":"Node","apiVersion":"v1","metadata":{"name":"n","labels":{"kind":"x"}},"status":{"capacity":{"cpu":"2"}}}`,
		`{"apiVersion":"apps/v1","kind":"Deployment","spec":{"replicas":"x"}}`,
		`{"apiVersion":"v1","kind":"Pod","Kind":"Node"}`,
		`{"apiVersion":"v1","kind":"Pod","kind":"Node"}`,
		`{"apiVersion":"v1","KIND":"Pod"}`,
		`{"api_version":"v1","kind":"Pod"}`,
		`{"apiVersion":"v1","kind":"Nope"}`,
		`{"apiVersion":"a/b/c","kind":"Pod"}`,
		`{"apiVersion":"g/","kind":"Pod"}`,
		`{"apiVersion":"v1","kind":""}`,
		`{"apiVersion":"v1","kind":"Po\u0064"}`,
		`{"apiVersion":"v1","kind":1}`,
		`{}`,
		`[]`,
		`null`,
		`{"apiVersion":"v1","kind":"Pod","spec":{"priority":"high"}}`,
		`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p",}}`,
		`{apiVersion: v1, kind: Pod}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !json.Valid(data) {
			if obj, gvk, err := decodeTyped(data, false); err != errNotJSON {
				t.Fatalf("decodeTyped(%q) = %v, %v, %v; want %v", data, obj, gvk, err, errNotJSON)
			}
			return
		}
		obj, gvk, err := decodeTyped(data, false)
		wantObj, wantGVK, wantErr := dumpDecoder.Decode(data, nil, nil)
		if fmt.Sprint(err) != fmt.Sprint(wantErr) || !reflect.DeepEqual(gvk, wantGVK) || !reflect.DeepEqual(obj, wantObj) {
			t.Fatalf("decodeTyped(%q) = %v, %v, %v; the API machinery gives %v, %v, %v", data, obj, gvk, err, wantObj, wantGVK, wantErr)
		}
	})
}
