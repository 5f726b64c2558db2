/*
 * test_config: the key table, its parser, its errors and its dump.
 *
 * The oracle for values is the spec of config.h written out by hand
 * (defaults field by field, one table of unit notations with the stored
 * value each must give); for errors it is the exact message the user is
 * promised (file, line, section, key, did-you-mean).  The dump is checked
 * by reloading it: a scenario written by config_dump() and read back by
 * config_load() must be byte-identical (memcmp) to the one dumped.
 *
 * Input files live in tests/data/config/; tests run from the repo root.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "config.h"
#include "cost.h"
#include "util.h"

#define DATA "tests/data/config/"

/* ---- helpers ---- */

static void set_ok(struct scenario *sc, const char *key, const char *value)
{
	struct tcpsim_err e = {0};
	int rc = config_set(sc, key, value, "test", &e);
	if (rc != TCPSIM_OK)
		fail_msg("config_set(%s, '%s') failed: %s", key, value, e.msg);
}

static void override_ok(struct scenario *sc, const char *assignment)
{
	struct tcpsim_err e = {0};
	int rc = config_override(sc, assignment, assignment, &e);
	if (rc != TCPSIM_OK)
		fail_msg("config_override('%s') failed: %s", assignment, e.msg);
}

static void load_ok(struct scenario *sc, const char *path)
{
	struct tcpsim_err e = {0};
	int rc = config_load(sc, path, &e);
	if (rc != TCPSIM_OK)
		fail_msg("config_load(%s) failed: %s", path, e.msg);
}

/* Load path over defaults; expect status EUSAGE and exactly msg; sc must stay untouched. */
static void load_fails(const char *path, const char *msg)
{
	struct scenario sc, before;
	struct tcpsim_err e = {0};

	config_defaults(&sc);
	memcpy(&before, &sc, sizeof sc);
	int rc = config_load(&sc, path, &e);
	assert_int_equal(rc, TCPSIM_EUSAGE);
	assert_int_equal(e.code, TCPSIM_EUSAGE);
	assert_string_equal(e.msg, msg);
	assert_memory_equal(&sc, &before, sizeof sc);
}

/* config_set must fail with status EUSAGE and a message that contains want. */
static void set_fails(const char *key, const char *value, const char *want)
{
	struct scenario sc, before;
	struct tcpsim_err e = {0};

	config_defaults(&sc);
	memcpy(&before, &sc, sizeof sc);
	int rc = config_set(&sc, key, value, "where", &e);
	if (rc != TCPSIM_EUSAGE || !strstr(e.msg, want))
		fail_msg("config_set(%s, '%s'): status %d, message '%s'; want status %d and '%s'", key,
			 value, rc, e.msg, TCPSIM_EUSAGE, want);
	assert_true(strncmp(e.msg, "where: ", 7) == 0);
	assert_memory_equal(&sc, &before, sizeof sc);
}

static void get(const struct scenario *sc, const char *key, char *buf, size_t n)
{
	if (config_get(sc, key, buf, n) != 0)
		fail_msg("config_get(%s) failed", key);
}

/* ---- defaults ---- */

static void test_defaults(void **state)
{
	struct scenario sc;
	struct tcpsim_err e = {0};

	memset(&sc, 0xA5, sizeof sc);   /* config_defaults must clear everything itself */
	config_defaults(&sc);
	assert_int_equal(sc.duration_ns, 2 * NS_PER_S);
	assert_int_equal(sc.warmup_ns, 300 * NS_PER_MS);
	assert_int_equal(sc.seed, 1);
	assert_int_equal(sc.batch_ns, 50 * NS_PER_MS);
	assert_int_equal(sc.min_batches, 10);
	assert_true(sc.ci_target == 0.01);
	assert_true(sc.lkp_seconds == 300);
	assert_true(sc.cost_jitter == 0.02);
	for (int h = 0; h < 2; h++) {
		assert_int_equal(sc.host[h].cpus, 4);
		assert_true(sc.host[h].ghz == 1.8);
		assert_int_equal(sc.host[h].hz, 250);
		assert_string_equal(sc.host[h].kernel, "3.6");
		assert_string_equal(sc.host[h].name, "atom");
		for (int c = 0; c < COST_N; c++)
			assert_true(sc.host[h].cost_cycles[c] == cost_table[c].def_cycles);
	}
	assert_int_equal(sc.link_type, LINK_LOOPBACK);
	assert_int_equal(sc.mtu_bytes, 65536);
	assert_int_equal(sc.delay_ns, 0);
	assert_true(sc.rate_bps == 10e9);
	assert_int_equal(sc.backlog_max, 1000);
	assert_int_equal(sc.netdev_budget, 300);
	assert_int_equal(sc.dev_weight, 64);
	assert_true(sc.tso && sc.gso && sc.gro && !sc.lro && sc.csum);
	assert_int_equal(sc.gso_max_bytes, 65536);
	assert_int_equal(sc.sndbuf_bytes, 0);
	assert_int_equal(sc.rcvbuf_bytes, 0);
	assert_int_equal(sc.wmem_default, 16384);
	assert_int_equal(sc.wmem_max, 4 << 20);
	assert_int_equal(sc.rmem_default, 87380);
	assert_int_equal(sc.rmem_max, 6 << 20);
	assert_true(sc.timestamps);
	assert_int_equal(sc.init_cwnd, 10);
	assert_int_equal(sc.cc, CC_CUBIC);
	assert_int_equal(sc.delack_min_ns, 40 * NS_PER_MS);
	assert_int_equal(sc.delack_max_ns, 200 * NS_PER_MS);
	assert_int_equal(sc.ato_min_ns, 40 * NS_PER_MS);
	assert_false(sc.nodelay);
	assert_int_equal(sc.adv_win_scale, 1);
	assert_int_equal(sc.test, APP_TCP_STREAM);
	assert_int_equal(sc.send_size, 16384);
	assert_int_equal(sc.recv_size, 87380);
	assert_int_equal(sc.instances, 1);
	assert_int_equal(sc.send_cpu, -1);
	assert_int_equal(sc.recv_cpu, -1);
	assert_int_equal(sc.sched_latency_ns, 6 * NS_PER_MS);
	assert_int_equal(sc.sched_min_gran_ns, 750 * NS_PER_US);
	assert_int_equal(sc.sched_wakeup_gran_ns, 1 * NS_PER_MS);
	assert_true(sc.wake_affine);
	assert_int_equal(sc.slab_objs, 32);
	assert_int_equal(sc.slab_pages, 8);
	assert_int_equal(sc.slab_cpu_objs, 64);
	assert_int_equal(sc.frag_pages, 8);
	assert_int_equal(sc.skb_overhead_bytes, 768);
	assert_int_equal(sc.rhost_explicit, 0);
	for (int c = 0; c < COST_N; c++)
		assert_false(sc.rcost_explicit[c]);
	assert_int_equal(config_validate(&sc, &e), TCPSIM_OK);

	/* padding included: two fills from different garbage are byte-equal */
	struct scenario other;
	memset(&other, 0x5A, sizeof other);
	config_defaults(&other);
	assert_memory_equal(&sc, &other, sizeof sc);
}

