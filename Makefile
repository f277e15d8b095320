# Makefile: builds build/tinycl and build/libtinycl.a; `make test` runs every test suite.
CC      ?= gcc
BUILD   ?= build
OPT     ?= -O2
CFLAGS  ?= $(OPT) -g
CFLAGS  += -std=c11 -Wall -Wextra -D_GNU_SOURCE -fno-strict-aliasing -Iinclude -Iruntime -I/usr/include/cjson
# libmicrohttpd is not linked: `tinycl mcp --http` opens it when it starts (src/mcp/mhd.c), so its
# headers are needed to build and its shared library only to serve HTTP.
LDLIBS  = -lgc -lgmp -lcjson -lzstd -lreadline -ldl -lpthread -lm
SANFLAGS =
export SANFLAGS

# The layers, each using only those above it (docs/internals.md, "Layers"):
# core: objects, interpreter state, memory, unwinding, errors, symbols and packages, the boot
CORE_SRC     = runtime/object.c runtime/state.c runtime/gc.c runtime/control.c runtime/error.c \
               runtime/symbol.c runtime/package.c runtime/lstring.c runtime/init.c runtime/abi.c \
               runtime/image.c runtime/imagetab.c runtime/imagestats.c runtime/imagecold.c runtime/bootimage.c runtime/bootlayout.c \
               runtime/snapshot.c runtime/written.c runtime/truename.c runtime/access.c runtime/iowait.c runtime/weak.c \
               runtime/thread.c
# evaluator: analysis into nodes, lambda lists, node evaluators, loading, and what watches them
EVAL_SRC     = runtime/analyze.c runtime/lambda.c runtime/nodes.c runtime/nodes-test.c runtime/evalprim.c runtime/load.c \
               runtime/warnings.c runtime/xref.c runtime/profile.c
