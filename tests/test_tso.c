/*
 * test_tso: how big a frame TCP builds, and when it may send one, by era.
 *
 *  - BIG TCP (6.3+ for IPv4): offload.gso_max_size up to 524280 bytes;
 *    at MTU 4096 frames of more than 41 segments (64 KB holds 16), and
 *    an older host.kernel refused with the file, line and key.
 *  - TSO autosizing (tcp_tso_autosize, 3.12+; by min_rtt 5.18+): a frame
 *    of about 1 ms of the pacing rate, so a low rate makes small frames
 *    and a high one full frames; none before 3.12.
 *  - TCP Small Queues (3.6+): a socket with more than the limit in the
 *    device waits for a TX completion (tcp_wfree); loopback orphans the
 *    skb at transmit so it never waits.
 * The story tests capture what TCP transmits (a fake device, as
 * test_tcp.c does); the run tests use the whole model.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "fixture.h"

#include "config.h"
#include "cpu.h"
#include "netdev.h"
#include "sim.h"
#include "skb.h"
#include "tcp.h"
#include "tcpsim.h"

#define CAP_MAX 64

struct capture {
	struct skb *skb[CAP_MAX];
	int n;
};

static void fake_xmit(struct sim *sim, struct cpu *c, struct skb *skb)
{
	struct capture *cap = sim->dev_state;
	(void)c;
	assert_true(cap->n < CAP_MAX);
	cap->skb[cap->n++] = skb; /* held, as a NIC holds it until its TX completion */
}

static const struct netdev_ops fake_dev = {.name = "fake", .xmit = fake_xmit};

struct story {
	struct scenario sc;
	struct sim sim;
	struct capture cap;
	struct tcp_conn *tc;
	struct cpu *c;
};

/* A connection of `kernel` at MTU 1500 after slow start: a 1 MB window
 * and cwnd 1000, so only the mechanism under test limits a frame. */
static void story_begin(struct story *st, const char *kernel, const char *max_rate, const char *lob)
{
	struct tcpsim_err err = {0};

	config_defaults(&st->sc);
	set(&st->sc, "host.kernel", kernel);
	set(&st->sc, "link.mtu", "1500");
	set(&st->sc, "run.cost_jitter", "0");
	set(&st->sc, "tcp.max_pacing_rate", max_rate);
	set(&st->sc, "tcp.limit_output_bytes", lob);
	set(&st->sc, "tcp.wmem_default", "4M");
	assert_int_equal(sim_init(&st->sim, &st->sc, &err), 0);
	memset(&st->cap, 0, sizeof st->cap);
	st->sim.dev = &fake_dev;
	st->sim.dev_state = &st->cap;
	st->tc = &st->sim.conns[0];
	st->c = &st->sim.hosts[0].cpus[0];
	st->tc->snd_cwnd = 1000;
	st->tc->snd_wnd_end = 1 << 20;
	st->tc->max_window = 1 << 20;
}

/* The application writes `bytes` (tcp_sendmsg's loop over skbs). */
static void append(struct story *st, uint32_t bytes)
{
	while (bytes > 0) {
		uint32_t n = tcp_send_append(&st->sim, st->c, st->tc, bytes, false);
		assert_true(n > 0);
		bytes -= n;
	}
}

static void story_end(struct story *st)
{
	st->tc->tsq_throttled = false; /* the frees below restart nothing */
	for (int i = 0; i < st->cap.n; i++)
		skb_free(&st->sim, st->c, st->cap.skb[i]);
	sim_release(&st->sim);
}

/* Segments in the first frame of a 45-segment write. */
static int first_frame_segs(const char *kernel, const char *max_rate, sim_ns min_rtt_ns)
{
	struct story st;
	int segs;

	story_begin(&st, kernel, max_rate, "0");
	st.tc->min_rtt_ns = min_rtt_ns;
	assert_int_equal(st.tc->size_goal_bytes, 45 * 1448);
	assert_int_equal(tcp_send_append(&st.sim, st.c, st.tc, 45 * 1448, false), 45 * 1448);
	assert_true(st.cap.n >= 1);
	segs = st.cap.skb[0]->segs;
	story_end(&st);
	return segs;
}