/* ---- the key list ---- */

static void test_key_names(void **state)
{
	int n = config_key_count();
	char buf[128];
	struct scenario sc;

	config_defaults(&sc);
	assert_int_equal(n, 9 + 31 + COST_N + 31 + COST_N + 11 + 7 + 23 + 9 + 5 + 6);
	for (int i = 0; i < n; i++) {
		const char *name = config_key_name(i);
		assert_non_null(name);
		assert_true(config_key_exists(name));
		assert_int_equal(config_get(&sc, name, buf, sizeof buf), 0);
		for (int j = 0; j < i; j++)
			assert_string_not_equal(name, config_key_name(j));
	}
	assert_null(config_key_name(n));
	assert_null(config_key_name(-1));
	for (int c = 0; c < COST_N; c++) {
		snprintf(buf, sizeof buf, "cost.%s", cost_table[c].key);
		assert_true(config_key_exists(buf));
		snprintf(buf, sizeof buf, "rcost.%s", cost_table[c].key);
		assert_true(config_key_exists(buf));
	}
	assert_false(config_key_exists("tcp"));
	assert_false(config_key_exists("tcp.sndbf"));
	assert_false(config_key_exists("sndbuf"));
	assert_false(config_key_exists("tcp.include"));
	assert_int_equal(config_get(&sc, "tcp.nope", buf, sizeof buf), -1);
	assert_int_equal(config_get(&sc, "app.test", buf, 4), -1);   /* "TCP_STREAM" does not fit */
	assert_int_equal(config_get(&sc, "app.test", buf, 11), 0);
	assert_string_equal(buf, "TCP_STREAM");
}

/* ---- value notations ---- */

struct unit_case {
	const char *key;
	const char *text;
	double want;       /* stored value, in the field's own unit */
	const char *canon; /* config_get afterwards */
};

static double field_value(const struct scenario *sc, const char *key)
{
	if (!strcmp(key, "app.send_size"))
		return (double)sc->send_size;
	if (!strcmp(key, "tcp.wmem_max"))
		return (double)sc->wmem_max;
	if (!strcmp(key, "mem.skb_overhead"))
		return sc->skb_overhead_bytes;
	if (!strcmp(key, "link.delay"))
		return (double)sc->delay_ns;
	if (!strcmp(key, "tcp.delack_min"))
		return (double)sc->delack_min_ns;
	if (!strcmp(key, "run.duration"))
		return (double)sc->duration_ns;
	if (!strcmp(key, "run.warmup"))
		return (double)sc->warmup_ns;
	if (!strcmp(key, "sched.min_granularity"))
		return (double)sc->sched_min_gran_ns;
	if (!strcmp(key, "link.rate"))
		return sc->rate_bps;
	if (!strcmp(key, "link.mtu"))
		return sc->mtu_bytes;
	if (!strcmp(key, "host.ghz"))
		return sc->host[0].ghz;
	if (!strcmp(key, "run.seed"))
		return (double)sc->seed;
	if (!strcmp(key, "tcp.adv_win_scale"))
		return sc->adv_win_scale;
	fail_msg("no field for %s", key);
	return 0;
}

static void test_units(void **state)
{
	static const struct unit_case cases[] = {
		/* sizes: powers of 1024 */
		{"app.send_size", "65536", 65536, "64K"},
		{"app.send_size", "64K", 65536, "64K"},
		{"app.send_size", "64k", 65536, "64K"},
		{"app.send_size", "64KB", 65536, "64K"},
		{"app.send_size", "64KiB", 65536, "64K"},
		{"app.send_size", "64 K", 65536, "64K"},
		{"app.send_size", "1M", 1 << 20, "1M"},
		{"app.send_size", "1MiB", 1 << 20, "1M"},
		{"app.send_size", "1.5K", 1536, "1536"},
		{"app.send_size", "1000", 1000, "1000"},
		{"app.send_size", "3B", 3, "3"},
		{"tcp.wmem_max", "1G", 1 << 30, "1G"},
		{"tcp.wmem_max", "1gb", 1 << 30, "1G"},
		{"tcp.wmem_max", "1GiB", 1 << 30, "1G"},
		{"mem.skb_overhead", "1K", 1024, "1K"},   /* an int field */
		/* times: bare number in the key's unit */
		{"link.delay", "5", 5e3, "5us"},
		{"link.delay", "40us", 40e3, "40us"},
		{"link.delay", "1.5ms", 1.5e6, "1500us"},
		{"link.delay", "300ns", 300, "300ns"},
		{"link.delay", "10s", 10e9, "10s"},
		{"link.delay", "0", 0, "0"},
		{"link.delay", "2.5 ms", 2.5e6, "2500us"},
		{"tcp.delack_min", "50", 50e6, "50ms"},
		{"tcp.delack_min", "1s", 1e9, "1s"},
		{"run.duration", "3", 3e9, "3s"},
		{"run.duration", "250ms", 250e6, "250ms"},
		{"run.warmup", "0.3s", 300e6, "300ms"},
		{"run.warmup", "0.3", 300e6, "300ms"},
		{"sched.min_granularity", "0.75ms", 750e3, "750us"},
		{"sched.min_granularity", "0.75", 750e3, "750us"},
		{"link.delay", "1.001us", 1001, "1001ns"},   /* 1.001 * 1e3 = 1000.9999999999999 */
		{"link.delay", "1.015", 1015, "1015ns"},
		/* rates: decimal */
		{"link.rate", "10Gbit", 10e9, "10Gbit"},
		{"link.rate", "100Mbit", 100e6, "100Mbit"},
		{"link.rate", "2500Kbit", 2.5e6, "2500Kbit"},
		{"link.rate", "2.5Gbit", 2.5e9, "2500Mbit"},
		{"link.rate", "1e9", 1e9, "1Gbit"},
		{"link.rate", "40gbit", 40e9, "40Gbit"},
		{"link.rate", "1Gbit/s", 1e9, "1Gbit"},
		{"link.rate", "1000Gbit", 1e12, "1000Gbit"},
		{"link.rate", "1234567.5", 1234567.5, "1234567.5"},
		/* plain numbers */
		{"link.mtu", "1500", 1500, "1500"},
		{"link.mtu", "9e3", 9000, "9000"},
		{"link.mtu", "+68", 68, "68"},
		{"host.ghz", "2.4", 2.4, "2.4"},
		{"host.ghz", "1e1", 10, "10"},
		{"host.ghz", ".5", 0.5, "0.5"},
		{"tcp.adv_win_scale", "-2", -2, "-2"},
		{"run.seed", "123456789", 123456789, "123456789"},
	};
	char buf[64];

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct scenario sc;
		config_defaults(&sc);
		set_ok(&sc, cases[i].key, cases[i].text);
		double got = field_value(&sc, cases[i].key);
		if (got != cases[i].want)
			fail_msg("%s = '%s': stored %.17g, want %.17g", cases[i].key, cases[i].text, got,
				 cases[i].want);
		get(&sc, cases[i].key, buf, sizeof buf);
		if (strcmp(buf, cases[i].canon) != 0)
			fail_msg("%s = '%s': config_get gives '%s', want '%s'", cases[i].key, cases[i].text,
				 buf, cases[i].canon);
	}
}

