/*
 * test_sweep: the sweep engine with a deterministic stand-in for the
 * simulator.
 *
 * fake_run() is a test double of tcpsim_run for the engine: every metric
 * is a fixed function of the scenario's fields (mtu, tso, test, sndbuf,
 * seed), and it sleeps a seed-dependent few hundred microseconds so that
 * with several workers runs finish out of order and the reorder ring is
 * exercised.  The oracles: the -j1 file (byte-identical for any -j and
 * window), the one-machine file (equal to merged shards), recomputing a
 * row from its own columns (reproducibility), and the file's byte prefix
 * (an interrupted sweep leaves a prefix; resuming completes it exactly).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "config.h"
#include "report.h"
#include "sweep.h"
#include "sweepfile.h"
#include "util.h"

/* ---- the double -------------------------------------------------------------- */

static void sleep_us(long us)
{
	struct timespec ts = {.tv_sec = us / 1000000, .tv_nsec = (us % 1000000) * 1000};
	nanosleep(&ts, NULL);
}

static void fake_metrics(const struct scenario *sc, struct metrics *m)
{
	memset(m, 0, sizeof(*m));
	for (int i = 0; i < METRIC_N; i++)
		m->v[i] = (double)(i + 1) * 0.5;
	m->v[METRIC_THROUGHPUT_MBPS] = sc->mtu_bytes * (sc->tso ? 2.0 : 1.0) *
				       (sc->test == APP_TCP_SENDFILE ? 3.0 : 1.0) +
				       (double)(sc->seed % 997) / 1000.0;
	m->v[METRIC_THROUGHPUT_TOTAL_MBPS] = (double)sc->sndbuf_bytes / 1024.0;
	m->v[METRIC_SEGS_PER_FRAME] = (double)(sc->seed % 1000003);
}

static int fake_run(const struct scenario *sc, struct metrics *m, struct tcpsim_err *err)
{
	fake_metrics(sc, m);
	sleep_us((long)(sc->seed % 400));
	return TCPSIM_OK;
}

static int fake_run_fast(const struct scenario *sc, struct metrics *m, struct tcpsim_err *err)
{
	fake_metrics(sc, m);
	return TCPSIM_OK;
}

static int fake_run_slow(const struct scenario *sc, struct metrics *m, struct tcpsim_err *err)
{
	fake_metrics(sc, m);
	sleep_us(1000);
	return TCPSIM_OK;
}

/* Buffers never settle on MTU 1500 (as a run with many flows may not). */
static int fake_run_unsettled(const struct scenario *sc, struct metrics *m, struct tcpsim_err *err)
{
	fake_metrics(sc, m);
	m->buffers_settled = sc->mtu_bytes != 1500;
	return TCPSIM_OK;
}

/* Fails on MTU 9000 with TSO off, as a run may fail on bad input. */
static int fake_run_failing(const struct scenario *sc, struct metrics *m, struct tcpsim_err *err)
{
	if (sc->mtu_bytes == 9000 && !sc->tso)
		return err_set(err, TCPSIM_EUSAGE, "fake: mtu 9000 without tso refused");
	return fake_run(sc, m, err);
}

/* ---- helpers ------------------------------------------------------------------- */

struct fixture {
	char dir[64];
	struct scenario base;
	struct sweep sw;
};

static int setup(void **state)
{
	struct fixture *f = xcalloc(1, sizeof(*f));
	snprintf(f->dir, sizeof(f->dir), "/tmp/test_sweep.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	config_defaults(&f->base);
	f->base.seed = 42;
	sweep_init(&f->sw, &f->base);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char cmd[128];
	sweep_release(&f->sw);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", f->dir);
	free(f);
	return 0;
}

static char *path_in(const struct fixture *f, const char *name)
{
	size_t n = strlen(f->dir) + strlen(name) + 2;
	char *p = xmalloc(n);
	snprintf(p, n, "%s/%s", f->dir, name);
	return p;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "r");
	char *buf = NULL;
	size_t n = 0;
	FILE *ms = open_memstream(&buf, &n);
	char chunk[4096];
	size_t k;

	assert_non_null(fp);
	while ((k = fread(chunk, 1, sizeof(chunk), fp)) > 0)
		fwrite(chunk, 1, k, ms);
	fclose(fp);
	fclose(ms);
	if (len)
		*len = n;
	return buf;
}

static void assert_same_file(const char *a, const char *b)
{
	size_t na, nb;
	char *x = slurp(a, &na), *y = slurp(b, &nb);
	if (na != nb || memcmp(x, y, na) != 0) {
		fprintf(stderr, "files differ: %s (%zu bytes) vs %s (%zu bytes)\n", a, na, b, nb);
		fail();
	}
	free(x);
	free(y);
}

static long count_lines(const char *path)
{
	size_t n;
	char *s = slurp(path, &n);
	long lines = 0;
	for (size_t i = 0; i < n; i++)
		lines += s[i] == '\n';
	free(s);
	return lines;
}

static void add_axes(struct sweep *sw, const char *const *axes, int n)
{
	struct tcpsim_err err = {0};
	for (int i = 0; i < n; i++) {
		if (sweep_add_axis(sw, axes[i], &err) != TCPSIM_OK)
			fprintf(stderr, "%s: %s\n", axes[i], err.msg);
		assert_int_equal(err.code, 0);
	}
}

