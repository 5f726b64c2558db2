/*
 * run.c: tcpsim_run: build a sim from a scenario, warm up, measure, report.
 *
 * Measurement: counters and CPU accounting are snapshotted when warm-up
 * ends; from then on the run is cut into batches of run.batch.  After
 * run.min_batches, the run stops as soon as the 95% confidence interval of
 * the batch-mean throughput (Student t, batch means as in Law & Kelton,
 * "Simulation Modeling and Analysis", ch. 9) is within run.ci_target of the
 * mean, or at run.duration.  Rates are over the measured interval only.
 *
 * Autotuning moves a run from one regime to another: a receive buffer that
 * grows lets the receiver catch up, and the rates after it differ from the
 * rates before, however steady each looked.  So the measured interval never
 * spans a change of any connection's sndbuf, rcvbuf, window clamp or
 * rcv_ssthresh (the growth of the window offered, tcp_grow_window): when
 * one changes, measurement starts again from that moment (the warm-up is
 * extended), within the same run.warmup + run.duration budget: the
 * warm-up ends when autotuning has settled or when the budget left holds
 * no more than run.min_batches.  With many connections some buffer grows
 * in nearly every batch; run.settle > 0 counts the buffers as settled
 * while their sum moves by at most that fraction.  A run whose buffers
 * never settle is measured over its last batches and says so, and so do
 * compare, sweep and validate.
 */
#include "tcpsim.h"

#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "cpu.h"
#include "netdev.h"
#include "netdev_nic.h"
#include "rng.h"
#include "sched.h"
#include "skb.h"
#include "tcp.h"
#include "util.h"

/* Measurement state, owned by one run. */
struct measure {
	struct sim *sim;
	sim_ns start;              /* end of warm-up */
	struct counters mark;
	uint64_t batch_mark_bytes;
	double *batch_bps;
	int nbatches, cap;
	bool early;
	double ci_pct;
	sim_ns *sleep_mark;        /* per task: sleep_ns at warm-up end */
	uint64_t bufsig;           /* buffer_signature() at the start */
	double buftotal;           /* buffer_total() at the start */
	int restarts;              /* measurement restarted by autotuning */
	sim_ns chrono_busy, chrono_rwnd; /* the connections' tcp_chrono at the start */
};

/* The connections' tcp_chrono totals (busy, and rwnd-limited of it) now. */
static void chrono_sum(const struct sim *sim, sim_ns *busy, sim_ns *rwnd)
{
	*busy = *rwnd = 0;
	for (int i = 0; i < sim->nconns; i++) {
		sim_ns b, r;
		tcp_chrono_read(&sim->conns[i], sim->now, &b, &r);
		*busy += b;
		*rwnd += r;
	}
}

/* The socket buffers autotuning changes, summed over the connections. */
static uint64_t buffer_signature(const struct sim *sim)
{
	uint64_t sig = 0;
	for (int i = 0; i < sim->nconns; i++) {
		const struct tcp_conn *tc = &sim->conns[i];
		sig = sig * 31 + (uint64_t)tc->sndbuf;
		sig = sig * 31 + (uint64_t)tc->rcvbuf;
		sig = sig * 31 + (uint64_t)tc->window_clamp;
		sig = sig * 31 + (uint64_t)tc->rcv_ssthresh; /* the window offered still growing */
	}
	return sig;
}

/* The same buffers, summed: what run.settle compares. */
static double buffer_total(const struct sim *sim)
{
	double sum = 0;
	for (int i = 0; i < sim->nconns; i++) {
		const struct tcp_conn *tc = &sim->conns[i];
		sum += (double)tc->sndbuf + (double)tc->rcvbuf + (double)tc->window_clamp + (double)tc->rcv_ssthresh;
	}
	return sum;
}

/* Autotuning moved the buffers since measurement began: with run.settle =
 * 0 any change of any connection's, else the sum by more than that share. */
static bool buffers_moved(const struct sim *sim, const struct measure *m)
{
	double tol = sim->sc->settle_frac;
	if (tol <= 0)
		return buffer_signature(sim) != m->bufsig;
	return fabs(buffer_total(sim) - m->buftotal) > tol * m->buftotal;
}

static void tick_ev(struct sim *sim, void *obj, uint64_t arg)
{
	struct cpu *c = obj;
	(void)arg;
	if (!cpu_is_idle(c)) { /* NOHZ: an idle CPU takes no tick */
		sim->cnt.ticks++;
		sim->cnt.host[c->host->id].ticks++;
		cpu_raise_irq(sim, c, IRQ_TICK, NULL);
	}
	sim_at(sim, sim->now + NS_PER_S / c->host->cfg->hz, tick_ev, c, 0);
}

static sim_ns task_sleep_now(const struct sim *sim, const struct task *t)
{
	return t->sleep_ns + (t->sleep_start >= 0 ? sim->now - t->sleep_start : 0);
}

static void batch_ev(struct sim *sim, void *obj, uint64_t arg);