static void test_seed_range(void **state)
{
	struct scenario sc;
	char buf[64];

	config_defaults(&sc);
	set_ok(&sc, "run.seed", "18446744073709551615");
	assert_true(sc.seed == UINT64_MAX);
	get(&sc, "run.seed", buf, sizeof buf);
	assert_string_equal(buf, "18446744073709551615");
	set_fails("run.seed", "18446744073709551616", "'18446744073709551616' is out of range");
	set_fails("run.seed", "-1", "'-1' is not an unsigned integer");
	set_fails("run.seed", "1e3", "'1e3' is not an unsigned integer");
}

static void test_bools_enums_strings(void **state)
{
	static const char *const yes[] = {"on", "yes", "true", "1", "ON", "Yes", "TRUE"};
	static const char *const no[] = {"off", "no", "false", "0", "OFF", "No", "False"};
	struct scenario sc;
	char buf[64];

	config_defaults(&sc);
	for (size_t i = 0; i < ARRAY_SIZE(yes); i++) {
		set_ok(&sc, "tcp.nodelay", yes[i]);
		assert_true(sc.nodelay);
		get(&sc, "tcp.nodelay", buf, sizeof buf);
		assert_string_equal(buf, "on");
		set_ok(&sc, "tcp.nodelay", no[i]);
		assert_false(sc.nodelay);
		get(&sc, "tcp.nodelay", buf, sizeof buf);
		assert_string_equal(buf, "off");
	}
	set_fails("tcp.nodelay", "2", "'2' is not a boolean (on/off, yes/no, true/false, 1/0)");
	set_fails("tcp.nodelay", "enabled", "'enabled' is not a boolean");

	set_ok(&sc, "app.test", "tcp_sendfile");
	assert_int_equal(sc.test, APP_TCP_SENDFILE);
	get(&sc, "app.test", buf, sizeof buf);
	assert_string_equal(buf, "TCP_SENDFILE");
	set_ok(&sc, "app.test", "TCP_STREAM");
	assert_int_equal(sc.test, APP_TCP_STREAM);
	set_ok(&sc, "link.type", "NIC");
	assert_int_equal(sc.link_type, LINK_NIC);
	set_ok(&sc, "tcp.cc", "reno");
	assert_int_equal(sc.cc, CC_RENO);
	set_fails("tcp.cc", "vegas", "where: [tcp] cc: 'vegas' is not one of: reno, cubic, bbr, dctcp");
	set_fails("app.test", "TCP_RR", "'TCP_RR' is not one of: TCP_STREAM, TCP_SENDFILE");

	set_ok(&sc, "host.kernel", "4.19");
	assert_string_equal(sc.host[0].kernel, "4.19");
	set_ok(&sc, "host.kernel", "5.10.1");
	assert_string_equal(sc.host[0].kernel, "5.10.1");
	set_fails("host.kernel", "4", "'4' is not a kernel version MAJOR.MINOR");
	set_fails("host.kernel", "4.x", "'4.x' is not a kernel version");
	set_fails("host.kernel", "v4.19", "'v4.19' is not a kernel version");
	set_fails("host.kernel", "4.19.", "'4.19.' is not a kernel version");
	set_fails("host.kernel", "1.2.3.4", "'1.2.3.4' is not a kernel version");
	/* each part whole and in range: 4294967295 would wrap to a pre-3.0 kernel */
	set_fails("host.kernel", "4294967295.0", "'4294967295.0' is not a kernel version");
	set_fails("host.kernel", "3.99999999999", "is not a kernel version");
	set_fails("host.kernel", "1.2", "MAJOR 2..99");
	set_fails("host.kernel", "100.0", "'100.0' is not a kernel version");
	set_fails("host.kernel", "3.1000", "'3.1000' is not a kernel version");
	set_ok(&sc, "host.kernel", "99.999.999");
	set_ok(&sc, "host.kernel", "2.0");
	set_fails("host.kernel", "12345678901234567", "is longer than 15 characters");

	set_ok(&sc, "host.name", "xeon e5-2680");
	assert_string_equal(sc.host[0].name, "xeon e5-2680");
	/* a shorter name leaves no bytes of the longer one behind */
	set_ok(&sc, "host.name", "x");
	for (size_t i = 1; i < sizeof sc.host[0].name; i++)
		assert_int_equal(sc.host[0].name[i], 0);
	char longname[SCENARIO_NAME_MAX + 1];
	memset(longname, 'n', SCENARIO_NAME_MAX);
	longname[SCENARIO_NAME_MAX] = '\0';
	set_fails("host.name", longname, "is longer than 63 characters");
	longname[SCENARIO_NAME_MAX - 1] = '\0';
	set_ok(&sc, "host.name", longname);
	set_fails("host.name", "a;b", "may not contain");
	set_fails("host.name", "a#b", "may not contain");
	set_fails("host.name", "", "no value given");
}

