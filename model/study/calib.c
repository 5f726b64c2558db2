/*
 * calib: weighted non-linear least squares of cost parameters against
 * recorded runs, and held-out prediction (see calib.h for the contract).
 *
 * The solver is GSL's multifit_nlinear trust-region method with
 * Levenberg-Marquardt steps (GSL Reference Manual, "Nonlinear Least-Squares
 * Fitting"; More, "The Levenberg-Marquardt algorithm: implementation and
 * theory", 1978 for the scaling).  The residual vector and its forward-
 * difference Jacobian are computed here in parallel batches of simulator
 * runs; GSL only sees f(u) and J(u) in the transformed parameters u.
 *
 * Convergence: GSL's own test (small step or small gradient), or an
 * accepted step that changes no parameter by more than 1e-4 relative, or
 * one that lowers chisq by less than 1e-8 relative, or -- after at least
 * one accepted step -- two calls in a row in which no trial step lowers
 * chisq (GSL_ENOPROG; GSL resets the damping after the first, as its own
 * driver expects: the piecewise simulator has no finer slope to follow).
 * ENOPROG on the very first step is, as in GSL's driver, a fit that did not
 * converge -- unless the start is the best of a scan of starts, which is
 * then the answer at the simulator's resolution.  max_iter steps without
 * any of these is a fit that did not converge (TCPSIM_EFIT).
 *
 * Polish (setup.polish > 0, calib.h): GSL's nmsimplex2 on chisq(u) from
 * the solver's end point.  It ends when its size falls below
 * CALIB_POLISH_SIZE (which also counts as converged when the solver did
 * not), at the point limit, or when GSL says it cannot go on.
 */
#include "calib.h"
#include "outfile.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <gsl/gsl_blas.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_multifit_nlinear.h>
#include <gsl/gsl_multimin.h>
#include <gsl/gsl_vector.h>

#include "config.h"
#include "cost.h"
#include "datadir.h"
#include "tcpsim.h"
#include "util.h"

#define FIT_XTOL_REL 1e-4     /* largest |d ln p| of an accepted step that counts as converged */
#define FIT_FTOL_REL 1e-8     /* relative chisq decrease that counts as converged */
#define FIT_GTOL 1e-8         /* GSL's gradient test */
#define FIT_COVAR_EPSREL 1e-8 /* columns of J with |R_jj| below this * |R_11| are dependent */
#define FIT_CACHE_N 4         /* f(u) points kept for the Jacobian's base point */

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ---- setup --------------------------------------------------------------- */

void calib_setup_init(struct calib_setup *cs)
{
	memset(cs, 0, sizeof(*cs));
	for (int m = 0; m < METRIC_N; m++)
		cs->weight[m] = 1.0;
	cs->rel_step = CALIB_DEFAULT_STEP;
	cs->max_iter = CALIB_DEFAULT_MAX_ITER;
	cs->starts = 1;
	cs->jobs = 1;
	cs->run = tcpsim_run;
}

/* The cost table row of "cost.X" / "rcost.X", or -1; *host = 0 or 1. */
static int cost_of_key(const char *key, int *host)
{
	const char *name;
	if (strncmp(key, "cost.", 5) == 0) {
		*host = 0;
		name = key + 5;
	} else if (strncmp(key, "rcost.", 6) == 0) {
		*host = 1;
		name = key + 6;
	} else {
		return -1;
	}
	for (int c = 0; c < COST_N; c++)
		if (strcmp(cost_table[c].key, name) == 0)
			return c;
	return -1;
}

int calib_param_applies(const struct calib_param *p, const struct scenario *sc)
{
	char val[256];
	const char *v = p->scope_vals;

	if (!p->scope_key[0])
		return 1;
	if (config_get(sc, p->scope_key, val, sizeof(val)) != 0)
		return 0;
	while (*v) {
		size_t n = strcspn(v, "|");
		if (n == strlen(val) && strncmp(v, val, n) == 0)
			return 1;
		v += n + (v[n] == '|');
	}
	return 0;
}

/* "SKEY=V1|V2" into p->scope_*, values canonical through config_set/config_get on *ref. */
static int parse_scope(struct calib_param *p, const char *item, char *scope, const struct scenario *ref,
		       struct tcpsim_err *err)
{
	char *eq = strchr(scope, '='), *save = NULL;
	size_t used = 0;

	if (!eq || eq == scope || !eq[1])
		return err_set(err, TCPSIM_EUSAGE, "--fit %s@%s: a scope is @KEY=V1|V2", item, scope);
	*eq = '\0';
	if (!config_key_exists(scope))
		return err_set(err, TCPSIM_EUSAGE, "--fit %s@%s: unknown key '%s'", item, scope, scope);
	if (strlen(scope) >= sizeof(p->scope_key))
		return err_set(err, TCPSIM_EUSAGE, "--fit %s: scope key too long", item);
	snprintf(p->scope_key, sizeof(p->scope_key), "%s", scope);
	for (char *v = strtok_r(eq + 1, "|", &save); v; v = strtok_r(NULL, "|", &save)) {
		struct scenario tmp = *ref;
		struct tcpsim_err e = {0};
		char where[256], canon[128];
		snprintf(where, sizeof(where), "--fit %s@%s", item, scope);
		if (config_set(&tmp, scope, v, where, &e) != TCPSIM_OK)
			return err_set(err, TCPSIM_EUSAGE, "%s", e.msg);
		if (config_get(&tmp, scope, canon, sizeof(canon)) != 0 ||
		    used + strlen(canon) + 2 > sizeof(p->scope_vals))
			return err_set(err, TCPSIM_EUSAGE, "%s: scope values too long", where);
		used += (size_t)snprintf(p->scope_vals + used, sizeof(p->scope_vals) - used, "%s%s",
					 used ? "|" : "", canon);
	}
	return TCPSIM_OK;
}

static int parse_one_param(struct calib_setup *cs, char *item, const struct calib_runs *cr,
			   struct tcpsim_err *err)
{
	struct calib_param *p;
	char *scope = strchr(item, '@');
	char *range;
	char text[64];
	const struct scenario *start_from = NULL;
	int host, c;