# library modules: the rest of runtime/, one CL concept each (a new runtime/*.c lands here)
MODULE_SRC   = $(filter-out $(CORE_SRC) $(EVAL_SRC),$(wildcard runtime/*.c))
RUNTIME_SRC  = $(CORE_SRC) $(EVAL_SRC) $(MODULE_SRC)
# session: the engine behind include/tinycl.h
SESSION_SRC  = src/session.c src/debugger.c src/profiler.c src/session-introspect.c src/session-systems.c \
               src/lispsrc.c src/files.c src/fileload.c src/testrun.c \
               src/session_guard.c src/session-image.c src/session-checkpoint.c
# front ends: the REPL, the MCP server and the command line, through include/tinycl.h only
FRONTEND_SRC = src/main.c src/session-file.c $(wildcard src/repl/*.c) $(wildcard src/mcp/*.c)
LIB_SRC      = $(RUNTIME_SRC) $(SESSION_SRC)
APP_SRC      = $(FRONTEND_SRC)
# MANIFEST's lisp-abi.lisp is not a source: tools/gen-abi.c writes it from runtime/lisp-abi.def
STDLIB      = $(patsubst stdlib-lisp/lisp-abi.lisp,$(BUILD)/lisp-abi.lisp,\
                $(shell sed -e 's/[[:space:]]*;.*//' -e '/^$$/d' stdlib-lisp/MANIFEST | sed 's|^|stdlib-lisp/|'))

LIB_OBJ = $(patsubst %.c,$(BUILD)/%.o,$(LIB_SRC)) $(BUILD)/stdlib_data.o
APP_OBJ = $(patsubst %.c,$(BUILD)/%.o,$(APP_SRC))
HEADERS = $(wildcard runtime/*.h runtime/*.def include/*.h src/*.h src/*/*.h)

.PHONY: all run test check bench asan ubsan tsan clean deps deps-check ansi-test fuzz fuzz-build layers
all: deps-check $(BUILD)/tinycl $(BUILD)/libtinycl.a $(BUILD)/boot-checked

# Boot once from the sources: that boot checks the upcalls of runtime/lisp-abi.def, so a stdlib
# that breaks the C-Lisp contract fails the build here rather than a user later (writing the boot
# image boots from the sources too). Then once from the attached image with its checksum checked,
# which a start does not do (runtime/bootimage.c).
$(BUILD)/boot-checked: $(BUILD)/tinycl
	$(BUILD)/tinycl --boot-from-source -e '(values)' >/dev/null
	@if [ -s $(BUILD)/tinycl.image ]; then TINYCL_BOOT=image TINYCL_VERIFY_IMAGE=1 $(BUILD)/tinycl -e '(values)' >/dev/null; fi
	@touch $@

deps:
	@tools/deps.sh build

deps-check:
	@tools/deps.sh build

$(BUILD)/%.o: %.c $(HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) -c $< -o $@

$(BUILD)/embed: tools/embed.c
	@mkdir -p $(BUILD)
	$(CC) -O1 -o $@ $<

$(BUILD)/gen-abi: tools/gen-abi.c runtime/lisp-abi.def
	@mkdir -p $(BUILD)
	$(CC) -O1 -Wall -Wextra -o $@ $<

$(BUILD)/lisp-abi.lisp: $(BUILD)/gen-abi
	$(BUILD)/gen-abi $@

$(BUILD)/stdlib_data.c: $(BUILD)/embed stdlib-lisp/MANIFEST runtime/cl-symbols.def $(STDLIB)
	$(BUILD)/embed $@ runtime/cl-symbols.def $(STDLIB)

$(BUILD)/stdlib_data.o: $(BUILD)/stdlib_data.c
	$(CC) -O0 -c $< -o $@

$(BUILD)/libtinycl.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

# The executable boots once from the stdlib sources at build time (stage 0), writes that state as
# a boot image, and carries it after its own contents (runtime/bootimage.c); `tinycl
# --boot-from-source` still boots from the sources.
# Linked at a fixed address, so that the function pointers in the image need no relocation when it
# is mapped at the address it was written for.
EXE_LDFLAGS ?= -no-pie
# The collector, GMP and readline (with terminfo) are linked from their static archives when the
# system has them (Debian's -dev packages do): each start then loads and relocates four shared
# libraries fewer, a quarter of the instructions of `tinycl -e nil` (docs/performance.md).
static_a = $(filter /%,$(shell $(CC) -print-file-name=lib$(1).a))
lib_or_a = $(if $(call static_a,$(1)),-l:lib$(1).a,-l$(1))
EXE_LDLIBS ?= $(call lib_or_a,gc) $(call lib_or_a,gmp) -lcjson $(call lib_or_a,zstd) $(call lib_or_a,readline) \
              $(if $(call static_a,readline),$(call lib_or_a,tinfo)) -ldl -lpthread -lm
$(BUILD)/tinycl-stage0: $(APP_OBJ) $(BUILD)/libtinycl.a
	$(CC) $(SANFLAGS) $(EXE_LDFLAGS) -o $@ $(APP_OBJ) $(BUILD)/libtinycl.a $(EXE_LDLIBS)

# A build where the image cannot be written (a sanitizer's memory the writer refuses, say) still
# gets a working executable that boots from the sources; tests/run-boot.sh then fails.
$(BUILD)/tinycl.image: $(BUILD)/tinycl-stage0
	$(BUILD)/tinycl-stage0 --write-boot-image $@.tmp || \
	    { echo "warning: no boot image: $(BUILD)/tinycl will boot from the sources"; : > $@.tmp; }
	mv -f $@.tmp $@

$(BUILD)/attach-image: tools/attach-image.c
	@mkdir -p $(BUILD)
	$(CC) -O1 -o $@ $<

$(BUILD)/tinycl: $(BUILD)/tinycl-stage0 $(BUILD)/tinycl.image $(BUILD)/attach-image
	$(BUILD)/attach-image $@.tmp $(BUILD)/tinycl-stage0 $(BUILD)/tinycl.image
	chmod +x $@.tmp
	mv -f $@.tmp $@

# `make layers`: which file belongs to which layer
layers:
	@for l in "core:$(CORE_SRC)" "evaluator:$(EVAL_SRC)" "modules:$(MODULE_SRC)" "stdlib:$(STDLIB)" \
	          "session:$(SESSION_SRC)" "front-ends:$(FRONTEND_SRC)"; do \
	    echo "$${l%%:*}"; echo "$${l#*:}" | fmt -w 100 | sed 's/^/    /'; done

run: all
	$(BUILD)/tinycl

test: all
	@tools/deps.sh test
	@BUILD=$(BUILD) tests/run-all.sh

check: all
	@BUILD=$(BUILD) tests/run-unit.sh

bench: all
	@BUILD=$(BUILD) bench/run.sh

# The ANSI test suite is not in the repository: ANSI_TEST_DIR=/path/to/ansi-test make ansi-test
# (see tools/ansi-test/README.md).  Not part of `make test`.
ansi-test: all
	@test -n "$(ANSI_TEST_DIR)" || { echo "make ansi-test: set ANSI_TEST_DIR to a checkout of pfdietz/ansi-test"; exit 2; }
	ANSI_TEST_DIR="$(ANSI_TEST_DIR)" TINYCL=$(BUILD)/tinycl OUT=$(BUILD)/ansi-test tools/ansi-test/run-all.sh

# libFuzzer harnesses (tests/fuzz): the reader, the evaluator and one MCP message, each run for
# FUZZ_SECONDS (make fuzz FUZZ_SECONDS=600). Not part of `make test`; `make fuzz-build` only builds.
FUZZ_SECONDS ?= 60
fuzz:
	FUZZ_SECONDS=$(FUZZ_SECONDS) tests/fuzz/run.sh

fuzz-build:
	tests/fuzz/run.sh build

# The collector's heap is not malloc'd memory: leak detection would only see noise.
asan:
	ASAN_OPTIONS=detect_leaks=0:$(ASAN_OPTIONS) $(MAKE) BUILD=build-asan OPT=-O1 SANFLAGS="-fsanitize=address -fno-omit-frame-pointer" test

ubsan:
	$(MAKE) BUILD=build-ubsan OPT=-O1 SANFLAGS="-fsanitize=undefined -fno-sanitize-recover=undefined" test

# ThreadSanitizer on the many-sessions-on-many-threads test (tests/unit/test_session_threads.c).
# TSan defers signals, and the collector stops threads with signals ("Signals delivery fails
# constantly"), so it runs with collection off (GC_DONT_GC) and without the heap-limit case;
# docs/deploy.md says what it found.
tsan:
	$(MAKE) BUILD=build-tsan OPT=-O1 SANFLAGS="-fsanitize=thread" build-tsan/libtinycl.a
	@mkdir -p build-tsan/tests
	$(CC) -std=c11 -O1 -g -fsanitize=thread -D_GNU_SOURCE -Iinclude -Itests/unit -o build-tsan/tests/test_session_threads \
	    tests/unit/test_session_threads.c build-tsan/libtinycl.a $(LDLIBS) $$(pkg-config --libs check)
	GC_DONT_GC=1 CK_RUN_CASE=threads TSAN_OPTIONS="$(TSAN_OPTIONS)" build-tsan/tests/test_session_threads

# Why `make tsan` runs with collection off: the collector alone, with no tinycl code, cannot stop
# its threads under ThreadSanitizer (tests/tsan/gc-signals.c; docs/deploy.md). Expected to abort.
tsan-gc-probe:
	@mkdir -p build-tsan/tests
	$(CC) -std=c11 -O1 -g -fsanitize=thread -o build-tsan/tests/gc-signals tests/tsan/gc-signals.c -lgc -lpthread
	-CALL_EVERY=1 build-tsan/tests/gc-signals

clean:
	rm -rf build build-asan build-ubsan build-tsan build-fuzz