/* Every way a value can be wrong; the message names where, section and key. */
static void test_value_errors(void **state)
{
	static const struct {
		const char *key, *text, *want;
	} cases[] = {
		{"tcp.sndbuf", "abc", "where: [tcp] sndbuf: 'abc' is not a size (examples: 65536, 64K, 4M)"},
		{"tcp.sndbuf", "64Kx", "where: [tcp] sndbuf: '64Kx' is not a size"},
		{"tcp.sndbuf", "64 K x", "'64 K x' is not a size"},
		{"tcp.sndbuf", "K", "'K' is not a size"},
		{"tcp.sndbuf", "0x100", "'0x100' is not a size"},
		{"tcp.sndbuf", "-1", "where: [tcp] sndbuf: -1 below minimum 2K (or 0)"},
		{"tcp.sndbuf", "-64K", "-64K below minimum 2K"},
		{"tcp.sndbuf", "1K", "1K below minimum 2K (or 0)"},
		{"tcp.sndbuf", "2G", "where: [tcp] sndbuf: 2G above maximum 1G"},
		{"tcp.sndbuf", "99999999999999999999G", "above maximum 1G"},
		{"tcp.sndbuf", "1e400", "above maximum 1G"},
		{"tcp.sndbuf", "0.1K", "'0.1K' is not a whole number of bytes"},
		{"tcp.sndbuf", "", "where: [tcp] sndbuf: no value given"},
		{"link.mtu", "70000", "where: [link] mtu: 70000 above maximum 65536"},
		{"link.mtu", "67", "where: [link] mtu: 67 below minimum 68"},
		{"link.mtu", "1500.5", "'1500.5' is not an integer"},
		{"link.mtu", "1500 bytes", "'1500 bytes' is not an integer"},
		{"link.mtu", "0x600", "'0x600' is not an integer"},
		{"link.mtu", "5000000000", "5000000000 above maximum 65536"},
		{"link.mtu", "-5000000000000000000000", "below minimum 68"},
		{"link.mtu", "64K", "'64K' is not an integer"},
		{"host.ghz", "nan", "'nan' is not a number"},
		{"host.ghz", "inf", "'inf' is not a number"},
		{"host.ghz", "-inf", "'-inf' is not a number"},
		{"host.ghz", "1e999", "1e999 above maximum 10000"},
		{"host.ghz", "0", "0 below minimum 0.01"},
		{"host.ghz", "2GHz", "'2GHz' is not a number"},
		{"host.ghz", "1..8", "'1..8' is not a number"},
		{"run.ci_target", "1.5", "where: [run] ci_target: 1.5 above maximum 1"},
		{"link.delay", "5parsecs", "'5parsecs' is not a time (examples: 300ns, 40us, 1.5ms, 2s; "
					   "a bare number is in us)"},
		{"link.delay", "1.5ns", "'1.5ns' is not a whole number of nanoseconds"},
		{"link.delay", "11s", "11s above maximum 10s"},
		{"link.delay", "-1us", "-1us below minimum 0"},
		{"run.duration", "0.5ms", "0.5ms below minimum 1ms"},
		{"link.rate", "fast", "'fast' is not a rate (examples: 10Gbit, 100Mbit, 1e9)"},
		{"link.rate", "10GB", "'10GB' is not a rate"},
		{"link.rate", "100Kbit", "100Kbit below minimum 1Mbit"},
		{"link.rate", "2Tbit", "2Tbit above maximum 1000Gbit"},
		{"tcp.adv_win_scale", "0", "where: [tcp] adv_win_scale: 0 is not allowed"},
		{"tcp.adv_win_scale", "5", "5 above maximum 4"},
		{"app.send_cpu", "-2", "-2 below minimum -1"},
		{"rhost.cpus", "0", "where: [rhost] cpus: 0 below minimum 1"},
		{"cost.syscall", "-1", "where: [cost] syscall: -1 below minimum 0"},
		{"rcost.copy_byte", "2000", "where: [rcost] copy_byte: 2000 above maximum 1000"},
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		set_fails(cases[i].key, cases[i].text, cases[i].want);
}

/* ---- files ---- */

static void test_load_basic(void **state)
{
	struct scenario sc;
	struct tcpsim_err e = {0};

	config_defaults(&sc);
	load_ok(&sc, DATA "basic.cfg");
	assert_int_equal(sc.duration_ns, 1500 * NS_PER_MS);
	assert_int_equal(sc.seed, 42);
	assert_int_equal(sc.host[0].cpus, 2);        /* indented, inline ';' comment */
	assert_true(sc.host[0].ghz == 2.4);          /* indented after a key: not a continuation */
	assert_string_equal(sc.host[0].kernel, "4.19"); /* "key: value" */
	assert_int_equal(sc.link_type, LINK_NIC);
	assert_int_equal(sc.mtu_bytes, 1500);
	assert_int_equal(sc.delay_ns, 25 * NS_PER_US); /* inline '#' comment */
	assert_true(sc.rate_bps == 40e9);
	assert_int_equal(sc.sndbuf_bytes, 256 * 1024);
	assert_false(sc.timestamps);
	assert_int_equal(sc.delack_min_ns, 20 * NS_PER_MS);
	assert_int_equal(sc.test, APP_TCP_SENDFILE);
	assert_int_equal(sc.send_size, 1 << 20);
	/* untouched keys keep their defaults */
	assert_int_equal(sc.init_cwnd, 10);
	assert_int_equal(sc.warmup_ns, 300 * NS_PER_MS);
	assert_int_equal(config_validate(&sc, &e), TCPSIM_OK);

	/* sections may repeat and come in any order */
	config_defaults(&sc);
	load_ok(&sc, DATA "sections.cfg");
	assert_int_equal(sc.wmem_max, 8 << 20);
	assert_int_equal(sc.rmem_max, 8 << 20);
	assert_true(sc.rate_bps == 1e9);
}

static void test_file_errors(void **state)
{
	load_fails(DATA "err_section.cfg",
		   DATA "err_section.cfg:3: unknown section [tpc] (did you mean [tcp]?)");
	load_fails(DATA "err_case.cfg", DATA "err_case.cfg:1: unknown section [TCP] (did you mean [tcp]?)");
	load_fails(DATA "err_key.cfg",
		   DATA "err_key.cfg:4: [tcp] unknown key 'sndbf' (did you mean 'sndbuf'?)");
	load_fails(DATA "err_value.cfg",
		   DATA "err_value.cfg:3: [tcp] sndbuf: 'abc' is not a size (examples: 65536, 64K, 4M)");
	load_fails(DATA "err_junk.cfg",
		   DATA "err_junk.cfg:4: [app] send_size: '64Kx' is not a size (examples: 65536, 64K, 4M)");
	load_fails(DATA "err_range.cfg", DATA "err_range.cfg:2: [link] mtu: 70000 above maximum 65536");
	load_fails(DATA "err_syntax.cfg",
		   DATA "err_syntax.cfg:2: syntax error (expected key = value or [section])");
	load_fails(DATA "err_syntax_section.cfg",
		   DATA "err_syntax_section.cfg:3: syntax error ('[' without ']')");
	load_fails(DATA "err_outside.cfg",
		   DATA "err_outside.cfg:2: key 'mtu' is outside any [section] (it belongs in [link])");
	load_fails(DATA "err_wrong_section.cfg",
		   DATA "err_wrong_section.cfg:2: [tcp] unknown key 'mtu' (it belongs in [link])");
	/* a 300-character line is read whole; its value is what is too long */
	{
		struct scenario sc;
		struct tcpsim_err e = {0};
		config_defaults(&sc);
		assert_int_equal(config_load(&sc, DATA "err_long_line.cfg", &e), TCPSIM_EUSAGE);
		assert_non_null(strstr(e.msg, "err_long_line.cfg:2: [host] name: 'xxxxxxxx"));
		assert_non_null(strstr(e.msg, "' is longer than 63 characters"));
	}
	load_fails(DATA "nope.cfg", "cannot open scenario '" DATA "nope.cfg': No such file or directory");
	load_fails(DATA "inc", "cannot read scenario '" DATA "inc': Is a directory");
}

/* Only the first error is kept, and an error already in err is not replaced. */
static void test_first_error_kept(void **state)
{
	struct scenario sc;
	struct tcpsim_err e = {0};

	config_defaults(&sc);
	assert_int_equal(config_load(&sc, DATA "err_key.cfg", &e), TCPSIM_EUSAGE);
	assert_int_not_equal(config_override(&sc, "tcp.nope=1", "-s tcp.nope=1", &e), TCPSIM_OK);
	assert_int_not_equal(config_load(&sc, DATA "err_range.cfg", &e), TCPSIM_OK);
	assert_string_equal(e.msg, DATA "err_key.cfg:4: [tcp] unknown key 'sndbf' (did you mean 'sndbuf'?)");
	/* a stale error in err does not stop a good load */
	assert_int_equal(config_load(&sc, DATA "basic.cfg", &e), TCPSIM_OK);
	assert_int_equal(sc.seed, 42);
}

/* Write text to path (a test file). */
static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	assert_true(fputs(text, f) >= 0);
	assert_int_equal(fclose(f), 0);
}

