/*
 * test_calib: calibration and held-out validation (model/study/calib.c) and the
 * validation checks (model/study/targets.c).
 *
 * Oracles:
 *  - recovery: recorded runs made by the simulator itself at known costs
 *    (copy_byte 1.4, tx_frame 20000, syscall 4000) on four loopback
 *    settings; the fit starts 14-20% off and must land within 2% of each;
 *  - a closed-form double of the simulator (fake_run: CPU-bound throughput
 *    = clock / cycles per byte) for the bookkeeping: leave-one-out, train
 *    masks, bounds, the profile file, errors -- fast and exact;
 *  - the double with its response rounded to stairs 15% apart, whose
 *    slope is nearly zero at the start: the solver stops there, the
 *    polish (Nelder-Mead) must lower chisq to under a quarter;
 *  - the profile written by calib_write_profile, read back with
 *    config_load, must give the fitted values.
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
#include <unistd.h>

#include "batch.h"
#include "calib.h"
#include "config.h"
#include "cost.h"
#include "err.h"
#include "metrics.h"
#include "runs.h"
#include "targets.h"
#include "tcpsim.h"
#include "util.h"

#define LO_CFG "tests/data/calib/lo.cfg"

static const double truth_copy = 1.4, truth_tx = 20000, truth_sys = 4000;

/* ---- a closed-form double of the simulator ---------------------------------- */

/* Cycles per payload byte on the sender's CPU: copy + per frame + per call. */
static double fake_cycles_per_byte(const struct scenario *sc)
{
	const double *c = sc->host[0].cost_cycles;
	return c[COST_COPY_BYTE] + c[COST_TX_FRAME] / sc->mtu_bytes + c[COST_SYSCALL] / (double)sc->send_size;
}

static int fake_run(const struct scenario *sc, struct metrics *m, struct tcpsim_err *err)
{
	const double *c = sc->host[0].cost_cycles;
	double cpb = fake_cycles_per_byte(sc);
	double bytes_s = sc->host[0].ghz * 1e9 / cpb;
	(void)err;
	memset(m, 0, sizeof(*m));
	m->v[METRIC_THROUGHPUT_MBPS] = bytes_s * 8 / 1e6;
	m->v[METRIC_THROUGHPUT_TOTAL_MBPS] = m->v[METRIC_THROUGHPUT_MBPS];
	m->v[METRIC_CPU_SEND_PCT] = 100.0;
	/* the receiver copies only: its share of a CPU */
	m->v[METRIC_CPU_RECV_PCT] = 100.0 * c[COST_COPY_BYTE] / cpb;
	m->v[METRIC_FRAMES_PER_S] = bytes_s / sc->mtu_bytes;
	m->bottleneck = BOTTLENECK_CPU;
	snprintf(m->bottleneck_text, sizeof(m->bottleneck_text), "fake: CPU");
	return TCPSIM_OK;
}

/* ---- helpers ------------------------------------------------------------------ */

static const char *const settings[][2] = {
	{"4000", "8K"}, {"9000", "1K"}, {"16436", "16K"}, {"65536", "64K"},
};

/* Simulate LO_CFG with overrides ov and the true costs; fill a recorded run. */
static void add_synthetic_tx(struct run_set *rs, calib_run_fn run, const char *id, const char *mtu,
			     const char *send, double scale_tput, double tx)
{
	struct scenario sc;
	struct metrics m;
	struct tcpsim_err err = {0};
	char ov[128], v[32];

	config_defaults(&sc);
	assert_int_equal(config_load(&sc, LO_CFG, &err), TCPSIM_OK);
	assert_int_equal(config_set(&sc, "link.mtu", mtu, "test", &err), TCPSIM_OK);
	assert_int_equal(config_set(&sc, "app.send_size", send, "test", &err), TCPSIM_OK);
	snprintf(v, sizeof(v), "%.17g", truth_copy);
	assert_int_equal(config_set(&sc, "cost.copy_byte", v, "test", &err), TCPSIM_OK);
	snprintf(v, sizeof(v), "%.17g", tx);
	assert_int_equal(config_set(&sc, "cost.tx_frame", v, "test", &err), TCPSIM_OK);
	snprintf(v, sizeof(v), "%.17g", truth_sys);
	assert_int_equal(config_set(&sc, "cost.syscall", v, "test", &err), TCPSIM_OK);
	assert_int_equal(config_validate(&sc, &err), TCPSIM_OK);
	assert_int_equal(run(&sc, &m, &err), TCPSIM_OK);

	if (tx != truth_tx)   /* a run of another machine: its scenario says so */
		snprintf(ov, sizeof(ov), "link.mtu=%s; app.send_size=%s; cost.tx_frame=%.17g", mtu, send, tx);
	else
		snprintf(ov, sizeof(ov), "link.mtu=%s; app.send_size=%s", mtu, send);
	struct recorded_run *r = runs_add(rs, id, "synthetic: tcpsim at known costs", LO_CFG, ov, "", &err);
	assert_non_null(r);
	/* every metric the model gives a non-zero value for is "measured" */
	for (int i = 0; i < METRIC_CONTRACT_N; i++)
		if (isfinite(m.v[i]) && m.v[i] != 0)
			r->v[i] = m.v[i];
	r->v[METRIC_THROUGHPUT_MBPS] *= scale_tput;
}