static void measure_start(struct sim *sim, struct measure *m)
{
	m->start = sim->now;
	m->nbatches = 0;
	m->ci_pct = 0;
	m->bufsig = buffer_signature(sim);
	m->buftotal = buffer_total(sim);
	m->mark = sim->cnt;
	chrono_sum(sim, &m->chrono_busy, &m->chrono_rwnd);
	m->batch_mark_bytes = sim->cnt.app_bytes;
	for (int h = 0; h < sim->nhosts; h++)
		for (int i = 0; i < sim->hosts[h].ncpus; i++)
			sim->hosts[h].cpus[i].mark = sim->hosts[h].cpus[i].acct;
	for (int i = 0; i < sim->ntasks; i++)
		m->sleep_mark[i] = task_sleep_now(sim, &sim->tasks[i]);
}

static void warmup_end_ev(struct sim *sim, void *obj, uint64_t arg)
{
	struct measure *m = obj;
	(void)arg;
	measure_start(sim, m);
	sim_at(sim, sim->now + sim->sc->batch_ns, batch_ev, m, 0);
}

/* 95% CI half-width of the batch means, as a fraction of their mean. */
static double batch_ci(const double *x, int n)
{
	double mean = 0, var = 0;
	for (int i = 0; i < n; i++)
		mean += x[i];
	mean /= n;
	for (int i = 0; i < n; i++)
		var += (x[i] - mean) * (x[i] - mean);
	var /= (n - 1);
	if (mean <= 0)
		return INFINITY;
	return gsl_cdf_tdist_Pinv(0.975, n - 1) * sqrt(var / n) / mean;
}

static void batch_ev(struct sim *sim, void *obj, uint64_t arg)
{
	struct measure *m = obj;
	const struct scenario *sc = sim->sc;
	(void)arg;
	/* autotuning changed a buffer: the regime may have changed with it.
	 * Start measuring again if the budget still holds min_batches. */
	if (buffers_moved(sim, m) &&
	    sim->now + (sim_ns)sc->min_batches * sc->batch_ns <= sc->warmup_ns + sc->duration_ns) {
		m->restarts++;
		measure_start(sim, m);
		sim_at(sim, sim->now + sc->batch_ns, batch_ev, m, 0);
		return;
	}
	if (m->nbatches == m->cap) {
		m->cap = m->cap ? 2 * m->cap : 64;
		m->batch_bps = xrealloc(m->batch_bps, (size_t)m->cap * sizeof(*m->batch_bps));
	}
	m->batch_bps[m->nbatches++] = (double)(sim->cnt.app_bytes - m->batch_mark_bytes) * 8e9 / (double)sc->batch_ns;
	m->batch_mark_bytes = sim->cnt.app_bytes;
	if (m->nbatches >= 2)
		m->ci_pct = 100.0 * batch_ci(m->batch_bps, m->nbatches);
	if (sim->now + sc->batch_ns > sc->warmup_ns + sc->duration_ns) {
		sim->stop = true;
		return;
	}
	if (sc->ci_target > 0 && m->nbatches >= sc->min_batches && m->ci_pct <= 100.0 * sc->ci_target) {
		m->early = true;
		sim->stop = true;
		return;
	}
	sim_at(sim, sim->now + sc->batch_ns, batch_ev, m, 0);
}

static void parse_kernel(struct host *h, const char *v)
{
	int maj = 0, min = 0;
	if (sscanf(v, "%d.%d", &maj, &min) < 1)
		maj = 0;
	h->kernel_version = maj << 16 | min;
}

static void host_init(struct sim *sim, struct host *h, int id, int ntasks, int nconns)
{
	const struct host_cfg *cfg = &sim->sc->host[id];
	int n = cfg->cpus < 8 ? cfg->cpus : 8, lg = 0;

	h->sim = sim;
	h->id = id;
	h->cfg = cfg;
	h->ns_per_cycle = 1.0 / cfg->ghz;
	if (cfg->speed_sd > 0) {
		/* steps of a 32nd of the correlation time (at least 1 us): the
		 * speed is constant within one, and moves as the process does */
		h->speed_sd = cfg->speed_sd;
		h->speed_dt = cfg->speed_tau_ns / 32 > NS_PER_US ? cfg->speed_tau_ns / 32 : NS_PER_US;
		h->speed_rho = exp(-(double)h->speed_dt / (double)cfg->speed_tau_ns);
		h->speed_inn = cfg->speed_sd * sqrt(1 - h->speed_rho * h->speed_rho);
	}
	h->ncpus = cfg->cpus;
	while ((1 << (lg + 1)) <= n)
		lg++;
	h->sched_factor = 1 + lg; /* SCHED_TUNABLESCALING_LOG, kernel/sched/fair.c */
	parse_kernel(h, cfg->kernel);
	h->cpus = xaligned_alloc(_Alignof(struct cpu), (size_t)h->ncpus * sizeof(*h->cpus));
	memset(h->cpus, 0, (size_t)h->ncpus * sizeof(*h->cpus));
	for (int i = 0; i < h->ncpus; i++) {
		cpu_init(sim, h, &h->cpus[i], i, ntasks, nconns);
		h->cpus[i].idle_since = 0;
	}
}