	if (scope)
		*scope++ = '\0';
	range = strchr(item, '=');
	if (range)
		*range++ = '\0';
	if (!*item)
		return err_set(err, TCPSIM_EUSAGE, "--fit: empty key in the list");
	if (!config_key_exists(item))
		return err_set(err, TCPSIM_EUSAGE, "--fit %s: unknown key (see tcpsim --help-config)", item);
	c = cost_of_key(item, &host);
	if (c < 0)
		return err_set(err, TCPSIM_EUSAGE,
			       "--fit %s: only [cost] and [rcost] keys (positive per-unit costs) can be fitted",
			       item);
	if (strlen(item) >= CALIB_KEY_MAX)
		return err_set(err, TCPSIM_EUSAGE, "--fit %s: key too long", item);
	for (int i = 0; i < cs->n_par; i++)
		if (strcmp(cs->par[i].key, item) == 0)
			return err_set(err, TCPSIM_EUSAGE, "--fit %s: named twice", item);
	if (cs->n_par == CALIB_MAX_PARAMS)
		return err_set(err, TCPSIM_EUSAGE, "--fit: at most %d parameters", CALIB_MAX_PARAMS);
	p = &cs->par[cs->n_par];
	memset(p, 0, sizeof(*p));
	snprintf(p->key, sizeof(p->key), "%s", item);
	if (scope && parse_scope(p, item, scope, &cr->base[0], err) != TCPSIM_OK)
		return err->code;
	for (int i = 0; i < cr->rs->n; i++) {
		double v;
		if (!calib_param_applies(p, &cr->base[i]))
			continue;
		if (config_get(&cr->base[i], item, text, sizeof(text)) != 0 || !parse_finite(text, &v))
			return err_set(err, TCPSIM_EUSAGE, "--fit %s: cannot read its value in run '%s'", item,
				       cr->rs->runs[i].id);
		if (!start_from) {
			start_from = &cr->base[i];
			p->start = v;
		} else if (v != p->start) {
			p->start_varies = true;
		}
	}
	if (!start_from)
		return err_set(err, TCPSIM_EUSAGE, "--fit %s@%s: no run has %s in {%s}", item, scope ? scope : "",
			       p->scope_key, p->scope_vals);
	if (!(p->start > 0))
		return err_set(err, TCPSIM_EUSAGE,
			       "--fit %s: start value is %g; a fitted cost must start above 0 (set it in the profile)",
			       item, p->start);
	if (range) {
		char *colon = strchr(range, ':');
		if (!colon)
			return err_set(err, TCPSIM_EUSAGE, "--fit %s=%s: bounds must be LO:HI", item, range);
		*colon = '\0';
		if (!parse_finite(range, &p->lo) || !parse_finite(colon + 1, &p->hi))
			return err_set(err, TCPSIM_EUSAGE, "--fit %s: bounds '%s:%s' are not numbers", item,
				       range, colon + 1);
		if (!(p->lo > 0 && p->lo < p->hi))
			return err_set(err, TCPSIM_EUSAGE, "--fit %s: bounds need 0 < LO < HI (got %g:%g)",
				       item, p->lo, p->hi);
		if (p->hi > cost_table[c].max_cycles)
			return err_set(err, TCPSIM_EUSAGE, "--fit %s: upper bound %g is above the key's maximum %g",
				       item, p->hi, cost_table[c].max_cycles);
		if (!(p->start > p->lo && p->start < p->hi))
			return err_set(err, TCPSIM_EUSAGE, "--fit %s: start value %g is not inside %g:%g", item,
				       p->start, p->lo, p->hi);
	} else {
		p->lo = p->start / CALIB_DEFAULT_RANGE;
		p->hi = p->start * CALIB_DEFAULT_RANGE;
		if (p->hi > cost_table[c].max_cycles)
			p->hi = cost_table[c].max_cycles;
		if (!(p->start < p->hi))
			return err_set(err, TCPSIM_EUSAGE, "--fit %s: start value %g is at the key's maximum %g",
				       item, p->start, cost_table[c].max_cycles);
	}
	cs->n_par++;
	return TCPSIM_OK;
}

int calib_parse_fit(struct calib_setup *cs, const char *list, const struct calib_runs *cr,
		    struct tcpsim_err *err)
{
	char *copy = xstrdup(list), *save = NULL;
	int rc = TCPSIM_OK;

	if (!*list)
		rc = err_set(err, TCPSIM_EUSAGE, "--fit: empty list (expected KEY,KEY,...)");
	for (char *item = strtok_r(copy, ",", &save); item && !rc; item = strtok_r(NULL, ",", &save))
		rc = parse_one_param(cs, item, cr, err);
	free(copy);
	return rc;
}

int calib_parse_weights(struct calib_setup *cs, const char *list, struct tcpsim_err *err)
{
	char *copy = xstrdup(list), *save = NULL;
	bool named[METRIC_N] = {false};
	double others = NAN;
	int rc = TCPSIM_OK;

	if (!*list)
		rc = err_set(err, TCPSIM_EUSAGE, "--weight: empty list (expected METRIC=W,...)");
	for (char *item = strtok_r(copy, ",", &save); item && !rc; item = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(item, '=');
		double w;
		int m;
		if (!eq) {
			rc = err_set(err, TCPSIM_EUSAGE, "--weight %s: expected METRIC=W", item);
			break;
		}
		*eq = '\0';
		if (!parse_finite(eq + 1, &w) || w < 0) {
			rc = err_set(err, TCPSIM_EUSAGE, "--weight %s: '%s' is not a weight >= 0", item, eq + 1);
			break;
		}
		if (strcmp(item, "others") == 0) {
			others = w;
			continue;
		}
		m = metric_find(item);
		if (m < 0) {
			rc = err_set(err, TCPSIM_EUSAGE,
				     "--weight: unknown metric '%s' (a column of tcpsim run --format csv, or 'others')",
				     item);
			break;
		}
		cs->weight[m] = w;
		named[m] = true;
	}
	if (!rc && !isnan(others))
		for (int m = 0; m < METRIC_N; m++)
			if (!named[m])
				cs->weight[m] = others;
	free(copy);
	return rc;
}

/* ---- scenarios of the runs ------------------------------------------------- */

static void run_where(const struct recorded_run *r, char *buf, size_t n)
{
	if (r->file && r->line > 0)
		snprintf(buf, n, "%s:%d: run '%s'", r->file, r->line, r->id);
	else
		snprintf(buf, n, "run '%s'", r->id);
}

static double batch_now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int runs_build(struct calib_runs *cr, const struct run_set *rs, const char *profile,
		      bool keep_jitter, struct tcpsim_err *err)
{
	double last = batch_now_s();

	cr->rs = rs;
	cr->base = xcalloc((size_t)(rs->n > 0 ? rs->n : 1), sizeof(*cr->base));
	for (int i = 0; i < rs->n; i++) {
		const struct recorded_run *r = &rs->runs[i];
		if (cr->progress && (i & 255) == 255 && batch_now_s() - last >= 0.5) {
			last = batch_now_s();
			fprintf(cr->progress, "\r\033[K%d/%d scenarios loaded", i + 1, rs->n);
			fflush(cr->progress);
		}
		struct scenario *sc = &cr->base[i];
		struct tcpsim_err e = {0};
		char where[512], origin[600];

		run_where(r, where, sizeof(where));
		config_defaults(sc);
		char *path = runs_scenario_path(r);
		if (!path)
			return err_set(err, TCPSIM_EUSAGE,
				       "%s: scenario: cannot find '%s' beside %s or above it, in the current "
				       "directory or in %s", where, r->scenario, r->file ? r->file : "the runs",
				       datadir_path());
		int loaded = config_load(sc, path, &e);
		free(path);
		if (loaded != TCPSIM_OK)
			return err_set(err, TCPSIM_EUSAGE, "%s: scenario: %s", where, e.msg);
		if (profile && config_load(sc, profile, &e) != TCPSIM_OK)
			return err_set(err, TCPSIM_EUSAGE, "%s: profile: %s", where, e.msg);
		for (int k = 0; k < r->n_ov; k++) {
			snprintf(origin, sizeof(origin), "%s: overrides '%s'", where, r->ov[k].assignment);
			if (config_set(sc, r->ov[k].key, r->ov[k].value, origin, &e) != TCPSIM_OK)
				return err_set(err, TCPSIM_EUSAGE, "%s", e.msg);
		}
		if (!keep_jitter && config_set(sc, "run.cost_jitter", "0", where, &e) != TCPSIM_OK)
			return err_set(err, e.code, "%s", e.msg);
		if (config_validate(sc, &e) != TCPSIM_OK)
			return err_set(err, TCPSIM_EUSAGE, "%s: %s", where, e.msg);
	}
	return TCPSIM_OK;
}