/* The issue's sweep: 4 MTUs x TSO on/off x TCP_STREAM/TCP_SENDFILE. */
static const char *const issue_axes[] = {
	"link.mtu=1500,9000,16436,65536",
	"offload.tso=on,off",
	"app.test=TCP_STREAM,TCP_SENDFILE",
};

static int run_into(const struct sweep *sw, const char *out, int jobs, int k, int n, bool resume,
		    sweep_run_fn run, unsigned window, struct sweep_stats *st, struct tcpsim_err *err)
{
	struct sweep_opts o = {.out_path = out, .run = run, .jobs = jobs, .shard_k = k, .shard_n = n,
			       .resume = resume, .window = window};
	struct sweep_stats local;
	return sweep_run(sw, &o, st ? st : &local, err);
}

static void run_ok(const struct sweep *sw, const char *out, int jobs, int k, int n, bool resume,
		   sweep_run_fn run, unsigned window)
{
	struct tcpsim_err err = {0};
	int rc = run_into(sw, out, jobs, k, n, resume, run, window, NULL, &err);
	if (rc)
		fprintf(stderr, "sweep_run: %s\n", err.msg);
	assert_int_equal(rc, TCPSIM_OK);
}

/* ---- axes ---------------------------------------------------------------------- */

static void expect_values(struct sweep *sw, const char *arg, const char *const *want, int n)
{
	struct tcpsim_err err = {0};
	struct sweep_axis *ax;
	int rc = sweep_add_axis(sw, arg, &err);
	if (rc)
		fprintf(stderr, "%s: %s\n", arg, err.msg);
	assert_int_equal(rc, TCPSIM_OK);
	ax = &sw->axes[sw->n_axes - 1];
	if (ax->n_values != n) {
		fprintf(stderr, "%s: %d values, want %d:", arg, ax->n_values, n);
		for (int i = 0; i < ax->n_values; i++)
			fprintf(stderr, " %s", ax->values[i]);
		fputc('\n', stderr);
	}
	assert_int_equal(ax->n_values, n);
	for (int i = 0; i < n; i++)
		assert_string_equal(ax->values[i], want[i]);
}

static void test_axis_forms(void **state)
{
	struct fixture *f = *state;
	struct sweep *sw = &f->sw;

	expect_values(sw, "link.mtu=1500,9000,16436,65536", (const char *const[]){"1500", "9000", "16436", "65536"}, 4);
	expect_values(sw, "tcp.sndbuf=64K:1M*2", (const char *const[]){"64K", "128K", "256K", "512K", "1M"}, 5);
	expect_values(sw, "app.send_size=1000:2000:250", (const char *const[]){"1000", "1250", "1500", "1750", "2000"}, 5);
	expect_values(sw, "offload.tso= on , off", (const char *const[]){"on", "off"}, 2);
	expect_values(sw, "app.test=tcp_stream,TCP_SENDFILE", (const char *const[]){"TCP_STREAM", "TCP_SENDFILE"}, 2);
	expect_values(sw, "run.duration=10ms:30ms:10ms", (const char *const[]){"10ms", "20ms", "30ms"}, 3);
	/* a bare step of a time key is in the key's own unit (run.duration: s) */
	expect_values(sw, "run.warmup=0.5:1.5:0.5", (const char *const[]){"500ms", "1s", "1500ms"}, 3);
	expect_values(sw, "run.batch=10ms:30ms:10", (const char *const[]){"10ms", "20ms", "30ms"}, 3);
	/* units in lists are canonicalised */
	expect_values(sw, "tcp.rcvbuf=65536,128k,1M", (const char *const[]){"64K", "128K", "1M"}, 3);
	/* a geometric range over an integer key is rounded where it must be */
	expect_values(sw, "app.recv_size=1000:4000*1.5", (const char *const[]){"1000", "1500", "2250", "3375"}, 4);
	/* a step below the key's minimum */
	expect_values(sw, "host.cpus=1:4:1", (const char *const[]){"1", "2", "3", "4"}, 4);
	assert_int_equal(sw->n_points, 4ull * 5 * 5 * 2 * 2 * 3 * 3 * 3 * 3 * 4 * 4);
}

static void expect_error(struct fixture *f, const char *arg, const char *needle)
{
	struct tcpsim_err err = {0};
	int before = f->sw.n_axes;
	int rc = sweep_add_axis(&f->sw, arg, &err);
	if (rc == TCPSIM_OK || !strstr(err.msg, needle))
		fprintf(stderr, "--vary %s: rc %d, message '%s', want one with '%s'\n", arg, rc, err.msg, needle);
	assert_int_equal(rc, TCPSIM_EUSAGE);
	assert_non_null(strstr(err.msg, needle));
	assert_int_equal(f->sw.n_axes, before);
	assert_null(strchr(err.msg, '\n'));
}

