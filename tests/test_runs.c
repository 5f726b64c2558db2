/*
 * test_runs: recorded-run CSV files (model/study/runs.c).
 *
 * The oracle is the set itself: a set written and read back must be equal
 * field by field and number by number (bit-exact doubles), and writing it
 * again must give the same bytes.  Every error path is provoked with a
 * small hand-written file and its message checked for file, line and
 * column.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <unistd.h>

#include "err.h"
#include "metrics.h"
#include "runs.h"
#include "util.h"

struct fixture {
	char dir[64];
	char path[128];
};

static int setup(void **state)
{
	struct fixture *fx = xcalloc(1, sizeof(*fx));
	snprintf(fx->dir, sizeof(fx->dir), "/tmp/test_runs.XXXXXX");
	if (!mkdtemp(fx->dir))
		return -1;
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;
	DIR *d = opendir(fx->dir);
	struct dirent *e;
	char p[400];
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%s", fx->dir, e->d_name);
		unlink(p);
	}
	if (d)
		closedir(d);
	rmdir(fx->dir);
	free(fx);
	return 0;
}

/* Write text to DIR/name; returns the path (in fx->path). */
static const char *put(struct fixture *fx, const char *name, const char *text)
{
	snprintf(fx->path, sizeof(fx->path), "%s/%s", fx->dir, name);
	FILE *f = fopen(fx->path, "wb");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return fx->path;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	char *buf = xmalloc(1 << 16);
	size_t n = fread(buf, 1, (1 << 16) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static int count_files(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;
	while (d && (e = readdir(d)))
		n += e->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

/* Load `text` as a file and expect failure with `want` in the message. */
static void expect_load_error(struct fixture *fx, const char *text, const char *want_fmt)
{
	const char *path = put(fx, "bad.csv", text);
	char want[512];
	snprintf(want, sizeof(want), want_fmt, path, path);
	struct run_set rs;
	runs_init(&rs);
	struct tcpsim_err err;
	err_clear(&err);
	int rc = runs_load(&rs, path, &err);
	if (rc != TCPSIM_EUSAGE || !strstr(err.msg, want))
		fail_msg("load of:\n%s\nrc %d, message\n  %s\nwanted it to contain\n  %s", text, rc,
			 err.msg, want);
	assert_int_equal(rs.n, 0);
	runs_free(&rs);
}

#define HDR "id,source,scenario,overrides"

/* ---------------------------------------------------------------- tests */

static void test_round_trip(void **state)
{
	struct fixture *fx = *state;
	struct run_set rs;
	runs_init(&rs);
	struct tcpsim_err err;
	err_clear(&err);
	struct recorded_run *r =
		runs_add(&rs, "lkp-base", "Linux commit 0cf833aefaa8, \"LKP\" report, 2012",
			 "scenarios/loopback-16k.cfg", "link.mtu=16436; tcp.sndbuf = 64K",
			 "note with, comma\nand a newline", &err);
	assert_non_null(r);
	r->v[METRIC_THROUGHPUT_MBPS] = 1233;
	r->v[METRIC_NETRX_SOFTIRQS_PER_S] = 4664799.0 / 300;
	r->v[METRIC_PGALLOC_PER_S] = 450970.0 / 300; /* 1503.2333.. needs 17 digits */
	r->v[METRIC_SEGS_PER_FRAME] = 2.9999999999999996; /* beyond the contract columns */
	r->cv[METRIC_THROUGHPUT_MBPS] = 0.04;
	r->cv[METRIC_RES_IPIS_PER_S] = 0.17;
	r = runs_add(&rs, "myri-1", "A. Gallatin", "scenarios/myri10ge/old-notso.cfg", NULL, NULL,
		     &err);
	assert_non_null(r);
	r->v[METRIC_CPU_SEND_PCT] = 100;
	r->v[METRIC_CPU_RECV_PCT] = 0; /* zero is a measurement, not "empty" */
	r->v[METRIC_SD_SEND_US_PER_KB] = 3.787;
	assert_int_equal(err.code, 0);

	char p1[200], p2[200];
	snprintf(p1, sizeof(p1), "%s/a.csv", fx->dir);
	snprintf(p2, sizeof(p2), "%s/b.csv", fx->dir);
	assert_int_equal(runs_write(&rs, p1, &err), TCPSIM_OK);

	struct run_set back;
	runs_init(&back);
	assert_int_equal(runs_load(&back, p1, &err), TCPSIM_OK);
	assert_int_equal(back.n, rs.n);
	for (int i = 0; i < rs.n; i++) {
		const struct recorded_run *a = &rs.runs[i], *b = &back.runs[i];
		assert_string_equal(a->id, b->id);
		assert_string_equal(a->source, b->source);
		assert_string_equal(a->scenario, b->scenario);
		assert_string_equal(a->overrides, b->overrides);
		assert_string_equal(a->note, b->note);
		assert_int_equal(a->n_ov, b->n_ov);
		for (int k = 0; k < a->n_ov; k++)
			assert_string_equal(a->ov[k].assignment, b->ov[k].assignment);
		for (int m = 0; m < METRIC_N; m++) {
			if (isnan(a->v[m]) != isnan(b->v[m]) || (!isnan(a->v[m]) && a->v[m] != b->v[m]))
				fail_msg("run %s metric %s: wrote %.17g read %.17g", a->id,
					 metric_table[m].name, a->v[m], b->v[m]);
			if (isnan(a->cv[m]) != isnan(b->cv[m]) ||
			    (!isnan(a->cv[m]) && a->cv[m] != b->cv[m]))
				fail_msg("run %s cv %s: wrote %.17g read %.17g", a->id,
					 metric_table[m].name, a->cv[m], b->cv[m]);
		}
		assert_string_equal(b->file, p1);
	}
	assert_int_equal(back.runs[0].line, 2);
	assert_int_equal(back.runs[1].line, 4); /* the note spans lines 2-3 */

	/* writing what was read gives the same bytes */
	assert_int_equal(runs_write(&back, p2, &err), TCPSIM_OK);
	char *t1 = slurp(p1), *t2 = slurp(p2);
	assert_string_equal(t1, t2);
	/* short numbers stay short */
	assert_non_null(strstr(t1, "\"1233\""));
	assert_non_null(strstr(t1, "\"3.787\""));
	assert_non_null(strstr(t1, "\"0.04\""));
	assert_non_null(strstr(t1, "segs_per_frame"));
	assert_null(strstr(t1, "acks_per_frame")); /* unused extra metric: no column */
	free(t1);
	free(t2);
	assert_int_equal(count_files(fx->dir), 2); /* no temp files left */
	runs_free(&back);
	runs_free(&rs);
}

static void test_load_plain(void **state)
{
	struct fixture *fx = *state;
	/* unquoted fields, CRLF, blank lines, columns in any order, subset of metrics */
	char path[200];
	snprintf(path, sizeof(path), "%s", put(fx, "plain.csv",
			       "throughput_mbps,id,scenario,source,overrides,cpu_send_pct_cv,note\r\n"
			       "\r\n"
			       "2163.08, a ,s.cfg,src,tcp.sndbuf=393216,0.05,x\r\n"
			       "  \r\n"
			       ",b,s.cfg,src,,,\r\n"
			       "1e3,c,s.cfg,src,,,"));
	struct run_set rs;
	runs_init(&rs);
	struct tcpsim_err err;
	err_clear(&err);
	assert_int_equal(runs_load(&rs, path, &err), TCPSIM_OK);
	assert_int_equal(rs.n, 3);
	assert_string_equal(rs.runs[0].id, "a");
	assert_int_equal(rs.runs[0].line, 3);
	assert_int_equal(rs.runs[1].line, 5);
	assert_int_equal(rs.runs[2].line, 6);
	assert_true(rs.runs[0].v[METRIC_THROUGHPUT_MBPS] == 2163.08);
	assert_true(rs.runs[0].cv[METRIC_CPU_SEND_PCT] == 0.05);
	assert_true(isnan(rs.runs[0].v[METRIC_CPU_SEND_PCT]));
	assert_true(isnan(rs.runs[1].v[METRIC_THROUGHPUT_MBPS]));
	assert_true(rs.runs[2].v[METRIC_THROUGHPUT_MBPS] == 1000);
	assert_int_equal(rs.runs[0].n_ov, 1);
	assert_string_equal(rs.runs[0].ov[0].key, "tcp.sndbuf");
	assert_string_equal(rs.runs[0].ov[0].value, "393216");
	assert_int_equal(rs.runs[1].n_ov, 0);
	assert_non_null(runs_find(&rs, "c"));
	assert_null(runs_find(&rs, "d"));

	/* a second file joins the set; a duplicate id across files is an error */
	const char *p2 = put(fx, "more.csv", HDR "\nd,src,s.cfg,\n");
	assert_int_equal(runs_load(&rs, p2, &err), TCPSIM_OK);
	assert_int_equal(rs.n, 4);
	const char *p3 = put(fx, "dup.csv", HDR "\ne,src,s.cfg,\na,src,s.cfg,\n");
	assert_int_equal(runs_load(&rs, p3, &err), TCPSIM_EUSAGE);
	char want[600];
	snprintf(want, sizeof(want), "%s:3: duplicate id 'a' (first at %s:3)", p3, path);
	assert_string_equal(err.msg, want);
	assert_int_equal(rs.n, 4); /* nothing of the bad file was added */
	runs_free(&rs);
}

/* live-agg's columns: those the model predicts (per-CPU busy, CAL, pacing,
 * writes) are metrics; the others (TIMER per CPU, TcpExt) accepted and skipped */
static void test_measured_only(void **state)
{
	struct fixture *fx = *state;
	assert_false(runs_column_measured_only("snd_cpu_busy_pct"));
	assert_false(runs_column_measured_only("rcv_cpu_cal_per_s_cv"));
	assert_false(runs_column_measured_only("pace_kicks_per_s"));
	assert_false(runs_column_measured_only("writes_per_s_cv"));
	assert_true(runs_column_measured_only("snd_cpu_timer_per_s"));
	assert_true(runs_column_measured_only("rcv_cpu_timer_per_s_cv"));
	assert_true(runs_column_measured_only("tcpext_TCPHPHits_per_s"));
	assert_false(runs_column_measured_only("throughput_mbps"));
	assert_false(runs_column_measured_only("snd_wakeups_per_s")); /* a metric */
	assert_false(runs_column_measured_only("tcpext_"));
	const char *path = put(fx, "live.csv",
			       HDR ",throughput_mbps,snd_cpu_busy_pct,snd_cpu_busy_pct_cv,"
				   "tcpext_TCPHPHits_per_s,note,pace_kicks_per_s\n"
				   "a,src,s.cfg,,100,99.5,0.01,15000,n,\n");
	struct run_set rs;
	struct tcpsim_err err;
	runs_init(&rs);
	err_clear(&err);
	assert_int_equal(runs_load(&rs, path, &err), TCPSIM_OK);
	assert_int_equal(rs.n, 1);
	assert_true(rs.runs[0].v[METRIC_THROUGHPUT_MBPS] == 100);
	assert_true(rs.runs[0].v[METRIC_SND_CPU_BUSY_PCT] == 99.5);
	assert_true(rs.runs[0].cv[METRIC_SND_CPU_BUSY_PCT] == 0.01);
	assert_string_equal(rs.runs[0].note, "n");
	runs_free(&rs);
}

static void test_errors_header(void **state)
{
	struct fixture *fx = *state;
	expect_load_error(fx, HDR ",thruput_mbps\na,s,c.cfg,,1\n",
			  "%s:1: unknown column 'thruput_mbps' (did you mean 'throughput_mbps'?)");
	expect_load_error(fx, HDR ",cpu_send_pct_vc\n",
			  "%s:1: unknown column 'cpu_send_pct_vc' (did you mean 'cpu_send_pct_cv'?)");
	expect_load_error(fx, HDR ",bogomips\n", "%s:1: unknown column 'bogomips' (not a metric");
	expect_load_error(fx, HDR ",wibble_cv\n", "%s:1: unknown column 'wibble_cv'");
	/* the measured-only families need a name after their prefix */
	expect_load_error(fx, HDR ",snd_cpu_\n", "%s:1: unknown column 'snd_cpu_'");
	expect_load_error(fx, HDR ",pace_kicks\n", "%s:1: unknown column 'pace_kicks'");
	expect_load_error(fx, "id,source,overrides,throughput_mbps\n",
			  "%s:1: missing required column 'scenario'");
	expect_load_error(fx, "source,scenario,overrides\n", "%s:1: missing required column 'id'");
	expect_load_error(fx, HDR ",cs_per_s,cs_per_s\n",
			  "%s:1: column 'cs_per_s' appears twice (columns 5 and 6)");
	expect_load_error(fx, HDR ",\n", "%s:1: column 5 has no name");
	expect_load_error(fx, "", "%s:1: empty file");
	expect_load_error(fx, "\n\n", "%s:1: empty file");
}

static void test_errors_rows(void **state)
{
	struct fixture *fx = *state;
	expect_load_error(fx, HDR ",cpu_send_pct\na,s,c.cfg,,1\nb,s,c.cfg,,abc\n",
			  "%s:3: column 'cpu_send_pct': 'abc' is not a number");
	expect_load_error(fx, HDR ",cpu_send_pct\na,s,c.cfg,,nan\n",
			  "%s:2: column 'cpu_send_pct': 'nan' is not a number");
	expect_load_error(fx, HDR ",cpu_send_pct\na,s,c.cfg,,12 %\n",
			  "%s:2: column 'cpu_send_pct': '12 %%' is not a number");
	expect_load_error(fx, HDR ",cs_per_s_cv\na,s,c.cfg,,-0.1\n",
			  "%s:2: column 'cs_per_s_cv': '-0.1' is negative");
	expect_load_error(fx, HDR "\na,s,c.cfg,\na,s,c.cfg,\n",
			  "%s:3: duplicate id 'a' (first at %s:2)");
	expect_load_error(fx, HDR ",cs_per_s\na,s,c.cfg,,1\nb,s,c.cfg\n",
			  "%s:3: row has 3 fields, header has 5");
	expect_load_error(fx, HDR "\na,s,c.cfg,,extra\n", "%s:2: row has 5 fields, header has 4");
	expect_load_error(fx, HDR "\n,s,c.cfg,\n", "%s:2: column 'id': empty");
	expect_load_error(fx, HDR "\na,,c.cfg,\n", "%s:2: column 'source': empty");
	expect_load_error(fx, HDR "\na,s, ,\n", "%s:2: column 'scenario': empty");
	expect_load_error(fx, HDR "\na,s,c.cfg,tcp.sndbuf\n",
			  "%s:2: column 'overrides': 'tcp.sndbuf' is not section.key=value");
	expect_load_error(fx, HDR "\na,s,c.cfg,sndbuf=1\n",
			  "%s:2: column 'overrides': 'sndbuf=1' is not section.key=value");
	/* quoting: strict mode and csv_fini */
	expect_load_error(fx, HDR "\na,s,c.cfg,\nb,\"unterminated,c.cfg,\n",
			  "%s:3: unterminated quoted field");
	expect_load_error(fx, HDR "\na,s,c.cfg,\nb,s\"x,c.cfg,\n", "%s:3: malformed CSV");
	expect_load_error(fx, HDR "\na,\"s\"x,c.cfg,\n", "%s:2: malformed CSV");
	/* a row after a multi-line quoted field is reported at its own line */
	expect_load_error(fx, HDR ",note\na,s,c.cfg,,\"one\ntwo\nthree\"\nb,s,c.cfg,,x,y\n",
			  "%s:5: row has 6 fields, header has 5");
	/* truncated file: the last row lacks fields (and its newline) */
	expect_load_error(fx, HDR ",cs_per_s\na,s,c.cfg,,1\nb,s,c.c", "%s:3: row has 3 fields");
}

/* A byte-order mark is skipped; a NUL byte (a numeric cell used to read as
 * its prefix), /dev/zero and a record without an end are refused. */
static void test_bom_nul_endless(void **state)
{
	struct fixture *fx = *state;
	struct run_set rs;
	struct tcpsim_err err;
	char want[300];

	const char *path = put(fx, "bom.csv", "\xEF\xBB\xBF" HDR ",throughput_mbps\na,s,c.cfg,,12.5\n");
	runs_init(&rs);
	err_clear(&err);
	if (runs_load(&rs, path, &err) != TCPSIM_OK)
		fail_msg("BOM file: %s", err.msg);
	assert_int_equal(rs.n, 1);
	assert_true(rs.runs[0].v[METRIC_THROUGHPUT_MBPS] == 12.5);
	runs_free(&rs);

	static const char nul[] = HDR ",throughput_mbps\na,s,c.cfg,,12\0" "5\n";
	snprintf(fx->path, sizeof(fx->path), "%s/nul.csv", fx->dir);
	FILE *f = fopen(fx->path, "wb");
	assert_non_null(f);
	fwrite(nul, 1, sizeof nul - 1, f);
	fclose(f);
	runs_init(&rs);
	err_clear(&err);
	assert_int_equal(runs_load(&rs, fx->path, &err), TCPSIM_EUSAGE);
	snprintf(want, sizeof want, "%s:2: NUL byte in the file", fx->path);
	if (!strstr(err.msg, want))
		fail_msg("NUL cell: '%s', want '%s'", err.msg, want);
	assert_int_equal(rs.n, 0);

	err_clear(&err);
	assert_int_equal(runs_load(&rs, "/dev/zero", &err), TCPSIM_EUSAGE);
	assert_non_null(strstr(err.msg, "/dev/zero:1: NUL byte"));

	snprintf(fx->path, sizeof(fx->path), "%s/endless.csv", fx->dir);
	f = fopen(fx->path, "wb");
	assert_non_null(f);
	fputs(HDR "\na,s,c.cfg,", f);
	for (int i = 0; i < 2 << 20; i++)
		putc('x', f);
	fclose(f);
	err_clear(&err);
	assert_int_equal(runs_load(&rs, fx->path, &err), TCPSIM_EUSAGE);
	snprintf(want, sizeof want, "%s:2: a record longer than 1 MiB", fx->path);
	if (!strstr(err.msg, want))
		fail_msg("endless record: '%s', want '%s'", err.msg, want);
	runs_free(&rs);
}

/* 100k runs (a set of 200k once took minutes: each id was compared with
 * every earlier one); a duplicate at the end still names the first. */
static void test_many_runs(void **state)
{
	struct fixture *fx = *state;
	struct run_set rs;
	struct tcpsim_err err;
	char want[600];

	snprintf(fx->path, sizeof(fx->path), "%s/many.csv", fx->dir);
	FILE *f = fopen(fx->path, "w");
	assert_non_null(f);
	fputs(HDR ",throughput_mbps\n", f);
	for (int i = 0; i < 100000; i++)
		fprintf(f, "run-%d,s,c.cfg,,%d\n", i, i);
	fclose(f);
	runs_init(&rs);
	err_clear(&err);
	if (runs_load(&rs, fx->path, &err) != TCPSIM_OK)
		fail_msg("%s", err.msg);
	assert_int_equal(rs.n, 100000);
	assert_true(rs.runs[99999].v[METRIC_THROUGHPUT_MBPS] == 99999);
	assert_non_null(runs_find(&rs, "run-4242"));
	assert_non_null(runs_add(&rs, "run-x", "s", "c.cfg", "", "", &err));
	assert_null(runs_add(&rs, "run-77", "s", "c.cfg", "", "", &err));
	assert_non_null(strstr(err.msg, "duplicate id 'run-77'"));

	f = fopen(fx->path, "a");
	assert_non_null(f);
	fputs("run-31337,s,c.cfg,,1\n", f);
	fclose(f);
	runs_free(&rs);
	runs_init(&rs);
	err_clear(&err);
	assert_int_equal(runs_load(&rs, fx->path, &err), TCPSIM_EUSAGE);
	snprintf(want, sizeof want, "%s:100002: duplicate id 'run-31337' (first at %s:31339)", fx->path, fx->path);
	assert_string_equal(err.msg, want);
	assert_int_equal(rs.n, 0);
	runs_free(&rs);
}

static void test_missing_file(void **state)
{
	struct fixture *fx = *state;
	char path[200];
	snprintf(path, sizeof(path), "%s/nope.csv", fx->dir);
	struct run_set rs;
	runs_init(&rs);
	struct tcpsim_err err;
	err_clear(&err);
	assert_int_equal(runs_load(&rs, path, &err), TCPSIM_EIO);
	assert_non_null(strstr(err.msg, "cannot open recorded runs"));
	assert_non_null(strstr(err.msg, "nope.csv"));
	runs_free(&rs);
}

static void test_overrides_split(void **state)
{
	struct run_override *ov;
	int n;
	struct tcpsim_err err;
	err_clear(&err);
	assert_int_equal(runs_overrides_split(" link.mtu=65536 ; tcp.sndbuf = 64K ;; app.test=", "w",
					      &ov, &n, &err),
			 TCPSIM_OK);
	assert_int_equal(n, 3);
	assert_string_equal(ov[0].assignment, "link.mtu=65536");
	assert_string_equal(ov[1].key, "tcp.sndbuf");
	assert_string_equal(ov[1].value, "64K");
	assert_string_equal(ov[1].assignment, "tcp.sndbuf=64K");
	assert_string_equal(ov[2].value, "");
	runs_overrides_free(ov, n);

	assert_int_equal(runs_overrides_split("", "w", &ov, &n, &err), TCPSIM_OK);
	assert_int_equal(n, 0);
	runs_overrides_free(ov, n);
	assert_int_equal(runs_overrides_split(NULL, "w", &ov, &n, &err), TCPSIM_OK);
	assert_int_equal(n, 0);

	static const char *const bad[] = {"=1", ".b=1", "a.=1", "a.b.c=1", "a b.c=1", "ab", "a.b=1;x"};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		err_clear(&err);
		if (runs_overrides_split(bad[i], "WHERE", &ov, &n, &err) != TCPSIM_EUSAGE)
			fail_msg("'%s' accepted", bad[i]);
		assert_null(ov);
		assert_int_equal(n, 0);
		assert_memory_equal(err.msg, "WHERE: '", 8);
	}
}

static void test_add_errors(void **state)
{
	struct run_set rs;
	runs_init(&rs);
	struct tcpsim_err err;
	err_clear(&err);
	assert_non_null(runs_add(&rs, "a", "s", "c.cfg", "", "", &err));
	assert_null(runs_add(&rs, "a", "s", "c.cfg", "", "", &err));
	assert_string_equal(err.msg, "duplicate id 'a'");
	err_clear(&err);
	assert_null(runs_add(&rs, "", "s", "c.cfg", "", "", &err));
	assert_string_equal(err.msg, "recorded run: empty id");
	err_clear(&err);
	assert_null(runs_add(&rs, "b", "", "c.cfg", "", "", &err));
	assert_string_equal(err.msg, "run 'b': source is empty");
	err_clear(&err);
	assert_null(runs_add(&rs, "b", "s", "c.cfg", "x=1", "", &err));
	assert_string_equal(err.msg, "run 'b': overrides: 'x=1' is not section.key=value");
	assert_int_equal(rs.n, 1);
	runs_free(&rs);
}

static void test_write_errors(void **state)
{
	struct fixture *fx = *state;
	struct run_set rs;
	runs_init(&rs);
	struct tcpsim_err err;
	err_clear(&err);
	char path[200];
	snprintf(path, sizeof(path), "%s/no/such/dir.csv", fx->dir);
	assert_int_equal(runs_write(&rs, path, &err), TCPSIM_EIO);
	assert_non_null(strstr(err.msg, "cannot write recorded runs"));
	/* an empty set still writes a header that loads back */
	snprintf(path, sizeof(path), "%s/empty.csv", fx->dir);
	err_clear(&err);
	assert_int_equal(runs_write(&rs, path, &err), TCPSIM_OK);
	assert_int_equal(runs_load(&rs, path, &err), TCPSIM_OK);
	assert_int_equal(rs.n, 0);
	runs_free(&rs);
}

static void test_append_file(void **state)
{
	struct fixture *fx = *state;
	char path[200];
	snprintf(path, sizeof(path), "%s/app.csv", fx->dir);
	struct run_set add;
	runs_init(&add);
	struct tcpsim_err err;
	err_clear(&err);
	runs_add(&add, "x", "s", "c.cfg", "", "", &err)->v[METRIC_CS_PER_S] = 5;
	assert_int_equal(runs_append_file(path, &add, &err), TCPSIM_OK); /* creates */
	runs_free(&add);
	runs_add(&add, "y", "s", "c.cfg", "", "", &err)->v[METRIC_CS_PER_S] = 6;
	assert_int_equal(runs_append_file(path, &add, &err), TCPSIM_OK); /* appends */
	char *before = slurp(path);
	/* a duplicate id: an error naming the file and line, and the file is unchanged */
	assert_int_equal(runs_append_file(path, &add, &err), TCPSIM_EUSAGE);
	char want[300];
	snprintf(want, sizeof(want), "%s:3: id 'y' is already there", path);
	assert_string_equal(err.msg, want);
	char *after = slurp(path);
	assert_string_equal(before, after);
	free(before);
	free(after);
	runs_free(&add);

	struct run_set rs;
	runs_init(&rs);
	err_clear(&err);
	assert_int_equal(runs_load(&rs, path, &err), TCPSIM_OK);
	assert_int_equal(rs.n, 2);
	assert_string_equal(rs.runs[1].id, "y");
	assert_true(rs.runs[1].v[METRIC_CS_PER_S] == 6);
	runs_free(&rs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_load_plain, setup, teardown),
		cmocka_unit_test_setup_teardown(test_measured_only, setup, teardown),
		cmocka_unit_test_setup_teardown(test_errors_header, setup, teardown),
		cmocka_unit_test_setup_teardown(test_errors_rows, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bom_nul_endless, setup, teardown),
		cmocka_unit_test_setup_teardown(test_many_runs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_missing_file, setup, teardown),
		cmocka_unit_test(test_overrides_split),
		cmocka_unit_test(test_add_errors),
		cmocka_unit_test_setup_teardown(test_write_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_append_file, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