int calib_runs_build(struct calib_runs *cr, const struct run_set *rs, const char *profile,
		     bool keep_jitter, struct tcpsim_err *err)
{
	int rc = runs_build(cr, rs, profile, keep_jitter, err);
	if (cr->progress) {   /* an error message starts on a clean line */
		fputs("\r\033[K", cr->progress);
		fflush(cr->progress);
	}
	return rc;
}

void calib_runs_free(struct calib_runs *cr)
{
	free(cr->base);
	cr->base = NULL;
}

/* Copy base and set the parameters to p[]; validated. */
static int scenario_with(const struct calib_setup *cs, const struct scenario *base, const double *p,
			 struct scenario *out, struct tcpsim_err *err)
{
	char text[64];
	*out = *base;
	if (!p)
		return TCPSIM_OK;
	for (int j = 0; j < cs->n_par; j++) {
		if (!calib_param_applies(&cs->par[j], base))
			continue;
		snprintf(text, sizeof(text), "%.17g", p[j]);
		if (config_set(out, cs->par[j].key, text, "calibrate", err) != TCPSIM_OK)
			return err->code;
	}
	return config_validate(out, err);
}

/* ---- parallel batch -------------------------------------------------------- */

/* ---- transform --------------------------------------------------------------- */

static double sigmoid(double u)
{
	return u >= 0 ? 1.0 / (1.0 + exp(-u)) : exp(u) / (1.0 + exp(u));
}

/* p = lo * (hi/lo)^sigma(u) */
static double par_of_u(const struct calib_param *p, double u)
{
	return p->lo * exp(log(p->hi / p->lo) * sigmoid(u));
}

static double u_of_par(const struct calib_param *p, double v)
{
	double s = log(v / p->lo) / log(p->hi / p->lo);
	if (s <= 1e-12)
		s = 1e-12;
	if (s >= 1 - 1e-12)
		s = 1 - 1e-12;
	return log(s / (1 - s));
}

/* ---- the least-squares problem ------------------------------------------- */

struct resid_spec {
	int k;          /* index into fit_ctx.runs */
	int metric;
	double measured, sqrt_w;
	const struct rep_values *rv; /* the point's single runs (--fit-to runs), or NULL */
};

struct cache_entry {
	bool used;
	unsigned long age;
	double p[CALIB_MAX_PARAMS];
	struct metrics *m;   /* [n_runs] */
};

struct fit_ctx {
	const struct calib_setup *cs;
	const struct calib_runs *cr;
	int *runs;                /* indices of the fitted runs */
	int n_runs;
	struct resid_spec *spec;
	int n_resid;
	struct cache_entry cache[FIT_CACHE_N];
	unsigned long clock;
	int evaluations;
	int model_limits;          /* evaluations the model could not follow (sim_fail) */
	char model_limit_msg[512]; /* the first of them */
	bool failed;
	struct tcpsim_err err;
};

static void u_to_p(const struct fit_ctx *fc, const gsl_vector *u, double *p)
{
	for (int j = 0; j < fc->cs->n_par; j++)
		p[j] = par_of_u(&fc->cs->par[j], gsl_vector_get(u, (size_t)j));
}

static double resid_of(const struct resid_spec *s, const struct metrics *m)
{
	double pred = m->v[s->metric];
	if (!isfinite(pred))
		pred = 0;
	return s->sqrt_w * (pred / (s->rv ? reps_nearest(s->rv, pred) : s->measured) - 1.0);
}

static struct cache_entry *cache_find(struct fit_ctx *fc, const double *p)
{
	for (int c = 0; c < FIT_CACHE_N; c++) {
		struct cache_entry *e = &fc->cache[c];
		if (e->used && memcmp(e->p, p, sizeof(double) * (size_t)fc->cs->n_par) == 0) {
			e->age = ++fc->clock;
			return e;
		}
	}
	return NULL;
}

static struct cache_entry *cache_slot(struct fit_ctx *fc)
{
	struct cache_entry *old = &fc->cache[0];
	for (int c = 0; c < FIT_CACHE_N; c++) {
		if (!fc->cache[c].used)
			return &fc->cache[c];
		if (fc->cache[c].age < old->age)
			old = &fc->cache[c];
	}
	return old;
}

/*
 * Run sc[0..n-1] into m[]; a run that reaches a state the model does not
 * follow (sim_fail: err.model_limit) is not an error here but a missing
 * prediction: its metrics are NAN (a fit's residuals then count it as a
 * 100% miss, which steers the solver away from such parameters), *limits
 * counts it, msg keeps the first message, and why[i] (when why is given)
 * its own.  Any other failure is the result.
 */
static int run_tolerant(const struct calib_setup *cs, const struct scenario *sc, struct metrics *m, int n,
			FILE *progress, char **why, int *limits, char *msg, size_t msg_len, struct tcpsim_err *err)
{
	struct tcpsim_err *errs = xcalloc((size_t)(n > 0 ? n : 1), sizeof(*errs));
	int rc = TCPSIM_OK;

	if (batch_run_each(cs->run, sc, m, n, cs->jobs, progress, errs) > 0) {
		for (int i = 0; i < n && !rc; i++) {
			if (!errs[i].code)
				continue;
			if (!errs[i].model_limit) {
				rc = err_set(err, errs[i].code, "%s", errs[i].msg);
				break;
			}
			for (int k = 0; k < METRIC_N; k++)
				m[i].v[k] = NAN;
			if (limits && (*limits)++ == 0 && msg)
				snprintf(msg, msg_len, "%s", errs[i].msg);
			if (why)
				why[i] = xstrdup(errs[i].msg);
		}
	}
	free(errs);
	return rc;
}

/*
 * Simulate every fitted run at npts parameter points (p[pt * n_par + j])
 * into m[pt * n_runs + k], in one parallel batch.  0, or -1 with fc->err.
 */
static int eval_points(struct fit_ctx *fc, const double *p, int npts, struct metrics *m)
{
	const struct calib_setup *cs = fc->cs;
	int n = npts * fc->n_runs;
	struct scenario *sc = xmalloc(sizeof(*sc) * (size_t)(n > 0 ? n : 1));
	int rc = TCPSIM_OK;

	for (int pt = 0; pt < npts && !rc; pt++)
		for (int k = 0; k < fc->n_runs && !rc; k++)
			rc = scenario_with(cs, &fc->cr->base[fc->runs[k]], &p[pt * cs->n_par],
					   &sc[pt * fc->n_runs + k], &fc->err);
	if (!rc)
		rc = run_tolerant(cs, sc, m, n, NULL, NULL, &fc->model_limits, fc->model_limit_msg,
				  sizeof(fc->model_limit_msg), &fc->err);
	free(sc);
	fc->evaluations += n;
	if (rc) {
		fc->failed = true;
		return -1;
	}
	return 0;
}

/* Metrics of every fitted run at p, through the cache.  NULL on failure. */
static const struct metrics *eval_cached(struct fit_ctx *fc, const double *p)
{
	struct cache_entry *e = cache_find(fc, p);
	if (e)
		return e->m;
	e = cache_slot(fc);
	if (!e->m)
		e->m = xcalloc((size_t)fc->n_runs, sizeof(*e->m));
	e->used = false;
	if (eval_points(fc, p, 1, e->m) != 0)
		return NULL;
	memcpy(e->p, p, sizeof(double) * (size_t)fc->cs->n_par);
	e->used = true;
	e->age = ++fc->clock;
	return e->m;
}