static void test_autosizing_follows_the_pacing_rate(void **state)
{
	(void)state;
	/* 80 Mbit/s = 10 MB/s: >> 10 is 9765 bytes, 6 segments of 1448 */
	assert_int_equal(first_frame_segs("5.17", "80Mbit", 100 * NS_PER_US), 6);
	/* 8 Gbit/s: 1 ms is far over 64 KB, the frame is full */
	assert_int_equal(first_frame_segs("5.17", "8Gbit", 100 * NS_PER_US), 45);
	/* no rate yet (sk_pacing_rate ~0U): full */
	assert_int_equal(first_frame_segs("5.17", "0", 100 * NS_PER_US), 45);
	/* 3.13 - 3.19 (SO_MAX_PACING_RATE is 3.13's): half a millisecond
	 * (sk_pacing_rate / 2000), 5000 bytes */
	assert_int_equal(first_frame_segs("3.13", "80Mbit", 100 * NS_PER_US), 3);
	/* the floor is tcp_min_tso_segs (2) */
	assert_int_equal(first_frame_segs("5.17", "1Mbit", 100 * NS_PER_US), 2);
	/* before 3.12 no autosizing */
	assert_int_equal(first_frame_segs("3.11", "80Mbit", 100 * NS_PER_US), 45);
	/* 5.18+: min_rtt below 512 us adds a whole gso_max_size -- full
	 * frames at any rate (loopback, a LAN) */
	assert_int_equal(first_frame_segs("5.18", "80Mbit", 100 * NS_PER_US), 45);
	assert_int_equal(first_frame_segs("6.18", "80Mbit", 100 * NS_PER_US), 45);
	/* ... 2 ms: 2000 >> 9 = 3, 65536 >> 3 = 8192 more bytes: 12 segments */
	assert_int_equal(first_frame_segs("6.18", "80Mbit", 2 * NS_PER_MS), 12);
}

static void test_tsq_waits_for_the_tx_completion(void **state)
{
	struct story st;
	(void)state;

	/* 6.5, tcp_limit_output_bytes 64K: the first frame (45 segments,
	 * 66 KB of truesize) leaves more than the limit in the device */
	story_begin(&st, "6.5", "0", "64K");
	append(&st, 3 * 45 * 1448);
	assert_int_equal(st.cap.n, 1);
	assert_true(st.tc->tsq_throttled);
	assert_true(st.tc->tsq_bytes > 64 * 1024);
	/* its TX completion frees it: tcp_wfree, the TSQ tasklet, the next frame */
	skb_free(&st.sim, st.c, st.cap.skb[0]);
	st.cap.skb[0] = st.cap.skb[--st.cap.n];
	assert_int_equal(st.cap.n, 1);
	assert_true(st.cap.skb[0]->seq == 45 * 1448);
	/* a device that hands the skb on (loopback, veth) orphans it at
	 * transmit: the socket's claim ends there, and the third frame goes */
	skb_orphan(&st.sim, st.c, st.cap.skb[0]);
	assert_int_equal(st.cap.n, 2);
	assert_true(st.cap.skb[1]->seq == 2 * 45 * 1448);
	assert_true(st.tc->tsq_bytes == st.cap.skb[1]->truesize);
	skb_orphan(&st.sim, st.c, st.cap.skb[1]);
	assert_true(st.tc->tsq_bytes == 0);
	assert_true(st.sim.cnt.tsq_throttles > 0);
	story_end(&st);

	/* 6.6+: a single skb in flight does not stop the next (the second
	 * frame goes, the third waits) */
	story_begin(&st, "6.18", "0", "64K");
	append(&st, 3 * 45 * 1448);
	assert_int_equal(st.cap.n, 2);
	assert_true(st.tc->tsq_throttled);
	story_end(&st);

	/* 3.5: no TSQ, all three frames go at once */
	story_begin(&st, "3.5", "0", "64K");
	append(&st, 3 * 45 * 1448);
	assert_int_equal(st.cap.n, 3);
	assert_false(st.tc->tsq_throttled);
	story_end(&st);
}

/* Two hosts over 100 Gbit/s at MTU 4096, one flow writing 4 MB at a time. */
static void nic_4096(struct scenario *sc, const char *kernel, const char *gso_max)
{
	config_defaults(sc);
	set(sc, "host.kernel", kernel);
	set(sc, "host.cpus", "4");
	set(sc, "host.ghz", "3");
	set(sc, "link.type", "nic");
	set(sc, "link.mtu", "4096");
	set(sc, "link.rate", "100Gbit");
	set(sc, "link.delay", "5us");
	set(sc, "link.tx_ring", "4096");
	set(sc, "link.rx_ring", "4096");
	set(sc, "tcp.wmem_max", "16M");
	set(sc, "tcp.rmem_max", "32M");
	set(sc, "app.send_size", "4M");
	set(sc, "app.recv_size", "4M");
	set(sc, "app.send_cpu", "1");
	set(sc, "app.recv_cpu", "1");
	set(sc, "run.duration", "200ms");
	set(sc, "run.warmup", "100ms");
	set(sc, "run.ci_target", "0");
	set(sc, "run.cost_jitter", "0");
	set(sc, "offload.gso_max_size", gso_max);
	set(sc, "offload.gro_max_size", gso_max);
	/* frame building, not the window: Reno's slow start (no HyStart,
	 * which on a 5 us link ends cubic's at cwnd 16) opens cwnd past
	 * 45 segments within the warm-up */
	set(sc, "tcp.cc", "reno");
}

