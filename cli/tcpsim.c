/*
 * tcpsim: main() of the command line.  It only picks a subcommand from a
 * const table (run, compare, sweep, calibrate, validate) and hands it the
 * arguments after the subcommand's name (argv[0] is the first of them); all
 * the work is in libtcpsim.
 *
 *   tcpsim run FILE.cfg [-s section.key=value]... [--format F] [-o OUT]
 *   tcpsim FILE.cfg ...          same as `tcpsim run FILE.cfg ...`
 *   tcpsim compare A.cfg [-s ...]... B.cfg [-s ...]... [--format F]
 *   tcpsim sweep FILE.cfg --vary KEY=V1,V2... [-o OUT.csv]
 *   tcpsim calibrate RUNS.csv... --fit KEY,... -o PROFILE.cfg
 *   tcpsim validate RUNS.csv... [--profile P.cfg] [--fit KEY,...] [--holdout none|loo]
 *   tcpsim --help | --help-config | --version
 *
 * Exit status: 0 ok, 1 runtime failure, 2 bad input, 3 an output could not
 * be written (cli_exit_status).  Errors are one line on stderr,
 * "tcpsim: <message>".
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "cli.h"

#define TCPSIM_VERSION "0.1"

struct subcommand {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
};

static const struct subcommand subcommands[] = {
	{"run", cmd_run, "simulate one scenario and print its metrics (table, csv or json)"},
	{"compare", cmd_compare, "simulate two scenarios and print LKP-style base / %change / new"},
	{"sweep", cmd_sweep, "run a scenario over axes of keys into CSV (threads, shards, resume)"},
	{"calibrate", cmd_calibrate, "fit [cost] keys to recorded runs (GSL least squares) into a profile"},
	{"validate", cmd_validate, "predict recorded runs (held out: leave-one-out, --train-where) vs measured"},
};

static void usage(FILE *f)
{
	fputs("usage: tcpsim <command> [arguments]\n"
	      "       tcpsim FILE.cfg [arguments]     (same as: tcpsim run FILE.cfg ...)\n"
	      "       tcpsim --help | --help-config | --version\n\n"
	      "commands:\n", f);
	for (size_t i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++)
		fprintf(f, "  %-10s %s\n", subcommands[i].name, subcommands[i].help);
	fputs("\n`tcpsim <command> --help` describes a command's arguments;\n"
	      "`tcpsim --help-config` lists every scenario key, its unit, bounds and default.\n\n"
	      "Exit status: 0 ok; 1 a runtime failure or a fit that did not converge; 2 bad input\n"
	      "(a file, a key, an option; an output that is one of the inputs); 3 an output\n"
	      "could not be written (full disk, read-only or missing directory, permission).\n", f);
}

/* A first argument that is no command is taken as a scenario when it looks like one. */
static int looks_like_scenario(const char *arg)
{
	size_t n = strlen(arg);
	return (n > 4 && strcmp(arg + n - 4, ".cfg") == 0) || strchr(arg, '/') || access(arg, F_OK) == 0;
}

int main(int argc, char **argv)
{
	const char *a;

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	a = argv[1];
	if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0 || strcmp(a, "help") == 0) {
		usage(stdout);
		return 0;
	}
	if (strcmp(a, "--help-config") == 0) {
		config_print_help(stdout);
		return 0;
	}
	if (strcmp(a, "--version") == 0) {
		printf("tcpsim %s\n", TCPSIM_VERSION);
		return 0;
	}
	for (size_t i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++)
		if (strcmp(a, subcommands[i].name) == 0)
			return subcommands[i].fn(argc - 2, argv + 2);
	if (a[0] == '-' && a[1] != '\0') {
		fprintf(stderr, "tcpsim: unknown option '%s' (see tcpsim --help)\n", a);
		return 2;
	}
	if (looks_like_scenario(a))
		return cmd_run(argc - 1, argv + 1);
	fprintf(stderr, "tcpsim: '%s' is neither a command nor a scenario file (see tcpsim --help)\n", a);
	return 2;
}