static int fit_f(const gsl_vector *u, void *params, gsl_vector *f)
{
	struct fit_ctx *fc = params;
	double p[CALIB_MAX_PARAMS];
	const struct metrics *m;

	u_to_p(fc, u, p);
	m = eval_cached(fc, p);
	if (!m)
		return GSL_EBADFUNC;
	for (int i = 0; i < fc->n_resid; i++)
		gsl_vector_set(f, (size_t)i, resid_of(&fc->spec[i], &m[fc->spec[i].k]));
	return GSL_SUCCESS;
}

/* Step in u that changes p_j by about rel_step (d ln p / du = L s (1 - s)). */
static double fd_step(const struct calib_param *par, double u, double rel_step)
{
	double s = sigmoid(u);
	double slope = log(par->hi / par->lo) * s * (1 - s);
	double h = slope > 0 ? rel_step / slope : 1.0;
	return h > 1.0 ? 1.0 : h;
}

static int fit_df(const gsl_vector *u, void *params, gsl_matrix *J)
{
	struct fit_ctx *fc = params;
	const struct calib_setup *cs = fc->cs;
	int np = cs->n_par;
	double p0[CALIB_MAX_PARAMS], h[CALIB_MAX_PARAMS];
	double *pts = xmalloc(sizeof(double) * (size_t)(np * np));
	struct metrics *m = xcalloc((size_t)(np * fc->n_runs), sizeof(*m));
	const struct metrics *m0;
	int rc = GSL_SUCCESS;

	u_to_p(fc, u, p0);
	for (int j = 0; j < np; j++) {
		double uj = gsl_vector_get(u, (size_t)j);
		h[j] = fd_step(&cs->par[j], uj, cs->rel_step);
		for (int q = 0; q < np; q++)
			pts[j * np + q] = p0[q];
		pts[j * np + j] = par_of_u(&cs->par[j], uj + h[j]);
	}
	m0 = eval_cached(fc, p0);
	if (!m0 || eval_points(fc, pts, np, m) != 0) {
		rc = GSL_EBADFUNC;
		goto out;
	}
	for (int i = 0; i < fc->n_resid; i++) {
		const struct resid_spec *s = &fc->spec[i];
		double r0 = resid_of(s, &m0[s->k]);
		for (int j = 0; j < np; j++)
			gsl_matrix_set(J, (size_t)i, (size_t)j,
				       (resid_of(s, &m[j * fc->n_runs + s->k]) - r0) / h[j]);
	}
out:
	free(m);
	free(pts);
	return rc;
}

static void fit_ctx_free(struct fit_ctx *fc)
{
	for (int c = 0; c < FIT_CACHE_N; c++)
		free(fc->cache[c].m);
	free(fc->runs);
	free(fc->spec);
}

/* Which runs and residuals take part.  0, or an error. */
static int fit_ctx_init(struct fit_ctx *fc, const struct calib_setup *cs, const struct calib_runs *cr,
			const bool *train, struct tcpsim_err *err)
{
	const struct run_set *rs = cr->rs;

	memset(fc, 0, sizeof(*fc));
	fc->cs = cs;
	fc->cr = cr;
	fc->runs = xcalloc((size_t)(rs->n > 0 ? rs->n : 1), sizeof(int));
	fc->spec = xcalloc((size_t)(rs->n > 0 ? rs->n : 1) * METRIC_N, sizeof(*fc->spec));
	for (int i = 0; i < rs->n; i++) {
		const struct recorded_run *r = &rs->runs[i];
		int k;
		if (train && !train[i])
			continue;
		k = fc->n_runs++;
		fc->runs[k] = i;
		for (int mtr = 0; mtr < METRIC_N; mtr++) {
			double meas = r->v[mtr];
			if (!(cs->weight[mtr] > 0) || !isfinite(meas) || meas == 0)
				continue;
			const struct rep_values *rv = cs->fit_runs ? reps_of(cs->fit_runs, i, mtr) : NULL;
			for (int j = 0; rv && j < rv->n; j++)
				if (rv->v[j] == 0)
					rv = NULL; /* a relative error to 0: the median instead */
			fc->spec[fc->n_resid++] = (struct resid_spec){
				.k = k, .metric = mtr, .measured = meas, .sqrt_w = sqrt(cs->weight[mtr]), .rv = rv};
		}
	}
	if (cs->n_par < 1)
		return err_set(err, TCPSIM_EUSAGE, "calibrate: no parameter to fit (--fit KEY,...)");
	if (fc->n_runs == 0)
		return err_set(err, TCPSIM_EUSAGE, "calibrate: no run to fit");
	if (fc->n_resid < cs->n_par)
		return err_set(err, TCPSIM_EUSAGE,
			       "calibrate: %d measured value%s with weight > 0 in %d run%s, fewer than the %d "
			       "parameters to fit",
			       fc->n_resid, fc->n_resid == 1 ? "" : "s", fc->n_runs, fc->n_runs == 1 ? "" : "s",
			       cs->n_par);
	return TCPSIM_OK;
}

void calib_result_free(struct calib_result *res)
{
	free(res->resid);
	res->resid = NULL;
}

static double round6(double v)
{
	char buf[32];
	snprintf(buf, sizeof(buf), "%.6g", v);
	return strtod(buf, NULL);
}

/* A value as the fit reports it and the profile holds it: 6 significant
 * digits, inside the bounds. */
static double reportable(const struct calib_param *par, double v)
{
	v = round6(v);
	return v < par->lo ? par->lo : v > par->hi ? par->hi : v;
}

static double max_abs_dlnp(const struct calib_setup *cs, const double *a, const double *b)
{
	double mx = 0;
	for (int j = 0; j < cs->n_par; j++) {
		double d = fabs(log(b[j] / a[j]));
		if (d > mx)
			mx = d;
	}
	return mx;
}

/* Residual table at p (rounded values), chisq. */
static int final_residuals(struct fit_ctx *fc, const double *p, struct calib_result *res)
{
	const struct metrics *m = eval_cached(fc, p);
	if (!m)
		return -1;
	res->n_resid = fc->n_resid;
	res->resid = xcalloc((size_t)fc->n_resid, sizeof(*res->resid));
	res->chisq = 0;
	for (int i = 0; i < fc->n_resid; i++) {
		const struct resid_spec *s = &fc->spec[i];
		double r = resid_of(s, &m[s->k]);
		res->resid[i] = (struct calib_resid){
			.run = fc->runs[s->k],
			.metric = s->metric,
			.measured = s->measured,
			.predicted = m[s->k].v[s->metric],
			.rel_err = r / s->sqrt_w,
			.weight = s->sqrt_w * s->sqrt_w,
		};
		res->chisq += r * r;
	}
	return 0;
}

/* 95% intervals from J at the solution (see calib.h). */
static int confidence(const struct fit_ctx *fc, gsl_multifit_nlinear_workspace *w, const gsl_vector *u,
		      struct calib_result *res, struct tcpsim_err *err)
{
	const struct calib_setup *cs = fc->cs;
	gsl_matrix *J = gsl_multifit_nlinear_jac(w);
	gsl_matrix *cov = gsl_matrix_alloc((size_t)cs->n_par, (size_t)cs->n_par);
	int st;

