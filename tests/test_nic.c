/*
 * test_nic: two hosts over a NIC (model/net/netdev_nic.h) against closed forms
 * and the directions a kernel engineer expects.
 *
 *  - Wire-bound oracle: CPUs so fast that costs vanish (1000 GHz on both
 *    hosts) and windows that autotune large: goodput is the line rate times
 *    payload / line bytes per frame, 10e9 x 1448 / 1538 at MTU 1500 and
 *    10e9 x 8948 / 9038 at MTU 9000 (timestamps on), within 0.5%, and the
 *    bottleneck named is the wire.
 *  - The Myri10GE report's scenarios: TSO lowers the FreeBSD sender's
 *    service demand and raises throughput, old and new sendfile alike.
 *  - Interrupt coalescing: a longer rx-usecs gives fewer hardirqs, NET_RX
 *    softirqs and (with GRO merging more per poll) ACKs; rx-frames
 *    interrupts earlier, so more interrupts.
 *  - LRO/GRO: merging cuts ACKs and receive CPU and, on a receiver that is
 *    CPU-bound without it, raises throughput; LRO and GRO are the same
 *    mechanism.
 *  - LRO/GRO limits, frame by frame: frames injected on the receiver's RX
 *    ring are never merged beyond 64 KB, across flows or across a hole.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "expect.h"

#include "config.h"
#include "netdev_nic.h"
#include "sim.h"
#include "skb.h"
#include "tcp.h"
#include "tcpsim.h"

static void set(struct scenario *sc, const char *key, const char *val)
{
	struct tcpsim_err err = {0};
	if (config_set(sc, key, val, "test", &err))
		fail_msg("config_set %s=%s: %s", key, val, err.msg);
}

static void run(const struct scenario *sc, struct metrics *m)
{
	struct tcpsim_err err = {0};
	if (config_validate(sc, &err) || tcpsim_run(sc, m, &err))
		fail_msg("tcpsim_run: %s", err.msg);
}

/* Two 2-CPU hosts (rhost follows host), bulk TCP_STREAM, receiver on CPU 1. */
static void nic_base(struct scenario *sc, const char *ghz)
{
	config_defaults(sc);
	set(sc, "link.type", "nic");
	set(sc, "link.mtu", "1500");
	set(sc, "host.cpus", "2");
	set(sc, "host.ghz", ghz);
	set(sc, "app.test", "TCP_STREAM");
	set(sc, "app.send_size", "256K");
	set(sc, "app.recv_cpu", "1");
	set(sc, "run.warmup", "30ms");
	set(sc, "run.duration", "100ms");
	set(sc, "run.batch", "10ms");
	/* these are the NIC's tests, not TSQ's (test_tso.c): 3.6's 128 KB
	 * limit would hold a sender to what TX completions release, which
	 * 100 us of tx-usecs coalescing delays (128 KB is 105 us of wire) */
	set(sc, "tcp.limit_output_bytes", "1G");
}

/* ---- wire-bound oracle ---- */

static void wire_oracle(const char *mtu, double payload, double line)
{
	struct scenario sc;
	struct metrics m;
	double want = 10e9 * payload / line / 1e6;

	nic_base(&sc, "1000");
	set(&sc, "link.mtu", mtu);
	set(&sc, "link.rate", "10Gbit");
	run(&sc, &m);
	assert_int_equal(m.mss_bytes, (int)payload);
	expect_within(m.v[METRIC_THROUGHPUT_TOTAL_MBPS], want, 0.005, "wire-bound goodput");
	assert_int_equal(m.bottleneck, BOTTLENECK_WIRE);
	assert_non_null(strstr(m.bottleneck_text, "wire"));
	/* every data frame on the wire is a full MSS: frames/s = goodput / MSS */
	expect_within(m.v[METRIC_WIRE_FRAMES_PER_S], want * 1e6 / 8 / payload, 0.005, "wire frames/s");
}