static void add_synthetic(struct run_set *rs, calib_run_fn run, const char *id, const char *mtu,
			  const char *send, double scale_tput)
{
	add_synthetic_tx(rs, run, id, mtu, send, scale_tput, truth_tx);
}

static void synthetic_set(struct run_set *rs, calib_run_fn run, int n, int outlier)
{
	runs_init(rs);
	for (int i = 0; i < n; i++) {
		char id[32];
		snprintf(id, sizeof(id), "syn-%d", i);
		add_synthetic(rs, run, id, settings[i][0], settings[i][1], i == outlier ? 1.3 : 1.0);
	}
}

/* A synthetic run set and the calibration's view of it, made and freed together. */
struct syn {
	struct run_set rs;
	struct calib_runs cr;
};

static void syn_begin(struct syn *sy, calib_run_fn run, int n, int outlier)
{
	struct tcpsim_err err = {0};
	memset(&sy->cr, 0, sizeof(sy->cr));
	synthetic_set(&sy->rs, run, n, outlier);
	assert_int_equal(calib_runs_build(&sy->cr, &sy->rs, NULL, false, &err), TCPSIM_OK);
}

static void syn_end(struct syn *sy)
{
	calib_runs_free(&sy->cr);
	runs_free(&sy->rs);
}

static void setup_fit(struct calib_setup *cs, const struct calib_runs *cr, calib_run_fn run, const char *keys)
{
	struct tcpsim_err err = {0};
	calib_setup_init(cs);
	cs->run = run;
	cs->jobs = 2;
	assert_int_equal(calib_parse_fit(cs, keys, cr, &err), TCPSIM_OK);
}

static void assert_within(double got, double want, double rel)
{
	if (!(fabs(got / want - 1) <= rel))
		fail_msg("got %.6g, want %.6g within %.1f%% (off by %.2f%%)", got, want, 100 * rel,
			 100 * (got / want - 1));
}

/* ---- recovery from the simulator's own runs ------------------------------------ */

static void test_recover_known_costs(void **state)
{
	struct syn sy;
	struct calib_setup cs;
	struct calib_result res;
	struct tcpsim_err err = {0};
	(void)state;

	syn_begin(&sy, tcpsim_run, 4, -1);
	setup_fit(&cs, &sy.cr, tcpsim_run, "cost.copy_byte,cost.tx_frame,cost.syscall");
	/* the start is the scenario's, 14-20% off the truth */
	assert_within(cs.par[0].start, 1.2, 1e-12);
	assert_within(cs.par[1].start, 24000, 1e-12);
	assert_within(cs.par[2].start, 3300, 1e-12);

	int rc = calib_fit(&cs, &sy.cr, NULL, &res, &err);
	if (rc != TCPSIM_OK)
		fail_msg("fit failed: %s", err.msg);
	assert_true(res.converged);
	assert_within(res.value[0], truth_copy, 0.02);
	assert_within(res.value[1], truth_tx, 0.02);
	assert_within(res.value[2], truth_sys, 0.02);
	assert_true(res.chisq < res.chisq0);
	for (int j = 0; j < 3; j++) {
		assert_int_equal(res.at_bound[j], 0);
		assert_true(res.identifiable[j]);
		/* the interval holds the fitted value */
		if (isfinite(res.ci_lo[j]))
			assert_true(res.ci_lo[j] <= res.value[j] && res.value[j] <= res.ci_hi[j]);
	}
	calib_result_free(&res);
	syn_end(&sy);
}

/* Same seed, same parameters: byte-identical metrics, whatever the threads. */
static void test_batch_deterministic(void **state)
{
	struct scenario sc[3];
	struct metrics a[3], b[3];
	struct tcpsim_err err = {0};
	(void)state;

	for (int i = 0; i < 3; i++) {
		config_defaults(&sc[i]);
		assert_int_equal(config_load(&sc[i], LO_CFG, &err), TCPSIM_OK);
	}
	sc[1].mtu_bytes = 9000;
	sc[2].send_size = 4096;
	assert_int_equal(batch_run(tcpsim_run, sc, a, 3, 1, NULL, &err), TCPSIM_OK);
	assert_int_equal(batch_run(tcpsim_run, sc, b, 3, 3, NULL, &err), TCPSIM_OK);
	for (int i = 0; i < 3; i++)
		assert_memory_equal(a[i].v, b[i].v, sizeof(a[i].v));
}

/* ---- the double: exact recovery, bounds, non-convergence ----------------------- */

