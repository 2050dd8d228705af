package policyschema

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"
)

// CheckFile compares definitions.policy of the chart's values.schema.json
// at path with Policy(), and checks that every $ref of the file names a
// definition and every definition is referred to. With update, a
// definitions.policy that differs is rewritten instead of reported.
func CheckFile(path string, update bool) (rewrote bool, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return false, err
	}
	var file map[string]any
	if err := json.Unmarshal(data, &file); err != nil {
		return false, fmt.Errorf("%s: %v", path, err)
	}
	defs, _ := file["definitions"].(map[string]any)
	if err := checkRefs(file, defs); err != nil {
		return false, fmt.Errorf("%s: %v", path, err)
	}
	// Through JSON, so that numbers compare as the file's do.
	gen, err := Marshal(Policy())
	if err != nil {
		return false, err
	}
	var want any
	if err := json.Unmarshal(gen, &want); err != nil {
		return false, err
	}
	if reflect.DeepEqual(defs["policy"], want) {
		return false, nil
	}
	if update {
		defs["policy"] = want
		out, err := Marshal(file)
		if err != nil {
			return false, err
		}
		return true, os.WriteFile(path, out, 0o644)
	}
	got, _ := Marshal(defs["policy"])
	return false, fmt.Errorf("definitions.policy of %s is not what the policy types imply; run\n"+
		"  go test ./policy/policyschema -update\nwant:\n%s\ngot:\n%s", path, gen, got)
}

// checkRefs fails for a $ref to a definition that does not exist, and for a
// definition nothing refers to (left over after a regeneration).
func checkRefs(file, defs map[string]any) error {
	var errs []error
	used := map[string]bool{}
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if s, ok := x.(string); ok && k == "$ref" {
					name := strings.TrimPrefix(s, "#/definitions/")
					if _, ok := defs[name]; !ok {
						errs = append(errs, fmt.Errorf("$ref %s: no such definition", s))
					}
					used[name] = true
				}
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(file)
	for name := range defs {
		if !used[name] {
			errs = append(errs, fmt.Errorf("definition %s is not used", name))
		}
	}
	slices.SortFunc(errs, func(a, b error) int { return strings.Compare(a.Error(), b.Error()) })
	return errors.Join(errs...)
}