/*
 * Lines longer than inih's 200-byte buffer: a comment of any length (the
 * writers put whole commands and axis lists in comments), a key line up to
 * 65536 characters, an include path longer than 200; a longer key line is
 * refused with its line number and what to do.
 */
static void test_line_length(void **state)
{
	char dir[] = "/tmp/test_config_XXXXXX";
	char path[512], sub[256], inc[600];
	struct scenario sc;
	struct tcpsim_err e = {0};
	size_t big = 200000;
	char *text = malloc(big + 4096);

	assert_non_null(mkdtemp(dir));
	assert_non_null(text);
	snprintf(path, sizeof path, "%s/long.cfg", dir);

	/* a 200000-character comment, then a key line padded to 1000 characters */
	strcpy(text, "; ");
	memset(text + 2, 'c', big);
	strcpy(text + 2 + big, "\n[host]\nghz = 2.5");
	memset(text + strlen(text), ' ', 1000);
	strcat(text, "\n# sweep.vary = x=1,2,3\n[tcp]\ninit_cwnd = 20\n");
	write_file(path, text);
	config_defaults(&sc);
	assert_int_equal(config_load(&sc, path, &e), TCPSIM_OK);
	assert_true(sc.host[0].ghz == 2.5);
	assert_int_equal(sc.init_cwnd, 20);

	/* line numbers after a long line are still right */
	strcpy(text + 2 + big, "\n[host]\nghz = x\n");
	write_file(path, text);
	assert_int_equal(config_load(&sc, path, &e), TCPSIM_EUSAGE);
	assert_non_null(strstr(e.msg, "long.cfg:3: [host] ghz: 'x' is not a number"));
	memset(&e, 0, sizeof e);

	/* CR-only line ends: one line, refused rather than read as "[link]" alone */
	write_file(path, "[link]\rmtu = 9000\r");
	assert_int_equal(config_load(&sc, path, &e), TCPSIM_EUSAGE);
	assert_non_null(strstr(e.msg, "long.cfg:1: syntax error (text after ']'"));
	memset(&e, 0, sizeof e);

	/* an include path of more than 200 characters */
	memset(sub, 'd', 220);
	sub[220] = '\0';
	snprintf(inc, sizeof inc, "%s/%s", dir, sub);
	assert_int_equal(mkdir(inc, 0700), 0);
	snprintf(inc + strlen(inc), sizeof inc - strlen(inc), "/leaf.cfg");
	write_file(inc, "[link]\nmtu = 9000\n");
	snprintf(text, big, "include = %s\n", inc);
	write_file(path, text);
	config_defaults(&sc);
	assert_int_equal(config_load(&sc, path, &e), TCPSIM_OK);
	assert_int_equal(sc.mtu_bytes, 9000);
	unlink(inc);
	*strrchr(inc, '/') = '\0';
	rmdir(inc);

	/* a key line of 65536 characters is read; one more is refused */
	strcpy(text, "[host]\nghz = 2.5");
	memset(text + strlen(text), ' ', 65536 - strlen("ghz = 2.5"));
	strcpy(text + 7 + 65536, "\n");
	write_file(path, text);
	assert_int_equal(config_load(&sc, path, &e), TCPSIM_OK);
	strcpy(text + 7 + 65536, " \n");
	write_file(path, text);
	assert_int_equal(config_load(&sc, path, &e), TCPSIM_EUSAGE);
	assert_non_null(strstr(e.msg, "long.cfg:2: line longer than 65536 characters: write one key = value a line"));

	unlink(path);
	rmdir(dir);
	free(text);
}

/* A value of a key as a number in the key's base unit (plots of unit axes). */
static void test_value_number(void **state)
{
	static const struct {
		const char *key, *text, *unit;
		double want;
	} cases[] = {
		{"tcp.sndbuf", "64K", "bytes", 65536}, {"tcp.sndbuf", "1M", "bytes", 1048576},
		{"link.delay", "1us", "ns", 1000},     {"link.delay", "25", "ns", 25000},
		{"link.rate", "10Gbit", "bit/s", 1e10}, {"offload.tso", "on", "", 1},
		{"link.mtu", "9000", "bytes", 9000},
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct tcpsim_err e = {0};
		double x = -1;
		const char *unit = NULL;
		assert_int_equal(config_value_number(cases[i].key, cases[i].text, &x, &unit, &e), TCPSIM_OK);
		assert_true(x == cases[i].want);
		assert_string_equal(unit, cases[i].unit);
	}
	struct tcpsim_err e = {0};
	double x;
	const char *unit;
	assert_int_equal(config_value_number("app.test", "TCP_STREAM", &x, &unit, &e), TCPSIM_EUSAGE);
	assert_string_equal(e.msg, "app.test: 'TCP_STREAM' is not a number (the key's values are names)");
	memset(&e, 0, sizeof e);
	assert_int_equal(config_value_number("tcp.sndbuf", "64Q", &x, &unit, &e), TCPSIM_EUSAGE);
	assert_non_null(strstr(e.msg, "tcp.sndbuf: '64Q' is not a size"));
	memset(&e, 0, sizeof e);
	assert_int_equal(config_value_number("tcp.nope", "1", &x, &unit, &e), TCPSIM_EUSAGE);
}

/* ---- inputs that are not small text files ---- */

static void load_fails_with(const char *path, const char *want)
{
	struct scenario sc;
	struct tcpsim_err e = {0};

	config_defaults(&sc);
	int rc = config_load(&sc, path, &e);
	if (rc != TCPSIM_EUSAGE || !strstr(e.msg, want))
		fail_msg("config_load(%s): status %d, message '%s'; want status %d and '%s'", path, rc, e.msg,
			 TCPSIM_EUSAGE, want);
}

/* A NUL byte is refused at its line (fgets used to cut the line there and
 * count the rest as the next line); /dev/zero, directly or included, and a
 * file that never ends are refused instead of read forever; a scenario
 * through a FIFO still reads. */
