/*
 * cmd_sweep: `tcpsim sweep`, a thin layer over model/study/sweep.h.
 *
 *   tcpsim sweep FILE.cfg --vary section.key=LIST [--vary ...] -o OUT.csv
 *                [-s section.key=value]... [-j N] [--reps N] [--shard K/N] [--resume]
 *   tcpsim sweep --merge -o OUT.csv IN.csv...
 *   tcpsim sweep --columns NAME,NAME,... [--numeric NAME,...] FILE.csv
 *
 * Signals: SIGINT and SIGTERM are blocked in every thread and taken by
 * one watcher thread (sigtimedwait), so no handler and no global flag are
 * needed.  The first one asks the sweep to stop (runs in flight finish and
 * are written); a second one kills the process at once, which still
 * leaves only whole rows because each row is a single write(2).  Exit
 * status after a stop: 128 + the signal number, as a shell reports it.
 */
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "config.h"
#include "err.h"
#include "outfile.h"
#include "sweep.h"
#include "sweepfile.h"
#include "tcpsim.h"
#include "util.h"

static void sweep_usage(FILE *f)
{
	fputs("usage: tcpsim sweep FILE.cfg --vary section.key=LIST [--vary ...] -o OUT.csv\n"
	      "                    [-s section.key=value]... [-j N] [--reps N] [--shard K/N] [--resume]\n"
	      "       tcpsim sweep --merge -o OUT.csv IN.csv...\n"
	      "       tcpsim sweep --columns NAME,NAME,... [--numeric NAME,...] FILE.csv\n"
	      "  --vary K=LIST   an axis: v1,v2,...  start:stop:step  start:stop*factor\n"
	      "                  (units as in a .cfg: 64K:1M*2, 10us:100us:10us); the points\n"
	      "                  are the cartesian product, the first axis slowest\n"
	      "  -o OUT.csv      rows point,rep,seed,<axes>,<metrics>; OUT.csv.cfg holds the\n"
	      "                  base settings: tcpsim run OUT.csv.cfg -s K=V... -s run.seed=SEED\n"
	      "                  reproduces any row\n"
	      "  -s K=V          override a key of FILE.cfg (the base of every point)\n"
	      "  -j N            worker threads (default: online CPUs); output identical for any N\n"
	      "  --reps N        runs per point, seeds derived from run.seed, point and rep\n"
	      "  --shard K/N     run only points with point % N == K-1 (one machine of N)\n"
	      "  --resume        keep the rows OUT.csv has and run only the missing ones\n"
	      "  --merge         join shard files (each with its .cfg) into the one-machine CSV\n"
	      "  --columns C     print columns of a CSV tab-separated (input for gnuplot)\n"
	      "  --numeric C     of those, print the key columns as numbers in the key's base\n"
	      "                  unit (64K -> 65536 bytes, 1us -> 1000 ns, on -> 1)\n"
	      "Progress (the check of every point, then runs done/total, rate, ETA) goes to\n"
	      "stderr when it is a terminal.  At most 100000000 runs (points x reps) per shard.\n"
	      "SIGINT/SIGTERM: runs in flight finish, every finished row is kept; --resume continues.\n",
	      f);
}

static int usage_error(const char *msg, const char *arg)
{
	fprintf(stderr, "tcpsim: sweep: ");
	fprintf(stderr, msg, arg);
	fputs(" (see tcpsim sweep --help)\n", stderr);
	return 2;
}

static void print_err(const struct tcpsim_err *err)
{
	fprintf(stderr, "tcpsim: %s\n", err->msg[0] ? err->msg : "unknown error");
}

static int exit_code(const struct tcpsim_err *err)
{
	return cli_exit_status(err->code);
}

static int parse_count(const char *s, const char *what, long max, int *out)
{
	long v;
	if (!parse_long_in(s, 1, max, &v)) {
		fprintf(stderr, "tcpsim: sweep: %s '%s': expected a whole number 1..%ld\n", what, s, max);
		return 2;
	}
	*out = (int)v;
	return 0;
}

/* ---- the signal watcher ---------------------------------------------------- */

struct sig_watch {
	sigset_t set;
	atomic_int stop;      /* signal number of the first SIGINT/SIGTERM */
	atomic_int done;      /* the sweep is over: the watcher returns */
	pthread_t tid;
};

static void *sig_watch_main(void *arg)
{
	struct sig_watch *w = arg;
	const struct timespec poll = {.tv_sec = 0, .tv_nsec = 100 * 1000 * 1000};

	while (!atomic_load(&w->done)) {
		int sig = sigtimedwait(&w->set, NULL, &poll);
		if (sig <= 0)
			continue;
		if (atomic_load(&w->stop) == 0) {
			atomic_store(&w->stop, sig);
			fprintf(stderr, "\ntcpsim: %s: finishing the runs in flight (again to quit at once)\n",
				strsignal(sig));
			continue;
		}
		/* second signal: die by it; rows on disk are whole */
		signal(sig, SIG_DFL);
		sigprocmask(SIG_UNBLOCK, &w->set, NULL);
		raise(sig);
	}
	return NULL;
}