void sim_release(struct sim *sim)
{
	for (int h = 0; h < sim->nhosts; h++) {
		for (int i = 0; i < sim->hosts[h].ncpus; i++)
			cpu_release(&sim->hosts[h].cpus[i]);
		free(sim->hosts[h].cpus);
	}
	if (sim->dev && sim->dev->release)
		sim->dev->release(sim);
	skb_pool_release(sim);
	free(sim->tasks);
	for (int i = 0; sim->apps && i < sim->ntasks; i++)
		rng_free(sim->apps[i].arrivals);
	free(sim->apps);
	free(sim->conns);
	evq_release(&sim->evq);
}

static void task_setup(struct sim *sim, struct task *t, int id, const char *role, int inst, struct host *h,
		       int pin, const struct app_ops *ops, struct tcp_conn *tc)
{
	t->id = id;
	snprintf(t->name, sizeof(t->name), "%s/%d", role, inst);
	t->host = h;
	t->pinned_cpu = pin;
	t->ops = ops;
	t->conn = tc;
	t->state = TASK_SLEEPING;
	t->sleep_start = -1;
	INVARIANT(ops->step, "app ops without step");
	(void)sim;
}

static double pct(double part, double whole) { return whole > 0 ? 100.0 * part / whole : 0; }

/* A CPU's time since the mark as /proc/stat counts it.  do_idle's way out
 * (COST_NOHZ_EXIT) takes the CPU but is neither busy nor idle there: it runs
 * in the idle task, where account_process_tick counts a tick as idle
 * (CPUTIME_IDLE), and after tick_nohz_idle_exit has closed the idle time
 * that /proc/stat reports in its place (get_idle_time: the NOHZ
 * idle_sleeptime).  So it leaves the busy time and the CPU's whole time
 * alike: busy share = (work - way out) / (elapsed - way out). */
static void cpu_stat_ns(const struct cpu *c, double elapsed_ns, double *busy_ns, double *counted_ns)
{
	double busy = 0, out = c->acct.cost[COST_NOHZ_EXIT].ns - c->mark.cost[COST_NOHZ_EXIT].ns;
	for (int x = 0; x < CTX_N; x++)
		busy += c->acct.ctx_ns[x] - c->mark.ctx_ns[x];
	*busy_ns = busy - out;
	*counted_ns = elapsed_ns - out;
}

/* Per-CPU figures of the first connection's sender's and receiver's CPUs
 * (what a live run pinned with taskset measures per CPU). */
static void fill_role_metrics(struct sim *sim, double secs, struct metrics *out)
{
	static const enum metric_id ids[2][6] = {
		{METRIC_SND_CPU_BUSY_PCT, METRIC_SND_CPU_NETRX_PER_S, METRIC_SND_CPU_HRTIMER_PER_S,
		 METRIC_SND_CPU_LOC_PER_S, METRIC_SND_CPU_CAL_PER_S, METRIC_SND_CPU_RES_PER_S},
		{METRIC_RCV_CPU_BUSY_PCT, METRIC_RCV_CPU_NETRX_PER_S, METRIC_RCV_CPU_HRTIMER_PER_S,
		 METRIC_RCV_CPU_LOC_PER_S, METRIC_RCV_CPU_CAL_PER_S, METRIC_RCV_CPU_RES_PER_S},
	};
	if (sim->nconns == 0)
		return;
	for (int r = 0; r < 2; r++) {
		const struct task *t = r == 0 ? sim->conns[0].sender : sim->conns[0].receiver;
		const struct cpu *c = t->cpu; /* pinned there, or where it last ran */
		const struct cpu_acct *a = &c->acct, *m = &c->mark;
		double busy, counted;
		cpu_stat_ns(c, secs * 1e9, &busy, &counted);
		out->v[ids[r][0]] = fmin(100.0, pct(busy, counted));
		out->v[ids[r][1]] = (a->netrx - m->netrx) / secs;
		out->v[ids[r][2]] = (a->hrtimer - m->hrtimer) / secs;
		out->v[ids[r][3]] = (a->loc - m->loc) / secs;
		out->v[ids[r][4]] = (a->cal - m->cal) / secs;
		out->v[ids[r][5]] = (a->res - m->res) / secs;
	}
}

/* A busiest CPU that takes a NIC queue's interrupt and spends most of its
 * time there (hardirq and softirq) is bound by that queue: say which. */
static void name_queue_cpu(const struct sim *sim, struct metrics *out)
{
	int h = out->bottleneck_host, q = nic_queue_on_cpu(sim, h, out->bottleneck_cpu);
	const struct cpu *c;
	double irq, busy = 0;
	size_t len = strlen(out->bottleneck_text);

	if (q < 0)
		return;
	c = &sim->hosts[h].cpus[out->bottleneck_cpu];
	irq = c->acct.ctx_ns[CTX_HARDIRQ] - c->mark.ctx_ns[CTX_HARDIRQ] + c->acct.ctx_ns[CTX_SOFTIRQ] -
	      c->mark.ctx_ns[CTX_SOFTIRQ];
	for (int x = 0; x < CTX_N; x++)
		busy += c->acct.ctx_ns[x] - c->mark.ctx_ns[x];
	if (busy <= 0 || irq < 0.5 * busy)
		return;
	snprintf(out->bottleneck_text + len, sizeof(out->bottleneck_text) - len,
		 ", NIC queue %d's interrupt CPU (hardirq + softirq %.0f%% of its time)", q, 100.0 * irq / busy);
}