	for (int j = 0; j < cs->n_par; j++) {
		res->ci_lo[j] = res->ci_hi[j] = NAN;
		res->identifiable[j] = false;
	}
	if (!cov)
		return err_set(err, TCPSIM_EFIT, "calibrate: cannot allocate the covariance matrix");
	st = gsl_multifit_nlinear_rcond(&res->rcond, w);
	if (st != GSL_SUCCESS)
		res->rcond = NAN;
	st = gsl_multifit_nlinear_covar(J, FIT_COVAR_EPSREL, cov);
	if (st != GSL_SUCCESS) {
		gsl_matrix_free(cov);
		return err_set(err, TCPSIM_EFIT, "calibrate: covariance of the fit: %s", gsl_strerror(st));
	}
	for (int j = 0; j < cs->n_par; j++) {
		double colnorm = 0;
		for (int i = 0; i < fc->n_resid; i++)
			colnorm += fabs(gsl_matrix_get(J, (size_t)i, (size_t)j));
		double cjj = gsl_matrix_get(cov, (size_t)j, (size_t)j);
		res->identifiable[j] = colnorm > 0 && cjj > 0 && isfinite(cjj);
		if (!res->identifiable[j] || res->dof < 1)
			continue;
		double s2 = res->chisq / res->dof;
		double t = gsl_cdf_tdist_Pinv(0.975, (double)res->dof);
		double half = t * sqrt(s2 * cjj);
		double uj = gsl_vector_get(u, (size_t)j);
		res->ci_lo[j] = par_of_u(&cs->par[j], uj - half);
		res->ci_hi[j] = par_of_u(&cs->par[j], uj + half);
	}
	gsl_matrix_free(cov);
	return TCPSIM_OK;
}

/* Radical inverse of i in base b: the i-th Halton coordinate, in (0, 1) for i >= 1. */
static double halton(int i, int b)
{
	double f = 1, r = 0;
	while (i > 0) {
		f /= b;
		r += f * (i % b);
		i /= b;
	}
	return r;
}

static double chisq_at(const struct fit_ctx *fc, const struct metrics *m)
{
	double c = 0;
	for (int i = 0; i < fc->n_resid; i++) {
		double r = resid_of(&fc->spec[i], &m[fc->spec[i].k]);
		c += r * r;
	}
	return c;
}

struct polish_ctx {
	struct fit_ctx *fc;
	int points;
};

static double polish_f(const gsl_vector *u, void *params)
{
	struct polish_ctx *pc = params;
	double p[CALIB_MAX_PARAMS];
	const struct metrics *m;

	u_to_p(pc->fc, u, p);
	for (int j = 0; j < pc->fc->cs->n_par; j++)
		p[j] = reportable(&pc->fc->cs->par[j], p[j]);
	pc->points++;
	m = eval_cached(pc->fc, p);
	return m ? chisq_at(pc->fc, m) : GSL_NAN;
}

/*
 * The simplex after the solver (calib.h, "Polish"), from u whose chisq is
 * chisq: u moves to the simplex's best point when that is lower.  Fills
 * res->polish_*, and sets res->converged when the simplex shrank.  0, or -1 with fc->err (a run failed, or GSL could not
 * allocate).
 */
static int polish(struct fit_ctx *fc, gsl_vector *u, double chisq, struct calib_result *res)
{
	const struct calib_setup *cs = fc->cs;
	size_t np = (size_t)cs->n_par;
	struct polish_ctx pc = {.fc = fc};
	gsl_multimin_function fn = {.f = polish_f, .n = np, .params = &pc};
	gsl_multimin_fminimizer *s = gsl_multimin_fminimizer_alloc(gsl_multimin_fminimizer_nmsimplex2, np);
	gsl_vector *step = gsl_vector_alloc(np);
	double best = chisq;
	bool set_ok = false;
	int st, rc = 0;

	if (!s || !step) {
		err_set(&fc->err, TCPSIM_EFIT, "calibrate: cannot allocate the simplex");
		rc = -1;
		goto out;
	}
	for (size_t j = 0; j < np; j++)
		gsl_vector_set(step, j, fd_step(&cs->par[j], gsl_vector_get(u, j), CALIB_POLISH_STEP));
	st = gsl_multimin_fminimizer_set(s, &fn, u, step);
	set_ok = st == GSL_SUCCESS && !fc->failed;
	while (!fc->failed && st == GSL_SUCCESS && pc.points < cs->polish) {
		double size;
		st = gsl_multimin_fminimizer_iterate(s);
		if (fc->failed || st != GSL_SUCCESS)
			break;
		size = gsl_multimin_fminimizer_size(s);
		if (cs->progress && s->fval < best) {
			double p[CALIB_MAX_PARAMS];
			u_to_p(fc, gsl_multimin_fminimizer_x(s), p);
			fprintf(cs->progress, "calibrate: polish, %d points: chisq %.6g", pc.points, s->fval);
			for (int j = 0; j < cs->n_par; j++)
				fprintf(cs->progress, " %s=%.6g", cs->par[j].key, p[j]);
			fputc('\n', cs->progress);
		}
		if (s->fval < best)
			best = s->fval;
		if (size < CALIB_POLISH_SIZE) { /* converged, also where the solver was not */
			snprintf(res->polish_reason, sizeof(res->polish_reason), "simplex size below %g",
				 CALIB_POLISH_SIZE);
			res->converged = true;
			break;
		}
	}
	if (fc->failed) {
		rc = -1;
		goto out;
	}
	if (!res->polish_reason[0]) {
		if (st != GSL_SUCCESS)
			snprintf(res->polish_reason, sizeof(res->polish_reason), "GSL: %s", gsl_strerror(st));
		else
			snprintf(res->polish_reason, sizeof(res->polish_reason), "%d points, the limit", cs->polish);
	}
	res->polish_points = pc.points;
	if (set_ok && s->fval < chisq) {
		gsl_vector_memcpy(u, gsl_multimin_fminimizer_x(s));
		res->polish_moved = true;
	}
out:
	if (s)
		gsl_multimin_fminimizer_free(s);
	if (step)
		gsl_vector_free(step);
	return rc;
}

/*
 * The solver's start: the profile's values, or with cs->starts > 1 the best
 * of them and starts - 1 Halton points (see calib.h).  0, or -1 on failure.
 */
static int choose_start(struct fit_ctx *fc, struct calib_result *res)
{
	static const int primes[CALIB_MAX_PARAMS] = {2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53};
	const struct calib_setup *cs = fc->cs;
	int np = cs->n_par, n = cs->starts > 1 ? cs->starts : 1, best = 0;
	double *pts = xmalloc(sizeof(double) * (size_t)(n * np));
	struct metrics *m = xcalloc((size_t)(n * fc->n_runs), sizeof(*m));
	double best_c = INFINITY;

	res->starts_tried = 1;
	for (int j = 0; j < np; j++)
		res->start_used[j] = pts[j] = cs->par[j].start;
	if (n == 1) {   /* chisq_start is chisq0, set by the caller */
		free(m);
		free(pts);
		return 0;
	}
	for (int k = 1; k < n; k++)
		for (int j = 0; j < np; j++) {
			const struct calib_param *p = &cs->par[j];
			pts[k * np + j] = p->lo * exp(log(p->hi / p->lo) * halton(k, primes[j]));
		}
	if (eval_points(fc, pts, n, m) != 0) {
		free(m);
		free(pts);
		return -1;
	}
	for (int k = 0; k < n; k++) {
		double c = chisq_at(fc, &m[k * fc->n_runs]);
		if (k == 0)
			res->chisq_start = c;
		if (c < best_c) {
			best_c = c;
			best = k;
		}
	}
	for (int j = 0; j < np; j++)
		res->start_used[j] = pts[best * np + j];
	res->starts_tried = n;
	free(m);
	free(pts);
	return 0;
}