static void test_axis_errors(void **state)
{
	struct fixture *f = *state;

	expect_error(f, "link.mtu", "expected section.key=LIST");
	expect_error(f, "link.mtu=", "expected section.key=LIST");
	expect_error(f, "=1500", "expected section.key=LIST");
	expect_error(f, "link.mtux=1500", "unknown key 'link.mtux'");
	expect_error(f, "link.mtu=1500,,9000", "empty value");
	expect_error(f, "link.mtu=1500,9000,1500", "value 1500 appears twice");
	expect_error(f, "tcp.sndbuf=64K,65536", "value 64K appears twice");
	expect_error(f, "link.mtu=10,1500", "link.mtu");         /* below the key's minimum */
	expect_error(f, "link.mtu=1500:9000", "start:stop:step or start:stop*factor");
	expect_error(f, "link.mtu=1500:9000:0", "step must be > 0");
	expect_error(f, "link.mtu=1500:9000:-5", "step");
	expect_error(f, "link.mtu=9000:1500:500", "start is above stop");
	expect_error(f, "link.mtu=1500:9000*1", "factor '1' must be a number > 1");
	expect_error(f, "link.mtu=1500:9000*x", "factor 'x'");
	expect_error(f, "link.mtu=1500:9000:500*2", "not both");
	expect_error(f, "link.mtu=1:2:3:4", "too many ':'");
	expect_error(f, "link.mtu=abc:9000:500", "link.mtu");
	expect_error(f, "offload.tso=on:off:1", "not a number");
	expect_error(f, "run.seed=1,2", "use --reps");
	expect_error(f, "run.duration=10ms:20ms:0.0001", "give it with a unit"); /* 100us < min 1ms */
	expect_error(f, "app.send_size=1:2000000:1", "more than");
	add_axes(&f->sw, (const char *const[]){"link.mtu=1500,9000"}, 1);
	expect_error(f, "link.mtu=1500", "already an axis");
}

static void test_shard_parse(void **state)
{
	struct tcpsim_err err = {0};
	int k = 0, n = 0;
	assert_int_equal(sweep_parse_shard("2/3", &k, &n, &err), 0);
	assert_int_equal(k, 2);
	assert_int_equal(n, 3);
	const char *bad[] = {"0/3", "4/3", "3", "a/b", "1/", "/2", "1/2x", "-1/2"};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		err_clear(&err);
		assert_int_equal(sweep_parse_shard(bad[i], &k, &n, &err), TCPSIM_EUSAGE);
		assert_non_null(strstr(err.msg, "--shard"));
	}
}

/* ---- points and seeds ---------------------------------------------------------- */

static void test_point_order(void **state)
{
	struct fixture *f = *state;
	struct sweep *sw = &f->sw;
	struct scenario sc;
	struct tcpsim_err err = {0};

	add_axes(sw, issue_axes, 3);
	sw->reps = 2;
	assert_int_equal(sw->n_points, 16);
	/* first axis slowest: point = ((mtu * 2) + tso) * 2 + test */
	for (uint64_t p = 0; p < 16; p++) {
		assert_int_equal(sweep_point_value(sw, p, 0), (int)(p / 4));
		assert_int_equal(sweep_point_value(sw, p, 1), (int)(p / 2 % 2));
		assert_int_equal(sweep_point_value(sw, p, 2), (int)(p % 2));
	}
	assert_int_equal(sweep_point_scenario(sw, 13, 0, &sc, &err), 0); /* 65536, on, SENDFILE */
	assert_int_equal(sc.mtu_bytes, 65536);
	assert_true(sc.tso);
	assert_int_equal(sc.test, APP_TCP_SENDFILE);
	assert_int_equal(sc.seed, sweep_seed(42, 13, 0));
	assert_int_equal(sweep_point_scenario(sw, 2, 1, &sc, &err), 0); /* 1500, off, STREAM */
	assert_int_equal(sc.mtu_bytes, 1500);
	assert_false(sc.tso);
	assert_int_equal(sc.test, APP_TCP_STREAM);
	assert_int_equal(sc.seed, sweep_seed(42, 2, 1));
	/* the base itself is untouched */
	assert_int_equal(sw->base.seed, 42);
	assert_int_equal(sw->base.mtu_bytes, f->base.mtu_bytes);
}

static void test_seeds(void **state)
{
	/* deterministic, distinct over (point, rep), and moved by the base seed */
	enum { P = 300, R = 4 };
	uint64_t *s = xmalloc(P * R * sizeof(uint64_t));
	for (uint64_t p = 0; p < P; p++)
		for (uint32_t r = 0; r < R; r++) {
			s[p * R + r] = sweep_seed(1, p, r);
			assert_int_equal(s[p * R + r], sweep_seed(1, p, r));
			assert_true(s[p * R + r] != sweep_seed(2, p, r));
			assert_true(s[p * R + r] < (UINT64_C(1) << 63));
		}
	for (int i = 0; i < P * R; i++)
		for (int j = i + 1; j < P * R; j++)
			assert_true(s[i] != s[j]);
	free(s);
	/* pinned values (computed independently from the splitmix64 definition):
	 * changing the derivation would make old sweeps' rows unreproducible */
	assert_int_equal(sweep_seed(1, 0, 0), UINT64_C(6396520470166291297));
	assert_int_equal(sweep_seed(42, 13, 2), UINT64_C(1201231005547211763));
	assert_true(sweep_seed(1, 0, 1) != sweep_seed(1, 1, 0));
}

/* ---- the engine ------------------------------------------------------------------- */

