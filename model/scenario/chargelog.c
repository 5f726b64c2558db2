/*
 * chargelog.c: the rows of a charge log (chargelog.h).
 */
#include <stdlib.h>

#include "chargelog.h"
#include "util.h"

bool chargelog_add(struct chargelog *cl, const struct charge_row *r)
{
	if (cl->n >= cl->max_rows) {
		cl->truncated = true;
		return false;
	}
	if (cl->n == cl->cap) {
		cl->cap = cl->cap ? 2 * cl->cap : 1024;
		if (cl->cap > cl->max_rows)
			cl->cap = cl->max_rows;
		cl->rows = xrealloc(cl->rows, cl->cap * sizeof(*cl->rows));
	}
	cl->rows[cl->n++] = *r;
	return true;
}

void chargelog_free(struct chargelog *cl)
{
	free(cl->rows);
	free(cl->mark);
	free(cl->open);
	cl->rows = NULL;
	cl->mark = NULL;
	cl->open = NULL;
	cl->n = cl->cap = 0;
}
