package cluster

import (
	"bytes"
	"os"
	"testing"

	"sigs.k8s.io/yaml"
)

// FuzzBlockToJSON holds the converter of kubectl's block style to what
// sigs.k8s.io/yaml makes of every input it accepts: the same bytes, so the
// same objects and the same errors after it.
func FuzzBlockToJSON(f *testing.F) {
	for _, seed := range blockSeeds {
		f.Add([]byte(seed))
	}
	if data, err := os.ReadFile("../examples/cluster.yaml"); err == nil {
		if list, ok := splitBlockList(data); ok {
			for _, it := range list.items {
				f.Add(it)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, ok := blockToJSON(data)
		if !ok {
			return
		}
		want, err := yaml.YAMLToJSONStrict(data)
		if err != nil {
			t.Fatalf("converted %q to %s; sigs.k8s.io/yaml refuses it: %v", data, got, err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("converted %q to\n%s\nsigs.k8s.io/yaml gives\n%s", data, got, want)
		}
	})
}

// blockSeeds are items in kubectl's style and the YAML 1.1 scalars that
// resolve to something other than a string.
var blockSeeds = []string{
	"apiVersion: v1\nkind: Pod\nmetadata:\n  labels:\n    app: web\n    b: \"1\"\n    a: 'x''y'\n  name: p\nspec:\n  containers:\n  - image: nginx:1.25\n    name: c\n    ports:\n    - containerPort: 80\n      protocol: TCP\n    resources: {}\n  tolerations: []\n  nodeName:\n",
	"a: yes\nb: no\nc: on\nd: off\ne: y\nf: n\ng: Y\nh: N\ni: True\nj: FALSE\nk: Null\n",
	"a: 010\nb: 0x1F\nc: 0o17\nd: 0b101\ne: 0b-101\nf: -0b11\ng: 1_000\nh: +1\ni: -0\nj: 007\nk: 9223372036854775808\n",
	"a: 1.5\nb: 1e3\nc: .inf\nd: -.inf\ne: .nan\nf: 1.\ng: 6.02e+23\nh: .5\n",
	"a: 2026-01-01\nb: 2026-01-01T00:00:00Z\nc: \"2026-01-01T00:00:00Z\"\nd: 2026-1-2 15:4:5\ne: 12:30\n",
	"a: null\nb: ~\nc:\nd: ''\ne: \"\"\nf: -\ng: <<\n",
	"a: 100m\nb: 1Gi\nc: 3f2a1b2c-0d4e-4f5a-8b6c-7d8e9f0a1b2c\nd: 0xyz\ne: 1E\nf: inf\ng: NaN\n",
	"a: 1\na: 2\n",
	"b: 1\na:\n  d: x\n  c: z\n  a1: 2\n  A: 3\n",
	"a: &x 1\nb: *x\n",
	"a: !!str 1\n",
	"a: {b: c}\nd: [e]\n",
	"a: |\n  x\n",
	"a: b\n  c\n",
	"a: b # c\n",
	"a: b: c\n",
	"a: \"b\\nc\"\n",
	"a: <b>&c\n",
	"a:\n- b\n- c: d\n  e: f\n- - g\n",
	"---\na: b\n",
	"a: b\n...\n",
	"a:\n  - b\n  -  c\n",
	"? a\n: b\n",
	// Literal blocks, as kubectl prints a string with line breaks.
	"metadata:\n  annotations:\n    kubectl.kubernetes.io/last-applied-configuration: |\n      {\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"annotations\":{},\"name\":\"p\"}}\n  name: p\n",
	"a: |-\n  x\n  y\nb: c\n",
	"a: |\n  x\n\n  y\n\n\nb: c\n",
	"a: |-\n  x\n\n\n",
	"a: |\n  x\n  \n  y\n",
	"a: |\n  x\n   \n",
	"a: |\n  x\n   y\n    z\n",
	"a: |\n    x\n  y\n",
	"a: |\n\n  x\n",
	"a: |\n  x",
	"a: |\nb: c\n",
	"a: |\n  # no comment\n  b: c\n  - d\n  <&>\"\\ e \n",
	"a:\n- b: |\n    x\n  c: d\n- |\n  e\n",
	"a:\n  b: |\n    x\n  c: |-\n    y\nd: e\n",
	"spec:\n  containers:\n  - args:\n    - /bin/run\n    - |\n      set -e\n      echo \"$(date)\" > /tmp/x\n    - |-\n      y\n    command:\n    - sh\n    name: c\n",
	"a:\n- |\n x\n",
	"command:\n- sh\n- -c\n- |\n  exec \"$@\"\nargs:\n- --v=2\n- -Inf\n- -inf\n- -nan\n- -0x1F\n- -1_0\n- -e5\n- -.5\n- --\n- ---\n- -\n- -a: b\n",
	"a: -c\nb: -Infinity\nc: -NaN\nd: -1e3\ne: -0b1\nf: -2026-01-01\ng: -yes\nh: -y\n",
	"a:\n- |\n  x\n - y\n",
	"a:\n  - |\n    x\n  - y\n",
	"a: |+\n  x\n\n",
	"a: |2\n   x\n",
	"a: >\n  x\n",
	"a: | # c\n  x\n",
}