static void test_wire_oracle_mtu1500(void **state)
{
	(void)state;
	/* MSS 1500 - 20 - 20 - 12; line bytes 1500 + 8 + 14 + 4 + 12 */
	wire_oracle("1500", 1448, 1538);
}

static void test_wire_oracle_mtu9000(void **state)
{
	(void)state;
	wire_oracle("9000", 8948, 9038);
}

/* ---- the Myri10GE report's scenarios ---- */

static void run_file(const char *path, struct metrics *m)
{
	struct scenario sc;
	struct tcpsim_err err = {0};

	config_defaults(&sc);
	if (config_load(&sc, path, &err))
		fail_msg("%s", err.msg);
	run(&sc, m);
}

static void tso_direction(const char *notso_path, const char *tso_path)
{
	struct metrics off, on;

	run_file(notso_path, &off);
	run_file(tso_path, &on);
	expect_below(on.v[METRIC_SD_SEND_US_PER_KB], off.v[METRIC_SD_SEND_US_PER_KB], "sender us/KB, TSO on vs off");
	expect_below(off.v[METRIC_THROUGHPUT_MBPS], on.v[METRIC_THROUGHPUT_MBPS], "throughput, TSO off vs on");
	/* what TSO does: fewer, larger frames from the host */
	expect_below(off.v[METRIC_SEGS_PER_FRAME], on.v[METRIC_SEGS_PER_FRAME], "segments per frame, TSO off vs on");
	assert_true(off.v[METRIC_SEGS_PER_FRAME] == 1.0);
}

static void test_myri10ge_tso_old_sendfile(void **state)
{
	(void)state;
	tso_direction("scenarios/myri10ge/old-notso.cfg", "scenarios/myri10ge/old-tso.cfg");
}

static void test_myri10ge_tso_new_sendfile(void **state)
{
	(void)state;
	tso_direction("scenarios/myri10ge/new-notso.cfg", "scenarios/myri10ge/new-tso.cfg");
}

/* The rewrite's mechanism with TSO: one tcp_output per chunk gives large
 * TSO frames where one per page gave frames of a page's worth. */
static void test_myri10ge_sendfile_rewrite(void **state)
{
	struct metrics old_tso, new_tso;
	(void)state;

	run_file("scenarios/myri10ge/old-tso.cfg", &old_tso);
	run_file("scenarios/myri10ge/new-tso.cfg", &new_tso);
	/* a page (4096 bytes) holds at most 3 segments of 1448 */
	assert_true(old_tso.v[METRIC_SEGS_PER_FRAME] <= 3.0);
	assert_true(new_tso.v[METRIC_SEGS_PER_FRAME] > 10.0);
	expect_below(new_tso.v[METRIC_SD_SEND_US_PER_KB], old_tso.v[METRIC_SD_SEND_US_PER_KB] / 2,
		     "sender us/KB, new vs old sendfile with TSO");
}

/* ---- interrupt coalescing ---- */

static void coal_run(const char *usecs, const char *frames, struct metrics *m)
{
	struct scenario sc;
	nic_base(&sc, "3");
	set(&sc, "host.rx_usecs", usecs);
	set(&sc, "host.tx_usecs", usecs);
	set(&sc, "host.rx_frames", frames);
	run(&sc, m);
}

static void test_coalescing_longer_delay_fewer_interrupts(void **state)
{
	struct metrics fast, slow;
	(void)state;

	coal_run("5us", "0", &fast);
	coal_run("100us", "0", &slow);
	/* same wire-bound throughput, far fewer interrupts and softirqs */
	expect_within(slow.v[METRIC_THROUGHPUT_MBPS], fast.v[METRIC_THROUGHPUT_MBPS], 0.01, "throughput");
	expect_below(slow.v[METRIC_HARDIRQS_PER_S], fast.v[METRIC_HARDIRQS_PER_S] / 4, "hardirqs/s, 100 vs 5 us");
	expect_below(slow.v[METRIC_INTR_PER_S], fast.v[METRIC_INTR_PER_S] / 2, "interrupts/s, 100 vs 5 us");
	expect_below(slow.v[METRIC_NETRX_SOFTIRQS_PER_S], fast.v[METRIC_NETRX_SOFTIRQS_PER_S] / 4,
		     "NET_RX softirqs/s, 100 vs 5 us");
	/* more frames per poll, larger GRO merges, one ACK per merged frame */
	expect_below(slow.v[METRIC_ACKS_PER_S], fast.v[METRIC_ACKS_PER_S] / 2, "ACKs/s, 100 vs 5 us");
}