static void test_binary_and_endless_inputs(void **state)
{
	char dir[] = "/tmp/test_config_XXXXXX", path[64], inc[64], fifo[64], want[128];
	static const char nul_text[] = "[host]\n# a comment\nghz = 2.5\0 junk\ncpus = 4\n";
	struct scenario sc;
	FILE *f;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/nul.cfg", dir);
	f = fopen(path, "wb");
	assert_non_null(f);
	fwrite(nul_text, 1, sizeof nul_text - 1, f);
	fclose(f);
	snprintf(want, sizeof want, "%s:3: NUL byte in the file", path);
	load_fails_with(path, want);

	load_fails_with("/dev/zero", "/dev/zero:1: NUL byte in the file");
	snprintf(inc, sizeof inc, "%s/inc.cfg", dir);
	f = fopen(inc, "w");
	assert_non_null(f);
	fputs("[link]\nmtu = 9000\ninclude = /dev/zero\n", f);
	fclose(f);
	load_fails_with(inc, "/dev/zero:1: NUL byte in the file");

	/* 5 MiB of comment lines: over the bound, named with the line reached */
	f = fopen(path, "w");
	assert_non_null(f);
	for (int i = 0; i < 5 * 65536; i++)
		fputs("# 0123456789abcdef0123456789abcdef0123456789abcdef0123456789abc\n", f);
	fclose(f);
	load_fails_with(path, "MiB without an end");

	/* a FIFO with a writer: read to its end, as a pipe into /dev/stdin is */
	snprintf(fifo, sizeof fifo, "%s/fifo", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		FILE *w = fopen(fifo, "w");
		if (!w)
			_exit(1);
		fputs("[host]\ncpus = 6\n", w);
		_exit(fclose(w) == 0 ? 0 : 1);
	}
	config_defaults(&sc);
	load_ok(&sc, fifo);
	assert_int_equal(sc.host[0].cpus, 6);
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);

	unlink(fifo);
	unlink(inc);
	unlink(path);
	rmdir(dir);
}

/* ---- includes ---- */

static void test_include(void **state)
{
	struct scenario sc;

	/* top: mtu 1500, then include sub/mid.cfg (which includes leaf.cfg from
	 * sub/: mtu 4000, rate 1Gbit, init_cwnd 4, sndbuf 128K; then mtu 9000),
	 * then rate 25Gbit and init_cwnd 20 */
	config_defaults(&sc);
	load_ok(&sc, DATA "inc/top.cfg");
	assert_int_equal(sc.mtu_bytes, 9000);
	assert_true(sc.rate_bps == 25e9);
	assert_int_equal(sc.init_cwnd, 20);
	assert_int_equal(sc.sndbuf_bytes, 128 * 1024);

	/* eight nested includes are allowed */
	config_defaults(&sc);
	load_ok(&sc, DATA "deep/d0.cfg");
	assert_int_equal(sc.seed, 88);
}

static void test_include_errors(void **state)
{
	load_fails(DATA "inc/bad_parent.cfg",
		   DATA "inc/sub/bad_child.cfg:3: [app] unknown key 'send_sz' (did you mean 'send_size'?)");
	load_fails(DATA "inc/missing.cfg",
		   DATA "inc/missing.cfg:3: cannot open included file '" DATA
			"inc/sub/missing.cfg': No such file or directory");
	load_fails(DATA "inc/empty.cfg", DATA "inc/empty.cfg:2: include: no file named");
	load_fails(DATA "inc/loop.cfg",
		   DATA "inc/loop.cfg:2: include cycle: " DATA "inc/loop.cfg:2 -> " DATA "inc/loop.cfg");
	load_fails(DATA "inc/cyc_a.cfg",
		   DATA "inc/cyc_b.cfg:2: include cycle: " DATA "inc/cyc_a.cfg:3 -> " DATA
			"inc/cyc_b.cfg:2 -> " DATA "inc/cyc_a.cfg");
	/* over.cfg adds a ninth level on top of d0..d8 */
	load_fails(DATA "deep/over.cfg",
		   DATA "deep/d7.cfg:2: includes nested more than 8 deep: " DATA "deep/over.cfg:2 -> " DATA
			"deep/d0.cfg:2 -> " DATA "deep/d1.cfg:2 -> " DATA "deep/d2.cfg:2 -> " DATA
			"deep/d3.cfg:2 -> " DATA "deep/d4.cfg:2 -> " DATA "deep/d5.cfg:2 -> " DATA
			"deep/d6.cfg:2 -> " DATA "deep/d7.cfg:2 -> " DATA "deep/d8.cfg");
}

/* ---- overrides ---- */

static void test_override(void **state)
{
	struct scenario sc;
	struct tcpsim_err e = {0};

	/* later wins: file order, then -s after the file, then a later -s */
	config_defaults(&sc);
	load_ok(&sc, DATA "inc/top.cfg");
	assert_int_equal(sc.mtu_bytes, 9000);
	override_ok(&sc, "link.mtu=1500");
	assert_int_equal(sc.mtu_bytes, 1500);
	override_ok(&sc, " link.mtu = 16436 ");
	assert_int_equal(sc.mtu_bytes, 16436);
	override_ok(&sc, "tcp.sndbuf=4M");
	assert_int_equal(sc.sndbuf_bytes, 4 << 20);
	override_ok(&sc, "host.name=a=b");   /* the first '=' splits */
	assert_string_equal(sc.host[0].name, "a=b");
	/* a file loaded after an override wins over it */
	load_ok(&sc, DATA "inc/top.cfg");
	assert_int_equal(sc.mtu_bytes, 9000);

	assert_int_equal(config_override(&sc, "tcp.sndbf=1", "-s tcp.sndbf=1", &e), TCPSIM_EUSAGE);
	assert_string_equal(e.msg, "-s tcp.sndbf=1: unknown key 'tcp.sndbf' (did you mean 'tcp.sndbuf'?)");
	err_clear(&e);
	assert_int_equal(config_override(&sc, "foo", "-s foo", &e), TCPSIM_EUSAGE);
	assert_string_equal(e.msg, "-s foo: expected section.key=value");
	err_clear(&e);
	assert_int_equal(config_override(&sc, "mtu=1500", "-s mtu=1500", &e), TCPSIM_EUSAGE);
	assert_string_equal(e.msg, "-s mtu=1500: expected section.key=value");
	err_clear(&e);
	assert_int_equal(config_override(&sc, ".mtu=1", "-s .mtu=1", &e), TCPSIM_EUSAGE);
	assert_string_equal(e.msg, "-s .mtu=1: expected section.key=value");
	err_clear(&e);
	assert_int_equal(config_override(&sc, "link.=1", NULL, &e), TCPSIM_EUSAGE);
	assert_string_equal(e.msg, "link.=1: expected section.key=value");
	err_clear(&e);
	assert_int_equal(config_override(&sc, "tpc.sndbuf=1", "-s tpc.sndbuf=1", &e), TCPSIM_EUSAGE);
	assert_string_equal(e.msg, "-s tpc.sndbuf=1: unknown key 'tpc.sndbuf' (did you mean 'tcp.sndbuf'?)");
	err_clear(&e);
	assert_int_equal(config_override(&sc, "link.mtu=70000", "-s link.mtu=70000", &e), TCPSIM_EUSAGE);
	assert_string_equal(e.msg, "-s link.mtu=70000: [link] mtu: 70000 above maximum 65536");
	err_clear(&e);
	assert_int_equal(config_override(&sc, "link.mtu=", "-s link.mtu=", &e), TCPSIM_EUSAGE);
	assert_string_equal(e.msg, "-s link.mtu=: [link] mtu: no value given");
	assert_int_equal(sc.mtu_bytes, 9000);
}