static void test_fake_recovery_and_profile(void **state)
{
	struct syn sy;
	struct calib_setup cs;
	struct calib_result res;
	struct tcpsim_err err = {0};
	char dir[] = "/tmp/test_calib.XXXXXX", path[128];
	(void)state;

	syn_begin(&sy, fake_run, 4, -1);
	setup_fit(&cs, &sy.cr, fake_run, "cost.copy_byte,cost.tx_frame,cost.syscall");
	assert_int_equal(calib_fit(&cs, &sy.cr, NULL, &res, &err), TCPSIM_OK);
	assert_within(res.value[0], truth_copy, 1e-4);
	assert_within(res.value[1], truth_tx, 1e-4);
	assert_within(res.value[2], truth_sys, 1e-4);
	assert_true(res.chisq < 1e-8);
	assert_int_equal(res.starts_tried, 1);
	assert_true(res.chisq_start == res.chisq0);

	/* a scan of starts: the solver starts from the best, and still recovers */
	struct calib_result res2;
	cs.starts = 8;
	assert_int_equal(calib_fit(&cs, &sy.cr, NULL, &res2, &err), TCPSIM_OK);
	assert_int_equal(res2.starts_tried, 8);
	assert_true(res2.chisq0 <= res2.chisq_start);
	assert_within(res2.value[0], truth_copy, 1e-4);
	calib_result_free(&res2);

	/* the profile reads back to the fitted values */
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/fitted.cfg", dir);
	assert_int_equal(calib_write_profile(path, &cs, &res, "test profile\nsecond line", &err), TCPSIM_OK);
	struct scenario sc;
	config_defaults(&sc);
	assert_int_equal(config_load(&sc, LO_CFG, &err), TCPSIM_OK);
	assert_int_equal(config_load(&sc, path, &err), TCPSIM_OK);
	assert_true(sc.host[0].cost_cycles[COST_COPY_BYTE] == res.value[0]);
	assert_true(sc.host[0].cost_cycles[COST_TX_FRAME] == res.value[1]);
	assert_true(sc.host[0].cost_cycles[COST_SYSCALL] == res.value[2]);
	unlink(path);

	/* whole or nothing: an unwritable place leaves no file behind */
	snprintf(path, sizeof(path), "%s/no/such/dir/fitted.cfg", dir);
	err_clear(&err);
	assert_int_equal(calib_write_profile(path, &cs, &res, NULL, &err), TCPSIM_EIO);
	assert_non_null(strstr(err.msg, "cannot write profile"));
	assert_int_equal(rmdir(dir), 0);   /* empty: no temp file left */

	calib_result_free(&res);
	syn_end(&sy);
}

static void test_fake_at_bound(void **state)
{
	struct syn sy;
	struct calib_setup cs;
	struct calib_result res;
	struct tcpsim_err err = {0};
	(void)state;

	syn_begin(&sy, fake_run, 4, -1);
	/* the truth (1.4) is above the bounds the user allows */
	setup_fit(&cs, &sy.cr, fake_run, "cost.copy_byte=0.5:1.3,cost.tx_frame");
	assert_int_equal(calib_fit(&cs, &sy.cr, NULL, &res, &err), TCPSIM_OK);
	assert_int_equal(res.at_bound[0], 1);
	assert_int_equal(res.at_bound[1], 0);
	assert_true(res.value[0] <= 1.3 && res.value[0] > 1.25);
	calib_result_free(&res);
	syn_end(&sy);
}

static void test_fake_no_convergence(void **state)
{
	struct syn sy;
	struct calib_setup cs;
	struct calib_result res;
	struct tcpsim_err err = {0};
	(void)state;

	syn_begin(&sy, fake_run, 4, -1);
	setup_fit(&cs, &sy.cr, fake_run, "cost.copy_byte,cost.tx_frame,cost.syscall");
	cs.max_iter = 1;
	assert_int_equal(calib_fit(&cs, &sy.cr, NULL, &res, &err), TCPSIM_EFIT);
	assert_false(res.converged);
	assert_non_null(strstr(err.msg, "did not converge"));
	calib_result_free(&res);
	syn_end(&sy);
}

/* The double, with the response a staircase: the cycles per byte are
 * rounded to steps 15% apart on a log scale, as the simulator's steady
 * states make its response flat between jumps.  A 5% difference step
 * mostly stays on one stair, so the slope is zero where the fit starts. */
static int fake_run_stairs(const struct scenario *sc, struct metrics *m, struct tcpsim_err *err)
{
	double cpb = fake_cycles_per_byte(sc), q = exp(round(log(cpb) / 0.15) * 0.15);
	int rc = fake_run(sc, m, err);
	double scale = cpb / q;
	m->v[METRIC_THROUGHPUT_MBPS] *= scale;
	m->v[METRIC_THROUGHPUT_TOTAL_MBPS] *= scale;
	m->v[METRIC_FRAMES_PER_S] *= scale;
	m->v[METRIC_CPU_RECV_PCT] *= scale;
	return rc;
}

