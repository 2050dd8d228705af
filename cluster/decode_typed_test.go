package cluster

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
)

// FuzzDecodeTyped holds decodeTyped to what the API machinery's decoder
// makes of every valid JSON input, as a dump's objects are once read: the
// same object, kind and error; and, where it finds each name once, to
// duplicateJSONKey finding none set twice.
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
		// Where encoding/json/v2 and the API machinery's encoding/json
		// part ways.
		`{"apiVersion":"v1","kind":"Pod","metadata":{"labels":{"a":"1","a":"2"}}}`,
		`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"metadata":{"namespace":"n"}}`,
		`{"apiVersion":"v1","kind":"Pod","spec":{"containers":[{"name":"a","image":"x"}]},"spec":{"containers":[{"name":"b"}]}}`,
		`{"apiVersion":"v1","kind":"Pod","x-unknown":{"a":1,"a":2}}`,
		`{"apiVersion":"v1","kind":"Pod","metadata":{"managedFields":[{"fieldsV1":{"f:a":{},"f:a":{}}}]}}`,
		`{"apiVersion":"v1","kind":"Pod","metadata":{"managedFields":[{"fieldsType":"FieldsV1","fieldsV1":{ "f:metadata" : { } }}]}}`,
		`{"apiVersion":"apps/v1","kind":"ControllerRevision","data":{"spec": [1, 2.50, 1e3]},"revision":1}`,
		"{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\xff\"}}",
		`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"\ud800"}}`,
		`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"\u00e9\ud83d\ude00"}}`,
		`{"apiVersion":"v1","kind":"Pod","metadata":{"creationTimestamp":null,"labels":null},"spec":null}`,
		`{"apiVersion":"v1","kind":"Pod","spec":{"containers":[null],"priority":null,"overhead":{"cpu":null}}}`,
		`{"apiVersion":"v1","kind":"Pod","spec":{"priority":1e2}}`,
		`{"apiVersion":"v1","kind":"Pod","spec":{"priority":1.0}}`,
		`{"apiVersion":"v1","kind":"Pod","spec":{"priority":-0}}`,
		`{"apiVersion":"v1","kind":"Pod","spec":{"priority":2147483648}}`,
		`{"apiVersion":"v1","kind":"Pod","spec":{"priority":"5"}}`,
		`{"apiVersion":"v1","kind":"Pod","spec":{"containers":[{"name":"c","ports":[{"containerPort":80.5}]}]}}`,
		`{"apiVersion":"v1","kind":"Pod","spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":1.5,"memory":"1Gi"}}}]}}`,
		`{"apiVersion":"v1","kind":"Pod","spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"abc"}}}]}}`,
		`{"apiVersion":"v1","kind":"Pod","spec":{"NodeName":"n","nodename":"m","nodeName":"o"}}`,
		`{"apiVersion":"v1","kind":"Pod","spec":{"tolerations":{"key":"a"}}}`,
		`{"apiVersion":"v1","kind":"Pod","spec":{"containers":[{"name":"c","livenessProbe":{"httpGet":{"port":"http"}},"readinessProbe":{"tcpSocket":{"port":8080}}}]}}`,
		`{"apiVersion":"policy/v1","kind":"PodDisruptionBudget","spec":{"maxUnavailable":"25%","minAvailable":null}}`,
		`{"apiVersion":"policy/v1","kind":"PodDisruptionBudget","spec":{"maxUnavailable":1.5}}`,
		`{"apiVersion":"v1","kind":"ConfigMap","binaryData":{"a":"aGVsbG8=","b":"aGVs\nbG8=","c":"aGVsbG8"}}`,
		`{"apiVersion":"v1","kind":"Secret","data":{"a":"aGVsbG8_"}}`,
		`{"apiVersion":"v1","kind":"Node","status":{"capacity":{"cpu":"2"},"capacity":{"memory":"1Gi"}}}`,
		`{"apiVersion":"v1","kind":"Pod","status":{"startTime":"2024-01-01T00:00:00Z","conditions":[{"lastTransitionTime":"2024-01-01T00:00:00.5+01:00"}]}}`,
		`{"apiVersion":"v1","kind":"Pod","status":{"startTime":"yesterday"}}`,
		`{"apiVersion":"v1","kind":"Pod","status":{"startTime":""}}`,
		`{"apiVersion":"v1","kind":"Pod","metadata":{"deletionGracePeriodSeconds":30}}	`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !json.Valid(data) {
			if obj, gvk, _, err := decodeTyped(data, false); err != errNotJSON {
				t.Fatalf("decodeTyped(%q) = %v, %v, %v; want %v", data, obj, gvk, err, errNotJSON)
			}
			return
		}
		obj, gvk, unique, err := decodeTyped(data, false)
		wantObj, wantGVK, wantErr := dumpDecoder.Decode(data, nil, nil)
		if fmt.Sprint(err) != fmt.Sprint(wantErr) || !reflect.DeepEqual(gvk, wantGVK) || !reflect.DeepEqual(obj, wantObj) {
			t.Fatalf("decodeTyped(%q) = %v, %v, %v; the API machinery gives %v, %v, %v", data, obj, gvk, err, wantObj, wantGVK, wantErr)
		}
		if path := duplicateJSONKey(data); unique && path != nil {
			t.Fatalf("decodeTyped(%q) found each name once; %s is set twice", data, path)
		}
	})
}