int calib_fit(const struct calib_setup *cs, const struct calib_runs *cr, const bool *train,
	      struct calib_result *res, struct tcpsim_err *err)
{
	struct fit_ctx fc;
	gsl_multifit_nlinear_fdf fdf;
	gsl_multifit_nlinear_parameters prm = gsl_multifit_nlinear_default_parameters();
	gsl_multifit_nlinear_workspace *w = NULL;
	gsl_vector *u0 = NULL, *ufin = NULL;
	double t0 = now_s(), prev_p[CALIB_MAX_PARAMS], p[CALIB_MAX_PARAMS], prev_chisq;
	int rc, st, iter = 0, info = 0, noprog = 0;

	memset(res, 0, sizeof(*res));
	res->n_par = cs->n_par;
	gsl_set_error_handler_off();
	rc = fit_ctx_init(&fc, cs, cr, train, err);
	if (rc)
		goto out;
	res->n_runs = fc.n_runs;
	res->dof = fc.n_resid - cs->n_par;

	fdf = (gsl_multifit_nlinear_fdf){
		.f = fit_f, .df = fit_df, .fvv = NULL,
		.n = (size_t)fc.n_resid, .p = (size_t)cs->n_par, .params = &fc};
	prm.trs = gsl_multifit_nlinear_trs_lm;
	w = gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &prm, (size_t)fc.n_resid, (size_t)cs->n_par);
	u0 = gsl_vector_alloc((size_t)cs->n_par);
	ufin = gsl_vector_alloc((size_t)cs->n_par);
	if (!w || !u0 || !ufin) {
		rc = err_set(err, TCPSIM_EFIT, "calibrate: cannot allocate the GSL workspace");
		goto out;
	}
	if (choose_start(&fc, res) != 0) {
		rc = err_set(err, fc.err.code ? fc.err.code : TCPSIM_EFIT, "%s", fc.err.msg);
		goto out;
	}
	for (int j = 0; j < cs->n_par; j++) {
		gsl_vector_set(u0, (size_t)j, u_of_par(&cs->par[j], res->start_used[j]));
		prev_p[j] = res->start_used[j];
	}
	st = gsl_multifit_nlinear_init(u0, &fdf, w);
	if (fc.failed) {
		rc = err_set(err, fc.err.code ? fc.err.code : TCPSIM_EFIT, "%s", fc.err.msg);
		goto out;
	}
	if (st != GSL_SUCCESS) {
		rc = err_set(err, TCPSIM_EFIT, "calibrate: starting the solver: %s", gsl_strerror(st));
		goto out;
	}
	{
		double nrm = gsl_blas_dnrm2(gsl_multifit_nlinear_residual(w));
		res->chisq0 = prev_chisq = nrm * nrm;
		if (res->starts_tried == 1)
			res->chisq_start = res->chisq0;
	}
	if (cs->progress)
		fprintf(cs->progress, "calibrate: start chisq %.6g (%d residuals, %d runs)\n", res->chisq0,
			fc.n_resid, fc.n_runs);

	while (!res->converged && iter < cs->max_iter) {
		st = gsl_multifit_nlinear_iterate(w);
		if (fc.failed) {
			rc = err_set(err, fc.err.code ? fc.err.code : TCPSIM_EFIT, "%s", fc.err.msg);
			goto out;
		}
		if (st == GSL_ENOPROG) {
			if (iter == 0 && res->starts_tried > 1) {
				res->converged = true;
				snprintf(res->stop_reason, sizeof(res->stop_reason),
					 "no step from the best scanned start lowers the residual (the simulator's resolution)");
				break;
			}
			if (iter == 0 && cs->warm) {
				res->converged = true;
				snprintf(res->stop_reason, sizeof(res->stop_reason),
					 "no step from the start lowers the residual: it is the fit's (--warm)");
				break;
			}
			if (iter == 0) {
				snprintf(res->stop_reason, sizeof(res->stop_reason),
					 "no step from the start lowers the residual (GSL: %s)", gsl_strerror(st));
				break;
			}
			if (++noprog >= 2) {
				res->converged = true;
				snprintf(res->stop_reason, sizeof(res->stop_reason),
					 "no further step lowers the residual (the simulator's resolution)");
				break;
			}
			continue;
		}
		noprog = 0;
		if (st != GSL_SUCCESS) {
			rc = err_set(err, TCPSIM_EFIT, "calibrate: iteration %d: %s", iter + 1, gsl_strerror(st));
			goto out;
		}
		iter++;
		u_to_p(&fc, gsl_multifit_nlinear_position(w), p);
		double nrm = gsl_blas_dnrm2(gsl_multifit_nlinear_residual(w));
		double chisq = nrm * nrm;
		double dlnp = max_abs_dlnp(cs, prev_p, p);
		if (cs->progress) {
			fprintf(cs->progress, "calibrate: iteration %d: chisq %.6g", iter, chisq);
			for (int j = 0; j < cs->n_par; j++)
				fprintf(cs->progress, " %s=%.6g", cs->par[j].key, p[j]);
			fputc('\n', cs->progress);
		}
		st = gsl_multifit_nlinear_test(FIT_XTOL_REL, FIT_GTOL, 0.0, &info, w);
		if (st == GSL_SUCCESS) {
			res->converged = true;
			snprintf(res->stop_reason, sizeof(res->stop_reason), "GSL test: %s",
				 info == 1 ? "small step" : "small gradient");
		} else if (st != GSL_CONTINUE) {
			rc = err_set(err, TCPSIM_EFIT, "calibrate: convergence test: %s", gsl_strerror(st));
			goto out;
		} else if (dlnp < FIT_XTOL_REL) {
			res->converged = true;
			snprintf(res->stop_reason, sizeof(res->stop_reason),
				 "step below %g relative in every parameter", FIT_XTOL_REL);
		} else if (prev_chisq - chisq <= FIT_FTOL_REL * prev_chisq) {
			res->converged = true;
			snprintf(res->stop_reason, sizeof(res->stop_reason),
				 "chisq decrease below %g relative", FIT_FTOL_REL);
		}
		memcpy(prev_p, p, sizeof(p));
		prev_chisq = chisq;
	}
	res->iterations = iter;
	if (!res->converged && !res->stop_reason[0])
		snprintf(res->stop_reason, sizeof(res->stop_reason), "%d iteration%s without converging",
			 cs->max_iter, cs->max_iter == 1 ? "" : "s");

	gsl_vector_memcpy(ufin, gsl_multifit_nlinear_position(w));
	res->chisq_lm = prev_chisq;
	if (cs->polish > 0) {
		if (polish(&fc, ufin, res->chisq_lm, res) != 0) {
			rc = err_set(err, fc.err.code ? fc.err.code : TCPSIM_EFIT, "%s", fc.err.msg);
			goto out;
		}
		if (res->polish_moved) {
			/* f and J at the polished point: the intervals are taken there */
			st = gsl_multifit_nlinear_init(ufin, &fdf, w);
			if (fc.failed) {
				rc = err_set(err, fc.err.code ? fc.err.code : TCPSIM_EFIT, "%s", fc.err.msg);
				goto out;
			}
			if (st != GSL_SUCCESS) {
				rc = err_set(err, TCPSIM_EFIT, "calibrate: the Jacobian at the polished point: %s",
					     gsl_strerror(st));
				goto out;
			}
		}
	}

	/* the reported values: rounded as the profile will hold them, inside the bounds */
	u_to_p(&fc, ufin, p);
	for (int j = 0; j < cs->n_par; j++) {
		const struct calib_param *par = &cs->par[j];
		double s = sigmoid(gsl_vector_get(ufin, (size_t)j));
		res->value[j] = reportable(par, p[j]);
		res->at_bound[j] = s < CALIB_BOUND_SIGMA ? -1 : s > 1 - CALIB_BOUND_SIGMA ? 1 : 0;
	}
	if (final_residuals(&fc, res->value, res) != 0) {
		rc = err_set(err, fc.err.code ? fc.err.code : TCPSIM_EFIT, "%s", fc.err.msg);
		goto out;
	}
	rc = confidence(&fc, w, ufin, res, err);
	if (rc)
		goto out;
	if (!res->converged)
		rc = err_set(err, TCPSIM_EFIT, "calibrate: the fit did not converge: %s (chisq %.4g -> %.4g)",
			     res->stop_reason, res->chisq0, res->chisq);