static void test_jobs_identical(void **state)
{
	struct fixture *f = *state;
	char *a = path_in(f, "j1.csv"), *b = path_in(f, "j4.csv"), *c = path_in(f, "j3w2.csv");
	char *ac = path_in(f, "j1.csv.cfg"), *bc = path_in(f, "j4.csv.cfg");

	add_axes(&f->sw, issue_axes, 3);
	f->sw.reps = 3;
	run_ok(&f->sw, a, 1, 1, 1, false, fake_run, 0);
	run_ok(&f->sw, b, 4, 1, 1, false, fake_run, 0);
	run_ok(&f->sw, c, 3, 1, 1, false, fake_run, 2); /* a ring of 2 slots for 3 workers */
	assert_int_equal(count_lines(a), 1 + 16 * 3);
	assert_same_file(a, b);
	assert_same_file(a, c);
	assert_same_file(ac, bc);
	free(a); free(b); free(c); free(ac); free(bc);
}

/* A row read back, rebuilt from its own columns and the sidecar, is the same row. */
static void test_rows_reproducible(void **state)
{
	struct fixture *f = *state;
	char *out = path_in(f, "r.csv"), *side = path_in(f, "r.csv.cfg");
	struct sweepfile_reader r;
	struct tcpsim_err err = {0};
	char **cols = NULL;
	int n_cols = 0, rows = 0;
	bool got;

	f->base.seed = 7777;
	sweep_init(&f->sw, &f->base);
	add_axes(&f->sw, (const char *const[]){"link.mtu=1500,9000", "tcp.sndbuf=64K:256K*2", "offload.tso=on,off"}, 3);
	f->sw.reps = 2;
	run_ok(&f->sw, out, 2, 1, 1, false, fake_run_fast, 0);

	assert_int_equal(sweepfile_open(&r, out, &err), 0);
	while (sweepfile_next(&r, &got, &err) == 0 && got) {
		struct scenario sc;
		struct metrics m;
		char *line = NULL;
		size_t len = 0;
		FILE *ms;
		if (r.row.line == 1) {
			n_cols = r.row.n_fields;
			cols = xcalloc((size_t)n_cols, sizeof(char *));
			for (int i = 0; i < n_cols; i++)
				cols[i] = xstrdup(r.row.fields[i]);
			assert_string_equal(cols[0], "point");
			assert_string_equal(cols[1], "rep");
			assert_string_equal(cols[2], "seed");
			assert_string_equal(cols[3], "link.mtu");
			assert_string_equal(cols[4], "tcp.sndbuf");
			assert_string_equal(cols[5], "offload.tso");
			assert_string_equal(cols[6], metric_table[0].name);
			continue;
		}
		/* what `tcpsim run OUT.csv.cfg -s K=V... -s run.seed=SEED` does */
		config_defaults(&sc);
		assert_int_equal(config_load(&sc, side, &err), 0);
		for (int i = 3; i < 6; i++) {
			char ov[128];
			snprintf(ov, sizeof(ov), "%s=%s", cols[i], r.row.fields[i]);
			assert_int_equal(config_override(&sc, ov, "-s", &err), 0);
		}
		assert_int_equal(config_set(&sc, "run.seed", r.row.fields[2], "-s", &err), 0);
		assert_int_equal(config_validate(&sc, &err), 0);
		fake_run_fast(&sc, &m, &err);
		ms = open_memstream(&line, &len);
		assert_int_equal(report_csv_row(ms, (const char *const *)r.row.fields, 6, &m), 0);
		fclose(ms);
		if (len != r.row.raw_len || memcmp(line, r.row.raw, len) != 0)
			fprintf(stderr, "row %ld not reproduced:\n  file: %s  rerun: %s", r.row.line, r.row.raw, line);
		assert_memory_equal(line, r.row.raw, len);
		assert_int_equal(len, r.row.raw_len);
		free(line);
		rows++;
	}
	assert_int_equal(err.code, 0);
	assert_int_equal(rows, 2 * 3 * 2 * 2);
	sweepfile_close(&r);
	for (int i = 0; i < n_cols; i++)
		free(cols[i]);
	free(cols);
	free(out);
	free(side);
}