static void test_polish_walks_off_a_plateau(void **state)
{
	struct syn sy;
	struct calib_setup cs;
	struct calib_result res, pol;
	struct tcpsim_err err = {0};
	(void)state;

	syn_begin(&sy, fake_run, 4, -1);   /* recorded at the true costs, no stairs */
	setup_fit(&cs, &sy.cr, fake_run_stairs, "cost.copy_byte,cost.tx_frame,cost.syscall");
	/* the slope is (nearly) zero at the start: the solver's step changes
	 * nothing, and it stops there, at the start's chisq */
	assert_int_equal(calib_fit(&cs, &sy.cr, NULL, &res, &err), TCPSIM_OK);
	assert_true(res.iterations <= 2);
	assert_int_equal(res.polish_points, 0);
	assert_within(res.chisq, res.chisq0, 0.01);

	/* the simplex compares values only, and goes down the stairs */
	cs.polish = 300;
	err_clear(&err);
	if (calib_fit(&cs, &sy.cr, NULL, &pol, &err) != TCPSIM_OK)
		fail_msg("polished fit failed: %s", err.msg);
	assert_true(pol.converged);
	assert_true(pol.polish_moved);
	assert_true(pol.polish_points > 0 && pol.polish_points <= 300 + 2 * cs.n_par + 2);
	assert_within(pol.chisq_lm, res.chisq, 1e-9);
	assert_true(pol.chisq < 0.25 * pol.chisq_lm);
	assert_non_null(strstr(pol.polish_reason, "simplex size"));
	/* its chisq is the one at the reported (rounded) values */
	for (int i = 0; i < pol.n_resid; i++)
		assert_true(isfinite(pol.resid[i].rel_err));
	calib_result_free(&pol);

	/* a point limit ends it, and says so */
	cs.polish = 1;
	err_clear(&err);
	calib_fit(&cs, &sy.cr, NULL, &pol, &err);
	assert_true(pol.polish_points >= cs.n_par + 1 && pol.polish_points <= 1 + 2 * cs.n_par + 2);
	assert_non_null(strstr(pol.polish_reason, "the limit"));
	calib_result_free(&pol);
	calib_result_free(&res);
	syn_end(&sy);
}

/* The simulator's double, but where copy_byte is above 2 the run reaches a
 * state the model does not follow (sim_fail), and where it is above 50 the
 * input itself is refused. */
static int fake_run_limited(const struct scenario *sc, struct metrics *m, struct tcpsim_err *err)
{
	double copy = sc->host[0].cost_cycles[COST_COPY_BYTE];
	if (copy > 50)
		return err_set(err, TCPSIM_EUSAGE, "fake: refused");
	if (copy > 2) {
		err->model_limit = true;
		return err_set(err, TCPSIM_EUSAGE, "fake: backlog overflowed");
	}
	return fake_run(sc, m, err);
}

static void test_fit_survives_model_limits(void **state)
{
	struct syn sy;
	struct calib_setup cs;
	struct calib_result res;
	struct calib_validation v;
	struct tcpsim_err err = {0};
	bool train[4] = {true, true, true, false};
	(void)state;

	syn_begin(&sy, fake_run, 4, -1);
	/* starts scanned over 0.5..40 cross the limit: those evaluations are
	 * missing predictions, not the end of the fit */
	setup_fit(&cs, &sy.cr, fake_run_limited, "cost.copy_byte=0.5:40,cost.tx_frame,cost.syscall");
	cs.starts = 8;
	assert_int_equal(calib_fit(&cs, &sy.cr, NULL, &res, &err), TCPSIM_OK);
	assert_true(res.model_limits > 0);
	assert_non_null(strstr(res.model_limit_msg, "backlog overflowed"));
	assert_within(res.value[0], truth_copy, 1e-3);
	calib_result_free(&res);

	/* validate: a held-out run the model cannot follow has no prediction,
	 * and says why; the others are predicted */
	sy.cr.base[3].host[0].cost_cycles[COST_COPY_BYTE] = 3; /* not fitted below: only tx_frame is */
	setup_fit(&cs, &sy.cr, fake_run_limited, "cost.tx_frame");
	assert_int_equal(calib_validate(&cs, &sy.cr, CALIB_HOLDOUT_TRAIN, train, &v, &err), TCPSIM_OK);
	assert_non_null(v.no_pred_why[3]);
	assert_non_null(strstr(v.no_pred_why[3], "backlog overflowed"));
	assert_true(isnan(v.pred[3].v[METRIC_THROUGHPUT_MBPS]));
	assert_null(v.no_pred_why[0]);
	assert_true(v.pred[0].v[METRIC_THROUGHPUT_MBPS] > 0);
	calib_validation_free(&v);

	/* any other failure still ends the fit, with its message */
	sy.cr.base[3].host[0].cost_cycles[COST_COPY_BYTE] = 60;
	assert_int_equal(calib_validate(&cs, &sy.cr, CALIB_HOLDOUT_TRAIN, train, &v, &err), TCPSIM_EUSAGE);
	assert_non_null(strstr(err.msg, "fake: refused"));
	calib_validation_free(&v);
	syn_end(&sy);
}

