/*
 * batch.c: run n scenarios on a few threads (batch.h).  The calling thread
 * is worker 0; each worker takes the next index until none is left, so the
 * results land in order whatever thread ran them.
 */
#include "batch.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "util.h"

static double batch_now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

struct batch {
	batch_run_fn run;
	const struct scenario *sc;
	struct metrics *out;
	struct tcpsim_err *errs;
	int *rc;
	int n;
	atomic_int next;
	atomic_int done;
	FILE *progress;  /* worker 0 prints "N/M runs" here, or NULL */
};

static void batch_work(struct batch *b, bool show)
{
	double last = show ? batch_now_s() : 0;
	bool first = true;   /* the first line comes with worker 0's first run */
	int i;
	while ((i = atomic_fetch_add(&b->next, 1)) < b->n) {
		b->rc[i] = b->run(&b->sc[i], &b->out[i], &b->errs[i]);
		int done = atomic_fetch_add(&b->done, 1) + 1;
		if (show && (first || batch_now_s() - last >= 0.5)) {
			first = false;
			last = batch_now_s();
			fprintf(b->progress, "\r\033[K%d/%d runs simulated (%.1f%%)", done, b->n,
				100.0 * done / b->n);
			fflush(b->progress);
		}
	}
}

static void *batch_worker(void *arg)
{
	batch_work(arg, false);
	return NULL;
}

int batch_run_each(batch_run_fn run, const struct scenario *sc, struct metrics *out, int n, int jobs,
		   FILE *progress, struct tcpsim_err *errs)
{
	struct batch b = {.run = run, .sc = sc, .out = out, .n = n, .progress = progress, .errs = errs};
	pthread_t *tid;
	int started = 0, failed = 0;

	if (n <= 0)
		return 0;
	b.rc = xcalloc((size_t)n, sizeof(*b.rc));
	for (int i = 0; i < n; i++)
		err_clear(&errs[i]);
	atomic_init(&b.next, 0);
	atomic_init(&b.done, 0);
	if (jobs > n)
		jobs = n;
	tid = xcalloc((size_t)(jobs > 1 ? jobs - 1 : 1), sizeof(*tid));
	/* the calling thread is worker 0; a thread that cannot start just means fewer */
	for (int t = 1; t < jobs; t++)
		if (pthread_create(&tid[started], NULL, batch_worker, &b) == 0)
			started++;
	batch_work(&b, progress != NULL);
	for (int t = 0; t < started; t++)
		pthread_join(tid[t], NULL);
	if (progress) {
		fputs("\r\033[K", progress);
		fflush(progress);
	}
	for (int i = 0; i < n; i++) {
		if (b.rc[i] != TCPSIM_OK) {
			if (!errs[i].code) /* a run that failed without saying why */
				err_set(&errs[i], b.rc[i], "simulation failed");
			failed++;
		}
	}
	free(tid);
	free(b.rc);
	return failed;
}

int batch_run(batch_run_fn run, const struct scenario *sc, struct metrics *out, int n, int jobs,
	      FILE *progress, struct tcpsim_err *err)
{
	struct tcpsim_err *errs;
	int rc = TCPSIM_OK;

	if (n <= 0)
		return TCPSIM_OK;
	errs = xcalloc((size_t)n, sizeof(*errs));
	if (batch_run_each(run, sc, out, n, jobs, progress, errs) > 0)
		for (int i = 0; i < n; i++)
			if (errs[i].code) {
				rc = err_set(err, errs[i].code, "%s", errs[i].msg);
				break;
			}
	free(errs);
	return rc;
}