static int sig_watch_start(struct sig_watch *w, sigset_t *old)
{
	sigemptyset(&w->set);
	sigaddset(&w->set, SIGINT);
	sigaddset(&w->set, SIGTERM);
	atomic_init(&w->stop, 0);
	atomic_init(&w->done, 0);
	/* blocked here, so in every thread started from now on */
	if (pthread_sigmask(SIG_BLOCK, &w->set, old) != 0)
		return -1;
	if (pthread_create(&w->tid, NULL, sig_watch_main, w) != 0) {
		pthread_sigmask(SIG_SETMASK, old, NULL);
		return -1;
	}
	return 0;
}

static void sig_watch_stop(struct sig_watch *w, const sigset_t *old)
{
	atomic_store(&w->done, 1);
	pthread_join(w->tid, NULL);
	pthread_sigmask(SIG_SETMASK, old, NULL);
}

/* ---- sweep ------------------------------------------------------------------ */

static int load_base(struct scenario *sc, const char *path, char **ov, int nov)
{
	struct tcpsim_err err = {0};

	if (config_load_with_overrides(sc, path, (const char *const *)ov, nov, &err)) {
		print_err(&err);
		return 2;
	}
	return 0;
}

struct sweep_args {
	const char *cfg, *out, *columns, *numeric;
	char **vary, **ov, **inputs;
	int n_vary, n_ov, n_inputs;
	int jobs, reps, shard_k, shard_n;
	int resume, merge, help;
};

static int parse_args(int argc, char **argv, struct sweep_args *a)
{
	struct tcpsim_err err = {0};
	int only_files = 0;

	a->vary = xcalloc((size_t)argc + 1, sizeof(char *));
	a->ov = xcalloc((size_t)argc + 1, sizeof(char *));
	a->inputs = xcalloc((size_t)argc + 1, sizeof(char *));
	for (int i = 0; i < argc; i++) {
		const char *s = argv[i], *val = NULL;
		int r;

		if (!only_files && s[0] == '-' && s[1] != '\0') {
			if (strcmp(s, "--") == 0) {
				only_files = 1;
			} else if (strcmp(s, "-h") == 0 || strcmp(s, "--help") == 0) {
				a->help = 1;
			} else if (strcmp(s, "--resume") == 0) {
				a->resume = 1;
			} else if (strcmp(s, "--merge") == 0) {
				a->merge = 1;
			} else if ((r = cli_option_value(argc, argv, &i, NULL, "--vary", &val)) != 0) {
				if (r < 0)
					return usage_error("%s needs section.key=LIST", s);
				a->vary[a->n_vary++] = (char *)val;
			} else if ((r = cli_option_value(argc, argv, &i, "-s", "--set", &val)) != 0) {
				if (r < 0)
					return usage_error("%s needs section.key=value", s);
				a->ov[a->n_ov++] = (char *)val;
			} else if ((r = cli_option_value(argc, argv, &i, "-o", "--output", &val)) != 0) {
				if (r < 0)
					return usage_error("%s needs a file name", s);
				a->out = val;
			} else if ((r = cli_option_value(argc, argv, &i, "-j", "--jobs", &val)) != 0) {
				if (r < 0)
					return usage_error("%s needs a number of threads", s);
				if (parse_count(val, "-j", 4096, &a->jobs))
					return 2;
			} else if ((r = cli_option_value(argc, argv, &i, NULL, "--reps", &val)) != 0) {
				if (r < 0)
					return usage_error("%s needs a number", s);
				if (parse_count(val, "--reps", 1000000, &a->reps))
					return 2;
			} else if ((r = cli_option_value(argc, argv, &i, NULL, "--shard", &val)) != 0) {
				if (r < 0)
					return usage_error("%s needs K/N", s);
				if (sweep_parse_shard(val, &a->shard_k, &a->shard_n, &err) != TCPSIM_OK) {
					print_err(&err);
					return 2;
				}
			} else if ((r = cli_option_value(argc, argv, &i, NULL, "--columns", &val)) != 0) {
				if (r < 0)
					return usage_error("%s needs column names", s);
				a->columns = val;
			} else if ((r = cli_option_value(argc, argv, &i, NULL, "--numeric", &val)) != 0) {
				if (r < 0)
					return usage_error("%s needs column names", s);
				a->numeric = val;
			} else {
				return usage_error("unknown option '%s'", s);
			}
			continue;
		}
		a->inputs[a->n_inputs++] = (char *)s;
	}
	if (a->help)
		return 0;
	if (a->merge) {
		if (!a->out)
			return usage_error("--merge needs -o OUT.csv%s", "");
		if (a->n_inputs == 0)
			return usage_error("--merge needs the shard files%s", "");
		return 0;
	}
	if (a->numeric && !a->columns)
		return usage_error("--numeric goes with --columns%s", "");
	if (a->columns) {
		if (a->n_inputs != 1)
			return usage_error("--columns reads one CSV file%s", "");
		return 0;
	}
	if (a->n_inputs != 1)
		return usage_error(a->n_inputs ? "one scenario file, not '%s'" : "missing scenario file%s",
				   a->n_inputs ? a->inputs[1] : "");
	a->cfg = a->inputs[0];
	if (!a->out)
		return usage_error("missing -o OUT.csv%s", "");
	if (strcmp(a->out, "-") == 0)
		return usage_error("-o needs a file%s: rows are appended to it as they finish, and --resume reads it", "");
	if (a->n_vary == 0)
		return usage_error("no --vary axis%s", "");
	return 0;
}