/* The LKP counters of the sender's host and of the receiver's (the same
 * host on loopback and veth), from the per-host counts (counters.host). */
static void fill_host_metrics(const struct sim *sim, const struct measure *ms, double secs, struct metrics *out)
{
	for (int r = 0; r < 2; r++) {
		int h = r && sim->nhosts > 1 ? 1 : 0;
		const struct host_counters *a = &sim->cnt.host[h], *m = &ms->mark.host[h];
		double v[METRIC_SPLIT_N];
		v[0] = (double)(a->netrx_softirqs - m->netrx_softirqs);
		v[1] = (double)(a->res_ipis - m->res_ipis);
		v[2] = (double)(a->cs - m->cs);
		v[3] = (double)(a->ticks - m->ticks + a->res_ipis - m->res_ipis + a->cal_ipis - m->cal_ipis +
				a->hardirqs - m->hardirqs);
		v[4] = (double)(a->pgalloc - m->pgalloc);
		v[5] = (double)(a->pgfree - m->pgfree);
		v[6] = (double)(a->cal_ipis - m->cal_ipis);
		v[7] = (double)(a->hrtimer_softirqs - m->hrtimer_softirqs);
		for (int i = 0; i < METRIC_SPLIT_N; i++)
			out->v[r ? metric_splits[i].recv : metric_splits[i].send] = v[i] / secs;
	}
}

