# `make test` is the one command that checks everything: formatting, vet,
# lint, the unit tests (race detector on), the control-plane harness and
# end-to-end tests, and a short fuzzing run. CI runs exactly this.
#
# The inner loop is `make unit`: every package but ./test/..., no control
# plane, well under two minutes once the build cache is warm.
#
# `make verify` is the static half before a commit: formatting, a tidy
# go.mod, vet and lint, no test.
GO ?= go
# The first run builds etcd, kube-apiserver, kube-controller-manager,
# kube-scheduler and kwok from the Go module proxy; later runs reuse them.
TEST_TIMEOUT ?= 80m
# Fuzzing budgets are counts of inputs, not durations: go1.26's fuzzing
# coordinator can fail a target with "context deadline exceeded" when the
# -fuzztime deadline races a busy worker (go.dev/issue/75804). Minimizing a
# new input is bounded too, or minimizing a large seed takes the budget.
FUZZ_EXECS ?= 50000x
FUZZ_MINIMIZE ?= 500x

.PHONY: test verify fmt tidy vet lint unit e2e fuzz build image bench bench-schedule bench-vs-descheduler bench-read bench-outcome

test: fmt vet lint unit e2e fuzz

# Not a prerequisite of test: tidy also resolves the test dependencies of
# every dependency, which the build never downloads, so it needs the module
# proxy where the rest of `make test` runs from the module cache.
verify: fmt tidy vet lint

fmt:
	@files=$$(gofmt -l $$(git ls-files --cached --others --exclude-standard '*.go' 2>/dev/null || find . -name '*.go' -not -path './.git/*')); \
	if [ -n "$$files" ]; then echo "gofmt would change:"; echo "$$files"; exit 1; fi

# go.mod and go.sum as `go mod tidy` would leave them; -diff prints what it
# would change and fails, without writing either file.
tidy:
	$(GO) mod tidy -diff

vet:
	$(GO) vet ./...

# golangci-lint is built once from test/tools/lint into the test-tool cache.
lint:
	@bin=$$(test/tools/lint/build.sh) && "$$bin/golangci-lint" run ./...

unit:
	$(GO) test -race $$($(GO) list ./... | grep -v '/test/')

e2e:
	$(GO) test -race -timeout $(TEST_TIMEOUT) ./test/...

# One fuzz test per decoder of user input: the policy, a cluster dump (and
# its fast paths: kubectl's YAML, an object's kind), the envelope of the API
# server's protobuf pages, a KubeSchedulerConfiguration (go test fuzzes one
# target per run).
FUZZ = $(GO) test -run '^$$' -fuzztime $(FUZZ_EXECS) -fuzzminimizetime $(FUZZ_MINIMIZE)
fuzz:
	$(FUZZ) -fuzz '^FuzzLoad$$' ./policy
	$(FUZZ) -fuzz '^FuzzDecode$$' ./cluster
	$(FUZZ) -fuzz '^FuzzBlockToJSON$$' ./cluster
	$(FUZZ) -fuzz '^FuzzDecodeTyped$$' ./cluster
	$(FUZZ) -fuzz '^FuzzShareEncoded$$' ./cluster
	$(FUZZ) -fuzz '^FuzzEnvelope$$' ./cluster/kube
	$(FUZZ) -fuzz '^FuzzLoadProfiles$$' ./scheduler/engine

# Not part of `make test`: the table of planning time and peak RSS of
# `rebalancer plan` on generated dumps of growing clusters (docs/performance.md),
# then the decoding benchmarks. The dumps are cached in ~/.cache/rebalancer/bench.
# BENCH_POLICY=test/bench/every-strategy-fixed-share.yaml plans with a
# scheduler profile that scores the same number of nodes a search at every
# size (docs/performance.md, "How planning grows").
BENCH_NODES ?= 1000,2000,5000,10000
BENCH_RUNS ?= 3
BENCH_POLICY ?= test/bench/every-strategy.yaml

bench:
	$(GO) run ./test/bench -nodes $(BENCH_NODES) -runs $(BENCH_RUNS) -policy $(BENCH_POLICY)
	$(GO) test ./cluster -run '^$$' -bench 'DecodeDump|DecodeGeneratedDump' -benchmem

