/*
 * common.c: what every subcommand uses (cli.h): the option-with-a-value
 * parser, the exit status of a library status and the memory stream a
 * report is formatted into.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "config.h"

int cli_option_value(int argc, char **argv, int *i, const char *shrt, const char *lng, const char **val)
{
	const char *a = argv[*i];
	size_t ln = strlen(lng);
	if ((shrt && strcmp(a, shrt) == 0) || strcmp(a, lng) == 0) {
		if (*i + 1 >= argc)
			return -1;
		*val = argv[++*i];
		return 1;
	}
	if (strncmp(a, lng, ln) == 0 && a[ln] == '=') {
		*val = a + ln + 1;
		return 1;
	}
	if (shrt && strncmp(a, shrt, 2) == 0 && a[2] != '\0' && a[1] != '-') {
		*val = a + 2;
		return 1;
	}
	return 0;
}

int cli_exit_status(int code)
{
	switch (code) {
	case TCPSIM_OK: return 0;
	case TCPSIM_EUSAGE: return 2;
	case TCPSIM_EIO: return 3;
	default: return 1;
	}
}

int cli_late_start(const char *cmd, const char *text, double *ns)
{
	struct tcpsim_err err = {0};
	const char *unit;

	if (config_value_number("app.recv_start", text, ns, &unit, &err) == TCPSIM_OK && *ns > 0)
		return 0;
	fprintf(stderr, "tcpsim: %s%s--states %s: expected a time above 0 (the receivers' late start, e.g. 2ms)\n",
		cmd ? cmd : "", cmd ? ": " : "", text);
	return 2;
}

FILE *cli_memstream(char **buf, size_t *len)
{
	FILE *ms = open_memstream(buf, len);
	if (!ms)
		fprintf(stderr, "tcpsim: cannot format the report: %s\n", strerror(errno));
	return ms;
}