static void test_shards_merge(void **state)
{
	struct fixture *f = *state;
	char *one = path_in(f, "one.csv"), *merged = path_in(f, "merged.csv");
	char *onec = path_in(f, "one.csv.cfg"), *mergedc = path_in(f, "merged.csv.cfg");
	char *sh[3];
	struct tcpsim_err err = {0};

	add_axes(&f->sw, issue_axes, 3);
	f->sw.reps = 2;
	run_ok(&f->sw, one, 2, 1, 1, false, fake_run, 0);
	for (int k = 1; k <= 3; k++) {
		char name[32];
		snprintf(name, sizeof(name), "shard%d.csv", k);
		sh[k - 1] = path_in(f, name);
		run_ok(&f->sw, sh[k - 1], k, k, 3, false, fake_run, 0);
	}
	/* shard k holds the points with point % 3 == k - 1, with all reps */
	assert_int_equal(count_lines(sh[0]), 1 + 6 * 2);
	assert_int_equal(count_lines(sh[1]), 1 + 5 * 2);
	assert_int_equal(count_lines(sh[2]), 1 + 5 * 2);
	/* any input order */
	const char *ins[3] = {sh[2], sh[0], sh[1]};
	if (sweep_merge(merged, ins, 3, &err))
		fprintf(stderr, "merge: %s\n", err.msg);
	assert_int_equal(err.code, 0);
	assert_same_file(one, merged);
	assert_same_file(onec, mergedc);

	/* a missing shard */
	err_clear(&err);
	assert_int_equal(sweep_merge(merged, (const char *const[]){sh[0], sh[2]}, 2, &err), TCPSIM_EUSAGE);
	assert_non_null(strstr(err.msg, "point 1 rep 0 is in no input"));
	/* a shard twice */
	err_clear(&err);
	assert_int_equal(sweep_merge(merged, (const char *const[]){sh[0], sh[1], sh[2], sh[1]}, 4, &err), TCPSIM_EUSAGE);
	assert_non_null(strstr(err.msg, "in another input too"));
	/* the merged file is still the good one: a failed merge writes nothing */
	assert_same_file(one, merged);
	/* a shard of another sweep */
	{
		struct sweep other;
		char *o = path_in(f, "other.csv");
		f->base.mtu_bytes = 1500;
		f->base.seed = 43;
		sweep_init(&other, &f->base);
		add_axes(&other, issue_axes, 3);
		other.reps = 2;
		run_ok(&other, o, 1, 2, 3, false, fake_run_fast, 0);
		err_clear(&err);
		assert_int_equal(sweep_merge(merged, (const char *const[]){sh[0], o, sh[2]}, 3, &err), TCPSIM_EUSAGE);
		assert_non_null(strstr(err.msg, "not shards of one sweep"));
		sweep_release(&other);
		free(o);
	}
	for (int k = 0; k < 3; k++)
		free(sh[k]);
	free(one); free(merged); free(onec); free(mergedc);
}

struct bg_sweep {
	const struct sweep *sw;
	struct sweep_opts o;
	struct sweep_stats st;
	struct tcpsim_err err;
	int rc;
};

static void *bg_main(void *arg)
{
	struct bg_sweep *b = arg;
	b->rc = sweep_run(b->sw, &b->o, &b->st, &b->err);
	return NULL;
}

static void assert_prefix_of(const char *part, const char *whole)
{
	size_t np, nw;
	char *p = slurp(part, &np), *w = slurp(whole, &nw);
	assert_true(np <= nw);
	assert_memory_equal(p, w, np);
	assert_true(np == 0 || p[np - 1] == '\n');
	free(p);
	free(w);
}

static void test_stop_and_resume(void **state)
{
	struct fixture *f = *state;
	char *full = path_in(f, "full.csv"), *part = path_in(f, "part.csv");
	atomic_int stop;
	struct bg_sweep b;
	pthread_t t;
	long lines;

	add_axes(&f->sw, (const char *const[]){"link.mtu=1000:20000:100", "offload.tso=on,off"}, 2);
	assert_int_equal(f->sw.n_points, 191 * 2);
	run_ok(&f->sw, full, 4, 1, 1, false, fake_run_fast, 0);

	/* 382 runs of 1 ms on 2 workers take 190 ms or more: stop after 40 ms */
	atomic_init(&stop, 0);
	memset(&b, 0, sizeof(b));
	b.sw = &f->sw;
	b.o = (struct sweep_opts){.out_path = part, .run = fake_run_slow, .jobs = 2, .shard_k = 1,
				  .shard_n = 1, .stop = &stop};
	assert_int_equal(pthread_create(&t, NULL, bg_main, &b), 0);
	sleep_us(40000);
	atomic_store(&stop, 1);
	pthread_join(t, NULL);
	assert_int_equal(b.rc, TCPSIM_OK);
	assert_true(b.st.interrupted);
	lines = count_lines(part);
	assert_true(lines >= 1 && lines < 1 + 382);
	assert_int_equal(lines - 1, (long)b.st.rows_written);
	assert_prefix_of(part, full);

	/* without --resume an existing file is refused, untouched */
	{
		struct tcpsim_err err = {0};
		assert_int_equal(run_into(&f->sw, part, 2, 1, 1, false, fake_run_fast, 0, NULL, &err), TCPSIM_EUSAGE);
		assert_non_null(strstr(err.msg, "--resume"));
		assert_int_equal(count_lines(part), lines);
	}
	/* resume: every row exactly once, the same bytes as the uninterrupted run */
	{
		struct sweep_stats st;
		struct tcpsim_err err = {0};
		assert_int_equal(run_into(&f->sw, part, 3, 1, 1, true, fake_run, 0, &st, &err), 0);
		assert_int_equal(st.rows_before, lines - 1);
		assert_int_equal(st.rows_before + st.rows_written, 382);
		assert_false(st.out_of_order);
		assert_same_file(part, full);
		/* resuming a finished sweep runs nothing */
		assert_int_equal(run_into(&f->sw, part, 3, 1, 1, true, fake_run, 0, &st, &err), 0);
		assert_int_equal(st.rows_written, 0);
		assert_same_file(part, full);
	}
	free(full);
	free(part);
}

/* Write the first `keep` bytes of src to dst, then `tail`. */
static void write_prefix(const char *src, size_t keep, const char *tail, const char *dst)
{
	size_t n;
	char *s = slurp(src, &n);
	FILE *fp = fopen(dst, "w");
	assert_true(keep <= n);
	fwrite(s, 1, keep, fp);
	fputs(tail, fp);
	fclose(fp);
	free(s);
}

