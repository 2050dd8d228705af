# `make test` is the one command that checks everything: formatting, vet,
# lint, the unit tests (race detector on), the control-plane harness and
# end-to-end tests, and a short fuzzing run. CI runs exactly this.
#
# The inner loop is `make unit`: every package but ./test/..., no control
# plane, well under two minutes once the build cache is warm.
GO ?= go
# The first run builds etcd, kube-apiserver, kube-controller-manager,
# kube-scheduler and kwok from the Go module proxy; later runs reuse them.
TEST_TIMEOUT ?= 80m
FUZZ_TIME ?= 20s

.PHONY: test fmt vet lint unit e2e fuzz build

test: fmt vet lint unit e2e fuzz

fmt:
	@files=$$(gofmt -l $$(git ls-files --cached --others --exclude-standard '*.go' 2>/dev/null || find . -name '*.go' -not -path './.git/*')); \
	if [ -n "$$files" ]; then echo "gofmt would change:"; echo "$$files"; exit 1; fi

vet:
	$(GO) vet ./...

# golangci-lint is built once from test/tools/lint into the test-tool cache.
lint:
	@bin=$$(test/tools/lint/build.sh) && "$$bin/golangci-lint" run ./...

unit:
	$(GO) test -race $$($(GO) list ./... | grep -v '/test/')

e2e:
	$(GO) test -race -timeout $(TEST_TIMEOUT) ./test/...

fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzLoad$$' -fuzztime $(FUZZ_TIME) ./policy

# The same build line the Dockerfile runs.
build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags "-s -w -X main.version=$${VERSION:-dev} -X main.commit=$${COMMIT:-unknown}" -o bin/rebalancer ./cmd/rebalancer
