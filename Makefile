# tcpsim: a small, ordinary Makefile.
#   make            build ./tcpsim (optimised, profile-guided) and the tools
#   make run        install missing Debian packages, build, run the main job
#   make check      install missing packages, check the layering (tools/check-layers.sh),
#                   build the tests under ASan+UBSan, run them
#   make bench      engine and model speed beside ns-3's, printed (docs/bench.md)
#   make validate   calibrate and validate against the recorded reports
#   make fuzz       build the libFuzzer targets (tests/fuzz/) and run each for
#                   FUZZ_SECONDS; make fuzz-merge adds what they found to the corpora
#   make install    tcpsim, its tools, scenarios, recorded runs and help under
#                   PREFIX (/usr/local); DESTDIR stages, bindir etc. as in GNU
#   make uninstall
#   make clean
#
# Objects live under build/<mode>/ so the optimised and the sanitizer builds
# never mix.  Every model/*/*.c (and tools/lib/*.c, the readers only tools
# use) goes into libtcpsim.a; every tests/test_*.c is
# one cmocka program linked against it; every tools/*.c is one program.

CC      ?= cc
PKGS    := gsl inih jansson
# -O3 and link-time optimisation: the event path crosses every layer
# (cpu.c -> sched.c -> app.c -> tcp*.c -> netdev_nic.c -> skb.c), and inlined
# across files it runs bench/10g-1500-4m.cfg in 0.92-0.94 of -O2's CPU time
# (docs/bench.md); neither changes a result (no -ffast-math: every
# floating-point operation is the same).
OPT     ?= -O3 -g -flto=auto
WARN    := -Wall -Wextra -Werror -Wshadow -Wno-unused-parameter
# model/ is the library, one sub-folder per layer (docs/architecture.md);
# headers are included by name, so every layer's folder is on the path.
MODEL_DIRS := model model/base model/scenario model/engine model/kernel model/net model/app \
	model/config model/study tools/lib
CPPFLAGS := -D_GNU_SOURCE $(MODEL_DIRS:%=-iquote %) -MMD -MP
CFLAGS_COMMON = -std=c11 $(WARN) $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
LDLIBS_COMMON = $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lcsv -lm -lpthread
SAN     := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