static void copy_file(const char *src, const char *dst)
{
	size_t n;
	char *s = slurp(src, &n);
	FILE *fp = fopen(dst, "w");
	fwrite(s, 1, n, fp);
	fclose(fp);
	free(s);
}

/* Byte offset just after the n-th newline. */
static size_t after_line(const char *path, long n)
{
	size_t len, i;
	char *s = slurp(path, &len);
	for (i = 0; i < len && n > 0; i++)
		if (s[i] == '\n')
			n--;
	free(s);
	return i;
}

static void test_resume_torn_and_foreign(void **state)
{
	struct fixture *f = *state;
	char *full = path_in(f, "full.csv"), *fullc = path_in(f, "full.csv.cfg");
	char *p = path_in(f, "p.csv"), *pc = path_in(f, "p.csv.cfg");
	struct tcpsim_err err = {0};
	struct sweep_stats st;

	add_axes(&f->sw, issue_axes, 3);
	run_ok(&f->sw, full, 2, 1, 1, false, fake_run, 0);

	/* a torn last line (a crash mid-write) is cut off, then the rest runs */
	write_prefix(full, after_line(full, 6), "\"5\",\"0\",\"12", p);
	copy_file(fullc, pc);
	assert_int_equal(run_into(&f->sw, p, 2, 1, 1, true, fake_run, 0, &st, &err), 0);
	assert_int_equal(st.rows_before, 5);
	assert_true(st.torn_bytes > 0);
	assert_same_file(p, full);

	/* rows not a prefix (point 2 missing, as only an edit makes it): the
	 * missing ones run, every (point, rep) ends up there once */
	{
		size_t n, m;
		char *s = slurp(full, &n);
		FILE *fp = fopen(p, "w");
		fwrite(s, 1, after_line(full, 3), fp);                 /* header, points 0 and 1 */
		fwrite(s + after_line(full, 4), 1, after_line(full, 5) - after_line(full, 4), fp); /* point 3 */
		fclose(fp);
		assert_int_equal(run_into(&f->sw, p, 2, 1, 1, true, fake_run, 0, &st, &err), 0);
		assert_int_equal(st.rows_before, 3);
		assert_int_equal(st.rows_written, 13);
		assert_true(st.out_of_order);
		char *t = slurp(p, &m);
		assert_int_equal(m, n);
		/* the same lines: each line of full.csv occurs in p.csv */
		for (char *line = s; line < s + n;) {
			char *nl = strchr(line, '\n');
			*nl = '\0';
			assert_non_null(strstr(t, line));
			line = nl + 1;
		}
		free(s);
		free(t);
	}

	/* only a torn header: start over */
	write_prefix(full, 10, "", p);
	assert_int_equal(run_into(&f->sw, p, 2, 1, 1, true, fake_run, 0, &st, &err), 0);
	assert_same_file(p, full);

	/* a row that is not this sweep's (wrong seed): refused, naming the line */
	{
		size_t n;
		char *s = slurp(full, &n);
		char *line3 = s + after_line(full, 2);
		char *comma = strchr(strchr(line3, ',') + 1, ',');  /* the seed field */
		comma[2] = comma[2] == '1' ? '2' : '1';
		FILE *fp = fopen(p, "w");
		fwrite(s, 1, after_line(full, 4), fp);
		fclose(fp);
		free(s);
		err_clear(&err);
		assert_int_equal(run_into(&f->sw, p, 2, 1, 1, true, fake_run, 0, &st, &err), TCPSIM_EUSAGE);
		assert_non_null(strstr(err.msg, "p.csv:3: column seed"));
	}

	/* the same file resumed as another sweep (another axis list): refused */
	{
		struct sweep other;
		sweep_init(&other, &f->base);
		add_axes(&other, (const char *const[]){"link.mtu=1500,9000", "offload.tso=on,off",
						       "app.test=TCP_STREAM,TCP_SENDFILE"}, 3);
		write_prefix(full, after_line(full, 3), "", p);
		err_clear(&err);
		assert_int_equal(run_into(&other, p, 2, 1, 1, true, fake_run, 0, &st, &err), TCPSIM_EUSAGE);
		assert_non_null(strstr(err.msg, "p.csv.cfg:"));
		assert_non_null(strstr(err.msg, "not the sidecar of this sweep"));
		/* nothing was touched */
		assert_int_equal(count_lines(p), 3);
		/* nor another shard of the same sweep */
		err_clear(&err);
		assert_int_equal(run_into(&f->sw, p, 2, 1, 2, true, fake_run, 0, &st, &err), TCPSIM_EUSAGE);
		assert_non_null(strstr(err.msg, "sweep.shard"));
		sweep_release(&other);
	}
	/* a missing sidecar: cannot tell whose rows these are */
	unlink(pc);
	err_clear(&err);
	assert_int_equal(run_into(&f->sw, p, 2, 1, 1, true, fake_run, 0, &st, &err), TCPSIM_EUSAGE);
	assert_non_null(strstr(err.msg, "p.csv.cfg"));
	free(full); free(fullc); free(p); free(pc);
}