static void test_did_you_mean(void **state)
{
	struct scenario sc;
	struct tcpsim_err e = {0};

	config_defaults(&sc);
	/* far from every key: no guess */
	assert_int_equal(config_set(&sc, "tcp.zzzzzz", "1", "-s x", &e), TCPSIM_EUSAGE);
	assert_string_equal(e.msg, "-s x: unknown key 'tcp.zzzzzz'");
	err_clear(&e);
	assert_int_equal(config_set(&sc, "tcp.x", "1", "-s x", &e), TCPSIM_EUSAGE);
	assert_string_equal(e.msg, "-s x: unknown key 'tcp.x'");
	err_clear(&e);
	/* a transposition is one edit; case does not count */
	assert_int_equal(config_set(&sc, "tcp.ndoelay", "1", "-s x", &e), TCPSIM_EUSAGE);
	assert_string_equal(e.msg, "-s x: unknown key 'tcp.ndoelay' (did you mean 'tcp.nodelay'?)");
	err_clear(&e);
	assert_int_equal(config_set(&sc, "LINK.MTU", "1", "-s x", &e), TCPSIM_EUSAGE);
	assert_string_equal(e.msg, "-s x: unknown key 'LINK.MTU' (did you mean 'link.mtu'?)");
	err_clear(&e);
	assert_int_equal(config_set(&sc, "rcost.ctxs", "1", "-s x", &e), TCPSIM_EUSAGE);
	assert_string_equal(e.msg, "-s x: unknown key 'rcost.ctxs' (did you mean 'rcost.ctxsw'?)");
	err_clear(&e);
	/* a NULL where still gives a message */
	assert_int_equal(config_set(&sc, "tcp.zzzzzz", "1", NULL, &e), TCPSIM_EUSAGE);
	assert_non_null(strstr(e.msg, "unknown key 'tcp.zzzzzz'"));
}

/* [rhost]/[rcost] follow [host]/[cost] until set explicitly, in file order. */
static void test_rhost_inheritance(void **state)
{
	struct scenario sc;

	config_defaults(&sc);
	load_ok(&sc, DATA "rhost.cfg");
	assert_int_equal(sc.host[0].cpus, 6);
	assert_int_equal(sc.host[1].cpus, 8);           /* explicit before host.cpus = 6 */
	assert_true(sc.host[0].ghz == 2.0);
	assert_true(sc.host[1].ghz == 2.0);             /* followed both host.ghz settings */
	assert_true(sc.host[0].cost_cycles[COST_SYSCALL] == 1100);
	assert_true(sc.host[1].cost_cycles[COST_SYSCALL] == 1100);
	assert_true(sc.host[0].cost_cycles[COST_CTXSW] == 5000);
	assert_true(sc.host[1].cost_cycles[COST_CTXSW] == 9000);
	assert_true(sc.rcost_explicit[COST_CTXSW]);
	assert_false(sc.rcost_explicit[COST_SYSCALL]);
	assert_int_equal(sc.rhost_explicit, 1);         /* cpus is the first [rhost] key */

	/* -s follows the same rule */
	override_ok(&sc, "host.cpus=3");
	override_ok(&sc, "host.hz=1000");
	assert_int_equal(sc.host[1].cpus, 8);
	assert_int_equal(sc.host[1].hz, 1000);
	override_ok(&sc, "rhost.hz=100");
	override_ok(&sc, "host.hz=300");
	assert_int_equal(sc.host[0].hz, 300);
	assert_int_equal(sc.host[1].hz, 100);
	override_ok(&sc, "host.kernel=2.6");
	assert_string_equal(sc.host[1].kernel, "2.6");
	override_ok(&sc, "rcost.syscall=1");
	override_ok(&sc, "cost.syscall=2");
	assert_true(sc.host[1].cost_cycles[COST_SYSCALL] == 1);
	assert_true(sc.host[0].cost_cycles[COST_SYSCALL] == 2);

	/* setting rhost.X to the same value as host.X still pins it */
	config_defaults(&sc);
	override_ok(&sc, "rhost.ghz=1.8");
	override_ok(&sc, "host.ghz=3");
	assert_true(sc.host[1].ghz == 1.8);

	/* config_defaults forgets what was explicit */
	config_defaults(&sc);
	override_ok(&sc, "host.ghz=3");
	assert_true(sc.host[1].ghz == 3);
}

/* ---- dump ---- */

static void dump_and_reload(const struct scenario *sc, const char *prefix)
{
	char path[] = "/tmp/test_config_XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	FILE *f = fdopen(fd, "w");
	assert_non_null(f);
	config_dump(sc, f, prefix);
	fclose(f);

	struct scenario back;
	memset(&back, 0x77, sizeof back);
	config_defaults(&back);
	struct tcpsim_err e = {0};
	int rc = config_load(&back, path, &e);
	if (rc != TCPSIM_OK)
		fail_msg("reloading the dump failed: %s", e.msg);
	if (memcmp(sc, &back, sizeof back) != 0) {
		for (int i = 0; i < config_key_count(); i++) {
			char a[128], b[128];
			get(sc, config_key_name(i), a, sizeof a);
			get(&back, config_key_name(i), b, sizeof b);
			if (strcmp(a, b) != 0)
				print_error("%s: dumped %s, reloaded %s\n", config_key_name(i), a, b);
		}
		fail_msg("dump of the scenario does not reload byte-identical (file kept: %s)", path);
	}
	unlink(path);
}