static void fill_metrics(struct sim *sim, struct measure *ms, struct metrics *out)
{
	const struct scenario *sc = sim->sc;
	double secs = (double)(sim->now - ms->start) / 1e9;
	struct counters d;
	double bytes_s, host_util[2] = {0, 0};
	int rhost = sim->nhosts > 1 ? 1 : 0;

	memset(out, 0, sizeof(*out));
#define DELTA(f) d.f = sim->cnt.f - ms->mark.f
	DELTA(app_bytes); DELTA(data_frames); DELTA(data_segs); DELTA(wire_frames); DELTA(acks);
	DELTA(netrx_softirqs); DELTA(res_ipis); DELTA(cal_ipis); DELTA(hardirqs);
	DELTA(ticks); DELTA(cs); DELTA(pgalloc); DELTA(pgfree); DELTA(gro_merges);
	DELTA(wakeups); DELTA(rcv_wakeups);
	DELTA(migrations); DELTA(kswapd_wakes); DELTA(ofo); DELTA(snd_wakeups);
	DELTA(acks_rx); DELTA(acks_rbuf); DELTA(acks_delack); DELTA(acks_quick);
	DELTA(retrans_segs); DELTA(recoveries); DELTA(undos);
	DELTA(writes); DELTA(reads); DELTA(pace_irqs); DELTA(hrtimer_softirqs); DELTA(skb_deferred); DELTA(wake_no_ipi);
	DELTA(backlog_coalesce);
	DELTA(rcv_coalesce);
#undef DELTA
	out->measured_s = secs;
	out->warmup_s = (double)ms->start / 1e9; /* extended while autotuning moved buffers */
	out->buffers_settled = !buffers_moved(sim, ms);
	out->early_stop = ms->early;
	out->batches = ms->nbatches;
	out->tput_ci_pct = ms->ci_pct;
	out->events = sim->events;
	if (secs <= 0)
		return;

	/* CPU accounting per host, context and cost */
	for (int h = 0; h < sim->nhosts; h++) {
		struct host *hh = &sim->hosts[h];
		double cap = secs * 1e9 * hh->ncpus, busy = 0, counted = 0;
		for (int i = 0; i < hh->ncpus; i++) {
			struct cpu *c = &hh->cpus[i];
			double cb, cc;
			cpu_stat_ns(c, secs * 1e9, &cb, &cc);
			for (int x = 0; x < CTX_N; x++)
				out->host_ctx_pct[h][x] += pct(c->acct.ctx_ns[x] - c->mark.ctx_ns[x], cap);
			for (int k = 0; k < COST_N; k++)
				out->host_cat_pct[h][k] += pct(c->acct.cost[k].ns - c->mark.cost[k].ns, cap);
			for (int x = 0; x < CTX_N; x++)
				for (int k = 0; k < COST_N; k++)
					out->host_ctx_cost_pct[h][x][k] +=
						pct(c->acct.cost[k].ctx_ns[x] - c->mark.cost[k].ctx_ns[x], cap);
			out->cpu_busy_pct[h][i] = fmin(100.0, pct(cb, cc));
			busy += cb;
			counted += cc;
		}
		host_util[h] = fmin(100.0, pct(busy, counted));
	}

	/* the same by Cai et al.'s categories, % of each host's busy time */
	for (int side = 0; side < 2; side++) {
		double sh[ROLE_N][CAT_N];
		costcat_shares((const double(*)[COST_N])out->host_ctx_cost_pct[side ? rhost : 0], sh);
		for (int c = 0; c < CAT_N; c++) {
			out->v[METRIC_CAT(side, 0, c)] = sh[ROLE_APP][c] + sh[ROLE_IRQ][c];
			out->v[METRIC_CAT(side, 1, c)] = sh[ROLE_APP][c];
			out->v[METRIC_CAT(side, 2, c)] = sh[ROLE_IRQ][c];
		}
	}

	bytes_s = (double)d.app_bytes / secs;
	out->v[METRIC_THROUGHPUT_TOTAL_MBPS] = bytes_s * 8 / 1e6;
	out->v[METRIC_THROUGHPUT_MBPS] = out->v[METRIC_THROUGHPUT_TOTAL_MBPS] / sc->instances;
	out->v[METRIC_CPU_SEND_PCT] = host_util[0];
	out->v[METRIC_CPU_RECV_PCT] = host_util[rhost];
	/* netperf: util% / 100 * ncpus * 1e6 / (KB/s), KB = 1024 bytes */
	if (bytes_s > 0) {
		out->v[METRIC_SD_SEND_US_PER_KB] = host_util[0] / 100 * sim->hosts[0].ncpus * 1e6 / (bytes_s / 1024);
		out->v[METRIC_SD_RECV_US_PER_KB] =
			host_util[rhost] / 100 * sim->hosts[rhost].ncpus * 1e6 / (bytes_s / 1024);
	}
	out->v[METRIC_NETRX_SOFTIRQS_PER_S] = (double)d.netrx_softirqs / secs;
	out->v[METRIC_RES_IPIS_PER_S] = (double)d.res_ipis / secs;
	out->v[METRIC_CAL_IPIS_PER_S] = (double)d.cal_ipis / secs;
	out->v[METRIC_CS_PER_S] = (double)d.cs / secs;
	out->v[METRIC_INTR_PER_S] = (double)(d.ticks + d.res_ipis + d.cal_ipis + d.hardirqs) / secs;
	out->v[METRIC_HARDIRQS_PER_S] = (double)d.hardirqs / secs;
	out->v[METRIC_PGALLOC_PER_S] = (double)d.pgalloc / secs;
	out->v[METRIC_PGFREE_PER_S] = (double)d.pgfree / secs;
	out->v[METRIC_SEGS_PER_S] = (double)d.data_segs / secs;
	out->v[METRIC_FRAMES_PER_S] = (double)d.data_frames / secs;
	out->v[METRIC_WIRE_FRAMES_PER_S] = (double)d.wire_frames / secs;
	out->v[METRIC_ACKS_PER_S] = (double)d.acks / secs;
	out->v[METRIC_GRO_MERGES_PER_S] = (double)d.gro_merges / secs;
	out->v[METRIC_WAKEUPS_PER_S] = (double)d.wakeups / secs;
	out->v[METRIC_SND_WAKEUPS_PER_S] = (double)d.snd_wakeups / secs;
	out->v[METRIC_MIGRATIONS_PER_S] = (double)d.migrations / secs;
	out->v[METRIC_KSWAPD_WAKES_PER_S] = (double)d.kswapd_wakes / secs;
	out->v[METRIC_OFO_PER_S] = (double)d.ofo / secs;
	out->v[METRIC_ACKS_RX_PER_S] = (double)d.acks_rx / secs;
	out->v[METRIC_ACKS_READ_PER_S] = (double)d.acks_rbuf / secs;
	out->v[METRIC_ACKS_DELACK_PER_S] = (double)d.acks_delack / secs;
	out->v[METRIC_ACKS_QUICK_PER_S] = (double)d.acks_quick / secs;
	out->v[METRIC_RETRANS_SEGS_PER_S] = (double)d.retrans_segs / secs;
	out->v[METRIC_RECOVERIES_PER_S] = (double)d.recoveries / secs;
	out->v[METRIC_UNDOS_PER_S] = (double)d.undos / secs;
	out->v[METRIC_WRITES_PER_S] = (double)d.writes / secs;
	out->v[METRIC_READS_PER_S] = (double)d.reads / secs;
	out->v[METRIC_RCV_WAKEUPS_PER_S] = (double)d.rcv_wakeups / secs;
	out->v[METRIC_HRTIMER_SOFTIRQS_PER_S] = (double)d.hrtimer_softirqs / secs;
	out->v[METRIC_PACE_KICKS_PER_S] = (double)d.pace_irqs / secs;
	out->v[METRIC_SKB_DEFERRED_PER_S] = (double)d.skb_deferred / secs;
	out->v[METRIC_WAKE_NO_IPI_PER_S] = (double)d.wake_no_ipi / secs;
	fill_role_metrics(sim, secs, out);
	fill_host_metrics(sim, ms, secs, out);
	out->v[METRIC_RPS_STEERED_PER_S] = (double)(sim->cnt.rps_steered - ms->mark.rps_steered) / secs;
	{
		sim_ns busy, rwnd;
		chrono_sum(sim, &busy, &rwnd);
		busy -= ms->chrono_busy;
		rwnd -= ms->chrono_rwnd;
		out->v[METRIC_SND_RWND_LIMITED_PCT] = busy > 0 ? 100.0 * (double)rwnd / (double)busy : 0;
	}
	out->v[METRIC_BACKLOG_COALESCE_PER_S] = (double)d.backlog_coalesce / secs;
	out->v[METRIC_RCV_COALESCE_PER_S] = (double)d.rcv_coalesce / secs;
	if (d.data_frames) {
		out->v[METRIC_SEGS_PER_FRAME] = (double)d.data_segs / (double)d.data_frames;
		out->v[METRIC_ACKS_PER_FRAME] = (double)d.acks / (double)d.data_frames;
	}

	if (sim->nconns) {
		struct tcp_conn *tc = &sim->conns[0];
		out->mss_bytes = tc->mss_bytes;
		out->size_goal_bytes = tc->size_goal_bytes;
		out->sndbuf_bytes = tc->sndbuf;
		/* FreeBSD's send buffer is SO_SNDBUF as given, in data bytes (app.c) */
		if (sc->test == APP_TCP_SENDFILE && sc->sendfile != SENDFILE_LINUX)
			out->sndbuf_bytes = sc->sndbuf_bytes > 0 ? sc->sndbuf_bytes : 32768;
		out->rcvbuf_bytes = tc->rcvbuf;
		out->cwnd_segs = (int64_t)tc->snd_cwnd;
		out->ssthresh_segs = tc->snd_ssthresh >= TCP_SSTHRESH_NONE ? 0 : (int64_t)tc->snd_ssthresh;
	}

	/* bottleneck: the busiest CPU, else what the tasks were waiting for */
	{
		double best = -1, snd_sleep = 0, rcv_sleep = 0;
		for (int h = 0; h < sim->nhosts; h++)
			for (int i = 0; i < sim->hosts[h].ncpus; i++)
				if (out->cpu_busy_pct[h][i] > best) {
					best = out->cpu_busy_pct[h][i];
					out->bottleneck_host = h;
					out->bottleneck_cpu = i;
				}
		out->bottleneck_util_pct = best;
		for (int i = 0; i < 2 * sc->instances; i++) {
			double f = (double)(task_sleep_now(sim, &sim->tasks[i]) - ms->sleep_mark[i]) / (secs * 1e9);
			if (i % 2 == 0)
				snd_sleep += f / sc->instances;
			else
				rcv_sleep += f / sc->instances;
		}
		/* NIC: the data direction's wire, as line time used (frames plus
		 * preamble, header, FCS and gap) over the measured interval */
		double wire_pct = 0;
		if (sc->link_type == LINK_NIC)
			wire_pct = 100.0 * (double)(sim->cnt.wire_busy_ns[0] - ms->mark.wire_busy_ns[0]) / (secs * 1e9);
		/* the wire when it is (nearly) full; a saturated CPU beside a wire
		 * that still has room is the limit */
		if (wire_pct >= 99.0 || (wire_pct >= 95.0 && best < 99.0)) {
			snprintf(out->bottleneck_text, sizeof(out->bottleneck_text),
				 "wire: host 0 -> host 1 busy %.1f%% of %.4g Gbit/s (busiest CPU %.1f%%)", wire_pct,
				 sc->rate_bps / 1e9, best);
			out->bottleneck = BOTTLENECK_WIRE;
			out->bottleneck_host = 0;
			out->bottleneck_cpu = -1;
			out->bottleneck_util_pct = wire_pct;
		} else if (best >= 95.0) {
			const struct host *bh = &sim->hosts[out->bottleneck_host];
			if (host_util[out->bottleneck_host] >= 95.0 && bh->ncpus > 1)
				snprintf(out->bottleneck_text, sizeof(out->bottleneck_text),
					 "CPU: all %d CPUs of host %d (%s) busy, %.1f%%", bh->ncpus, bh->id,
					 bh->cfg->name, host_util[out->bottleneck_host]);
			else
				snprintf(out->bottleneck_text, sizeof(out->bottleneck_text),
					 "CPU: host %d (%s) cpu%d at %.1f%%", bh->id, bh->cfg->name, out->bottleneck_cpu,
					 best);
			name_queue_cpu(sim, out);
			out->bottleneck = BOTTLENECK_CPU;
		} else if (snd_sleep > 0.5 && rcv_sleep > 0.5) {
			snprintf(out->bottleneck_text, sizeof(out->bottleneck_text),
				 "window: senders wait for ACKs %.0f%% and receivers for data %.0f%% of the time "
				 "(busiest CPU %.1f%%)", 100 * snd_sleep, 100 * rcv_sleep, best);
			out->bottleneck = BOTTLENECK_WINDOW;
		} else if (snd_sleep > 0.5) {
			snprintf(out->bottleneck_text, sizeof(out->bottleneck_text),
				 "receiver: senders wait %.0f%% of the time, receivers busy (busiest CPU %.1f%%)",
				 100 * snd_sleep, best);
			out->bottleneck = BOTTLENECK_RECEIVER;
		} else {
			snprintf(out->bottleneck_text, sizeof(out->bottleneck_text),
				 "none found: busiest CPU %.1f%%, senders asleep %.0f%%, receivers asleep %.0f%%", best,
				 100 * snd_sleep, 100 * rcv_sleep);
			out->bottleneck = BOTTLENECK_NONE;
		}
	}
}