static void test_coalescing_frame_limit_more_interrupts(void **state)
{
	struct metrics nolimit, limit;
	(void)state;

	coal_run("100us", "0", &nolimit);
	coal_run("100us", "8", &limit);
	expect_below(nolimit.v[METRIC_HARDIRQS_PER_S], limit.v[METRIC_HARDIRQS_PER_S] / 2,
		     "hardirqs/s, rx-frames off vs 8");
	expect_below(nolimit.v[METRIC_NETRX_SOFTIRQS_PER_S], limit.v[METRIC_NETRX_SOFTIRQS_PER_S] / 2,
		     "NET_RX softirqs/s, rx-frames off vs 8");
	expect_below(nolimit.v[METRIC_ACKS_PER_S], limit.v[METRIC_ACKS_PER_S], "ACKs/s, rx-frames off vs 8");
}

/* ---- LRO/GRO ---- */

static void gro_run(const char *ghz, const char *gro, const char *lro, struct metrics *m)
{
	struct scenario sc;
	nic_base(&sc, ghz);
	set(&sc, "offload.gro", gro);
	set(&sc, "offload.lro", lro);
	run(&sc, m);
}

static void test_gro_fewer_acks_less_receive_cpu(void **state)
{
	struct metrics off, on, lro;
	(void)state;

	/* fast hosts: both wire-bound, so the rates compare like for like */
	gro_run("1000", "off", "off", &off);
	gro_run("1000", "on", "off", &on);
	gro_run("1000", "off", "on", &lro);
	expect_within(on.v[METRIC_THROUGHPUT_MBPS], off.v[METRIC_THROUGHPUT_MBPS], 0.01, "throughput");
	assert_true(off.v[METRIC_GRO_MERGES_PER_S] == 0);
	assert_true(on.v[METRIC_GRO_MERGES_PER_S] > 0.5 * on.v[METRIC_WIRE_FRAMES_PER_S]);
	/* without merging every second segment is ACKed (rcv_mss = MSS) */
	expect_within(off.v[METRIC_ACKS_PER_S], off.v[METRIC_WIRE_FRAMES_PER_S] / 2, 0.02, "ACKs/s without GRO");
	expect_below(on.v[METRIC_ACKS_PER_S], off.v[METRIC_ACKS_PER_S] / 2, "ACKs/s, GRO on vs off");
	expect_below(on.v[METRIC_CPU_RECV_PCT], off.v[METRIC_CPU_RECV_PCT], "receiver CPU, GRO on vs off");
	/* coalescing, not GRO, sets the device interrupts and NET_RX runs
	 * (the reader is woken once per prequeue fill, not per frame, so
	 * GRO does not set the wakeups either) */
	expect_within(on.v[METRIC_HARDIRQS_PER_S], off.v[METRIC_HARDIRQS_PER_S], 0.05, "hardirqs/s, GRO on vs off");
	expect_within(on.v[METRIC_NETRX_SOFTIRQS_PER_S], off.v[METRIC_NETRX_SOFTIRQS_PER_S], 0.05,
		      "NET_RX softirqs/s, GRO on vs off");
	expect_below(off.v[METRIC_WAKEUPS_PER_S], off.v[METRIC_FRAMES_PER_S], "reader wakeups vs frames, GRO off");
	/* LRO is the same mechanism in the model */
	expect_within(lro.v[METRIC_ACKS_PER_S], on.v[METRIC_ACKS_PER_S], 0.001, "ACKs/s, LRO vs GRO");
	expect_within(lro.v[METRIC_GRO_MERGES_PER_S], on.v[METRIC_GRO_MERGES_PER_S], 0.001, "merges/s, LRO vs GRO");
}

