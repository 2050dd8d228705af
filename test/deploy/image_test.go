package deploy

import (
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// chartImageError is what the chart says when no image is set.
const chartImageError = "image.repository is not set: no rebalancer image is published yet; " +
	"build and push one with `make image IMAGE=registry.example.com/rebalancer:0.1.0`, " +
	"then --set image.repository=registry.example.com/rebalancer,image.tag=0.1.0"

// TestChartRefusesWithoutImage: no rebalancer image is published, so every
// way of installing the chart without naming one fails, saying how to make
// one, instead of creating pods stuck in ImagePullBackOff: in each mode,
// the scheduler's container included. `helm install` renders with the same
// engine as `helm template`.
func TestChartRefusesWithoutImage(t *testing.T) {
	helm := tools(t).helm
	chart := chartDir(t)
	for _, c := range []struct {
		name string
		args []string
	}{
		{"template, defaults", []string{"template", "r", chart}},
		{"template, deployment", []string{"template", "r", chart, "--set", "mode=deployment"}},
		{"template, scheduler", []string{"template", "r", chart, "--set", "scheduler.enabled=true"}},
		{"template, only a tag", []string{"template", "r", chart, "--set", "image.tag=0.1.0"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			stdout, stderr, err := runErr(repoRoot(t), nil, helm, c.args...)
			if err == nil {
				t.Fatalf("helm %s without an image succeeded:\n%s", strings.Join(c.args, " "), stdout)
			}
			if !strings.Contains(stdout+stderr, chartImageError) {
				t.Errorf("helm %s failed without saying how to set an image:\n%s%s", strings.Join(c.args, " "), stderr, stdout)
			}
		})
	}
}

// TestKustomizeRefusesWithoutImage: each overlay as shipped names no image,
// and neither `kustomize build` nor kubectl's kustomize renders it; the
// error names the ConfigMap and the field to set.
func TestKustomizeRefusesWithoutImage(t *testing.T) {
	ts := tools(t)
	for _, overlay := range []string{"cronjob", "deployment", "scheduler"} {
		for _, cmd := range [][]string{
			{ts.kustomize, "build", shippedKustomizeDir(t, overlay)},
			{ts.kubectl, "kustomize", shippedKustomizeDir(t, overlay)},
		} {
			t.Run(overlay+"/"+filepath.Base(cmd[0]), func(t *testing.T) {
				stdout, stderr, err := runErr("", nil, cmd[0], cmd[1:]...)
				if err == nil {
					t.Fatalf("%s renders without an image:\n%s", strings.Join(cmd, " "), stdout)
				}
				for _, want := range []string{"fieldPath `data.image` is missing", "rebalancer-image"} {
					if !strings.Contains(stderr, want) {
						t.Errorf("the error does not say %q:\n%s", want, stderr)
					}
				}
			})
		}
	}
}

// TestKustomizeImageReachesEveryContainer: with data.image of
// kustomize/base/image.yaml set, every container of every overlay runs that
// image, and the ConfigMap that carried it is not among the objects to
// apply. A user's overlay on top (namespace, name prefix) keeps it.
func TestKustomizeImageReachesEveryContainer(t *testing.T) {
	renders := map[string][]*unstructured.Unstructured{}
	for _, overlay := range []string{"cronjob", "deployment", "scheduler"} {
		renders[overlay] = kustomizeBuild(t, kustomizeDir(t, overlay))
	}
	renders["scheduler in a user's overlay"] = kustomizeInto(t, "scheduler", "elsewhere", "mine-")
	for name, objs := range renders {
		containers := 0
		for _, w := range workloads(objs) {
			cs, _, _ := unstructured.NestedSlice(podSpec(t, w), "containers")
			for _, c := range cs {
				containers++
				if img, _, _ := unstructured.NestedString(c.(map[string]any), "image"); img != testImage {
					t.Errorf("%s: %s runs %q, want %s", name, key(w), img, testImage)
				}
			}
		}
		if want := map[bool]int{true: 2, false: 1}[strings.HasPrefix(name, "scheduler")]; containers != want {
			t.Errorf("%s: %d containers, want %d", name, containers, want)
		}
		for _, o := range ofKind(objs, "ConfigMap") {
			if strings.HasSuffix(o.GetName(), "rebalancer-image") {
				t.Errorf("%s: the local-config %s would be applied", name, key(o))
			}
		}
	}
}

// cleanMake runs make without the variables of a make that runs the tests
// (`make e2e`, `CONTAINER_TOOL=podman make e2e`), which would change what
// it prints.
func cleanMake(args ...string) (string, []string) {
	env := []string{"-u", "MAKEFLAGS", "-u", "MAKELEVEL", "-u", "MFLAGS", "-u", "IMAGE", "-u", "VERSION", "-u", "CONTAINER_TOOL", "make", "--no-print-directory"}
	return "env", append(env, args...)
}

// TestMakeImage: `make image` builds the Dockerfile's image under the name
// given and pushes it, with docker or CONTAINER_TOOL, the binary's version
// taken from the tag; without IMAGE it stops before running anything. Run
// with -n: there is no container engine here.
func TestMakeImage(t *testing.T) {
	root := repoRoot(t)
	for _, c := range []struct {
		name      string
		vars      []string
		wantLines []string
	}{
		{"docker, version from the tag", []string{"IMAGE=registry.example.com/rebalancer:0.1.0"}, []string{
			"docker build -t registry.example.com/rebalancer:0.1.0 --build-arg VERSION=0.1.0 --build-arg COMMIT=$(git rev-parse --short HEAD 2>/dev/null || echo unknown) .",
			"docker push registry.example.com/rebalancer:0.1.0",
		}},
		{"podman, a registry port and no tag", []string{"IMAGE=localhost:5000/rebalancer", "CONTAINER_TOOL=podman"}, []string{
			"podman build -t localhost:5000/rebalancer --build-arg VERSION=dev --build-arg COMMIT=$(git rev-parse --short HEAD 2>/dev/null || echo unknown) .",
			"podman push localhost:5000/rebalancer",
		}},
		{"VERSION given", []string{"IMAGE=registry.example.com/rebalancer:latest", "VERSION=v0.1.0"}, []string{
			"docker build -t registry.example.com/rebalancer:latest --build-arg VERSION=v0.1.0 --build-arg COMMIT=$(git rev-parse --short HEAD 2>/dev/null || echo unknown) .",
			"docker push registry.example.com/rebalancer:latest",
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			name, args := cleanMake(append([]string{"-n", "image"}, c.vars...)...)
			out := run(t, root, nil, name, args...)
			if got := strings.Split(strings.TrimSpace(out), "\n"); strings.Join(got, "\n") != strings.Join(c.wantLines, "\n") {
				t.Errorf("make -n image %s runs\n  %s\nwant\n  %s", strings.Join(c.vars, " "), strings.Join(got, "\n  "), strings.Join(c.wantLines, "\n  "))
			}
		})
	}

	t.Run("without IMAGE", func(t *testing.T) {
		name, args := cleanMake("-n", "image")
		stdout, stderr, err := runErr(root, nil, name, args...)
		if err == nil {
			t.Fatalf("make image without IMAGE succeeded:\n%s", stdout)
		}
		if stdout != "" {
			t.Errorf("make image without IMAGE would run:\n%s", stdout)
		}
		if !strings.Contains(stderr, "IMAGE is not set") || !strings.Contains(stderr, "make image IMAGE=registry.example.com/rebalancer:0.1.0") {
			t.Errorf("make image without IMAGE does not say how to give it:\n%s", stderr)
		}
	})
}
