# Build, test and code generation. The README's two set-up commands are
# `make demo` and `make test`; .ci/run calls `make test`.

GO ?= go
BIN := bin
PROTO_DIR := pluginsdk/proto
PROTO := $(PROTO_DIR)/sdcplugin/v1/method.proto
PB_OUT := internal/contract/sdcpb

.PHONY: all build demo test generate check-generated clean windows linux-arm64 linux-arm64-demo darwin wine-test

all: build

# build puts the host in bin/ and every plugin binary (main packages in
# directories named argus-method-<name>) in bin/plugins/, where the host's
# catalog finds them.
build:
	$(GO) build -o $(BIN)/ ./host/cmd/argus
	$(GO) build -o $(BIN)/plugins/ ./plugins/... ./pluginsdk/example/...

demo: build
	./$(BIN)/argus demo

test:
	$(GO) vet ./...
	$(GO) test ./...

# generate regenerates the committed *.pb.go from the contract. Needs protoc
# (Debian: apt-get install protobuf-compiler); the Go plugins are pinned as
# tool lines in go.mod.
generate:
	mkdir -p $(PB_OUT)
	PATH="$$(dirname $$($(GO) tool -n protoc-gen-go)):$$(dirname $$($(GO) tool -n protoc-gen-go-grpc)):$$PATH" \
	protoc -I $(PROTO_DIR) \
	  --go_out=$(PB_OUT) --go_opt=paths=source_relative \
	  --go-grpc_out=$(PB_OUT) --go-grpc_opt=paths=source_relative \
	  $(PROTO)
	mv $(PB_OUT)/sdcplugin/v1/*.go $(PB_OUT)/ && rm -r $(PB_OUT)/sdcplugin

# check-generated fails when the committed generated code is stale.
check-generated: generate
	git diff --exit-code -- $(PB_OUT)

# windows builds argus.exe and plugins\argus-method-*.exe (HiGHS built
# from source once, cached) and the release zip in dist/; linux-arm64 the
# arm64 build, linux-arm64-demo its demo under qemu-user against the amd64
# build's; darwin a compile check; wine-test runs the Windows build under
# Wine against the Linux build (see the README).
windows:
	scripts/cross/build.sh windows-amd64

linux-arm64:
	scripts/cross/build.sh linux-arm64

linux-arm64-demo:
	scripts/cross/qemu-demo.sh

darwin:
	scripts/cross/build.sh darwin-arm64
	scripts/cross/build.sh darwin-amd64

wine-test:
	scripts/wine/run.sh

clean:
	rm -rf $(BIN) dist
