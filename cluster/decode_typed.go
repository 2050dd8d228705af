package cluster

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"

	jsonv2 "github.com/go-json-experiment/json"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	sigsjson "sigs.k8s.io/json"
)

// decodeTyped decodes raw, as dumpDecoder does. The API machinery's
// decoder first unmarshals the whole object with encoding/json for its
// apiVersion and kind, a quarter of what decoding an object costs; when
// jsonType finds them plainly written, the object is created and
// unmarshalled, and the rest is left to that decoder.
//
// The object is unmarshalled with encoding/json/v2, which matches names
// with case, as the API machinery does, and is stricter than the
// encoding/json it uses: it refuses a name set twice in an object and
// invalid UTF-8, which the API machinery reads as the last value and as
// U+FFFD. What it refuses is unmarshalled again as the API machinery
// does, for the same object or the same error. unique reports that
// encoding/json/v2 took raw: then no object in it sets a name twice.
//
// raw is valid JSON, or, unless checked, may not be: then it is one of a
// List's items told apart by their brackets, and errNotJSON says that it
// is not JSON (dumpDecoder would read YAML too). Both unmarshallers refuse
// what is not JSON, so only raw that does not take their way, or fails on
// it, is checked here.
func decodeTyped(raw []byte, checked bool) (obj runtime.Object, gvk *schema.GroupVersionKind, unique bool, err error) {
	apiVersion, kind, ok := jsonType(raw)
	gv, err := schema.ParseGroupVersion(apiVersion)
	if !ok || apiVersion == "" || kind == "" || err != nil || gv.Version == "" {
		if !checked && !json.Valid(raw) {
			return nil, nil, false, errNotJSON
		}
		obj, gvk, err = dumpDecoder.Decode(raw, nil, nil)
		return obj, gvk, false, err
	}
	typed := gv.WithKind(kind)
	gvk = &typed
	obj, err = dumpScheme.New(typed)
	if err == nil {
		if jsonv2.Unmarshal(raw, obj) == nil {
			return obj, gvk, true, nil
		}
		// Decoded anew: what encoding/json/v2 refused may have been
		// partly decoded into obj.
		if obj, err = dumpScheme.New(typed); err == nil {
			err = sigsjson.UnmarshalCaseSensitivePreserveInts(raw, obj)
		}
	}
	if err != nil {
		if !checked && !json.Valid(raw) {
			return nil, nil, false, errNotJSON
		}
		return nil, gvk, false, err
	}
	return obj, gvk, false, nil
}

// errNotJSON: an item to decode is not valid JSON.
var errNotJSON = errors.New("not valid JSON")

// jsonType returns the apiVersion and kind of raw, valid JSON, when each
// is a top-level key written once, spelt so and with no other key that
// encoding/json could take for it, and its value a string without
// escapes; ok is false otherwise.
func jsonType(raw []byte) (apiVersion, kind string, ok bool) {
	i := skipJSONSpace(raw, 0)
	if i == len(raw) || raw[i] != '{' {
		return "", "", false
	}
	var seenVersion, seenKind bool
	if i = skipJSONSpace(raw, i+1); i < len(raw) && raw[i] == '}' {
		return "", "", false // no kind
	}
	for ; ; i++ {
		i = skipJSONSpace(raw, i)
		key, next, plain := jsonPlainString(raw, i)
		if !plain {
			return "", "", false
		}
		i = skipJSONSpace(raw, next)
		if i == len(raw) || raw[i] != ':' {
			return "", "", false
		}
		i = skipJSONSpace(raw, i+1)
		switch field := foldedKey(key); {
		case field == "":
			i = skipJSONValue(raw, i)
		case string(key) != field:
			return "", "", false // read as the field by encoding/json, not by the API server
		default:
			value, next, plain := jsonPlainString(raw, i)
			if !plain || !isASCII(value) || (field == "kind" && seenKind) || (field == "apiVersion" && seenVersion) {
				return "", "", false
			}
			if field == "kind" {
				kind, seenKind = string(value), true
			} else {
				apiVersion, seenVersion = string(value), true
			}
			i = next
		}
		i = skipJSONSpace(raw, i)
		if i == len(raw) {
			return "", "", false
		}
		if raw[i] == '}' {
			break
		}
		if raw[i] != ',' {
			return "", "", false
		}
	}
	if skipJSONSpace(raw, i+1) != len(raw) {
		return "", "", false
	}
	return apiVersion, kind, seenVersion && seenKind
}

func isASCII(s []byte) bool {
	for _, c := range s {
		if c >= 0x80 {
			return false
		}
	}
	return true
}

var dropSeparators = strings.NewReplacer("_", "", "-", "")

// foldedKey is the field of the type header that encoding/json, matching
// names without regard to case, might read key into: "apiVersion",
// "kind", or "" for neither. A key outside ASCII might fold into either.
func foldedKey(key []byte) string {
	if !isASCII(key) {
		return "?"
	}
	k := dropSeparators.Replace(string(key))
	switch {
	case strings.EqualFold(k, "apiVersion"):
		return "apiVersion"
	case strings.EqualFold(k, "kind"):
		return "kind"
	}
	return ""
}

func skipJSONSpace(raw []byte, i int) int {
	for i < len(raw) && (raw[i] == ' ' || raw[i] == '\t' || raw[i] == '\n' || raw[i] == '\r') {
		i++
	}
	return i
}

// jsonPlainString reads the string at raw[i] when it has no escapes,
// returning its content and where it ends.
func jsonPlainString(raw []byte, i int) (s []byte, next int, ok bool) {
	if i == len(raw) || raw[i] != '"' {
		return nil, i, false
	}
	end := bytes.IndexByte(raw[i+1:], '"')
	if end < 0 {
		return nil, i, false
	}
	s = raw[i+1 : i+1+end]
	if bytes.IndexByte(s, '\\') >= 0 {
		return nil, i, false
	}
	return s, i + end + 2, true
}

// skipJSONValue returns where the value at raw[i], valid JSON, ends.
func skipJSONValue(raw []byte, i int) int {
	depth := 0
	for ; i < len(raw); i++ {
		switch raw[i] {
		case '"':
			i = skipJSONString(raw, i)
			if depth == 0 {
				return min(i+1, len(raw))
			}
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return i
			}
			if depth--; depth == 0 {
				return i + 1
			}
		case ',':
			if depth == 0 {
				return i
			}
		}
	}
	return len(raw)
}

// skipJSONString returns the index of the quote that closes the string
// starting at raw[i].
func skipJSONString(raw []byte, i int) int {
	for i++; i < len(raw); i++ {
		switch raw[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return len(raw)
}