/* Flow steering's view of a connection (sim->flow_id, sim->flow_cpu): its
 * number, and where its socket's owner last ran: the writer, which reads
 * the ACKs, on the sender's host, the reader on the receiver's. */
static uint32_t run_flow_id(const struct tcp_conn *tc) { return (uint32_t)tc->id; }

static struct cpu *run_flow_cpu(const struct tcp_conn *tc, int host)
{
	return (host == 0 ? tc->sender : tc->receiver)->cpu;
}

/* The CPU's interrupt and softirq handlers (open_softirq, request_irq). */
static const struct cpu_vectors run_vectors = {
	.dev_irq = netdev_irq,
	.timer = tcp_delack_timer,
	.hrtimer = tcp_pace_kick,
	.net_rx_begin = skb_defer_flush,
	.process_backlog = netdev_process_backlog,
	.napi_poll = netdev_napi_poll,
};

int sim_init(struct sim *sim, const struct scenario *sc, struct tcpsim_err *err)
{
	int rh;

	memset(sim, 0, sizeof(*sim));
	sim->sc = sc;
	sim->err = err;
	sim->vec = &run_vectors;
	sim->proto_rcv = tcp_v4_rcv;
	sim->flow_id = run_flow_id;
	sim->flow_cpu = run_flow_cpu;
	sim->dev = netdev_for(sc);
	if (!sim->dev)
		return err_set(err, TCPSIM_EUSAGE, "[link] type: '%s' path is not modelled in this version",
			       sc->link_type == LINK_NIC ? "nic" : "?");
	evq_init(&sim->evq);

	sim->nhosts = sc->link_type == LINK_NIC ? 2 : 1;
	sim->nconns = sc->instances;
	sim->ntasks = 2 * sc->instances;
	for (int h = 0; h < sim->nhosts; h++)
		sim->ntasks += sc->host[h].monitors + (sc->host[h].kswapd ? 1 : 0);
	for (int h = 0; h < sim->nhosts; h++)
		host_init(sim, &sim->hosts[h], h, sim->ntasks, sim->nconns);
	/* the queue's lanes (evq.h) hold every CPU's chunk end, or none */
	if (sim->hosts[0].ncpus + (sim->nhosts > 1 ? sim->hosts[1].ncpus : 0) > EVQ_LANES)
		sim->evq.lanes_max = 0;
	if (sim->dev->init)
		sim->dev->init(sim);
	rh = sim->nhosts - 1;

	sim->tasks = xaligned_alloc(_Alignof(struct task), (size_t)sim->ntasks * sizeof(*sim->tasks));
	memset(sim->tasks, 0, (size_t)sim->ntasks * sizeof(*sim->tasks));
	sim->apps = xaligned_alloc(_Alignof(struct app_state), (size_t)sim->ntasks * sizeof(*sim->apps));
	memset(sim->apps, 0, (size_t)sim->ntasks * sizeof(*sim->apps));
	for (int i = 0; i < sim->ntasks; i++)
		sim->tasks[i].app = &sim->apps[i];
	sim->conns = xaligned_alloc(_Alignof(struct tcp_conn), (size_t)sim->nconns * sizeof(*sim->conns));
	memset(sim->conns, 0, (size_t)sim->nconns * sizeof(*sim->conns));
	for (int i = 0; i < sc->instances; i++) {
		struct tcp_conn *tc = &sim->conns[i];
		struct task *snd = &sim->tasks[2 * i], *rcv = &sim->tasks[2 * i + 1];
		struct host *sh = &sim->hosts[0], *rhh = &sim->hosts[rh];
		int scpu = sc->send_cpu >= 0 ? sc->send_cpu : (2 * i) % sh->ncpus;
		int rcpu = sc->recv_cpu >= 0 ? sc->recv_cpu : (2 * i + 1) % rhh->ncpus;

		tcp_conn_init(sim, tc, i, sh, rhh);
		/* the socket's behaviour follows the program that owns it */
		tc->tx_page_frags = sc->test == APP_TCP_STREAM;
		tc->owner_backlog = sc->sendfile == SENDFILE_LINUX;
		tc->wake_writer_on_ack = sc->test == APP_TCP_SENDFILE && sc->sendfile != SENDFILE_LINUX;
		tc->rx_csum_on_copy = sc->link_type == LINK_NIC && !sc->csum;
		task_setup(sim, snd, 2 * i, "netperf", i, sh, sc->send_cpu,
			   sc->test == APP_TCP_SENDFILE ? &app_sendfile_sender : &app_stream_sender, tc);
		task_setup(sim, rcv, 2 * i + 1, "netserver", i, rhh, sc->recv_cpu, &app_receiver, tc);
		tc->sender = snd;
		tc->receiver = rcv;
		rcv->cpu = &rhh->cpus[rcpu];
		snd->cpu = &sh->cpus[scpu];
	}
	int id = 2 * sc->instances; /* then the monitors of each host, then each kswapd */
	for (int h = 0; h < sim->nhosts; h++)
		for (int k = 0; k < sc->host[h].monitors; k++, id++) {
			struct task *t = &sim->tasks[id];
			task_setup(sim, t, id, "monitor", k, &sim->hosts[h], -1, &app_monitor, NULL);
			t->cpu = &sim->hosts[h].cpus[k % sim->hosts[h].ncpus];
			if (sc->host[h].monitor_arrivals == MONITOR_POISSON) /* a stream apart from the CPUs' (bit 41) */
				t->app->arrivals = rng_new(sc->seed, (uint64_t)1 << 41 | (uint64_t)h << 16 | (uint64_t)k);
		}
	for (int h = 0; h < sim->nhosts; h++)
		if (sc->host[h].kswapd) { /* kswapd0: asleep until an allocation wakes it */
			struct task *t = &sim->tasks[id];
			task_setup(sim, t, id++, "kswapd", 0, &sim->hosts[h], -1, &app_kswapd, NULL);
			t->cpu = &sim->hosts[h].cpus[0];
			t->sleep_start = 0;
			sim->hosts[h].kswapd = t;
		}
	return TCPSIM_OK;
}

