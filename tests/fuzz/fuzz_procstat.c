/*
 * fuzz_procstat: the parsers of /proc snapshot files (procstat.c).  Each
 * input goes to every parser, each over a fresh struct, then the parsed
 * system snapshot is differenced against itself one second later
 * (procstat_sys_delta), which divides by what the files said.  A failed
 * parse must say why.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "procstat.h"
#include "util.h"

#include "fuzzutil.h"

typedef int (*sys_parser)(struct procstat_sys *, const char *, const char *, struct tcpsim_err *);
typedef int (*net_parser)(struct procstat_net *, const char *, const char *, struct tcpsim_err *);

static const sys_parser sys_parsers[] = {
	procstat_parse_time,     procstat_parse_stat,    procstat_parse_softirqs,
	procstat_parse_interrupts, procstat_parse_vmstat, procstat_parse_ksoftirqd,
};
static const net_parser net_parsers[] = {procstat_parse_snmp, procstat_parse_dev};

static void said_why(int rc, const struct tcpsim_err *err)
{
	if (rc != TCPSIM_OK && err->msg[0] == '\0') {
		fprintf(stderr, "fuzz_procstat: a parser failed without a message\n");
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size);
	struct procstat_sys *all = xcalloc(1, sizeof(*all));
	struct procstat_sys *one = xcalloc(1, sizeof(*one));
	struct procstat_sys *later = xcalloc(1, sizeof(*later));
	struct procstat_net *net = xcalloc(1, sizeof(*net));
	struct procstat_sys_delta *d = xcalloc(1, sizeof(*d));
	struct tcpsim_err err;

	for (size_t i = 0; i < sizeof(sys_parsers) / sizeof(sys_parsers[0]); i++) {
		memset(one, 0, sizeof(*one));
		err_clear(&err);
		said_why(sys_parsers[i](one, text, "file", &err), &err);
		err_clear(&err);
		(void)sys_parsers[i](all, text, "file", &err);
	}
	for (size_t i = 0; i < sizeof(net_parsers) / sizeof(net_parsers[0]); i++) {
		memset(net, 0, sizeof(*net));
		err_clear(&err);
		said_why(net_parsers[i](net, text, "file", &err), &err);
		(void)procstat_net_dev(net, "lo");
	}
	*later = *all;
	later->mono_s += 1;
	err_clear(&err);
	said_why(procstat_sys_delta(all, later, d, &err), &err);
	free(d);
	free(net);
	free(later);
	free(one);
	free(all);
	free(text);
	return 0;
}