static int run_sweep(const struct sweep_args *a)
{
	struct scenario *base = xcalloc(1, sizeof(*base));
	struct sweep *sw = xcalloc(1, sizeof(*sw));
	struct tcpsim_err err = {0};
	struct sweep_stats st;
	struct sweep_opts o = {0};
	struct sig_watch w;
	sigset_t old;
	long ncpu;
	int rc;

	{   /* OUT.csv and its sidecar OUT.csv.cfg: neither may be the scenario read */
		char *side = sweepfile_sidecar_path(a->out);
		rc = 0;
		if (outfile_check_inputs(a->out, &a->cfg, 1, &err) != TCPSIM_OK ||
		    outfile_check_inputs(side, &a->cfg, 1, &err) != TCPSIM_OK) {
			print_err(&err);
			rc = 2;
		}
		free(side);
		if (rc)
			goto out0;
	}
	if ((rc = load_base(base, a->cfg, a->ov, a->n_ov)) != 0)
		goto out0;
	sweep_init(sw, base);
	sw->reps = a->reps ? a->reps : 1;
	for (int i = 0; i < a->n_vary; i++) {
		if (sweep_add_axis(sw, a->vary[i], &err) != TCPSIM_OK) {
			print_err(&err);
			rc = 2;
			goto out;
		}
	}
	ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	o.out_path = a->out;
	o.run = tcpsim_run;
	o.jobs = a->jobs ? a->jobs : (ncpu > 0 ? (int)ncpu : 1);
	o.shard_k = a->shard_n ? a->shard_k : 1;
	o.shard_n = a->shard_n ? a->shard_n : 1;
	o.resume = a->resume;
	o.progress = isatty(STDERR_FILENO) ? stderr : NULL;
	if (sig_watch_start(&w, &old) != 0) {
		fprintf(stderr, "tcpsim: sweep: cannot watch for signals\n");
		rc = 1;
		goto out;
	}
	o.stop = &w.stop;
	rc = sweep_run(sw, &o, &st, &err);
	sig_watch_stop(&w, &old);
	if (st.torn_bytes)
		fprintf(stderr, "tcpsim: %s: dropped an incomplete last line (%llu bytes) left by an interrupted run\n",
			a->out, (unsigned long long)st.torn_bytes);
	if (st.rows_unsettled)
		fprintf(stderr, "tcpsim: %s: in %llu of %llu runs autotuning still changed socket buffers during the "
			"measured interval; their rates may not be steady (raise run.duration, or run.settle)\n",
			a->out, (unsigned long long)st.rows_unsettled, (unsigned long long)st.rows_written);
	if (st.out_of_order)
		fprintf(stderr, "tcpsim: %s: its rows were not in point order before --resume (edited?); "
			"every point is there once, but not sorted\n", a->out);
	if (rc != TCPSIM_OK) {
		print_err(&err);
		rc = exit_code(&err);
		if (st.rows_written || st.rows_before)
			fprintf(stderr, "tcpsim: %s keeps its %llu finished rows; --resume continues after a fix\n",
				a->out, (unsigned long long)(st.rows_before + st.rows_written));
	} else if (st.interrupted) {
		int sig = atomic_load(&w.stop);
		fprintf(stderr, "tcpsim: sweep stopped: %s has %llu of %llu rows; run the same command with --resume to finish\n",
			a->out, (unsigned long long)(st.rows_before + st.rows_written),
			(unsigned long long)st.rows_shard);
		rc = 128 + (sig ? sig : SIGINT);
	} else {
		rc = 0;
	}
out:
	sweep_release(sw);
out0:
	free(sw);
	free(base);
	return rc;
}

int cmd_sweep(int argc, char **argv)
{
	struct sweep_args a = {0};
	struct tcpsim_err err = {0};
	int rc = parse_args(argc, argv, &a);

	if (rc == 0 && a.help)
		sweep_usage(stdout);
	else if (rc == 0 && a.merge) {
		if (sweep_merge(a.out, (const char *const *)a.inputs, a.n_inputs, &err) != TCPSIM_OK) {
			print_err(&err);
			rc = exit_code(&err);
		}
	} else if (rc == 0 && a.columns) {
		if (sweep_columns(a.inputs[0], a.columns, a.numeric, stdout, &err) != TCPSIM_OK) {
			print_err(&err);
			rc = err.code == TCPSIM_EIO ? 2 : exit_code(&err);   /* it only reads */
		} else if (fflush(stdout) != 0) {
			fprintf(stderr, "tcpsim: cannot write standard output: %s\n", strerror(errno));
			rc = cli_exit_status(TCPSIM_EIO);
		}
	} else if (rc == 0) {
		rc = run_sweep(&a);
	}
	free(a.vary);
	free(a.ov);
	free(a.inputs);
	return rc;
}