/* ---- leave-one-out and train masks ------------------------------------------------ */

static void test_loo_bookkeeping(void **state)
{
	struct syn sy;
	struct calib_setup cs;
	struct calib_validation v, vin;
	struct tcpsim_err err = {0};
	const int outlier = 2;
	(void)state;

	/* run 2's throughput is recorded 30% high: no cost set fits all four */
	syn_begin(&sy, fake_run, 4, outlier);
	setup_fit(&cs, &sy.cr, fake_run, "cost.copy_byte,cost.tx_frame,cost.syscall");

	assert_int_equal(calib_validate(&cs, &sy.cr, CALIB_HOLDOUT_LOO, NULL, &v, &err), TCPSIM_OK);
	assert_int_equal(v.n_folds, 4);
	for (int i = 0; i < 4; i++) {
		/* fold i is fitted to every run but i, and predicts i */
		for (int k = 0; k < 4; k++)
			assert_int_equal(v.fold_train[i][k], k != i);
		assert_int_equal(v.fold[i], i);
		assert_true(v.held_out[i]);
		assert_int_equal(v.folds[i].n_runs, 3);
		for (int r = 0; r < v.folds[i].n_resid; r++)
			assert_int_not_equal(v.folds[i].resid[r].run, i);
		/* the prediction is fold i's model of run i, nothing else */
		struct metrics want[4];
		bool only[4] = {false};
		only[i] = true;
		assert_int_equal(calib_predict(&cs, &sy.cr, only, v.folds[i].value, want, &err), TCPSIM_OK);
		assert_memory_equal(v.pred[i].v, want[i].v, sizeof(want[i].v));
	}
	/* the fold without the outlier recovers the truth exactly ... */
	assert_within(v.folds[outlier].value[0], truth_copy, 1e-3);
	assert_within(v.folds[outlier].value[1], truth_tx, 1e-3);
	assert_within(v.folds[outlier].value[2], truth_sys, 1e-3);
	/* ... and sees the outlier's 30% for what it is; folds that include it do not */
	double e_out = calib_error_pct(sy.rs.runs[outlier].v[METRIC_THROUGHPUT_MBPS], v.pred[outlier].v[METRIC_THROUGHPUT_MBPS]);
	assert_within(e_out, 100 * (1 / 1.3 - 1), 1e-3);
	assert_false(fabs(v.folds[0].value[0] / truth_copy - 1) < 1e-3);

	/* in-sample, the outlier looks better than held out: that is why we hold out */
	assert_int_equal(calib_validate(&cs, &sy.cr, CALIB_HOLDOUT_NONE, NULL, &vin, &err), TCPSIM_OK);
	assert_int_equal(vin.n_folds, 1);
	for (int i = 0; i < 4; i++) {
		assert_false(vin.held_out[i]);
		assert_int_equal(vin.fold[i], 0);
	}
	double e_in = calib_error_pct(sy.rs.runs[outlier].v[METRIC_THROUGHPUT_MBPS], vin.pred[outlier].v[METRIC_THROUGHPUT_MBPS]);
	assert_true(fabs(e_in) < fabs(e_out));

	calib_validation_free(&vin);
	calib_validation_free(&v);
	syn_end(&sy);
}

/* A parameter scoped to some runs is set in those only; the others keep theirs. */
static void test_scoped_parameter(void **state)
{
	struct run_set rs;
	struct calib_runs cr = {0};
	struct calib_setup cs;
	struct calib_result res;
	struct tcpsim_err err = {0};
	(void)state;

	/* runs 2 and 3 are "another machine": tx_frame 30000, in their scenario */
	runs_init(&rs);
	for (int i = 0; i < 4; i++) {
		char id[32];
		snprintf(id, sizeof(id), "syn-%d", i);
		add_synthetic_tx(&rs, fake_run, id, settings[i][0], settings[i][1], 1.0, i < 2 ? truth_tx : 30000);
	}
	assert_int_equal(calib_runs_build(&cr, &rs, NULL, false, &err), TCPSIM_OK);
	setup_fit(&cs, &cr, fake_run, "cost.copy_byte,cost.tx_frame@app.send_size=8K|1024,cost.syscall");
	assert_string_equal(cs.par[1].scope_key, "app.send_size");
	for (int i = 0; i < 4; i++)
		assert_int_equal(calib_param_applies(&cs.par[1], &cr.base[i]), i < 2);
	assert_true(cs.par[1].start == 24000 && !cs.par[1].start_varies);
	assert_int_equal(calib_fit(&cs, &cr, NULL, &res, &err), TCPSIM_OK);
	assert_within(res.value[0], truth_copy, 1e-4);
	assert_within(res.value[1], truth_tx, 1e-4);
	assert_within(res.value[2], truth_sys, 1e-4);
	assert_true(res.chisq < 1e-8);   /* runs 2 and 3 kept their 30000 */
	calib_result_free(&res);

	/* unscoped, the two machines cannot both be right */
	setup_fit(&cs, &cr, fake_run, "cost.copy_byte,cost.tx_frame,cost.syscall");
	assert_true(cs.par[1].start_varies);
	assert_int_equal(calib_fit(&cs, &cr, NULL, &res, &err), TCPSIM_OK);
	assert_true(res.chisq > 1e-4);
	calib_result_free(&res);
	calib_runs_free(&cr);
	runs_free(&rs);
}