static void test_dump_roundtrip(void **state)
{
	static const char *const overrides[] = {
		"run.duration=1234567891ns", "run.warmup=0.3", "run.seed=18446744073709551615",
		"run.ci_target=0.333333333333333314829616256247", "run.cost_jitter=0.1",
		"host.cpus=16", "host.ghz=2.9333333333333333", "host.kernel=5.10.1", "host.name=xeon e5",
		"rhost.cpus=2", "rhost.name=receiver", "cost.syscall=1234.56789", "cost.copy_byte=0.1",
		"rcost.ctxsw=7777", "cost.ctxsw=1", "link.type=nic", "link.mtu=1500", "link.delay=12345ns",
		"link.rate=2.5Gbit", "link.backlog=12345", "offload.tso=off", "offload.lro=on",
		"offload.gso_max_size=16384", "tcp.sndbuf=87381", "tcp.rcvbuf=1G", "tcp.wmem_default=4K",
		"tcp.timestamps=off", "tcp.cc=reno", "tcp.delack_min=1ms", "tcp.ato_min=1500us",
		"tcp.nodelay=on", "tcp.adv_win_scale=-3", "app.test=tcp_sendfile", "app.send_size=1",
		"app.recv_size=64M", "app.instances=4096", "app.send_cpu=15", "app.recv_cpu=1",
		"sched.latency=0", "sched.wake_affine=off", "mem.skb_overhead=0", "mem.slab_cpu_objs=1e6",
	};
	struct scenario sc;

	config_defaults(&sc);
	dump_and_reload(&sc, "");
	for (size_t i = 0; i < ARRAY_SIZE(overrides); i++)
		override_ok(&sc, overrides[i]);
	assert_int_equal(sc.host[1].cpus, 2);
	assert_true(sc.host[1].ghz == sc.host[0].ghz);
	dump_and_reload(&sc, "");

	/* a dump is a valid scenario, and every key appears in it */
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	assert_non_null(f);
	config_dump(&sc, f, "# ");
	fclose(f);
	for (const char *line = text; *line; line = strchr(line, '\n') + 1) {
		assert_true(strncmp(line, "# ", 2) == 0 || strncmp(line, "#\n", 2) == 0);
		assert_non_null(strchr(line, '\n'));
	}
	assert_non_null(strstr(text, "# [rhost]\n# cpus = 2\n# # ghz = 2.93333333333333"));
	assert_non_null(strstr(text, " (follows host.ghz)\n# # hz = 250 (follows host.hz)\n"));
	assert_non_null(strstr(text, "# [link]\n# type = nic\n# mtu = 1500\n# delay = 12345ns\n# rate = 2500Mbit\n"));
	free(text);
}

/* ---- validation ---- */

static void validate_fails(const char *const *overrides, size_t n, const char *want)
{
	struct scenario sc;
	struct tcpsim_err e = {0};

	config_defaults(&sc);
	for (size_t i = 0; i < n; i++)
		override_ok(&sc, overrides[i]);
	int rc = config_validate(&sc, &e);
	if (rc != TCPSIM_EUSAGE || strcmp(e.msg, want) != 0)
		fail_msg("validate: status %d, '%s'; want '%s'", rc, e.msg, want);
}

#define VALIDATE_FAILS(want, ...)                                                   \
	do {                                                                        \
		static const char *const ov[] = {__VA_ARGS__};                      \
		validate_fails(ov, ARRAY_SIZE(ov), want);                           \
	} while (0)

static void test_validate(void **state)
{
	struct scenario sc;
	struct tcpsim_err e = {0};

	VALIDATE_FAILS("app.send_cpu = 4 but host.cpus = 4 (CPUs are 0..3)", "app.send_cpu=4");
	VALIDATE_FAILS("app.recv_cpu = 2 but host.cpus = 2 (CPUs are 0..1)", "host.cpus=2", "app.recv_cpu=2");
	VALIDATE_FAILS("app.recv_cpu = 3 but rhost.cpus = 2 (CPUs are 0..1); with link.type = nic the "
		       "receiver runs on rhost",
		       "link.type=nic", "rhost.cpus=2", "app.recv_cpu=3");
	VALIDATE_FAILS("run.duration = 10ms is shorter than run.batch = 50ms", "run.duration=10ms");
	VALIDATE_FAILS("tcp.delack_min = 300ms is above tcp.delack_max = 200ms", "tcp.delack_min=300");
	VALIDATE_FAILS("tcp.ato_min = 250ms is above tcp.delack_max = 200ms", "tcp.ato_min=250ms");
	VALIDATE_FAILS("tcp.wmem_default = 8M is above tcp.wmem_max = 4M", "tcp.wmem_default=8M");
	VALIDATE_FAILS("tcp.rmem_default = 8M is above tcp.rmem_max = 6M", "tcp.rmem_default=8M");
	VALIDATE_FAILS("sched.min_granularity = 0 is not allowed (the scheduler divides by it)",
		       "sched.min_granularity=0");

	/* the edges that are fine */
	config_defaults(&sc);
	override_ok(&sc, "app.send_cpu=3");
	override_ok(&sc, "link.type=nic");
	override_ok(&sc, "host.cpus=4");
	override_ok(&sc, "rhost.cpus=8");
	override_ok(&sc, "app.recv_cpu=7");   /* on rhost, which has 8 */
	override_ok(&sc, "tcp.delack_min=200ms");
	override_ok(&sc, "run.duration=50ms");
	assert_int_equal(config_validate(&sc, &e), TCPSIM_OK);
}

/* ---- help ---- */

static void test_help(void **state)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	assert_non_null(f);
	config_print_help(f);
	fclose(f);

	for (const char *line = text; *line;) {
		const char *nl = strchr(line, '\n');
		assert_non_null(nl);
		if (nl - line > 100)
			fail_msg("help line longer than 100 columns: %.*s", (int)(nl - line), line);
		line = nl + 1;
	}
	for (int i = 0; i < config_key_count(); i++) {
		char want[64];
		snprintf(want, sizeof want, "\n  %s ", config_key_name(i));
		if (!strstr(text, want))
			fail_msg("help does not list %s", config_key_name(i));
	}
	assert_non_null(strstr(text, "\n[tcp]\n"));
	assert_non_null(strstr(text, "  tcp.sndbuf               size   0          0|2K..1G        "
				     "SO_SNDBUF; 0 = autotune [bytes]\n"));
	assert_non_null(strstr(text, "  link.type                enum   loopback   loopback|nic"));
	assert_non_null(strstr(text, "  run.duration             time   2s         1ms..3600s"));
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_key_names),
		cmocka_unit_test(test_units),
		cmocka_unit_test(test_seed_range),
		cmocka_unit_test(test_bools_enums_strings),
		cmocka_unit_test(test_value_errors),
		cmocka_unit_test(test_load_basic),
		cmocka_unit_test(test_file_errors),
		cmocka_unit_test(test_first_error_kept),
		cmocka_unit_test(test_line_length),
		cmocka_unit_test(test_value_number),
		cmocka_unit_test(test_include),
		cmocka_unit_test(test_include_errors),
		cmocka_unit_test(test_override),
		cmocka_unit_test(test_did_you_mean),
		cmocka_unit_test(test_rhost_inheritance),
		cmocka_unit_test(test_dump_roundtrip),
		cmocka_unit_test(test_validate),
		cmocka_unit_test(test_help),
		cmocka_unit_test(test_binary_and_endless_inputs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