/* a receiver that starts late (app.recv_start) */
static void start_task_ev(struct sim *sim, void *obj, uint64_t arg)
{
	struct task *t = obj;
	(void)arg;
	sched_start_task(sim, t, t->cpu);
}

void sim_start(struct sim *sim)
{
	for (int i = 0; i < sim->nconns; i++) { /* each receiver, then its sender */
		struct task *rcv = sim->conns[i].receiver;
		if (sim->sc->recv_start_ns > 0)
			sim_at(sim, sim->now + sim->sc->recv_start_ns, start_task_ev, rcv, 0);
		else
			sched_start_task(sim, rcv, rcv->cpu);
		sched_start_task(sim, sim->conns[i].sender, sim->conns[i].sender->cpu);
	}
	for (int i = 2 * sim->nconns; i < sim->ntasks; i++) { /* monitors: their first wakeups */
		struct task *t = &sim->tasks[i];
		int k = i - 2 * sim->nconns - (t->host->id ? sim->sc->host[0].monitors : 0);
		if (t->ops != &app_monitor)
			continue; /* kswapd sleeps until an allocation wakes it */
		monitor_start(sim, t, k);
	}
	for (int h = 0; h < sim->nhosts; h++) {
		struct host *hh = &sim->hosts[h];
		sim_ns period = NS_PER_S / hh->cfg->hz;
		for (int i = 0; i < hh->ncpus; i++)
			sim_at(sim, period * (i + 1) / hh->ncpus, tick_ev, &hh->cpus[i], 0);
	}
}

