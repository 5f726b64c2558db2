/*
 * toolopt.h: what every tools/ program does with a bad command line --
 * the message, its usage text on stderr, exit status 2.  Included by the
 * programs themselves (each C file under tools/ is one program, so these are
 * static inline rather than a shared object).
 */
#ifndef TCPSIM_TOOLOPT_H
#define TCPSIM_TOOLOPT_H

#include <getopt.h>
#include <stdio.h>

static inline int tool_usage(const char *prog, const char *text, const char *msg)
{
	if (msg)
		fprintf(stderr, "%s: %s\n", prog, msg);
	fputs(text, stderr);
	return 2;
}

/* getopt_long returned '?' or ':' for argv[optind - 1]. */
static inline int tool_bad_option(const char *prog, const char *text, char *const argv[])
{
	char m[128];
	snprintf(m, sizeof(m), "unknown or incomplete option '%s'", argv[optind - 1]);
	return tool_usage(prog, text, m);
}

#endif