static void test_gro_unloads_a_cpu_bound_receiver(void **state)
{
	struct metrics off, on;
	(void)state;

	/* reference costs at 3 GHz: the receiver's CPU 0 cannot take every
	 * frame through the stack, but it can with merging */
	gro_run("3", "off", "off", &off);
	gro_run("3", "on", "off", &on);
	assert_int_equal(off.bottleneck, BOTTLENECK_CPU);
	assert_int_equal(off.bottleneck_host, 1);
	assert_int_equal(on.bottleneck, BOTTLENECK_WIRE);
	expect_below(off.v[METRIC_THROUGHPUT_MBPS], 0.9 * on.v[METRIC_THROUGHPUT_MBPS], "throughput, GRO off vs on");
	/* the reader, inside recv() all the time, does the TCP receive work
	 * of the frames itself (prequeue, socket backlog): the receiving
	 * CPU's time is mostly process context, and GRO leaves it less of it */
	expect_below(off.host_ctx_pct[1][1], off.host_ctx_pct[1][2], "receiver softirq vs process time, GRO off");
	expect_below(on.host_cat_pct[1][COST_RX_FRAME], off.host_cat_pct[1][COST_RX_FRAME], "receiver rx_frame time, GRO on vs off");
	expect_within(on.v[METRIC_NETRX_SOFTIRQS_PER_S], on.v[METRIC_HARDIRQS_PER_S], 0.001, "NET_RX vs hardirqs, GRO on");
	/* a receiver that cannot keep up has unread data, so the window it
	 * would offer shrinks and __tcp_ack_snd_check holds the ACK: its ACKs
	 * come from recv() (tcp_cleanup_rbuf); one that keeps up ACKs on
	 * receipt, every second merged frame */
	expect_below(off.v[METRIC_ACKS_RX_PER_S], off.v[METRIC_ACKS_READ_PER_S], "ACKs on receipt vs after recv(), GRO off");
	expect_below(on.v[METRIC_ACKS_READ_PER_S], on.v[METRIC_ACKS_RX_PER_S], "ACKs after recv() vs on receipt, GRO on");
}

/* ---- LRO/GRO limits, frame by frame ---- */

struct bench {
	struct scenario sc;
	struct sim sim;
};

static void bench_begin(struct bench *b)
{
	struct tcpsim_err err = {0};

	config_defaults(&b->sc);
	set(&b->sc, "link.type", "nic");
	set(&b->sc, "link.mtu", "1500");
	set(&b->sc, "app.instances", "2");
	set(&b->sc, "offload.gro", "on");
	set(&b->sc, "run.cost_jitter", "0");
	set(&b->sc, "tcp.rcvbuf", "8M");
	/* everything injected is on the ring before the interrupt fires */
	set(&b->sc, "rhost.rx_usecs", "1ms");
	set(&b->sc, "link.rx_ring", "4096");
	assert_int_equal(sim_init(&b->sim, &b->sc, &err), 0);
	for (int i = 0; i < b->sim.nconns; i++) {
		struct tcp_conn *tc = &b->sim.conns[i];
		/* as if the sender had sent 1 MB already: the receiver may take it */
		tc->write_seq = tc->snd_nxt = 1u << 20;
		tc->rcv_ssthresh = tc->rcv_wnd = 4u << 20;
	}
}

/* Run until nothing is left to happen (no ticks: sim_start is not called). */
static void bench_drain(struct bench *b)
{
	while (sim_step(&b->sim, INT64_MAX))
		;
}

/* Check the skbs TCP received on tc, in order from seq `from`; returns the
 * largest number of segments merged into one and adds up their bytes. */
