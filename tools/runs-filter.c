/*
 * runs-filter: keep the recorded runs that match, in a new CSV.
 *
 *   runs-filter IN.csv [--scenario PATH] [--where section.key=V1,V2]... -o OUT.csv
 *
 * A run matches when its scenario column equals PATH (if given) and, for
 * every --where, its overrides set the key to one of the values (compared
 * as text).  Reading and writing go through model/study/runs.c (libcsv); OUT is
 * written whole or not at all (model/base/outfile.h), and may not be IN.  Exit
 * 0, 2 on bad input, 1 when nothing matched (an empty selection is almost
 * always a mistake), 3 when OUT cannot be written.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "outfile.h"
#include "runs.h"
#include "util.h"

#define PROG "runs-filter"
#define MAX_WHERE 16

struct where {
	const char *key;  /* "section.key" */
	char *values;     /* "V1,V2" copy, split on ',' at match time */
};

static int usage(const char *msg)
{
	if (msg)
		fprintf(stderr, PROG ": %s\n", msg);
	fprintf(stderr, "usage: " PROG " IN.csv [--scenario PATH] [--where section.key=V1,V2]... -o OUT.csv\n");
	return 2;
}

static int matches(const struct recorded_run *r, const char *scenario, const struct where *w, int nw)
{
	if (scenario && strcmp(r->scenario, scenario) != 0)
		return 0;
	for (int i = 0; i < nw; i++)
		if (!runs_overrides_set(r->ov, r->n_ov, w[i].key, w[i].values))
			return 0;
	return 1;
}

int main(int argc, char **argv)
{
	const char *in = NULL, *out = NULL, *scenario = NULL;
	struct where w[MAX_WHERE];
	int nw = 0, rc = 0, kept = 0;
	struct run_set all, sel;
	struct tcpsim_err err = {0};

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--scenario") == 0 && i + 1 < argc) {
			scenario = argv[++i];
		} else if (strcmp(argv[i], "--where") == 0 && i + 1 < argc) {
			char *eq;
			if (nw == MAX_WHERE)
				return usage("too many --where");
			w[nw].values = argv[++i];
			eq = strchr(w[nw].values, '=');
			if (!eq || eq == w[nw].values)
				return usage("--where takes section.key=V1,V2");
			*eq = '\0';
			w[nw].key = w[nw].values;
			w[nw].values = eq + 1;
			nw++;
		} else if (strcmp(argv[i], "-o") == 0 && i + 1 < argc) {
			out = argv[++i];
		} else if (argv[i][0] == '-') {
			return usage("unknown option or missing argument");
		} else if (!in) {
			in = argv[i];
		} else {
			return usage("one input file");
		}
	}
	if (!in || !out)
		return usage(NULL);

	if (outfile_check_inputs(out, &in, 1, &err) || outfile_probe(out, "recorded runs", &err)) {
		fprintf(stderr, PROG ": %s\n", err.msg);
		return err.code == TCPSIM_EIO ? 3 : 2;
	}
	runs_init(&all);
	runs_init(&sel);
	if (runs_load(&all, in, &err)) {
		fprintf(stderr, PROG ": %s\n", err.msg);
		runs_free(&all);
		return 2;
	}
	for (int i = 0; i < all.n && !err.code; i++) {
		const struct recorded_run *r = &all.runs[i];
		struct recorded_run *c;
		if (!matches(r, scenario, w, nw))
			continue;
		c = runs_add(&sel, r->id, r->source, r->scenario, r->overrides, r->note, &err);
		if (!c)
			break;
		memcpy(c->v, r->v, sizeof(c->v));
		memcpy(c->cv, r->cv, sizeof(c->cv));
		kept++;
	}
	if (!err.code && kept == 0) {
		fprintf(stderr, PROG ": no run of %s matches\n", in);
		rc = 1;
	} else if (!err.code && runs_write(&sel, out, &err) == 0) {
		rc = 0;
	}
	if (err.code) {
		fprintf(stderr, PROG ": %s\n", err.msg);
		rc = err.code == TCPSIM_EIO ? 3 : 2;
	}
	runs_free(&all);
	runs_free(&sel);
	return rc;
}