out:
	res->evaluations = fc.evaluations;
	res->model_limits = fc.model_limits;
	snprintf(res->model_limit_msg, sizeof(res->model_limit_msg), "%s", fc.model_limit_msg);
	res->elapsed_s = now_s() - t0;
	if (w)
		gsl_multifit_nlinear_free(w);
	if (u0)
		gsl_vector_free(u0);
	if (ufin)
		gsl_vector_free(ufin);
	fit_ctx_free(&fc);
	return rc;
}

/* ---- prediction -------------------------------------------------------------- */

/* Predict the runs with mask[i] true, run i with values vals[i] (NULL entry:
 * none); recv_start is app.recv_start for the runs that set none (0: each
 * run as it is). */
static int predict_each(const struct calib_setup *cs, const struct calib_runs *cr, const bool *mask,
			const double *const *vals, sim_ns recv_start, uint64_t seed_add, struct metrics *out,
			char **why, struct tcpsim_err *err)
{
	int n = cr->rs->n, k = 0, rc = TCPSIM_OK;
	struct scenario *sc = xmalloc(sizeof(*sc) * (size_t)(n > 0 ? n : 1));
	struct metrics *m = xcalloc((size_t)(n > 0 ? n : 1), sizeof(*m));
	int *idx = xcalloc((size_t)(n > 0 ? n : 1), sizeof(int));
	char **w = why ? xcalloc((size_t)(n > 0 ? n : 1), sizeof(*w)) : NULL;

	for (int i = 0; i < n && !rc; i++) {
		if (mask && !mask[i])
			continue;
		idx[k] = i;
		rc = scenario_with(cs, &cr->base[i], vals ? vals[i] : NULL, &sc[k], err);
		if (recv_start > 0 && sc[k].recv_start_ns == 0)
			sc[k].recv_start_ns = recv_start;
		sc[k].seed += seed_add;
		k++;
	}
	if (!rc && why)
		rc = run_tolerant(cs, sc, m, k, cs->run_progress, w, NULL, NULL, 0, err);
	else if (!rc)
		rc = batch_run(cs->run, sc, m, k, cs->jobs, cs->run_progress, err);
	if (!rc)
		for (int j = 0; j < k; j++) {
			out[idx[j]] = m[j];
			if (why) {
				why[idx[j]] = w[j];
				w[j] = NULL;
			}
		}
	if (w)
		for (int j = 0; j < k; j++)
			free(w[j]);
	free(w);
	free(idx);
	free(m);
	free(sc);
	return rc;
}

int calib_predict(const struct calib_setup *cs, const struct calib_runs *cr, const bool *mask,
		  const double *value, struct metrics *out, struct tcpsim_err *err)
{
	int n = cr->rs->n, rc;
	const double **vals = xcalloc((size_t)(n > 0 ? n : 1), sizeof(*vals));
	for (int i = 0; i < n; i++)
		vals[i] = cs->n_par > 0 ? value : NULL;
	rc = predict_each(cs, cr, mask, vals, 0, 0, out, NULL, err);
	free(vals);
	return rc;
}

/* ---- profile ------------------------------------------------------------------- */

int calib_write_profile(const char *path, const struct calib_setup *cs,
			const struct calib_result *res, const char *header, struct tcpsim_err *err)
{
	struct outfile o;
	FILE *f;
	int rc = outfile_open(&o, path, "profile", err);

	if (rc != TCPSIM_OK)
		return rc;
	f = o.f;
	if (header) {
		const char *line = header;
		while (*line) {
			const char *nl = strchr(line, '\n');
			int len = nl ? (int)(nl - line) : (int)strlen(line);
			fprintf(f, ";%s%.*s\n", len ? " " : "", len, line);
			line += len + (nl ? 1 : 0);
		}
	}
	fprintf(f, ";\n; parameter: fitted value, 95%% confidence interval, start, bounds\n");
	for (int j = 0; j < cs->n_par; j++) {
		const struct calib_param *p = &cs->par[j];
		fprintf(f, ";   %s = %.6g", p->key, res->value[j]);
		if (isfinite(res->ci_lo[j]))
			fprintf(f, "  [%.6g, %.6g]", res->ci_lo[j], res->ci_hi[j]);
		else
			fprintf(f, "  [no interval: %s]", res->identifiable[j] ? "no degrees of freedom" : "not identifiable");
		if (res->starts_tried > 1)
			fprintf(f, "  start %.6g (best of %d scanned; the profile's was %.6g)", res->start_used[j],
				res->starts_tried, p->start);
		else
			fprintf(f, "  start %.6g", p->start);
		fprintf(f, "  bounds %.4g:%.4g%s\n", p->lo, p->hi,
			res->at_bound[j] < 0 ? "  AT LOWER BOUND" : res->at_bound[j] > 0 ? "  AT UPPER BOUND" : "");
		if (p->scope_key[0])
			fprintf(f, ";     fitted to the runs with %s = %s; it belongs in that machine's profile\n",
				p->scope_key, p->scope_vals);
	}
	for (int sect = 0; sect < 2; sect++) {
		const char *prefix = sect == 0 ? "cost." : "rcost.";
		int any = 0;
		for (int j = 0; j < cs->n_par; j++) {
			const char *k = cs->par[j].key;
			if (strncmp(k, prefix, strlen(prefix)) != 0)
				continue;
			if (!any++)
				fprintf(f, "\n[%s]\n", sect == 0 ? "cost" : "rcost");
			fprintf(f, "%s = %.6g\n", k + strlen(prefix), res->value[j]);
		}
	}
	return outfile_commit(&o, err);
}

/* ---- validation ---------------------------------------------------------------- */

double calib_error_pct(double measured, double predicted)
{
	if (!isfinite(measured) || !isfinite(predicted) || measured == 0)
		return NAN;
	return 100.0 * (predicted - measured) / measured;
}