# Not part of `make test`: pods bound per second by kube-scheduler and by
# `rebalancer schedule`, in turn on one real control plane with
# BENCH_SCHED_NODES kwok nodes, BENCH_SCHED_PODS pending pods a round,
# medians of BENCH_SCHED_ROUNDS rounds, and their ratio
# (docs/performance.md, "Scheduling throughput"). BENCH_SCHED_FLAGS adds
# flags, e.g. -cpuprofile-dir profiles.
BENCH_SCHED_NODES ?= 1000
BENCH_SCHED_PODS ?= 10000
BENCH_SCHED_ROUNDS ?= 3

bench-schedule:
	$(GO) run ./test/bench/schedule -nodes $(BENCH_SCHED_NODES) -pods $(BENCH_SCHED_PODS) -rounds $(BENCH_SCHED_ROUNDS) $(BENCH_SCHED_FLAGS)

# Not part of `make test`: rebalancer run --dry-run and the descheduler v0.36
# (built from the Go module proxy into the test-tool cache on first use) on one
# real control plane with kwok nodes, filled to each size in turn, the two
# alternating for several rounds with the floor of bench-read; prints the
# medians of wall time and peak RSS and the ratios against the targets, and
# run's wall time and read as ratios of the floor's (docs/performance.md).
VS_SIZES ?= 600x10000,2000x40000
VS_ROUNDS ?= 3

bench-vs-descheduler:
	$(GO) run ./test/bench/vsdescheduler -sizes $(VS_SIZES) -rounds $(VS_ROUNDS)

# Not part of `make test`: `rebalancer run --dry-run` against the floor, a bare
# client-go reader that lists what run lists (protobuf, run's pages) and does
# nothing else, on the cluster of bench-vs-descheduler without the
# descheduler; prints run's wall time and its "Read the cluster" part as
# ratios of the floor's, against the goal (docs/performance.md).
READ_SIZES ?= 2000x40000
READ_ROUNDS ?= 3

bench-read:
	$(GO) run ./test/bench/vsdescheduler -read -sizes $(READ_SIZES) -rounds $(READ_ROUNDS)

# Not part of `make test` (its smoke run, bin-packing on six nodes with the
# extender, is, in `make e2e`): what a rebalancing achieves. For each
# scenario and arm (the descheduler v0.36 with nodeFit off and on, rebalancer
# steered by its extender, predicted, and with `rebalancer schedule`), a
# fresh control plane, the imbalance, then one run per cycle until a cycle
# evicts nothing, at most OUTCOME_CYCLES; prints a Markdown table per
# scenario and a summary (docs/outcome.md). OUTCOME_FLAGS adds flags, e.g.
# -keep or -out DIR.
OUTCOME_SCENARIOS ?= binpack,scaleout,taint,affinity,zone,pdb
OUTCOME_ARMS ?= descheduler,descheduler-nodefit,steered,predicted,schedule
OUTCOME_CYCLES ?= 5

bench-outcome:
	$(GO) run ./test/bench/outcome -scenarios $(OUTCOME_SCENARIOS) -arms $(OUTCOME_ARMS) -cycles $(OUTCOME_CYCLES) $(OUTCOME_FLAGS)

# The same build line the Dockerfile runs.
build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags "-s -w -X main.version=$${VERSION:-dev} -X main.commit=$${COMMIT:-unknown}" -o bin/rebalancer ./cmd/rebalancer

# The image, built from the Dockerfile and pushed: no rebalancer image is
# published yet, so the chart and the kustomize overlays run one of yours.
#   make image IMAGE=registry.example.com/rebalancer:0.1.0
# The binary's version is the image's tag (VERSION=... overrides it), its
# commit the checkout's. CONTAINER_TOOL=podman works as well as docker.
CONTAINER_TOOL ?= docker
image_tag = $(if $(findstring /,$(lastword $(subst :, ,$(IMAGE)))),,$(if $(findstring :,$(IMAGE)),$(lastword $(subst :, ,$(IMAGE)))))

image:
	$(if $(IMAGE),,$(error IMAGE is not set: name the image to build and push, e.g. make image IMAGE=registry.example.com/rebalancer:0.1.0))
	$(CONTAINER_TOOL) build -t $(IMAGE) --build-arg VERSION=$(or $(VERSION),$(image_tag),dev) --build-arg COMMIT=$$(git rev-parse --short HEAD 2>/dev/null || echo unknown) .
	$(CONTAINER_TOOL) push $(IMAGE)
