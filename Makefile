# tcpsim: a small, ordinary Makefile.
#   make            build ./tcpsim (optimised) and the tools
#   make run        install missing Debian packages, build, run the main job
#   make check      install missing packages, build the tests under ASan+UBSan, run them
#   make bench      engine and model throughput, printed
#   make validate   calibrate and validate against the recorded reports
#   make install    tcpsim, its tools, scenarios, recorded runs and help under
#                   PREFIX (/usr/local); DESTDIR stages, bindir etc. as in GNU
#   make uninstall
#   make clean
#
# Objects live under build/<mode>/ so the optimised and the sanitizer builds
# never mix.  Every model/*.c goes into libtcpsim.a; every tests/test_*.c is
# one cmocka program linked against it; every tools/*.c is one program.

CC      ?= cc
PKGS    := gsl inih jansson
OPT     ?= -O2 -g
WARN    := -Wall -Wextra -Werror -Wshadow -Wno-unused-parameter
CPPFLAGS := -D_GNU_SOURCE -iquote model -MMD -MP
CFLAGS_COMMON = -std=c11 $(WARN) $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
LDLIBS_COMMON = $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lcsv -lm -lpthread
SAN     := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

MODEL_SRC := $(wildcard model/*.c)
TEST_SRC  := $(wildcard tests/test_*.c)
TOOL_SRC  := $(wildcard tools/*.c)
CLI_SRC   := $(wildcard cli/*.c)

REL := build/rel
ASN := build/asan

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

.PHONY: all run check bench clean deps validate plots live install uninstall FORCE
all: tcpsim $(TOOL_BIN)

deps:
	@sh tools/install-deps.sh

run: deps
	@$(MAKE) --no-print-directory all
	./tcpsim scenarios/loopback-64k.cfg

check: deps
	@$(MAKE) --no-print-directory all $(TEST_BIN) $(ASN)/tcpsim
	@sh tests/run-tests.sh $(ASN)

bench: deps
	@$(MAKE) --no-print-directory all $(REL)/tests/bench_engine
	@if [ -f tests/bench.sh ]; then sh tests/bench.sh $(REL); else $(REL)/tests/bench_engine; fi
	@sh tests/bench-sweep.sh ./tcpsim

# Calibrate against both recorded reports and validate held out:
# validation/results/*.txt, scenarios/profiles/*-fitted.cfg and the README's
# tables (tools/validate.sh says what runs).
validate: deps
	@$(MAKE) --no-print-directory all
	@sh tools/validate.sh ./tcpsim

# The README's figure: loopback throughput against MTU, TSO on and off
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
# iperf3 and ethtool if missing, builds, runs the matrix of issue 6 into
# validation/live/MACHINE.csv.  LIVE_ARGS passes options (e.g. --resume).
live: deps
	@command -v iperf3 >/dev/null && command -v ethtool >/dev/null || \
		{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq iperf3 ethtool >/dev/null; }
	@$(MAKE) --no-print-directory all
	tools/measure-live $(LIVE_ARGS)

# --- installation ---------------------------------------------------------
# datadir.o carries $(pkgdatadir): rebuilt when the directory changes (the
# stamp's content, not its age, says so).
build/datadir.txt: FORCE
	@mkdir -p $(@D)
	@echo '$(pkgdatadir)' | cmp -s - $@ || echo '$(pkgdatadir)' > $@
$(REL)/model/datadir.o $(ASN)/model/datadir.o: build/datadir.txt
$(REL)/model/datadir.o $(ASN)/model/datadir.o: CPPFLAGS += -DTCPSIM_DATADIR='"$(pkgdatadir)"'

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
	{ ./tcpsim --help; for c in run compare sweep calibrate validate; do echo; ./tcpsim $$c --help; done; \
	  echo; ./tcpsim --help-config; } > '$(DESTDIR)$(docdir)/tcpsim.txt'
	chmod 644 '$(DESTDIR)$(docdir)/tcpsim.txt'

uninstall:
	rm -f '$(DESTDIR)$(bindir)/tcpsim'
	rm -rf '$(DESTDIR)$(pkglibexecdir)' '$(DESTDIR)$(pkgdatadir)' '$(DESTDIR)$(docdir)'

# --- optimised build -------------------------------------------------------
$(REL)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS_COMMON) $(OPT) -c $< -o $@

$(REL)/libtcpsim.a: $(REL_MODEL_OBJ)
	@rm -f $@
	ar rcs $@ $^

tcpsim: $(CLI_SRC:%.c=$(REL)/%.o) $(REL)/libtcpsim.a
	$(CC) $(OPT) -o $@ $^ $(LDLIBS_COMMON)

tools/bin/%: $(REL)/tools/%.o $(REL)/libtcpsim.a
	@mkdir -p $(@D)
	$(CC) $(OPT) -o $@ $^ $(LDLIBS_COMMON)

$(REL)/tests/bench_engine: $(REL)/tests/bench_engine.o $(REL)/libtcpsim.a
	$(CC) $(OPT) -o $@ $^ $(LDLIBS_COMMON)

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

clean:
	rm -rf build tcpsim tools/bin

-include $(shell find build -name '*.d' 2>/dev/null)