void calib_validation_free(struct calib_validation *v)
{
	for (int f = 0; f < v->n_folds; f++) {
		calib_result_free(&v->folds[f]);
		free(v->fold_train[f]);
	}
	free(v->folds);
	free(v->fold_train);
	if (v->no_pred_why)
		for (int i = 0; i < v->n_runs; i++)
			free(v->no_pred_why[i]);
	free(v->no_pred_why);
	free(v->pred);
	free(v->held_out);
	free(v->fold);
	memset(v, 0, sizeof(*v));
}

static int fold_fit(const struct calib_setup *cs, const struct calib_runs *cr,
		    struct calib_validation *v, int f, const char *what, struct tcpsim_err *err)
{
	struct tcpsim_err e = {0};
	if (calib_fit(cs, cr, v->fold_train[f], &v->folds[f], &e) != TCPSIM_OK)
		return err_set(err, e.code, "%s: %s", what, e.msg);
	return TCPSIM_OK;
}

int calib_validate(const struct calib_setup *cs, const struct calib_runs *cr,
		   enum calib_holdout holdout, const bool *train, struct calib_validation *v,
		   struct tcpsim_err *err)
{
	int n = cr->rs->n, rc = TCPSIM_OK;
	const double **vals;
	char what[256];

	memset(v, 0, sizeof(*v));
	v->n_runs = n;
	v->pred = xcalloc((size_t)(n > 0 ? n : 1), sizeof(*v->pred));
	v->no_pred_why = xcalloc((size_t)(n > 0 ? n : 1), sizeof(*v->no_pred_why));
	v->held_out = xcalloc((size_t)(n > 0 ? n : 1), sizeof(bool));
	v->fold = xcalloc((size_t)(n > 0 ? n : 1), sizeof(int));
	for (int i = 0; i < n; i++)
		v->fold[i] = -1;
	if (cs->n_par == 0)
		return predict_each(cs, cr, NULL, NULL, 0, 0, v->pred, v->no_pred_why, err);

	if (holdout == CALIB_HOLDOUT_LOO && n < 2)
		return err_set(err, TCPSIM_EUSAGE, "validate: leave-one-out needs at least 2 runs (have %d)", n);
	if (holdout == CALIB_HOLDOUT_TRAIN) {
		int nt = 0;
		for (int i = 0; i < n; i++)
			nt += train[i];
		if (nt == 0)
			return err_set(err, TCPSIM_EUSAGE, "validate: --train-where leaves no run to fit");
		if (nt == n)
			return err_set(err, TCPSIM_EUSAGE, "validate: --train-where leaves no run to predict (all %d are fitted)", n);
	}
	v->n_folds = holdout == CALIB_HOLDOUT_LOO ? n : 1;
	v->folds = xcalloc((size_t)v->n_folds, sizeof(*v->folds));
	v->fold_train = xcalloc((size_t)v->n_folds, sizeof(*v->fold_train));
	for (int f = 0; f < v->n_folds && !rc; f++) {
		v->fold_train[f] = xcalloc((size_t)n, sizeof(bool));
		for (int i = 0; i < n; i++)
			v->fold_train[f][i] = holdout == CALIB_HOLDOUT_LOO ? i != f
					    : holdout == CALIB_HOLDOUT_TRAIN ? train[i] : true;
		if (holdout == CALIB_HOLDOUT_LOO)
			snprintf(what, sizeof(what), "fit without run '%s'", cr->rs->runs[f].id);
		else
			snprintf(what, sizeof(what), "fit");
		rc = fold_fit(cs, cr, v, f, what, err);
	}
	if (rc)
		return rc;
	vals = xcalloc((size_t)(n > 0 ? n : 1), sizeof(*vals));
	for (int i = 0; i < n; i++) {
		int f = holdout == CALIB_HOLDOUT_LOO ? i : 0;
		v->fold[i] = f;
		v->held_out[i] = !v->fold_train[f][i];
		vals[i] = v->folds[f].value;
	}
	rc = predict_each(cs, cr, NULL, vals, 0, 0, v->pred, v->no_pred_why, err);
	free(vals);
	return rc;
}

/* Every run again with the values calib_validate predicted it with (its
 * fold's, or the scenario's), its receivers late_ns late and its run.seed
 * plus seed_add. */
static int predict_again(const struct calib_setup *cs, const struct calib_runs *cr, const struct calib_validation *v,
			 sim_ns late_ns, uint64_t seed_add, struct metrics *out, char **why, struct tcpsim_err *err)
{
	int n = cr->rs->n, rc;
	const double **vals = xcalloc((size_t)(n > 0 ? n : 1), sizeof(*vals));

	for (int i = 0; i < n; i++)
		vals[i] = v->fold && v->fold[i] >= 0 ? v->folds[v->fold[i]].value : NULL;
	rc = predict_each(cs, cr, NULL, vals, late_ns, seed_add, out, why, err);
	free(vals);
	return rc;
}

int calib_predict_late(const struct calib_setup *cs, const struct calib_runs *cr, const struct calib_validation *v,
		       sim_ns late_ns, struct metrics *out, char **why, struct tcpsim_err *err)
{
	return predict_again(cs, cr, v, late_ns, 0, out, why, err);
}

int calib_predict_seed(const struct calib_setup *cs, const struct calib_runs *cr, const struct calib_validation *v,
		       uint64_t seed_add, struct metrics *out, char **why, struct tcpsim_err *err)
{
	return predict_again(cs, cr, v, 0, seed_add, out, why, err);
}

int calib_parse_train_where(const struct calib_runs *cr, const char *arg, bool *train,
			    struct tcpsim_err *err)
{
	const struct run_set *rs = cr->rs;
	char *copy = xstrdup(arg), *save = NULL, *eq = strchr(copy, '=');
	char **canon = NULL;
	int nv = 0, rc = TCPSIM_OK;

	if (!eq || eq == copy || !eq[1]) {
		rc = err_set(err, TCPSIM_EUSAGE, "--train-where %s: expected KEY=V1,V2,...", arg);
		goto out;
	}
	*eq = '\0';
	if (!config_key_exists(copy)) {
		rc = err_set(err, TCPSIM_EUSAGE, "--train-where: unknown key '%s' (see tcpsim --help-config)", copy);
		goto out;
	}
	if (rs->n == 0)
		goto out;
	canon = xcalloc(strlen(eq + 1) + 1, sizeof(char *));
	for (char *v = strtok_r(eq + 1, ",", &save); v && !rc; v = strtok_r(NULL, ",", &save)) {
		struct scenario tmp = cr->base[0];
		char where[128], buf[256];
		snprintf(where, sizeof(where), "--train-where %s=%s", copy, v);
		if (config_set(&tmp, copy, v, where, err) != TCPSIM_OK) {
			rc = err->code;
			break;
		}
		if (config_get(&tmp, copy, buf, sizeof(buf)) != 0) {
			rc = err_set(err, TCPSIM_EUSAGE, "%s: cannot read the value back", where);
			break;
		}
		canon[nv++] = xstrdup(buf);
	}
	for (int i = 0; i < rs->n && !rc; i++) {
		char buf[256];
		train[i] = false;
		if (config_get(&cr->base[i], copy, buf, sizeof(buf)) != 0)
			continue;
		for (int k = 0; k < nv; k++)
			if (strcmp(buf, canon[k]) == 0)
				train[i] = true;
	}
out:
	for (int k = 0; k < nv; k++)
		free(canon[k]);
	free(canon);
	free(copy);
	return rc;
}