static void test_run_error_keeps_prefix(void **state)
{
	struct fixture *f = *state;
	char *full = path_in(f, "full.csv"), *p = path_in(f, "p.csv");
	struct tcpsim_err err = {0};
	struct sweep_stats st;

	add_axes(&f->sw, issue_axes, 3);
	run_ok(&f->sw, full, 2, 1, 1, false, fake_run, 0);
	assert_int_equal(run_into(&f->sw, p, 4, 1, 1, false, fake_run_failing, 0, &st, &err), TCPSIM_EUSAGE);
	assert_non_null(strstr(err.msg, "mtu 9000 without tso"));
	/* points 0..5 are before the first failing one (9000, off = point 6) */
	assert_int_equal(st.rows_written, 6);
	assert_int_equal(count_lines(p), 7);
	assert_prefix_of(p, full);
	free(full);
	free(p);
}

static void test_invalid_point_fails_early(void **state)
{
	struct fixture *f = *state;
	char *p = path_in(f, "p.csv");
	struct tcpsim_err err = {0};

	/* app.send_cpu = 3 is fine with 4 CPUs, not with 2: a cross-key error */
	add_axes(&f->sw, (const char *const[]){"host.cpus=4,2", "app.send_cpu=0,3"}, 2);
	assert_int_equal(run_into(&f->sw, p, 2, 1, 1, false, fake_run, 0, NULL, &err), TCPSIM_EUSAGE);
	assert_non_null(strstr(err.msg, "sweep point 3 (host.cpus=2 app.send_cpu=3)"));
	assert_int_equal(access(p, F_OK), -1); /* nothing written */
	free(p);
}

/* Streaming: many points, a small ring, memory bounded by the ring. */
static void test_many_points(void **state)
{
	struct fixture *f = *state;
	char *p = path_in(f, "big.csv"), *q = path_in(f, "big1.csv");

	add_axes(&f->sw, (const char *const[]){"app.send_size=1:5000:1", "offload.tso=on,off"}, 2);
	run_ok(&f->sw, p, 4, 1, 1, false, fake_run_fast, 16);
	run_ok(&f->sw, q, 1, 1, 1, false, fake_run_fast, 0);
	assert_int_equal(count_lines(p), 1 + 10000);
	assert_same_file(p, q);
	free(p);
	free(q);
}

/* --resume of shard 2/3 with 2 reps: the bitmap counts the shard's runs
 * only; a prefix and a file with a row missing in the middle both end as
 * the uninterrupted shard (the same rows; the prefix byte for byte). */
static void test_resume_shard(void **state)
{
	struct fixture *f = *state;
	char *full = path_in(f, "full.csv"), *part = path_in(f, "part.csv");
	struct tcpsim_err err = {0};
	struct sweep_stats st;
	size_t full_len, part_len;
	char *want, *got;

	add_axes(&f->sw, (const char *const[]){"link.mtu=1500,4000,9000,16000,32000", "offload.tso=on,off"}, 2);
	f->sw.reps = 2;
	run_ok(&f->sw, full, 2, 2, 3, false, fake_run_fast, 0);
	want = slurp(full, &full_len);
	assert_int_equal(count_lines(full), 1 + 3 * 2);   /* points 1, 4, 7 */

	for (int cut = 0; cut < 2; cut++) {
		/* cut 0: header and the first 3 rows; cut 1: every row but the 3rd */
		char *nl = want;
		int line = 0;
		FILE *fp = fopen(part, "w");
		assert_non_null(fp);
		for (const char *p = want; p < want + full_len; p = nl + 1, line++) {
			nl = strchr(p, '\n');
			if ((cut == 0 && line < 4) || (cut == 1 && line != 3))
				fwrite(p, 1, (size_t)(nl - p + 1), fp);
		}
		fclose(fp);
		char *side = path_in(f, "part.csv.cfg"), *fside = path_in(f, "full.csv.cfg");
		size_t sl;
		char *stext = slurp(fside, &sl);
		fp = fopen(side, "w");
		assert_non_null(fp);
		fwrite(stext, 1, sl, fp);
		fclose(fp);
		free(stext);
		free(side);
		free(fside);
		err_clear(&err);
		if (run_into(&f->sw, part, 2, 2, 3, true, fake_run_fast, 0, &st, &err) != TCPSIM_OK)
			fail_msg("resume (cut %d): %s", cut, err.msg);
		assert_int_equal(st.rows_before, cut == 0 ? 3 : 5);
		assert_int_equal(st.rows_written, cut == 0 ? 3 : 1);
		got = slurp(part, &part_len);
		assert_int_equal(part_len, full_len);
		if (cut == 0)
			assert_memory_equal(got, want, full_len);
		free(got);
	}
	free(want);
	free(full);
	free(part);
}

/* A sweep beyond SWEEP_MAX_RUNS is refused at once with its size, before
 * the pre-check or the --resume bitmap (that once asked for 115 GB), and
 * writes nothing. */