static void test_train_where(void **state)
{
	struct syn sy;
	struct calib_setup cs;
	struct calib_validation v;
	struct tcpsim_err err = {0};
	bool train[4];
	(void)state;

	syn_begin(&sy, fake_run, 4, -1);
	/* values compare as config prints them: 16384 is the run's 16K */
	assert_int_equal(calib_parse_train_where(&sy.cr, "app.send_size=8192,16384", train, &err), TCPSIM_OK);
	assert_true(train[0] && !train[1] && train[2] && !train[3]);

	setup_fit(&cs, &sy.cr, fake_run, "cost.copy_byte");
	assert_int_equal(calib_validate(&cs, &sy.cr, CALIB_HOLDOUT_TRAIN, train, &v, &err), TCPSIM_OK);
	for (int i = 0; i < 4; i++)
		assert_int_equal(v.held_out[i], !train[i]);
	calib_validation_free(&v);

	/* no run to fit, no run to predict */
	assert_int_equal(calib_parse_train_where(&sy.cr, "app.send_size=7", train, &err), TCPSIM_OK);
	assert_int_equal(calib_validate(&cs, &sy.cr, CALIB_HOLDOUT_TRAIN, train, &v, &err), TCPSIM_EUSAGE);
	assert_non_null(strstr(err.msg, "no run to fit"));
	calib_validation_free(&v);
	err_clear(&err);
	assert_int_equal(calib_parse_train_where(&sy.cr, "host.cpus=2", train, &err), TCPSIM_OK);
	assert_int_equal(calib_validate(&cs, &sy.cr, CALIB_HOLDOUT_TRAIN, train, &v, &err), TCPSIM_EUSAGE);
	assert_non_null(strstr(err.msg, "no run to predict"));
	calib_validation_free(&v);
	err_clear(&err);
	assert_int_equal(calib_parse_train_where(&sy.cr, "app.sendsize=1", train, &err), TCPSIM_EUSAGE);
	assert_non_null(strstr(err.msg, "unknown key 'app.sendsize'"));

	syn_end(&sy);
}

/* ---- errors ------------------------------------------------------------------------- */

static void expect_fit_error(const struct calib_runs *cr, const char *list, const char *needle)
{
	struct calib_setup cs;
	struct tcpsim_err err = {0};
	calib_setup_init(&cs);
	assert_int_equal(calib_parse_fit(&cs, list, cr, &err), TCPSIM_EUSAGE);
	if (!strstr(err.msg, needle))
		fail_msg("--fit %s: message '%s' lacks '%s'", list, err.msg, needle);
}