MODEL_SRC := $(foreach d,$(MODEL_DIRS),$(wildcard $(d)/*.c))
TEST_SRC  := $(wildcard tests/test_*.c)
TOOL_SRC  := $(wildcard tools/*.c)
CLI_SRC   := $(wildcard cli/*.c)

REL := build/rel
ASN := build/asan
FUZZ := build/fuzz

FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_SAN     := $(SAN) -fsanitize=fuzzer-no-link
FUZZ_SRC     := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_NAMES   := $(FUZZ_SRC:tests/fuzz/fuzz_%.c=%)
FUZZ_BIN     := $(FUZZ_NAMES:%=$(FUZZ)/fuzz_%)
FUZZ_REPLAY  := $(FUZZ_NAMES:%=$(ASN)/fuzz/fuzz_%)
FUZZ_MODEL_OBJ := $(MODEL_SRC:%.c=$(FUZZ)/%.o)
# true when $(FUZZ_CC) links a libFuzzer target here
FUZZ_PROBE    = { mkdir -p $(FUZZ) && \
	printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return !d + (int)n; }\n' >$(FUZZ)/probe.c && \
	$(FUZZ_CC) -fsanitize=fuzzer $(FUZZ)/probe.c -o $(FUZZ)/probe >/dev/null 2>&1; }

# Installation directories, named as GNU's coding standards name them.
PREFIX        ?= /usr/local
prefix        ?= $(PREFIX)
exec_prefix   ?= $(prefix)
bindir        ?= $(exec_prefix)/bin
libexecdir    ?= $(exec_prefix)/libexec
datarootdir   ?= $(prefix)/share
datadir       ?= $(datarootdir)
docdir        ?= $(datarootdir)/doc/tcpsim
pkgdatadir     = $(datadir)/tcpsim
pkglibexecdir  = $(libexecdir)/tcpsim
INSTALL       ?= install
# The scripts installed beside the tool programs (the others work on a checkout).
TOOL_SCRIPTS  := plot-sweep sweep-merge sweep-parallel sweep-slurm.sh

REL_MODEL_OBJ := $(MODEL_SRC:%.c=$(REL)/%.o)
ASN_MODEL_OBJ := $(MODEL_SRC:%.c=$(ASN)/%.o)
TOOL_BIN  := $(TOOL_SRC:tools/%.c=tools/bin/%)
TEST_BIN  := $(TEST_SRC:tests/%.c=$(ASN)/tests/%)

.PHONY: all run check bench clean deps validate plots live fuzz fuzz-build fuzz-merge install uninstall FORCE
all: tcpsim $(TOOL_BIN)

deps:
	@sh tools/install-deps.sh

run: deps
	@$(MAKE) --no-print-directory all
	./tcpsim scenarios/loopback-64k.cfg

# The fuzz targets' corpora are replayed too: by the libFuzzer builds when
# $(FUZZ_CC) links libFuzzer, else by gcc ASan builds with a plain main.
check: deps
	@sh tools/check-layers.sh
	@$(MAKE) --no-print-directory all $(TEST_BIN) $(ASN)/tcpsim $(ASN)/tests/bench_engine $(ASN)/bench/rusage
	@if $(FUZZ_PROBE); then \
		$(MAKE) --no-print-directory fuzz-build && fz=$(FUZZ); \
	else \
		echo "check: $(FUZZ_CC) cannot link libFuzzer; corpora replayed by $(CC) builds"; \
		$(MAKE) --no-print-directory $(FUZZ_REPLAY) && fz=$(ASN)/fuzz; \
	fi && sh tests/run-tests.sh $(ASN) $$fz

# The ns-3 column (bench/ns3-bulk.cc, Debian's libns3-dev) is skipped with a
# message when ns-3 cannot be installed or the program does not build;
# TCPSIM_OLD (a binary or a git revision) is the old-vs-new column
# (docs/bench.md).
bench: deps
	@sh tools/install-deps.sh bench || echo "bench: could not install ns-3 (libns3-dev); its column is skipped"
	@$(MAKE) --no-print-directory all $(REL)/tests/bench_engine $(REL)/bench/rusage
	@$(MAKE) --no-print-directory $(REL)/bench/ns3-bulk || \
		echo "bench: bench/ns3-bulk.cc did not build against ns-3; its column is skipped"
	@sh tests/bench.sh $(REL)
	@sh tests/bench-sweep.sh ./tcpsim

# Calibrate against both recorded reports and validate held out:
# validation/results/*.txt and scenarios/profiles/*-fitted.cfg, nothing else
# (tools/validate.sh says what runs).
validate: deps
	@$(MAKE) --no-print-directory all
	@sh tools/validate.sh ./tcpsim

# The figure of docs/sweeps.md: loopback throughput against MTU, TSO on and off
# (GSO off, or GSO would hand 64 KB frames to the backlog either way).
plots: deps
	@$(MAKE) --no-print-directory all
	@mkdir -p build/plots docs
	rm -f build/plots/loopback-mtu.csv build/plots/loopback-mtu.csv.cfg
	./tcpsim sweep scenarios/loopback-64k.cfg -s offload.gso=off \
		--vary link.mtu=1500,4096,9000,16436,32768,65536 --vary offload.tso=on,off \
		-o build/plots/loopback-mtu.csv
	tools/plot-sweep build/plots/loopback-mtu.csv --x link.mtu --y throughput_mbps \
		--by offload.tso --logx --png docs/loopback-mtu-tso.png --ascii \
		--title "loopback TCP_SENDFILE, 8 instances, GSO off: Mbit/s per instance vs MTU" \
		> docs/loopback-mtu-tso.txt

# Measure this machine's kernel (as root; tools/measure-live --help): installs
# iperf3 and ethtool if missing, builds, runs the live matrix into
# validation/live/MACHINE.csv.  LIVE_ARGS passes options (e.g. --resume).
live: deps
	@command -v iperf3 >/dev/null && command -v ethtool >/dev/null || \
		{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq iperf3 ethtool >/dev/null; }
	@$(MAKE) --no-print-directory all
	tools/measure-live $(LIVE_ARGS)

# Fuzzing (clang's libFuzzer, from Debian's clang and libclang-rt-dev): each
# tests/fuzz/fuzz_NAME.c runs FUZZ_SECONDS from its seed corpus
# tests/fuzz/corpus/NAME/, one target after another, printing libFuzzer's
# final figures.  New inputs go to build/fuzz/corpus/NAME/ (make fuzz-merge
# adds those that reach new code to the seed corpus); a crash's input lands in
# tests/fuzz/crashes/NAME/ and the target's log in build/fuzz/logs/NAME.log.
# The targets' scratch files go to /dev/shm unless TMPDIR is set: the
# writers under test fsync, which on a disk costs most of the time.
fuzz: deps
	@$(FUZZ_PROBE) || { echo "fuzz: $(FUZZ_CC) cannot link -fsanitize=fuzzer (sh tools/install-deps.sh)" >&2; exit 1; }
	@$(MAKE) --no-print-directory fuzz-build
	@bad=""; tmp=$${TMPDIR:-}; \
	[ -n "$$tmp" ] || { [ -d /dev/shm ] && [ -w /dev/shm ] && tmp=/dev/shm; } || tmp=/tmp; \
	for n in $(FUZZ_NAMES); do \
		mkdir -p $(FUZZ)/corpus/$$n $(FUZZ)/logs tests/fuzz/crashes/$$n; \
		echo "fuzz: $$n for $(FUZZ_SECONDS) s"; \
		TMPDIR=$$tmp $(FUZZ)/fuzz_$$n -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=2048 \
			-print_final_stats=1 -artifact_prefix=tests/fuzz/crashes/$$n/ \
			$(FUZZ)/corpus/$$n tests/fuzz/corpus/$$n >$(FUZZ)/logs/$$n.log 2>&1; \
		if [ $$? -eq 0 ]; then \
			grep -m1 '^#[0-9]*[[:space:]]*DONE' $(FUZZ)/logs/$$n.log | \
				sed "s/^#\([0-9]*\)[[:space:]]*DONE[[:space:]]*/fuzz: $$n: \1 execs, /"; \
		else \
			bad="$$bad $$n"; \
			grep '^#[0-9]' $(FUZZ)/logs/$$n.log | tail -1 | sed "s/^/fuzz: $$n: CRASH after /"; \
			grep -h 'Test unit written to' $(FUZZ)/logs/$$n.log | sed "s/^/fuzz: $$n: /"; \
		fi; \
	done; \
	[ -z "$$bad" ] || { echo "fuzz: crashed:$$bad (logs in $(FUZZ)/logs/)"; exit 1; }

fuzz-merge: deps
	@$(MAKE) --no-print-directory fuzz-build
	@for n in $(FUZZ_NAMES); do \
		mkdir -p $(FUZZ)/corpus/$$n $(FUZZ)/logs; \
		$(FUZZ)/fuzz_$$n -merge=1 tests/fuzz/corpus/$$n $(FUZZ)/corpus/$$n >$(FUZZ)/logs/$$n.merge.log 2>&1 || \
			{ echo "fuzz-merge: $$n failed ($(FUZZ)/logs/$$n.merge.log)"; exit 1; }; \
		echo "fuzz-merge: $$n: $$(ls tests/fuzz/corpus/$$n | wc -l) inputs"; \
	done

fuzz-build: $(FUZZ_BIN)
# --- installation ---------------------------------------------------------
# datadir.o carries $(pkgdatadir): rebuilt when the directory changes (the
# stamp's content, not its age, says so).
build/datadir.txt: FORCE
	@mkdir -p $(@D)
	@echo '$(pkgdatadir)' | cmp -s - $@ || echo '$(pkgdatadir)' > $@
$(REL)/model/base/datadir.o $(ASN)/model/base/datadir.o: build/datadir.txt
$(REL)/model/base/datadir.o $(ASN)/model/base/datadir.o: CPPFLAGS += -DTCPSIM_DATADIR='"$(pkgdatadir)"'
# its own define, not the training build's: compiled without the counts
$(REL)/model/base/datadir.o: REL_PGO :=

# The scripts find the installed tcpsim ($TCPSIM still wins); the help is
# every --help text in one file.
install: all
	$(INSTALL) -d '$(DESTDIR)$(bindir)' '$(DESTDIR)$(pkglibexecdir)' '$(DESTDIR)$(pkgdatadir)' '$(DESTDIR)$(docdir)'
	$(INSTALL) -m 755 tcpsim '$(DESTDIR)$(bindir)/tcpsim'
	$(INSTALL) -m 755 $(TOOL_BIN) '$(DESTDIR)$(pkglibexecdir)/'
	for s in $(TOOL_SCRIPTS); do \
		sed 's|^tcpsim=$${TCPSIM:-}$$|tcpsim=$${TCPSIM:-$(bindir)/tcpsim}|' tools/$$s > '$(DESTDIR)$(pkglibexecdir)/'$$s && \
		chmod 755 '$(DESTDIR)$(pkglibexecdir)/'$$s || exit 1; \
	done
	rm -rf '$(DESTDIR)$(pkgdatadir)/scenarios' '$(DESTDIR)$(pkgdatadir)/validation'
	cp -R scenarios validation '$(DESTDIR)$(pkgdatadir)/'
	chmod -R u=rwX,go=rX '$(DESTDIR)$(pkgdatadir)'
	$(INSTALL) -m 644 README.md '$(DESTDIR)$(docdir)/README.md'
	$(INSTALL) -d '$(DESTDIR)$(docdir)/docs'
	$(INSTALL) -m 644 docs/*.md docs/*.png docs/*.txt '$(DESTDIR)$(docdir)/docs/'
	{ ./tcpsim --help; for c in run compare sweep calibrate validate; do echo; ./tcpsim $$c --help; done; \
	  echo; ./tcpsim --help-config; } > '$(DESTDIR)$(docdir)/tcpsim.txt'
	chmod 644 '$(DESTDIR)$(docdir)/tcpsim.txt'

uninstall:
	rm -f '$(DESTDIR)$(bindir)/tcpsim'
	rm -rf '$(DESTDIR)$(pkglibexecdir)' '$(DESTDIR)$(pkgdatadir)' '$(DESTDIR)$(docdir)'

# --- optimised build -------------------------------------------------------
# Profile-guided (PGO = 1, the default; GCC's -fprofile-use): the same
# sources are first built instrumented under build/pgo/, that tcpsim runs
# the training work (PGO_TRAIN_*: a NIC wire run and the many-task
# loopback run), and every object of build/rel/ is compiled with the branch
# and call counts the runs left beside the instrumented objects (.gcda),
# so GCC lays out and inlines the event path as the runs take it.  The
# counts only steer the optimiser: no result changes.  A change to any
# source retrains, and so rebuilds all of build/rel/: PGO=0 for quick
# edit-build cycles, or with a compiler other than GCC.  The objects no
# training run uses (the tools', the benches') have no counts, hence
# -Wno-missing-profile.  Measured in docs/bench.md.
PGO       ?= 1
PGO_DIR   := build/pgo
PGO_TRAIN_WIRE := bench/10g-1500-4m.cfg -s run.duration=0.2s
PGO_TRAIN_LO   := scenarios/loopback-64k.cfg -s host.cpus=128 -s app.instances=256 \
	-s run.warmup=0.05s -s run.duration=0.15s
ifeq ($(PGO),1)
REL_PROFILE := $(PGO_DIR)/trained
REL_PGO     := -fprofile-use -fprofile-partial-training -Wno-missing-profile
endif
REL_OPT = $(OPT) $(REL_PGO)

# The optimiser's flags as a stamp (its content, not its age, counts):
# switching PGO or OPT rebuilds every object of build/rel/, where make
# alone would keep the other setting's objects and link a mixture (a
# "PGO=0" tcpsim of profile-guided objects, or none relinked at all)
build/rel-opt.txt: FORCE
	@mkdir -p $(@D)
	@echo '$(REL_OPT)' | cmp -s - $@ || echo '$(REL_OPT)' > $@

$(PGO_DIR)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS_COMMON) $(OPT) -fprofile-generate -fprofile-update=single -c $< -o $@

$(PGO_DIR)/libtcpsim.a: $(MODEL_SRC:%.c=$(PGO_DIR)/%.o)
	@rm -f $@
	ar rcs $@ $^

$(PGO_DIR)/tcpsim: $(CLI_SRC:%.c=$(PGO_DIR)/%.o) $(PGO_DIR)/libtcpsim.a
	$(CC) $(OPT) -fprofile-generate -o $@ $^ $(LDLIBS_COMMON)

# (the training runs are this file's: a change to them retrains)
$(PGO_DIR)/trained: $(PGO_DIR)/tcpsim Makefile
	find $(PGO_DIR) -name '*.gcda' -exec rm -f {} +
	$(PGO_DIR)/tcpsim $(PGO_TRAIN_WIRE) >/dev/null
	$(PGO_DIR)/tcpsim $(PGO_TRAIN_LO) >/dev/null
	@touch $@

# -dumpbase: the object is named as its training build's, which is where
# GCC reads the counts from and what it numbers the file's functions by
$(REL)/%.o: %.c $(REL_PROFILE) build/rel-opt.txt
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS_COMMON) $(REL_OPT) $(if $(REL_PGO),-dumpbase $(PGO_DIR)/$< -dumpbase-ext .c) -c $< -o $@

$(REL)/libtcpsim.a: $(REL_MODEL_OBJ)
	@rm -f $@
	ar rcs $@ $^

tcpsim: $(CLI_SRC:%.c=$(REL)/%.o) $(REL)/libtcpsim.a
	$(CC) $(REL_OPT) -o $@ $^ $(LDLIBS_COMMON)

tools/bin/%: $(REL)/tools/%.o $(REL)/libtcpsim.a
	@mkdir -p $(@D)
	$(CC) $(REL_OPT) -o $@ $^ $(LDLIBS_COMMON)

$(REL)/tests/bench_engine: $(REL)/tests/bench_engine.o $(REL)/libtcpsim.a
	$(CC) $(REL_OPT) -o $@ $^ $(LDLIBS_COMMON)

# make bench's own programs: the process timer, and the ns-3 program
# (C++, against Debian's ns-3 3.37; tools/install-deps.sh bench).
NS3_PKGS := ns3-core ns3-network ns3-internet ns3-point-to-point ns3-applications

$(REL)/bench/rusage: $(REL)/bench/rusage.o
	$(CC) $(OPT) -o $@ $^

$(REL)/bench/ns3-bulk: bench/ns3-bulk.cc
	@mkdir -p $(@D)
	@pkg-config --exists $(NS3_PKGS) || { echo "bench: no ns-3 here (pkg-config $(NS3_PKGS))" >&2; exit 1; }
	$(CXX) -O2 -Wall -Werror -o $@ $< $$(pkg-config --cflags --libs $(NS3_PKGS))

$(REL)/tests/bench_rng: $(REL)/tests/bench_rng.o $(REL)/libtcpsim.a
	$(CC) $(REL_OPT) -o $@ $^ $(LDLIBS_COMMON)

# --- sanitizer build (tests) ----------------------------------------------
$(ASN)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS_COMMON) -O1 -g $(SAN) -c $< -o $@

$(ASN)/libtcpsim.a: $(ASN_MODEL_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(ASN)/tests/%: $(ASN)/tests/%.o $(ASN)/libtcpsim.a
	$(CC) $(SAN) -o $@ $^ $(LDLIBS_COMMON) -lcmocka

$(ASN)/tcpsim: $(CLI_SRC:%.c=$(ASN)/%.o) $(ASN)/libtcpsim.a
	$(CC) $(SAN) -o $@ $^ $(LDLIBS_COMMON)

$(ASN)/bench/rusage: $(ASN)/bench/rusage.o
	$(CC) $(SAN) -o $@ $^

# --- fuzz targets ----------------------------------------------------------
$(FUZZ)/%.o: %.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(CPPFLAGS) $(CFLAGS_COMMON) -O1 -g $(FUZZ_SAN) -c $< -o $@

$(FUZZ)/libtcpsim.a: $(FUZZ_MODEL_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(FUZZ)/fuzz_%: $(FUZZ)/tests/fuzz/fuzz_%.o $(FUZZ)/tests/fuzz/fuzzutil.o $(FUZZ)/libtcpsim.a
	$(FUZZ_CC) $(SAN) -fsanitize=fuzzer -o $@ $^ $(LDLIBS_COMMON)

.SECONDARY: $(FUZZ_SRC:%.c=$(FUZZ)/%.o) $(FUZZ)/tests/fuzz/fuzzutil.o \
	$(FUZZ_SRC:%.c=$(ASN)/%.o) $(ASN)/tests/fuzz/fuzzutil.o $(ASN)/tests/fuzz/replay.o

$(ASN)/fuzz/fuzz_%: $(ASN)/tests/fuzz/fuzz_%.o $(ASN)/tests/fuzz/fuzzutil.o $(ASN)/tests/fuzz/replay.o \
		$(ASN)/libtcpsim.a
	@mkdir -p $(@D)
	$(CC) $(SAN) -o $@ $^ $(LDLIBS_COMMON)

clean:
	rm -rf build tcpsim tools/bin

-include $(shell find build -name '*.d' 2>/dev/null)