static void test_size_bound(void **state)
{
	struct fixture *f = *state;
	char *out = path_in(f, "huge.csv");
	struct tcpsim_err err = {0};
	struct stat stb;

	/* 64036 MTUs x 65473 buffer sizes: about 4.2e9 points */
	add_axes(&f->sw, (const char *const[]){"link.mtu=1500:65535:1", "tcp.sndbuf=64K:64M:1K"}, 2);
	assert_true(f->sw.n_points > SWEEP_MAX_RUNS);
	assert_int_equal(run_into(&f->sw, out, 1, 1, 1, false, fake_run_fast, 0, NULL, &err), TCPSIM_EUSAGE);
	if (!strstr(err.msg, "the sweep has 4192629028 points x 1 reps = 4.19e+09 runs, more than the 100000000"))
		fail_msg("unsharded: '%s'", err.msg);
	assert_int_equal(stat(out, &stb), -1);

	/* sharded and resumed: the shard's own size, still before allocating */
	FILE *fp = fopen(out, "w");
	assert_non_null(fp);
	fputs("point,rep,seed\n", fp);
	fclose(fp);
	err_clear(&err);
	assert_int_equal(run_into(&f->sw, out, 1, 3, 10, true, fake_run_fast, 0, NULL, &err), TCPSIM_EUSAGE);
	if (!strstr(err.msg, "419262903 points x 1 reps in shard 3/10") || !strstr(err.msg, "N >= 42)"))
		fail_msg("sharded: '%s'", err.msg);
	free(out);
}

/* A NUL byte in a sweep CSV is refused at its line, not read as a cell's prefix. */
static void test_reader_refuses_nul(void **state)
{
	struct fixture *f = *state;
	char *p = path_in(f, "nul.csv");
	static const char text[] = "point,rep,seed,link.mtu\n0,0,1,15\0" "00\n";
	struct sweepfile_reader r;
	struct tcpsim_err err = {0};
	char want[300];
	bool got;
	FILE *fp = fopen(p, "wb");

	assert_non_null(fp);
	fwrite(text, 1, sizeof text - 1, fp);
	fclose(fp);
	assert_int_equal(sweepfile_open(&r, p, &err), 0);
	assert_int_equal(sweepfile_next(&r, &got, &err), 0);
	assert_true(got);
	assert_int_equal(sweepfile_next(&r, &got, &err), TCPSIM_EUSAGE);
	snprintf(want, sizeof want, "%s:2: NUL byte", p);
	if (!strstr(err.msg, want))
		fail_msg("'%s', want '%s'", err.msg, want);
	sweepfile_close(&r);
	unlink(p);
	free(p);
}

static void test_columns(void **state)
{
	struct fixture *f = *state;
	char *p = path_in(f, "c.csv");
	char *buf = NULL;
	size_t len = 0;
	FILE *ms;
	struct tcpsim_err err = {0};
	char want[256];

	add_axes(&f->sw, (const char *const[]){"link.mtu=1500,9000", "offload.tso=on,off"}, 2);
	run_ok(&f->sw, p, 2, 1, 1, false, fake_run_fast, 0);
	ms = open_memstream(&buf, &len);
	assert_int_equal(sweep_columns(p, "link.mtu,offload.tso,point", NULL, ms, &err), 0);
	fclose(ms);
	snprintf(want, sizeof(want), "# link.mtu\toffload.tso\tpoint\n1500\ton\t0\n1500\toff\t1\n9000\ton\t2\n9000\toff\t3\n");
	assert_string_equal(buf, want);
	free(buf);
	ms = open_memstream(&buf, &len);
	assert_int_equal(sweep_columns(p, "link.mtu,nosuch", NULL, ms, &err), TCPSIM_EUSAGE);
	fclose(ms);
	assert_non_null(strstr(err.msg, "no column 'nosuch'"));
	free(buf);
	free(p);
}

/* A sweep counts the runs whose buffers never settled (cmd_sweep says
 * so): the MTU 1500 points of 4 x 2 x 2 points, 2 reps each. */
static void test_unsettled_runs_counted(void **state)
{
	struct fixture *f = *state;
	struct tcpsim_err err = {0};
	struct sweep_stats st;
	char *out = path_in(f, "unsettled.csv");

	add_axes(&f->sw, issue_axes, 3);
	f->sw.reps = 2;
	assert_int_equal(run_into(&f->sw, out, 2, 1, 1, false, fake_run_unsettled, 0, &st, &err), TCPSIM_OK);
	assert_int_equal(st.rows_written, 32);
	assert_int_equal(st.rows_unsettled, 8);
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_axis_forms, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unsettled_runs_counted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_axis_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_shard_parse, setup, teardown),
		cmocka_unit_test_setup_teardown(test_point_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_seeds, setup, teardown),
		cmocka_unit_test_setup_teardown(test_jobs_identical, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rows_reproducible, setup, teardown),
		cmocka_unit_test_setup_teardown(test_shards_merge, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stop_and_resume, setup, teardown),
		cmocka_unit_test_setup_teardown(test_resume_torn_and_foreign, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_error_keeps_prefix, setup, teardown),
		cmocka_unit_test_setup_teardown(test_invalid_point_fails_early, setup, teardown),
		cmocka_unit_test_setup_teardown(test_many_points, setup, teardown),
		cmocka_unit_test_setup_teardown(test_columns, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reader_refuses_nul, setup, teardown),
		cmocka_unit_test_setup_teardown(test_size_bound, setup, teardown),
		cmocka_unit_test_setup_teardown(test_resume_shard, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