static void test_parse_errors(void **state)
{
	struct syn sy;
	struct calib_setup cs;
	struct tcpsim_err err = {0};
	(void)state;

	syn_begin(&sy, fake_run, 2, -1);
	assert_int_equal(config_set(&sy.cr.base[0], "cost.gro_seg", "0", "test", &err), TCPSIM_OK);
	expect_fit_error(&sy.cr, "cost.copy_bite", "unknown key");
	expect_fit_error(&sy.cr, "link.mtu", "only [cost] and [rcost]");
	expect_fit_error(&sy.cr, "cost.copy_byte,cost.copy_byte", "named twice");
	expect_fit_error(&sy.cr, "cost.gro_seg", "must start above 0");
	expect_fit_error(&sy.cr, "cost.copy_byte=2:1", "0 < LO < HI");
	expect_fit_error(&sy.cr, "cost.copy_byte=2:3", "not inside");
	expect_fit_error(&sy.cr, "cost.copy_byte=0.1:1e9", "above the key's maximum");
	expect_fit_error(&sy.cr, "cost.copy_byte=a:b", "not numbers");
	expect_fit_error(&sy.cr, "", "empty list");
	expect_fit_error(&sy.cr, "cost.copy_byte@host.nam=x", "unknown key 'host.nam'");
	expect_fit_error(&sy.cr, "cost.copy_byte@host.name=nobody", "no run has host.name in {nobody}");
	expect_fit_error(&sy.cr, "cost.copy_byte@link.mtu=12", "mtu");
	syn_end(&sy);

	calib_setup_init(&cs);
	assert_int_equal(calib_parse_weights(&cs, "throughput_mbps=2,others=0", &err), TCPSIM_OK);
	assert_true(cs.weight[METRIC_THROUGHPUT_MBPS] == 2 && cs.weight[METRIC_CS_PER_S] == 0);
	assert_int_equal(calib_parse_weights(&cs, "thruput=1", &err), TCPSIM_EUSAGE);
	assert_non_null(strstr(err.msg, "unknown metric 'thruput'"));
	err_clear(&err);
	assert_int_equal(calib_parse_weights(&cs, "cs_per_s=-1", &err), TCPSIM_EUSAGE);
	assert_non_null(strstr(err.msg, "not a weight"));
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_run_errors(void **state)
{
	char dir[] = "/tmp/test_calib.XXXXXX", path[128];
	struct run_set rs;
	struct calib_runs cr = {0};
	struct calib_setup cs;
	struct calib_result res;
	struct tcpsim_err err = {0};
	(void)state;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/runs.csv", dir);

	/* a scenario that does not exist: file, line and run named */
	write_file(path, "id,source,scenario,overrides,throughput_mbps\n"
			 "a,test," LO_CFG ",,100\n"
			 "b,test,scenarios/nope.cfg,,100\n");
	runs_init(&rs);
	assert_int_equal(runs_load(&rs, path, &err), TCPSIM_OK);
	assert_int_equal(calib_runs_build(&cr, &rs, NULL, false, &err), TCPSIM_EUSAGE);
	assert_non_null(strstr(err.msg, "runs.csv:3: run 'b'"));
	assert_non_null(strstr(err.msg, "nope.cfg"));
	calib_runs_free(&cr);
	runs_free(&rs);

	/* an override the config refuses */
	err_clear(&err);
	write_file(path, "id,source,scenario,overrides,throughput_mbps\n"
			 "a,test," LO_CFG ",link.mtu=12,100\n");
	runs_init(&rs);
	assert_int_equal(runs_load(&rs, path, &err), TCPSIM_OK);
	assert_int_equal(calib_runs_build(&cr, &rs, NULL, false, &err), TCPSIM_EUSAGE);
	assert_non_null(strstr(err.msg, "runs.csv:2: run 'a'"));
	assert_non_null(strstr(err.msg, "mtu"));
	calib_runs_free(&cr);

	/* fewer measured values than parameters */
	err_clear(&err);
	write_file(path, "id,source,scenario,overrides,throughput_mbps\n"
			 "a,test," LO_CFG ",,100\n");
	runs_free(&rs);
	runs_init(&rs);
	assert_int_equal(runs_load(&rs, path, &err), TCPSIM_OK);
	assert_int_equal(calib_runs_build(&cr, &rs, NULL, false, &err), TCPSIM_OK);
	setup_fit(&cs, &cr, fake_run, "cost.copy_byte,cost.tx_frame");
	assert_int_equal(calib_fit(&cs, &cr, NULL, &res, &err), TCPSIM_EUSAGE);
	assert_non_null(strstr(err.msg, "fewer than the 2 parameters"));
	calib_result_free(&res);
	calib_runs_free(&cr);
	runs_free(&rs);

	/* a metric the CSV names that does not exist is refused when it is read */
	err_clear(&err);
	write_file(path, "id,source,scenario,overrides,thruput_mbps\n"
			 "a,test," LO_CFG ",,100\n");
	runs_init(&rs);
	assert_int_equal(runs_load(&rs, path, &err), TCPSIM_EUSAGE);
	assert_non_null(strstr(err.msg, "thruput_mbps"));
	runs_free(&rs);

	unlink(path);
	assert_int_equal(rmdir(dir), 0);
}

/* ---- targets ------------------------------------------------------------------------ */

static void test_targets(void **state)
{
	char dir[] = "/tmp/test_calib.XXXXXX", path[128];
	struct run_set rs;
	struct target_set ts;
	struct target_outcome oc[8];
	struct metrics pred[3];
	struct tcpsim_err err = {0};
	bool held[3] = {true, true, false};
	(void)state;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/targets.csv", dir);
	runs_init(&rs);
	const char *ids[3] = {"base", "new", "third"};
	const double meas[3] = {100, 146.4, 50};
	const double pr[3] = {100, 150, 80};
	for (int i = 0; i < 3; i++) {
		struct recorded_run *r = runs_add(&rs, ids[i], "test", LO_CFG, "", "", &err);
		assert_non_null(r);
		r->v[METRIC_THROUGHPUT_MBPS] = meas[i];
		memset(&pred[i], 0, sizeof(pred[i]));
		pred[i].v[METRIC_THROUGHPUT_MBPS] = pr[i];
		pred[i].bottleneck = i == 0 ? BOTTLENECK_CPU : BOTTLENECK_WIRE;
		/* busier CPU: measured the sender's in all three, predicted
		 * the sender's in 'base' and 'new', the receiver's in 'third' */
		r->v[METRIC_SND_CPU_BUSY_PCT] = 99;
		r->v[METRIC_RCV_CPU_BUSY_PCT] = 80;
		pred[i].v[METRIC_SND_CPU_BUSY_PCT] = i == 2 ? 70 : 100;
		pred[i].v[METRIC_RCV_CPU_BUSY_PCT] = 90;
	}
	write_file(path, "check,metric,run,base,limit,expect,lacks\n"
			 "change,throughput_mbps,new,base,10,,\n"                 /* +46.4 vs +50: met */
			 "change,throughput_mbps,new,base,3,,\"a reason\"\n"      /* 3.6 points: missed */
			 "median_abs_error,throughput_mbps,,,5,,\n"               /* held: 0%, 2.5%: met */
			 "bottleneck,,base,,,cpu,\n"
			 "bottleneck,,new,,,cpu,wire-bound in the model\n"
			 "train_median_abs_error,throughput_mbps,,,50,,\n"       /* 'third' alone: 60%: missed */
			 "busier_cpu,,,,60,,\n"                                  /* 2 of 3: met */
			 "busier_cpu,,,,100,,\n");                               /* every run: missed */
	assert_int_equal(targets_load(&ts, path, &err), TCPSIM_OK);
	assert_int_equal(ts.n, 8);
	assert_int_equal(targets_eval(&ts, &rs, pred, held, oc, &err), TCPSIM_OK);
	assert_true(oc[0].met);
	assert_within(oc[0].measured, 46.4, 1e-9);
	assert_within(oc[0].predicted, 50, 1e-9);
	assert_false(oc[1].met);
	assert_string_equal(ts.t[1].lacks, "a reason");
	assert_true(oc[2].met);
	assert_int_equal(oc[2].n, 2);   /* 'third' is not held out: not in the statistic */
	assert_within(oc[2].predicted, (0 + 100 * (150 / 146.4 - 1)) / 2, 1e-9);
	assert_true(oc[3].met);
	assert_false(oc[4].met);
	assert_false(oc[5].met);
	assert_int_equal(oc[5].n, 1);   /* only 'third' was fitted */
	assert_within(oc[5].predicted, 60, 1e-9);
	assert_true(oc[6].met);
	assert_int_equal(oc[6].n, 3);
	assert_within(oc[6].predicted, 200.0 / 3, 1e-9);
	assert_false(oc[7].met);
	targets_free(&ts);

	/* errors: file:line and column */
	write_file(path, "check,metric,limit\nchange,thruput,3\n");
	assert_int_equal(targets_load(&ts, path, &err), TCPSIM_EUSAGE);
	assert_non_null(strstr(err.msg, "targets.csv:2: column 'metric'"));
	err_clear(&err);
	write_file(path, "check,metric,limit\nguess,throughput_mbps,3\n");
	assert_int_equal(targets_load(&ts, path, &err), TCPSIM_EUSAGE);
	assert_non_null(strstr(err.msg, "targets.csv:2: column 'check'"));
	err_clear(&err);
	write_file(path, "check,metric,run,base,limit\nchange,throughput_mbps,new,nobody,3\n");
	assert_int_equal(targets_load(&ts, path, &err), TCPSIM_OK);
	assert_int_equal(targets_eval(&ts, &rs, pred, NULL, oc, &err), TCPSIM_EUSAGE);
	assert_non_null(strstr(err.msg, "targets.csv:2: column 'base': no run 'nobody'"));
	targets_free(&ts);
	err_clear(&err);
	write_file(path, "check,metric,limit\nbusier_cpu,throughput_mbps,100\n");
	assert_int_equal(targets_load(&ts, path, &err), TCPSIM_EUSAGE);
	assert_non_null(strstr(err.msg, "targets.csv:2: column 'metric': 'throughput_mbps' given to a busier_cpu check"));
	err_clear(&err);
	write_file(path, "check,metrik\n");
	assert_int_equal(targets_load(&ts, path, &err), TCPSIM_EUSAGE);
	assert_non_null(strstr(err.msg, "unknown column 'metrik'"));

	runs_free(&rs);
	unlink(path);
	assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_run_errors),
		cmocka_unit_test(test_targets),
		cmocka_unit_test(test_fake_recovery_and_profile),
		cmocka_unit_test(test_fake_at_bound),
		cmocka_unit_test(test_fake_no_convergence),
		cmocka_unit_test(test_polish_walks_off_a_plateau),
		cmocka_unit_test(test_loo_bookkeeping),
		cmocka_unit_test(test_train_where),
		cmocka_unit_test(test_scoped_parameter),
		cmocka_unit_test(test_fit_survives_model_limits),
		cmocka_unit_test(test_batch_deterministic),
		cmocka_unit_test(test_recover_known_costs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
