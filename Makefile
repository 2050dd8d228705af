# `make test` is the one command that checks everything: formatting, vet, every
# test (unit, the real control-plane harness and end-to-end tests, with the
# race detector) and a short fuzzing run. CI runs exactly this.
GO ?= go
# The first run builds etcd, kube-apiserver, kube-controller-manager,
# kube-scheduler and kwok from the Go module proxy; later runs reuse them.
TEST_TIMEOUT ?= 80m
FUZZ_TIME ?= 20s

.PHONY: test fmt vet unit fuzz build

test: fmt vet unit fuzz

fmt:
	@files=$$(gofmt -l $$(git ls-files --cached --others --exclude-standard '*.go' 2>/dev/null || find . -name '*.go' -not -path './.git/*')); \
	if [ -n "$$files" ]; then echo "gofmt would change:"; echo "$$files"; exit 1; fi

vet:
	$(GO) vet ./...

unit:
	$(GO) test -race -timeout $(TEST_TIMEOUT) ./...

fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzLoad$$' -fuzztime $(FUZZ_TIME) ./policy

# The same build line the Dockerfile runs.
build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags "-s -w -X main.version=$${VERSION:-dev} -X main.commit=$${COMMIT:-unknown}" -o bin/rebalancer ./cmd/rebalancer