int tcpsim_run(const struct scenario *sc, struct metrics *out, struct tcpsim_err *err)
{
	return tcpsim_run_timeline(sc, out, NULL, err);
}

int tcpsim_run_timeline(const struct scenario *sc, struct metrics *out, struct timeline *tl, struct tcpsim_err *err)
{
	return tcpsim_run_detail(sc, out, tl, NULL, NULL, err);
}

/* Each CPU's cycles by context and cost since the warm-up's end (the marks
 * measure_start took), as fill_metrics sums them per host. */
static void fill_cpu_cycles(const struct sim *sim, struct cpu_cycles *cc)
{
	int rows = 0;

	cc->nhosts = sim->nhosts;
	for (int h = 0; h < sim->nhosts; h++)
		rows += cc->ncpus[h] = sim->hosts[h].ncpus;
	cc->cycles = xcalloc((size_t)rows, sizeof(*cc->cycles));
	for (int h = 0; h < sim->nhosts; h++) {
		const struct host *hh = &sim->hosts[h];
		for (int i = 0; i < hh->ncpus; i++) {
			const struct cpu *c = &hh->cpus[i];
			for (int x = 0; x < CTX_N; x++)
				for (int k = 0; k < COST_N; k++)
					cpu_cycles_row(cc, h, i)[x][k] =
						(c->acct.cost[k].ctx_ns[x] - c->mark.cost[k].ctx_ns[x]) * hh->cfg->ghz;
		}
	}
}

int tcpsim_run_detail(const struct scenario *sc, struct metrics *out, struct timeline *tl, struct cpu_cycles *cc,
		      struct chargelog *cl, struct tcpsim_err *err)
{
	struct sim sim;
	struct measure ms;
	int rc;

	memset(&ms, 0, sizeof(ms));
	rc = sim_init(&sim, sc, err);
	if (rc)
		return rc;
	sim.tl = tl;
	if (cl) {
		size_t ncpus = (size_t)sim.hosts[0].ncpus + (sim.nhosts > 1 ? (size_t)sim.hosts[1].ncpus : 0);
		cl->mark = xcalloc(ncpus * CTX_N * COST_N, sizeof(*cl->mark));
		cl->open = xcalloc(ncpus, sizeof(*cl->open));
		cl->last_t = -1;
		sim.chg = cl;
	}
	ms.sleep_mark = xcalloc((size_t)sim.ntasks, sizeof(*ms.sleep_mark));
	ms.sim = &sim;
	sim_start(&sim);
	sim_at(&sim, sc->warmup_ns, warmup_end_ev, &ms, 0);

	while (!sim.stop && sim_step(&sim, INT64_MAX))
		;
	rc = err && err->code ? err->code : TCPSIM_OK;
	if (!rc) {
		fill_metrics(&sim, &ms, out);
		if (cc)
			fill_cpu_cycles(&sim, cc);
	}
	free(ms.batch_bps);
	free(ms.sleep_mark);
	sim_release(&sim);
	return rc;
}