static void test_big_tcp_frames_at_mtu_4096(void **state)
{
	struct scenario sc;
	struct metrics legacy, big;
	(void)state;

	nic_4096(&sc, "6.3", "65536");
	run(&sc, &legacy);
	nic_4096(&sc, "6.3", "185000");
	run(&sc, &big);
	/* 64 KB holds 16 segments of 4044 bytes; 185000 bytes hold 45 */
	assert_int_equal(legacy.size_goal_bytes, 16 * 4044);
	assert_int_equal(big.size_goal_bytes, 45 * 4044);
	if (!(m_of(&legacy, "segs_per_frame") <= 16))
		fail_msg("64 KB frames: %.2f segments per frame", m_of(&legacy, "segs_per_frame"));
	if (!(m_of(&big, "segs_per_frame") > 41))
		fail_msg("BIG TCP frames: %.2f segments per frame, want more than 41", m_of(&big, "segs_per_frame"));
}

/* Autocorking (3.14+): a sendmsg's short tail is held while the socket's
 * earlier skbs are still in the qdisc or on the ring, and goes with the
 * next write's data or at the TX completion -- small writes over a NIC
 * make bigger frames than before it. */
static void test_autocork_small_writes(void **state)
{
	struct scenario sc;
	struct metrics before, after;
	(void)state;

	nic_4096(&sc, "3.13", "65536");
	set(&sc, "link.mtu", "1500");
	set(&sc, "app.send_size", "2K");
	set(&sc, "app.recv_size", "64K");
	run(&sc, &before);
	nic_4096(&sc, "3.14", "65536");
	set(&sc, "link.mtu", "1500");
	set(&sc, "app.send_size", "2K");
	set(&sc, "app.recv_size", "64K");
	run(&sc, &after);
	if (!(m_of(&after, "segs_per_frame") > 1.5 * m_of(&before, "segs_per_frame")))
		fail_msg("2 KB writes: %.2f segments per frame on 3.13, %.2f on 3.14", m_of(&before, "segs_per_frame"),
			 m_of(&after, "segs_per_frame"));
}

/* config_load_with_overrides on a file of `text`: its message, or "" */
static void load_msg(const char *text, const char *const *ov, int n, char *msg, size_t len, char *path)
{
	struct scenario sc;
	struct tcpsim_err err = {0};
	int fd = mkstemp(path);
	FILE *f;

	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	config_load_with_overrides(&sc, path, ov, n, &err);
	snprintf(msg, len, "%s", err.code ? err.msg : "");
	unlink(path);
}

static void expect_has(const char *msg, const char *part)
{
	if (!strstr(msg, part))
		fail_msg("message lacks '%s': %s", part, msg);
}

static void test_big_tcp_refused_before_6_3(void **state)
{
	char msg[1024], path[64], where[256];
	const char *ov[] = {"host.kernel=6.3"};
	(void)state;

	strcpy(path, "/tmp/test_tso_XXXXXX");
	load_msg("[host]\nkernel = 6.2\n[offload]\ngso_max_size = 185000\n", NULL, 0, msg, sizeof msg, path);
	snprintf(where, sizeof where, "%s:4: [offload] gso_max_size = 185000", path);
	expect_has(msg, where);
	expect_has(msg, "6.3");
	snprintf(where, sizeof where, "host.kernel = 6.2 (%s:2)", path);
	expect_has(msg, where);
	/* the same file with 6.3 from the command line loads */
	strcpy(path, "/tmp/test_tso_XXXXXX");
	load_msg("[host]\nkernel = 6.2\n[offload]\ngso_max_size = 185000\n", ov, 1, msg, sizeof msg, path);
	assert_string_equal(msg, "");
	/* the receiver's GRO follows the receiving host's kernel */
	strcpy(path, "/tmp/test_tso_XXXXXX");
	load_msg("[host]\nkernel = 6.3\n[rhost]\nkernel = 6.1\n[link]\ntype = nic\n[offload]\ngro_max_size = 524280\n",
		 NULL, 0, msg, sizeof msg, path);
	snprintf(where, sizeof where, "%s:8: [offload] gro_max_size = 524280", path);
	expect_has(msg, where);
	expect_has(msg, "rhost.kernel = 6.1");
	/* above 524280 is no value of the key at all */
	strcpy(path, "/tmp/test_tso_XXXXXX");
	load_msg("[host]\nkernel = 6.3\n[offload]\ngso_max_size = 524281\n", NULL, 0, msg, sizeof msg, path);
	expect_has(msg, ":4: [offload] gso_max_size");
	/* the algorithms' eras: bbr 4.9, dctcp 3.18 */
	strcpy(path, "/tmp/test_tso_XXXXXX");
	load_msg("[host]\nkernel = 4.8\n[tcp]\ncc = bbr\n", NULL, 0, msg, sizeof msg, path);
	snprintf(where, sizeof where, "%s:4: [tcp] cc = bbr", path);
	expect_has(msg, where);
	expect_has(msg, "4.9");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_autosizing_follows_the_pacing_rate),
		cmocka_unit_test(test_tsq_waits_for_the_tx_completion),
		cmocka_unit_test(test_big_tcp_frames_at_mtu_4096),
		cmocka_unit_test(test_autocork_small_writes),
		cmocka_unit_test(test_big_tcp_refused_before_6_3),
	};
	return cmocka_run_group_tests_name("frame size and TSQ by era", tests, NULL, NULL);
}