static int check_skbs(struct skb *head, const struct tcp_conn *tc, uint64_t from, uint64_t *bytes)
{
	int most = 0;
	for (struct skb *s = head; s; s = s->next) {
		assert_ptr_equal(s->conn, tc);
		assert_int_equal(s->seq, from);   /* in order, nothing from elsewhere */
		/* IP + TCP + timestamps headers plus payload below 64 KB */
		assert_true(52 + s->len < NIC_GRO_MAX_BYTES);
		assert_int_equal(s->len, (uint32_t)s->segs * (uint32_t)tc->mss_bytes);
		if (s->segs > most)
			most = s->segs;
		from += s->len;
		*bytes += s->len;
	}
	return most;
}

static void test_gro_limits(void **state)
{
	struct bench b;
	struct tcp_conn *f0, *f1;
	uint32_t mss;
	uint64_t bytes = 0, merges, hole;
	int most;
	(void)state;

	bench_begin(&b);
	f0 = &b.sim.conns[0];
	f1 = &b.sim.conns[1];
	mss = (uint32_t)f0->mss_bytes;

	/* one flow, 100 frames in order: a poll takes 64 of them (link.weight),
	 * merged as 45 (45 x 1448 + 52 < 65536 <= 46 x 1448 + 52) and 19; then 36 */
	for (uint32_t i = 0; i < 100; i++)
		nic_inject_rx(&b.sim, 1, f0, (uint64_t)i * mss, mss);
	bench_drain(&b);
	most = check_skbs(f0->rq.head, f0, 0, &bytes);
	assert_int_equal(most, 45);
	assert_int_equal(bytes, 100 * (uint64_t)mss);
	assert_int_equal(f0->rq.len, 3);
	assert_int_equal(b.sim.cnt.gro_merges, 100 - 3);

	/* two flows interleaved frame by frame: merged per flow, never across */
	merges = b.sim.cnt.gro_merges;
	for (uint32_t i = 100; i < 140; i++) {
		nic_inject_rx(&b.sim, 1, f0, (uint64_t)i * mss, mss);
		nic_inject_rx(&b.sim, 1, f1, (uint64_t)(i - 100) * mss, mss);
	}
	bench_drain(&b);
	bytes = 0;
	check_skbs(f0->rq.head, f0, 0, &bytes);
	assert_int_equal(bytes, 140 * (uint64_t)mss);
	bytes = 0;
	most = check_skbs(f1->rq.head, f1, 0, &bytes);
	assert_int_equal(bytes, 40 * (uint64_t)mss);
	assert_true(most > 1);
	assert_true(b.sim.cnt.gro_merges - merges == 80 - f1->rq.len - (f0->rq.len - 3));

	/* a hole in flow 1: what follows it is merged, but not across it */
	hole = 41 * (uint64_t)mss; /* segment 40 never arrives */
	for (uint32_t i = 41; i < 50; i++)
		nic_inject_rx(&b.sim, 1, f1, (uint64_t)i * mss, mss);
	bench_drain(&b);
	assert_non_null(f1->ofo);
	assert_int_equal(f1->ofo->seq, hole);
	assert_int_equal(f1->ofo->segs, 9);
	assert_null(f1->ofo->next);
	assert_int_equal(f1->rcv_nxt, 40 * (uint64_t)mss);

	sim_release(&b.sim);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wire_oracle_mtu1500),
		cmocka_unit_test(test_wire_oracle_mtu9000),
		cmocka_unit_test(test_myri10ge_tso_old_sendfile),
		cmocka_unit_test(test_myri10ge_tso_new_sendfile),
		cmocka_unit_test(test_myri10ge_sendfile_rewrite),
		cmocka_unit_test(test_coalescing_longer_delay_fewer_interrupts),
		cmocka_unit_test(test_coalescing_frame_limit_more_interrupts),
		cmocka_unit_test(test_gro_fewer_acks_less_receive_cpu),
		cmocka_unit_test(test_gro_unloads_a_cpu_bound_receiver),
		cmocka_unit_test(test_gro_limits),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
