/*
 * config: the key table and everything it drives (interface in config.h).
 *
 * rows[] declares every key once (Redis config.c style): section group,
 * name, type, field, bounds, default as text, unit and help.  [cost] is one
 * row that stands for every row of cost_table (cost.c), so a new cost needs
 * no edit here beyond its "section.key" names in cost_names[].  [rhost] and
 * [rcost] reuse the [host] and [cost] rows for host[1]: a key of host[1]
 * follows the host[0] key of the same name until it is set explicitly
 * (struct scenario records which were, so a later host.X does not
 * overwrite an explicit rhost.X).
 *
 * Every value goes through one parser (value_parse + value_check), defaults
 * included, and one formatter (value_format) whose output the parser reads
 * back exactly; that is what makes a config_dump() reload into a byte-equal
 * scenario.
 *
 * Files are read by inih's ini_parse_stream() through our own line reader.
 * The reader counts lines (the packaged inih passes no line number to the
 * handler), stops at the first recorded error, strips leading blanks (so an
 * indented line is an ordinary line, never a multi-line continuation),
 * treats " #" as an inline comment like " ;", and checks [section] lines
 * as it sees them, so an unknown section is reported on its own line.
 *
 * Line length: Debian's libinih (r55) hands the reader a buffer of
 * INI_MAX_LINE (200) bytes, fixed when the library was built (its
 * ini_max_line and ini_allow_realloc are process-wide variables, which
 * sweep and calibrate threads would share), and our own writers put whole
 * commands and axis lists in comments (a fitted profile's first line, a
 * sidecar's "# sweep.vary").  So the reader reads each line whole into
 * cfg_file.buf itself: a comment line of any length is skipped; a key line
 * (up to CONFIG_LINE_MAX characters, far more than any value, so that a
 * file without newlines, e.g. CR-only line ends, or binary data is refused
 * quickly) reaches inih as "key=" alone, and the handler takes the value
 * from cfg_file.value.  inih still splits section and key.
 *
 * Each file is first read whole into memory (cfg_slurp), so a NUL byte is
 * refused at its line instead of cutting that line short, and an input
 * that never ends (/dev/zero, an endless pipe) is refused after
 * CONFIG_FILE_MAX bytes instead of hanging; a scenario piped through a
 * FIFO or /dev/stdin still reads.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <ini.h>

#include "datadir.h"
#include "units.h"
#include "util.h"

#define CONFIG_INCLUDE_MAX 8   /* nested include levels below the top file */
#define CONFIG_LINE_MAX 65536  /* characters of a key line (a comment line may be longer) */
#define CONFIG_FILE_MAX (4L << 20) /* bytes of one .cfg file; scenarios are a few KB */
#define KERNEL_MAJOR_MIN 2     /* host.kernel: MAJOR 2..99, MINOR and PATCH 0..999 */
#define KERNEL_MAJOR_MAX 99
#define KERNEL_MINOR_MAX 999
#define HELP_WIDTH 100
/* BIG TCP (include/linux/netdevice.h): GSO_LEGACY_MAX_SIZE 65536 before;
 * GSO_MAX_SIZE 512 KB - 8 since, for IPv6 from 5.19 (the jumbogram's
 * hop-by-hop header) and IPv4 from 6.3 (IFLA_GSO_IPV4_MAX_SIZE,
 * IFLA_GRO_IPV4_MAX_SIZE).  The model's packets are IPv4 (tcp.h). */
#define BIG_TCP_LEGACY_BYTES 65536
#define BIG_TCP_MAX_BYTES 524280

enum key_type { T_INT, T_U64, T_SIZE, T_DOUBLE, T_TIME, T_RATE, T_BOOL, T_ENUM, T_STRING };

static const char *const type_names[] = {
	[T_INT] = "int", [T_U64] = "uint64", [T_SIZE] = "size", [T_DOUBLE] = "double",
	[T_TIME] = "time", [T_RATE] = "rate", [T_BOOL] = "bool", [T_ENUM] = "enum",
	[T_STRING] = "string",
};

enum group { G_RUN, G_HOST, G_COST, G_LINK, G_OFFLOAD, G_TCP, G_APP, G_SCHED, G_MEM };

struct section {
	const char *name;
	enum group group;
	int host;              /* host[] index for G_HOST / G_COST */
};

/* Table order is file, help and dump order. */
static const struct section sections[] = {
	{"run", G_RUN, 0},   {"host", G_HOST, 0},     {"cost", G_COST, 0},
	{"rhost", G_HOST, 1}, {"rcost", G_COST, 1},   {"link", G_LINK, 0},
	{"offload", G_OFFLOAD, 0}, {"tcp", G_TCP, 0}, {"app", G_APP, 0},
	{"sched", G_SCHED, 0}, {"mem", G_MEM, 0},
};

enum {
	F_ZERO_OK = 1,   /* 0 is accepted besides min..max */
	F_NONZERO = 2,   /* 0 is rejected although inside min..max */
	F_VERSION = 4,   /* string must read MAJOR.MINOR[.PATCH] */
};

struct row {
	enum group group;
	const char *key;          /* NULL: one key per cost_table row */
	const char *full[2];      /* "section.key"; [1] is the [rhost] name */
	enum key_type type;
	size_t off, size;         /* field in struct scenario, or in struct host_cfg */
	double min, max;          /* in the stored unit (ns, bytes, bit/s) */
	const char *def;          /* default, as text a file may hold */
	const char *unit;         /* of a bare number; for T_TIME one of ns/us/ms/s */
	const char *const *names; /* T_ENUM: value i is names[i]; NULL-terminated */
	int flags;
	const char *help;
};

static const char *const link_type_names[] = {[LINK_LOOPBACK] = "loopback", [LINK_NIC] = "nic",
						     [LINK_VETH] = "veth", NULL};
static const char *const cc_names[] = {[CC_RENO] = "reno", [CC_CUBIC] = "cubic", [CC_BBR] = "bbr",
					     [CC_DCTCP] = "dctcp", NULL};
static const char *const qdisc_names[] = {[QDISC_PFIFO_FAST] = "pfifo_fast", [QDISC_FQ] = "fq", NULL};
static const char *const domains_names[] = {[DOMAINS_HOST] = "host", [DOMAINS_LLC] = "llc", NULL};
static const char *const sendfile_names[] = {[SENDFILE_LINUX] = "linux", [SENDFILE_FREEBSD_OLD] = "freebsd-old",
					    [SENDFILE_FREEBSD_NEW] = "freebsd-new", NULL};
static const char *const idle_names[] = {[IDLE_HALT] = "halt", [IDLE_MWAIT] = "mwait", NULL};
static const char *const poll_dist_names[] = {[POLL_FIXED] = "fixed", [POLL_EXP] = "exp", [POLL_NORMAL] = "normal",
						 NULL};
static const char *const arrival_names[] = {[MONITOR_PERIODIC] = "periodic", [MONITOR_POISSON] = "poisson", NULL};
static const char *const steering_names[] = {[STEER_RSS] = "rss", [STEER_RPS] = "rps", [STEER_RFS] = "rfs",
					    [STEER_ARFS] = "arfs", NULL};
static const char *const loop_names[] = {[LOOP_NETPERF] = "netperf", [LOOP_IPERF3] = "iperf3",
					[LOOP_IPERF2] = "iperf2", NULL};
static const char *const test_names[] = {
	[APP_TCP_STREAM] = "TCP_STREAM", [APP_TCP_SENDFILE] = "TCP_SENDFILE", NULL};

#define SC(f) .off = offsetof(struct scenario, f), .size = sizeof(((struct scenario *)0)->f)
#define HC(f) .off = offsetof(struct host_cfg, f), .size = sizeof(((struct host_cfg *)0)->f)
#define KEY(g, s, k) .group = g, .key = k, .full = {s "." k}
#define HKEY(k) .group = G_HOST, .key = k, .full = {"host." k, "rhost." k}
#define KB 1024.0
#define MB (1024.0 * 1024.0)
#define GB (1024.0 * 1024.0 * 1024.0)
#define US ((double)NS_PER_US)
#define MS ((double)NS_PER_MS)
#define SEC ((double)NS_PER_S)

static const struct row rows[] = {
	/* [run] */
	{KEY(G_RUN, "run", "duration"), .type = T_TIME, SC(duration_ns), .min = MS, .max = 3600 * SEC,
	 .def = "2s", .unit = "s", .help = "longest measured interval (stops earlier once run.ci_target is met)"},
	{KEY(G_RUN, "run", "warmup"), .type = T_TIME, SC(warmup_ns), .min = 0, .max = 600 * SEC,
	 .def = "0.3s", .unit = "s", .help = "simulated first, then discarded"},
	{KEY(G_RUN, "run", "seed"), .type = T_U64, SC(seed), .min = 0, .max = 0,
	 .def = "1", .unit = "", .help = "random seed; same scenario and seed, same result"},
	{KEY(G_RUN, "run", "batch"), .type = T_TIME, SC(batch_ns), .min = MS, .max = 60 * SEC,
	 .def = "50ms", .unit = "ms", .help = "batch length of the steady-state test"},
	{KEY(G_RUN, "run", "min_batches"), .type = T_INT, SC(min_batches), .min = 2, .max = 100000,
	 .def = "10", .unit = "batches", .help = "batches measured before an early stop is allowed"},
	{KEY(G_RUN, "run", "ci_target"), .type = T_DOUBLE, SC(ci_target), .min = 0, .max = 1,
	 .def = "0.01", .unit = "fraction", .help = "stop once the 95% CI half-width / mean is below this; 0 = never"},
	{KEY(G_RUN, "run", "lkp_seconds"), .type = T_DOUBLE, SC(lkp_seconds), .min = 1, .max = 1e6,
	 .def = "300", .unit = "s", .help = "totals are shown as if over a run this long (LKP)"},
	{KEY(G_RUN, "run", "settle"), .type = T_DOUBLE, SC(settle_frac), .min = 0, .max = 0.5, .def = "0",
	 .unit = "fraction", .help = "autotuning has settled (the warm-up ends, the measured interval is kept) once the "
	 "socket buffers summed over all connections move by at most this fraction; 0 = once none moves at all"},
	{KEY(G_RUN, "run", "cost_jitter"), .type = T_DOUBLE, SC(cost_jitter), .min = 0, .max = 0.5,
	 .def = "0.02", .unit = "fraction", .help = "relative s.d. of the cost of each unit of work"},

	/* [host] and [rhost] */
	{HKEY("cpus"), .type = T_INT, HC(cpus), .min = 1, .max = SCENARIO_MAX_CPUS,
	 .def = "4", .unit = "CPUs", .help = "CPUs (hardware threads)"},
	{HKEY("ghz"), .type = T_DOUBLE, HC(ghz), .min = 0.01, .max = 10000,
	 .def = "1.8", .unit = "GHz", .help = "clock rate; turns cycles into time"},
	{HKEY("hz"), .type = T_INT, HC(hz), .min = 10, .max = 10000,
	 .def = "250", .unit = "Hz", .help = "scheduler tick rate (CONFIG_HZ)"},
	{HKEY("llc_cpus"), .type = T_INT, HC(llc_cpus), .min = 0, .max = SCENARIO_MAX_CPUS, .def = "0",
	 .unit = "CPUs", .help = "CPUs sharing a last-level cache (sched domain LLC); 0 = all of them"},
	{HKEY("cache_bytes"), .type = T_SIZE, HC(cache_bytes), .min = 4 * KB, .max = 64 * GB, .def = "2M", .unit = "bytes",
	 .help = "data a CPU's cache holds (its L2): a byte the reader copies after more of later data arrived behind it "
	 "costs cost.recv_copy_cold_byte more"},
	{HKEY("kernel"), .type = T_STRING, HC(kernel), .flags = F_VERSION,
	 .def = "3.6", .unit = "", .help = "kernel version imitated, MAJOR.MINOR (2.0 to 99.999)"},
	{HKEY("name"), .type = T_STRING, HC(name),
	 .def = "atom", .unit = "", .help = "machine profile name, for reports"},
	{HKEY("monitors"), .type = T_INT, HC(monitors), .min = 0, .max = 4096, .def = "0", .unit = "tasks",
	 .help = "background tasks that wake every monitor_period and run cost.monitor cycles"},
	{HKEY("monitor_period"), .type = T_TIME, HC(monitor_period_ns), .min = MS, .max = 3600 * SEC, .def = "1s",
	 .unit = "s", .help = "how often each background task wakes"},
	{HKEY("monitor_arrivals"), .type = T_ENUM, HC(monitor_arrivals), .names = arrival_names, .def = "periodic", .unit = "",
	 .help = "when each background task wakes: periodic (every monitor_period, the tasks' phases evenly spread) or "
		 "poisson (at random, monitor_period apart on average, each task its own random stream): the machine's "
		 "other residents (kernel threads, daemons) that take a CPU from the benchmark now and then"},
	{HKEY("kswapd"), .type = T_BOOL, HC(kswapd), .def = "off", .unit = "",
	 .help = "free memory below the order-3 low watermark: each order-3 allocation wakes kswapd"},
	{HKEY("idle_poll"), .type = T_TIME, HC(idle_poll_ns), .min = 0, .max = SEC, .def = "0", .unit = "us",
	 .help = "an idle CPU polls this long before it halts: a wakeup meanwhile needs no IPI (sched_wake_idle_without_ipi)"},
	{HKEY("idle_poll_dist"), .type = T_ENUM, HC(idle_poll_dist), .names = poll_dist_names, .def = "fixed", .unit = "",
	 .help = "the poll's length at each idle entry: fixed (idle_poll every time), exp or normal (none at a share "
		 "1 - idle_poll_share of the entries, else exponential with mean idle_poll, or normal with mean idle_poll "
		 "and s.d. idle_poll_sd: the idle loop's way into HLT)"},
	{HKEY("idle_poll_share"), .type = T_DOUBLE, HC(idle_poll_share), .min = 0, .max = 1, .def = "1", .unit = "",
	 .help = "idle_poll_dist = exp or normal: the share of idle entries that poll at all"},
	{HKEY("idle_poll_sd"), .type = T_TIME, HC(idle_poll_sd_ns), .min = 0, .max = SEC, .def = "0", .unit = "us",
	 .help = "idle_poll_dist = normal: the standard deviation of the poll's length"},
	{HKEY("idle_exit"), .type = T_TIME, HC(idle_exit_ns), .min = 0, .max = SEC, .def = "0", .unit = "us",
	 .help = "exit latency of a halted CPU: from the IPI to the first instruction it runs (a VM: the vCPU rescheduled)"},
	{HKEY("ipi_latency"), .type = T_TIME, HC(ipi_latency_ns), .min = 0, .max = SEC, .def = "0", .unit = "us",
	 .help = "a VM: from an IPI sent to its being taken by a vCPU that is not halted (running, or on its way into "
		 "idle); a wake-list wakeup waits for it (its handler activates the task); 0 = at once"},
	{HKEY("vm_halt_poll"), .type = T_TIME, HC(vm_halt_poll_ns), .min = 0, .max = SEC, .def = "0", .unit = "us",
	 .help = "a VM guest: its hypervisor polls a halted vCPU this long before it deschedules it (KVM halt_poll_ns); "
		 "an IPI meanwhile costs cost.ipi_send_polled and the vCPU runs vm_halt_poll_exit later; 0 = none"},
	{HKEY("vm_halt_poll_exit"), .type = T_TIME, HC(vm_halt_poll_exit_ns), .min = 0, .max = SEC, .def = "0",
	 .unit = "us", .help = "exit latency of a halted vCPU its hypervisor still polls (host.vm_halt_poll)"},
	{HKEY("recv_locked_share"), .type = T_DOUBLE, HC(recv_locked_share), .min = 0, .max = 1, .def = "0", .unit = "",
	 .help = "4.14+: the share of a read()'s cost.syscall it spends holding its socket (tcp_recvmsg_locked, "
		 "lock_sock .. release_sock); the rest is its entry, before lock_sock.  tools/wakeups-live --profile "
		 "measures it (the read's syscall-key samples that hold the socket); 0 = all before"},
	{HKEY("speed_sd"), .type = T_DOUBLE, HC(speed_sd), .min = 0, .max = 1, .def = "0", .unit = "",
	 .help = "a VM whose vCPUs share their cores with other work: the s.d. of each CPU's log speed, which wanders "
		 "(an Ornstein-Uhlenbeck process, each CPU's drawn apart from a stream of its own); tools/bin/cpuspeed "
		 "--wander measures it; 0 = a steady speed"},
	{HKEY("speed_tau"), .type = T_TIME, HC(speed_tau_ns), .min = 10 * US, .max = 10 * SEC, .def = "5ms", .unit = "ms",
	 .help = "host.speed_sd: how long a CPU's speed takes to forget where it was (the process's correlation time)"},
	{HKEY("idle"), .type = T_ENUM, HC(idle), .names = idle_names, .def = "halt", .unit = "",
	 .help = "how an idle CPU waits past idle_poll: halt (an IPI wakes it) or mwait (intel_idle, mwait_idle_with_hints: "
		 "writing its flags wakes it, no IPI, still after idle_exit)"},
	/* the host's NIC (link.type = nic): IRQ affinity and ethtool -C.  Defaults:
	 * the Linux myri10ge driver of 2006 (myri10ge_intr_coal_delay = 25 us, no
	 * frame count; TX completions share the interrupt) */
	{HKEY("irq_cpu"), .type = T_INT, HC(irq_cpu), .min = 0, .max = SCENARIO_MAX_CPUS - 1, .def = "0",
	 .unit = "CPU", .help = "CPU that takes the NIC interrupt and runs its NAPI poll; with host.queues, queue 0's (nic)"},
	{HKEY("rx_usecs"), .type = T_TIME, HC(rx_coal_ns), .min = 0, .max = SEC, .def = "25us", .unit = "us",
	 .help = "interrupt coalescing: delay from a received frame to the interrupt (ethtool rx-usecs; nic)"},
	{HKEY("rx_frames"), .type = T_INT, HC(rx_coal_frames), .min = 0, .max = 1e6, .def = "0", .unit = "frames",
	 .help = "interrupt at once after this many received frames; 0 = no limit (ethtool rx-frames; nic)"},
	{HKEY("tx_usecs"), .type = T_TIME, HC(tx_coal_ns), .min = 0, .max = SEC, .def = "25us", .unit = "us",
	 .help = "interrupt coalescing for TX completions (ethtool tx-usecs; nic)"},
	{HKEY("tx_frames"), .type = T_INT, HC(tx_coal_frames), .min = 0, .max = 1e6, .def = "0", .unit = "frames",
	 .help = "interrupt at once after this many TX completions; 0 = no limit (ethtool tx-frames; nic)"},
	/* multi-queue NICs (netdev_nic.h): one queue and no steering is the
	 * single-interrupt NIC above */
	{HKEY("queues"), .type = T_INT, HC(queues), .min = 1, .max = SCENARIO_MAX_CPUS, .def = "1", .unit = "queues",
	 .help = "NIC queue pairs (ethtool -L combined), each with its own interrupt, NAPI and coalescing; RSS hashes flows to them (nic)"},
	{HKEY("irq_affinity"), .type = T_STRING, HC(irq_affinity), .def = "auto", .unit = "",
	 .help = "queue i's interrupt CPU is the i-th of this list (as /proc/irq/N/smp_affinity_list: 0-7,16-23), reused "
	 "from the start when shorter; auto = irq_cpu + i (nic)"},
	{HKEY("rx_steering"), .type = T_ENUM, HC(rx_steering), .names = steering_names, .def = "rss", .unit = "",
	 .help = "where received frames are processed: rss (the queue's interrupt CPU), rps (a CPU the flow hash picks), "
	 "rfs (the reader's CPU), arfs (RFS, and the NIC moves the flow to the queue on the reader's CPU) (nic; 2.6.35+, arfs 2.6.39+)"},

	/* [cost] and [rcost]: one key per cost_table row; bounds, default, help there */
	{.group = G_COST, .key = NULL, .type = T_DOUBLE, HC(cost_cycles[0]), .min = 0, .unit = "cycles"},

	/* [link]; backlog, budget, weight: netdev_max_backlog, netdev_budget and
	 * weight_p defaults of net/core/dev.c (Linux 3.x) */
	{KEY(G_LINK, "link", "type"), .type = T_ENUM, SC(link_type), .names = link_type_names,
	 .def = "loopback", .unit = "", .help = "loopback or veth (one host; veth: a pair between two namespaces) or nic (host -> rhost over a wire)"},
	{KEY(G_LINK, "link", "mtu"), .type = T_INT, SC(mtu_bytes), .min = 68, .max = 65536,
	 .def = "65536", .unit = "bytes", .help = "device MTU"},
	{KEY(G_LINK, "link", "delay"), .type = T_TIME, SC(delay_ns), .min = 0, .max = 10 * SEC,
	 .def = "0", .unit = "us", .help = "one-way propagation delay (nic)"},
	{KEY(G_LINK, "link", "rate"), .type = T_RATE, SC(rate_bps), .min = 1e6, .max = 1e12,
	 .def = "10Gbit", .unit = "bit/s", .help = "line rate (nic)"},
	{KEY(G_LINK, "link", "backlog"), .type = T_INT, SC(backlog_max), .min = 1, .max = 1e6,
	 .def = "1000", .unit = "packets", .help = "netdev_max_backlog: per-CPU input queue limit"},
	{KEY(G_LINK, "link", "budget"), .type = T_INT, SC(netdev_budget), .min = 1, .max = 1e5,
	 .def = "300", .unit = "packets", .help = "netdev_budget: packets per net_rx_action run"},
	{KEY(G_LINK, "link", "weight"), .type = T_INT, SC(dev_weight), .min = 1, .max = 1e4,
	 .def = "64", .unit = "packets", .help = "dev_weight: packets per backlog or NAPI poll"},
	{KEY(G_LINK, "link", "tx_ring"), .type = T_INT, SC(tx_ring), .min = 1, .max = 1e6,
	 .def = "512", .unit = "skbs", .help = "TX ring: driver skbs (a TSO frame or one segment) queued on the NIC (nic)"},
	{KEY(G_LINK, "link", "rx_ring"), .type = T_INT, SC(rx_ring), .min = 1, .max = 1e6,
	 .def = "512", .unit = "frames", .help = "RX ring: frames the NIC holds; when full the peer pauses (802.3x; nic)"},
	{KEY(G_LINK, "link", "ecn_threshold"), .type = T_SIZE, SC(ecn_threshold_bytes), .min = 1, .max = GB,
	 .flags = F_ZERO_OK, .def = "0", .unit = "bytes",
	 .help = "the sender's NIC marks an ECN-capable (dctcp) frame CE when this much waits ahead of it "
	 "(DCTCP's K; nic); 0 = no marking"},
	{KEY(G_LINK, "link", "qdisc"), .type = T_ENUM, SC(qdisc), .names = qdisc_names, .def = "pfifo_fast", .unit = "",
	 .help = "the NIC's root qdisc: pfifo_fast (FIFO) or fq (paces every socket at its pacing rate, 3.12+; nic)"},

	/* [offload] */
	{KEY(G_OFFLOAD, "offload", "tso"), .type = T_BOOL, SC(tso), .def = "on", .unit = "",
	 .help = "TCP segmentation offload"},
	{KEY(G_OFFLOAD, "offload", "gso"), .type = T_BOOL, SC(gso), .def = "on", .unit = "",
	 .help = "generic segmentation offload (software)"},
	{KEY(G_OFFLOAD, "offload", "gro"), .type = T_BOOL, SC(gro), .def = "on", .unit = "",
	 .help = "generic receive offload"},
	{KEY(G_OFFLOAD, "offload", "lro"), .type = T_BOOL, SC(lro), .def = "off", .unit = "",
	 .help = "large receive offload (NIC)"},
	{KEY(G_OFFLOAD, "offload", "csum"), .type = T_BOOL, SC(csum), .def = "on", .unit = "",
	 .help = "checksum offload; off = checksum in software"},
	{KEY(G_OFFLOAD, "offload", "gso_max_size"), .type = T_INT, SC(gso_max_bytes), .min = 1024,
	 .max = BIG_TCP_MAX_BYTES, .def = "65536", .unit = "bytes",
	 .help = "largest TSO/GSO frame (ip link gso_ipv4_max_size); above 65536 is BIG TCP: host.kernel 6.3+ (IPv4)"},
	{KEY(G_OFFLOAD, "offload", "gro_max_size"), .type = T_INT, SC(gro_max_bytes), .min = 1024,
	 .max = BIG_TCP_MAX_BYTES, .def = "65536", .unit = "bytes",
	 .help = "largest skb GRO/LRO builds (ip link gro_ipv4_max_size; nic); above 65536 is BIG TCP: rhost.kernel 6.3+"},

	/* [tcp]; buffer defaults: tcp_wmem / tcp_rmem in Documentation/networking/
	 * ip-sysctl.txt (Linux 3.x); timers: TCP_DELACK_MIN (HZ/25), TCP_DELACK_MAX
	 * (HZ/5), TCP_ATO_MIN (HZ/25) in include/net/tcp.h */
	{KEY(G_TCP, "tcp", "sndbuf"), .type = T_SIZE, SC(sndbuf_bytes), .min = 2 * KB, .max = GB,
	 .flags = F_ZERO_OK, .def = "0", .unit = "bytes", .help = "SO_SNDBUF; 0 = autotune"},
	{KEY(G_TCP, "tcp", "rcvbuf"), .type = T_SIZE, SC(rcvbuf_bytes), .min = 2 * KB, .max = GB,
	 .flags = F_ZERO_OK, .def = "0", .unit = "bytes", .help = "SO_RCVBUF; 0 = autotune"},
	{KEY(G_TCP, "tcp", "wmem_default"), .type = T_SIZE, SC(wmem_default), .min = 4 * KB, .max = GB,
	 .def = "16K", .unit = "bytes", .help = "tcp_wmem[1]: initial send buffer"},
	{KEY(G_TCP, "tcp", "wmem_max"), .type = T_SIZE, SC(wmem_max), .min = 4 * KB, .max = GB,
	 .def = "4M", .unit = "bytes", .help = "tcp_wmem[2]: send buffer autotuning limit"},
	{KEY(G_TCP, "tcp", "rmem_default"), .type = T_SIZE, SC(rmem_default), .min = 4 * KB, .max = GB,
	 .def = "87380", .unit = "bytes", .help = "tcp_rmem[1]: initial receive buffer"},
	{KEY(G_TCP, "tcp", "rmem_max"), .type = T_SIZE, SC(rmem_max), .min = 4 * KB, .max = GB,
	 .def = "6M", .unit = "bytes", .help = "tcp_rmem[2]: receive buffer autotuning limit"},
	{KEY(G_TCP, "tcp", "timestamps"), .type = T_BOOL, SC(timestamps), .def = "on", .unit = "",
	 .help = "TCP timestamps option (12 bytes per segment)"},
	{KEY(G_TCP, "tcp", "init_cwnd"), .type = T_INT, SC(init_cwnd), .min = 1, .max = 1000,
	 .def = "10", .unit = "segments", .help = "initial congestion window"},
	{KEY(G_TCP, "tcp", "reordering"), .type = T_INT, SC(reordering), .min = 1, .max = 127,
	 .def = "3", .unit = "segments",
	 .help = "tcp_reordering: SACKed segments above a hole that make it a loss (fast retransmit)"},
	{KEY(G_TCP, "tcp", "cc"), .type = T_ENUM, SC(cc), .names = cc_names,
	 .def = "cubic", .unit = "", .help = "congestion control: reno, cubic, bbr (v1, 4.9+; paces itself) or dctcp "
	 "(3.18+; ECN, see link.ecn_threshold)"},
	{KEY(G_TCP, "tcp", "delack_min"), .type = T_TIME, SC(delack_min_ns), .min = MS, .max = 10 * SEC,
	 .def = "40ms", .unit = "ms", .help = "TCP_DELACK_MIN"},
	{KEY(G_TCP, "tcp", "delack_max"), .type = T_TIME, SC(delack_max_ns), .min = MS, .max = 10 * SEC,
	 .def = "200ms", .unit = "ms", .help = "TCP_DELACK_MAX"},
	{KEY(G_TCP, "tcp", "ato_min"), .type = T_TIME, SC(ato_min_ns), .min = MS, .max = 10 * SEC,
	 .def = "40ms", .unit = "ms", .help = "TCP_ATO_MIN"},
	{KEY(G_TCP, "tcp", "nodelay"), .type = T_BOOL, SC(nodelay), .def = "off", .unit = "",
	 .help = "TCP_NODELAY (Nagle off)"},
	{KEY(G_TCP, "tcp", "adv_win_scale"), .type = T_INT, SC(adv_win_scale), .min = -4, .max = 4,
	 .flags = F_NONZERO, .def = "1", .unit = "", .help = "tcp_adv_win_scale: buffer share kept as window (before 6.6; since, the measured skb ratio)"},
	{KEY(G_TCP, "tcp", "pacing"), .type = T_BOOL, SC(pacing), .def = "off", .unit = "",
	 .help = "the socket paces itself with its own hrtimer (SK_PACING_NEEDED, 4.13+): set by bbr's init, kept after a switch to cubic"},
	{KEY(G_TCP, "tcp", "pacing_ss_ratio"), .type = T_INT, SC(pacing_ss_ratio), .min = 1, .max = 1000,
	 .def = "200", .unit = "%", .help = "net.ipv4.tcp_pacing_ss_ratio: pacing rate in slow start, % of cwnd * mss / srtt"},
	{KEY(G_TCP, "tcp", "pacing_ca_ratio"), .type = T_INT, SC(pacing_ca_ratio), .min = 1, .max = 1000,
	 .def = "120", .unit = "%", .help = "net.ipv4.tcp_pacing_ca_ratio: pacing rate in congestion avoidance, %"},
	{KEY(G_TCP, "tcp", "max_pacing_rate"), .type = T_RATE, SC(max_pacing_bps), .min = 1e3, .max = 1e13,
	 .flags = F_ZERO_OK, .def = "0", .unit = "bit/s",
	 .help = "SO_MAX_PACING_RATE: cap on sk_pacing_rate (3.13+); 0 = none"},
	{KEY(G_TCP, "tcp", "min_tso_segs"), .type = T_INT, SC(min_tso_segs), .min = 1, .max = 255,
	 .def = "2", .unit = "segments", .help = "net.ipv4.tcp_min_tso_segs: fewest segments TSO autosizing leaves a frame (3.12+)"},
	{KEY(G_TCP, "tcp", "tso_rtt_log"), .type = T_INT, SC(tso_rtt_log), .min = 0, .max = 31,
	 .def = "9", .unit = "", .help = "net.ipv4.tcp_tso_rtt_log: autosizing adds gso_max_size >> (min_rtt_us >> this) (5.18+)"},
	{KEY(G_TCP, "tcp", "rcv_ssthresh_clamp_at"), .type = T_TIME, SC(rcv_ssthresh_clamp_ns), .min = 0, .max = 600 * SEC,
	 .def = "0", .unit = "ms", .help = "from this long after the start, each receiver's rcv_ssthresh is raised to its window "
	 "clamp once: the state tcp_grow_window leaves when an skb of 128 bytes or more reaches an empty receive queue "
	 "(a machine's connection gets there by chance, the model's seldom); where it holds, any frame left unread "
	 "shrinks the window and the reader's read sends the ACK. 0 = never"},
	{KEY(G_TCP, "tcp", "limit_output_bytes"), .type = T_SIZE, SC(limit_output_bytes), .min = 1 * KB, .max = GB,
	 .flags = F_ZERO_OK, .def = "0", .unit = "bytes",
	 .help = "net.ipv4.tcp_limit_output_bytes (TCP Small Queues, 3.6+); 0 = the era's default (128K, 256K 4.2+, "
	 "1M 5.0+, 4M 6.16+)"},

	/* [app] */
	{KEY(G_APP, "app", "test"), .type = T_ENUM, SC(test), .names = test_names,
	 .def = "TCP_STREAM", .unit = "", .help = "netperf test (any case)"},
	{KEY(G_APP, "app", "send_size"), .type = T_SIZE, SC(send_size), .min = 1, .max = 64 * MB,
	 .def = "16K", .unit = "bytes", .help = "bytes per send()/sendfile() (netperf -m)"},
	{KEY(G_APP, "app", "recv_size"), .type = T_SIZE, SC(recv_size), .min = 1, .max = 64 * MB,
	 .def = "87380", .unit = "bytes", .help = "bytes per recv() (netperf -M)"},
	{KEY(G_APP, "app", "instances"), .type = T_INT, SC(instances), .min = 1, .max = 4096,
	 .def = "1", .unit = "pairs", .help = "concurrent sender/receiver pairs"},
	{KEY(G_APP, "app", "loop"), .type = T_ENUM, SC(loop), .names = loop_names,
	 .def = "netperf", .unit = "", .help = "the applications' loop: netperf or iperf2 (a blocking call per message) or iperf3 (select() before each read() and write())"},
	{KEY(G_APP, "app", "send_cpu"), .type = T_INT, SC(send_cpu), .min = -1, .max = 255,
	 .def = "-1", .unit = "CPU", .help = "sender's CPU; -1 = scheduler decides (netperf -T)"},
	{KEY(G_APP, "app", "recv_cpu"), .type = T_INT, SC(recv_cpu), .min = -1, .max = 255,
	 .def = "-1", .unit = "CPU", .help = "receiver's CPU (on rhost for nic); -1 = scheduler"},
	{KEY(G_APP, "app", "recv_start"), .type = T_TIME, SC(recv_start_ns), .min = 0, .max = 600 * SEC,
	 .def = "0", .unit = "ms", .help = "the receivers start reading this long after the senders start writing "
	 "(a late server: the data queues up to the window first); 0 = together. Where a configuration "
	 "has two steady states, a late start finds the reader-behind one"},
	{KEY(G_APP, "app", "sendfile"), .type = T_ENUM, SC(sendfile), .names = sendfile_names,
	 .def = "linux", .unit = "", .help = "whose sendfile(2) the sender runs: linux (tcp_sendpage), freebsd-old "
	 "(a page and a tcp_output at a time), freebsd-new (2006 rewrite: chunks of half the socket buffer)"},

	/* [sched]; defaults of kernel/sched/fair.c (Linux 3.x), before the
	 * 1 + ilog2(ncpus) scaling */
	{KEY(G_SCHED, "sched", "latency"), .type = T_TIME, SC(sched_latency_ns), .min = 0, .max = SEC,
	 .def = "6ms", .unit = "ms", .help = "sysctl_sched_latency (unscaled)"},
	{KEY(G_SCHED, "sched", "min_granularity"), .type = T_TIME, SC(sched_min_gran_ns), .min = 0,
	 .max = SEC, .def = "0.75ms", .unit = "ms", .help = "sysctl_sched_min_granularity (unscaled)"},
	{KEY(G_SCHED, "sched", "wakeup_granularity"), .type = T_TIME, SC(sched_wakeup_gran_ns), .min = 0,
	 .max = SEC, .def = "1ms", .unit = "ms", .help = "sysctl_sched_wakeup_granularity (unscaled)"},
	{KEY(G_SCHED, "sched", "wake_affine"), .type = T_BOOL, SC(wake_affine), .def = "on", .unit = "",
	 .help = "wake_affine(): pull the wakee to the waker's CPU"},
	{KEY(G_SCHED, "sched", "domains"), .type = T_ENUM, SC(sched_domains), .names = domains_names,
	 .def = "host", .unit = "",
	 .help = "load balancing: host (one domain) or llc (3.6: each LLC, then the LLCs; see docs/lkp.md)"},

	/* [mem] */
	{KEY(G_MEM, "mem", "slab_objs"), .type = T_INT, SC(slab_objs), .min = 1, .max = 4096,
	 .def = "32", .unit = "objects", .help = "objects per slab of the skb cache"},
	{KEY(G_MEM, "mem", "slab_pages"), .type = T_INT, SC(slab_pages), .min = 1, .max = 512,
	 .def = "8", .unit = "pages", .help = "pages per slab (order 3: 8)"},
	{KEY(G_MEM, "mem", "slab_cpu_objs"), .type = T_INT, SC(slab_cpu_objs), .min = 1, .max = 1e6,
	 .def = "64", .unit = "objects", .help = "free objects a CPU keeps before releasing a slab"},
	{KEY(G_MEM, "mem", "frag_pages"), .type = T_INT, SC(frag_pages), .min = 1, .max = 512,
	 .def = "8", .unit = "pages", .help = "pages in one socket page frag (order 3: 8)"},
	{KEY(G_MEM, "mem", "skb_overhead"), .type = T_SIZE, SC(skb_overhead_bytes), .min = 0, .max = 64 * KB,
	 .def = "768", .unit = "bytes", .help = "skb truesize minus data length"},
	{KEY(G_MEM, "mem", "max_tcp_header"), .type = T_SIZE, SC(max_tcp_header_bytes), .min = 0, .max = 4 * KB,
	 .def = "320", .unit = "bytes",
	 .help = "MAX_TCP_HEADER, L1_CACHE_ALIGN(128 + MAX_HEADER): the build's; 320 with tunnels or "
		 "Hyper-V's netvsc (Debian's), 192 without (LL_MAX_HEADER 32); sizes sndbuf (3.13+)"},
};

/* Full names of the [cost]/[rcost] keys; cost_name_full() checks them against cost.c. */
#define CN(id, k) [id] = {"cost." k, "rcost." k}
static const char *const cost_names[COST_N][2] = {
	CN(COST_SYSCALL, "syscall"),       CN(COST_COPY_BYTE, "copy_byte"),
	CN(COST_CSUM_BYTE, "csum_byte"),   CN(COST_SENDFILE_PAGE, "sendfile_page"),
	CN(COST_SKB_ALLOC, "skb_alloc"),   CN(COST_SKB_FREE, "skb_free"),
	CN(COST_PAGE_ALLOC, "page_alloc"), CN(COST_PAGE_FREE, "page_free"),
	CN(COST_TX_FRAME, "tx_frame"),     CN(COST_TX_SEG, "tx_seg"),
	CN(COST_RX_FRAME, "rx_frame"),     CN(COST_RX_TCP, "rx_tcp"),
	CN(COST_RX_SEG, "rx_seg"),
	CN(COST_ACK_TX, "ack_tx"),         CN(COST_ACK_RX, "ack_rx"),
	CN(COST_SOFTIRQ, "softirq"),       CN(COST_HARDIRQ, "hardirq"),
	CN(COST_WAKEUP, "wakeup"),         CN(COST_CTXSW, "ctxsw"),
	CN(COST_IPI_SEND, "ipi_send"),     CN(COST_IPI_RECV, "ipi_recv"),
	CN(COST_TIMER, "timer"),           CN(COST_GRO_SEG, "gro_seg"),
	CN(COST_NAPI_POLL, "napi_poll"),   CN(COST_TX_COMPL, "tx_completion"),
	CN(COST_TICK, "tick"),             CN(COST_MONITOR, "monitor"),
	CN(COST_KSWAPD, "kswapd"),         CN(COST_TIMER_IRQ, "timer_irq"),
	CN(COST_POLL, "poll"),             CN(COST_IPI_SEND_POLLED, "ipi_send_polled"),
	CN(COST_NOHZ_EXIT, "nohz_exit"),   CN(COST_RX_GSO_SEG, "rx_gso_seg"),
	CN(COST_SOCK_XCPU, "sock_xcpu"), CN(COST_COPY_XCPU, "copy_xcpu"),
	CN(COST_SKB_XCPU, "skb_xcpu"),     CN(COST_RECV_SYSCALL, "recv_syscall"),
	CN(COST_RECV_COPY_BYTE, "recv_copy_byte"),
	CN(COST_RECV_COPY_COLD, "recv_copy_cold_byte"),
	CN(COST_RECV_COPY_PIECE, "recv_copy_piece"),
	CN(COST_RECV_COPY_SPLICED, "recv_copy_spliced_byte"),
	CN(COST_SEND_BYTE, "send_byte"),
	CN(COST_SEND_SPLICED_BYTE, "send_spliced_byte"),
	CN(COST_USER, "user"),
	CN(COST_RECV_USER, "recv_user"),
};

/* ---- keys: a (section, row, cost) triple, walked in table order ---- */

struct key {
	const struct section *sec;
	const struct row *row;
	int cost;               /* enum cost_id for G_COST, else -1 */
};

/* Advance k to the next key (start from a zeroed key); false after the last. */
static bool key_next(struct key *k)
{
	size_t si = 0, ri = 0;

	if (k->sec) {
		if (k->cost >= 0 && k->cost + 1 < COST_N) {
			k->cost++;
			return true;
		}
		si = (size_t)(k->sec - sections);
		ri = (size_t)(k->row - rows) + 1;
	}
	for (; si < ARRAY_SIZE(sections); si++, ri = 0) {
		for (; ri < ARRAY_SIZE(rows); ri++) {
			if (rows[ri].group != sections[si].group)
				continue;
			k->sec = &sections[si];
			k->row = &rows[ri];
			k->cost = rows[ri].group == G_COST ? 0 : -1;
			return true;
		}
	}
	return false;
}

static bool key_is_host(const struct key *k)
{
	return k->row->group == G_HOST || k->row->group == G_COST;
}

static const char *key_full(const struct key *k)
{
	int h = k->sec->host;

	if (k->cost < 0)
		return k->row->full[h];
	const char *full = cost_names[k->cost][h];
	INVARIANT(full && strcmp(strchr(full, '.') + 1, cost_table[k->cost].key) == 0,
		  "cost_names[%d] does not match cost_table key '%s'", k->cost, cost_table[k->cost].key);
	return full;
}

/* The key's name inside its section. */
static const char *key_short(const struct key *k)
{
	return k->cost < 0 ? k->row->key : cost_table[k->cost].key;
}

static double key_min(const struct key *k)
{
	return k->row->min;
}

static double key_max(const struct key *k)
{
	return k->cost < 0 ? k->row->max : cost_table[k->cost].max_cycles;
}

static const char *key_unit(const struct key *k)
{
	if (k->cost == COST_COPY_BYTE || k->cost == COST_CSUM_BYTE || k->cost == COST_COPY_XCPU ||
	    k->cost == COST_RECV_COPY_BYTE || k->cost == COST_RECV_COPY_COLD || k->cost == COST_RECV_COPY_SPLICED ||
	    k->cost == COST_SEND_BYTE || k->cost == COST_SEND_SPLICED_BYTE)
		return "cycles/byte";
	return k->row->unit;
}

static const char *key_help(const struct key *k)
{
	return k->cost < 0 ? k->row->help : cost_table[k->cost].help;
}

static void *key_field(struct scenario *sc, const struct key *k, int host)
{
	if (!key_is_host(k))
		return (char *)sc + k->row->off;
	size_t off = k->row->off + (k->cost > 0 ? (size_t)k->cost * sizeof(double) : 0);
	return (char *)&sc->host[host] + off;
}

/* Bit of a [host] row in scenario.rhost_explicit. */
static unsigned host_row_bit(const struct row *r)
{
	unsigned bit = 0;
	for (const struct row *p = rows; p < r; p++)
		bit += p->group == G_HOST;
	INVARIANT(bit < 32, "too many [host] keys for rhost_explicit (%u)", bit);
	return bit;
}

static bool host1_explicit(const struct scenario *sc, const struct key *k)
{
	if (k->row->group == G_COST)
		return sc->rcost_explicit[k->cost];
	return sc->rhost_explicit >> host_row_bit(k->row) & 1;
}

static void host1_mark(struct scenario *sc, const struct key *k)
{
	if (k->row->group == G_COST)
		sc->rcost_explicit[k->cost] = true;
	else
		sc->rhost_explicit |= UINT32_C(1) << host_row_bit(k->row);
}

static const struct section *section_find(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(sections); i++)
		if (strcmp(sections[i].name, name) == 0)
			return &sections[i];
	return NULL;
}

static bool key_find_in(const struct section *sec, const char *name, struct key *out)
{
	struct key k = {0};
	while (key_next(&k))
		if (k.sec == sec && strcmp(key_short(&k), name) == 0) {
			*out = k;
			return true;
		}
	return false;
}

static bool key_find(const char *fullkey, struct key *out)
{
	struct key k = {0};
	while (key_next(&k))
		if (strcmp(key_full(&k), fullkey) == 0) {
			*out = k;
			return true;
		}
	return false;
}

/* ---- did you mean: optimal string alignment distance, case-insensitive ---- */

enum { GUESS_MAX_LEN = 63 };

static int edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	int d[GUESS_MAX_LEN + 1][GUESS_MAX_LEN + 1];

	if (la > GUESS_MAX_LEN || lb > GUESS_MAX_LEN)
		return INT_MAX / 2;
	for (size_t i = 0; i <= la; i++)
		d[i][0] = (int)i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = (int)j;
	for (size_t i = 1; i <= la; i++) {
		for (size_t j = 1; j <= lb; j++) {
			int ca = tolower((unsigned char)a[i - 1]), cb = tolower((unsigned char)b[j - 1]);
			int best = d[i - 1][j - 1] + (ca != cb);
			if (d[i - 1][j] + 1 < best)
				best = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < best)
				best = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && ca == tolower((unsigned char)b[j - 2]) &&
			    tolower((unsigned char)a[i - 2]) == cb && d[i - 2][j - 2] + 1 < best)
				best = d[i - 2][j - 2] + 1;
			d[i][j] = best;
		}
	}
	return d[la][lb];
}

struct guess {
	const char *input;
	const char *best;
	int dist;
};

static void guess_try(struct guess *g, const char *cand)
{
	int d = edit_distance(g->input, cand);
	if (!g->best || d < g->dist) {
		g->best = cand;
		g->dist = d;
	}
}

/* The closest candidate if it is close: one edit per three characters typed, at least one. */
static const char *guess_result(const struct guess *g)
{
	int limit = (int)strlen(g->input) / 3;
	if (limit < 1)
		limit = 1;
	return g->best && g->dist <= limit ? g->best : NULL;
}

static void hint_section(const char *name, char *buf, size_t n)
{
	struct guess g = {.input = name};
	for (size_t i = 0; i < ARRAY_SIZE(sections); i++)
		guess_try(&g, sections[i].name);
	const char *s = guess_result(&g);
	if (s)
		snprintf(buf, n, " (did you mean [%s]?)", s);
	else
		snprintf(buf, n, " (sections: run host cost rhost rcost link offload tcp app sched mem)");
}

/* Hint for an unknown key in section sec (NULL: outside any section). */
static void hint_key(const struct section *sec, const char *name, char *buf, size_t n)
{
	struct guess g = {.input = name};
	struct key k = {0};

	buf[0] = '\0';
	if (sec) {
		while (key_next(&k))
			if (k.sec == sec)
				guess_try(&g, key_short(&k));
		const char *s = guess_result(&g);
		if (s) {
			snprintf(buf, n, " (did you mean '%s'?)", s);
			return;
		}
	}
	memset(&k, 0, sizeof k);
	while (key_next(&k))
		if (strcmp(key_short(&k), name) == 0) {
			snprintf(buf, n, " (it belongs in [%s])", k.sec->name);
			return;
		}
}

static void hint_full(const char *fullkey, char *buf, size_t n)
{
	struct guess g = {.input = fullkey};
	struct key k = {0};
	while (key_next(&k))
		guess_try(&g, key_full(&k));
	const char *s = guess_result(&g);
	if (s)
		snprintf(buf, n, " (did you mean '%s'?)", s);
	else
		buf[0] = '\0';
}

/* ---- values: one parser, one formatter ---- */

struct value {
	int64_t i;              /* T_INT, T_SIZE, T_TIME, T_BOOL, T_ENUM */
	uint64_t u;             /* T_U64 */
	double d;               /* T_DOUBLE, T_RATE; every numeric type for range checks */
	char s[SCENARIO_NAME_MAX]; /* T_STRING */
};

/*
 * A decimal number at s: [+-]digits[.digits][e[+-]digits].  No hex, inf
 * or nan.  Returns the end, or NULL.  A magnitude too large for a double
 * comes back as +-HUGE_VAL, which every range check rejects.
 */
static const char *scan_number(const char *s, double *out)
{
	const char *p = s;
	size_t digits = 0;
	char *end;

	if (*p == '+' || *p == '-')
		p++;
	for (; isdigit((unsigned char)*p); p++)
		digits++;
	if (*p == '.')
		for (p++; isdigit((unsigned char)*p); p++)
			digits++;
	if (!digits)
		return NULL;
	if (*p == 'e' || *p == 'E') {
		const char *q = p + 1;
		if (*q == '+' || *q == '-')
			q++;
		if (isdigit((unsigned char)*q)) {
			while (isdigit((unsigned char)*q))
				q++;
			p = q;
		}
	}
	errno = 0;
	*out = strtod(s, &end);
	return end == p ? p : NULL;
}

/*
 * x as a whole number: exact, or within the rounding error of a decimal
 * fraction times a unit ("0.3s").  Infinite or huge x passes with *out = 0:
 * every range check rejects it.
 */
static bool whole(double x, int64_t *out)
{
	*out = 0;
	if (!isfinite(x) || fabs(x) > 9e18)
		return true;
	double r = nearbyint(x);
	if (fabs(x - r) > 1e-9 * fmax(1.0, fabs(x)))
		return false;
	*out = (int64_t)r;
	return true;
}

static void fmt_double(double x, char *buf, size_t n)
{
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, n, "%.*g", prec, x);
		if (strtod(buf, NULL) == x)
			return;
	}
}

static void fmt_time(int64_t ns, char *buf, size_t n)
{
	if (!units_format(UNIT_TIME, ns, buf, n))
		snprintf(buf, n, "0");
}

static void fmt_size(int64_t b, char *buf, size_t n)
{
	if (!units_format(UNIT_SIZE, b, buf, n))
		snprintf(buf, n, "%" PRId64, b);
}

static void fmt_rate(double bps, char *buf, size_t n)
{
	if (bps != 0 && fabs(bps) < 9e18 && nearbyint(bps) == bps && units_format(UNIT_RATE, (int64_t)bps, buf, n))
		return;
	fmt_double(bps, buf, n);
}

/* A bound (or any numeric value) of key k as text in the key's own notation. */
static void fmt_number(const struct key *k, double x, char *buf, size_t n)
{
	switch (k->row->type) {
	case T_SIZE:
		fmt_size((int64_t)x, buf, n);
		break;
	case T_TIME:
		fmt_time((int64_t)x, buf, n);
		break;
	case T_RATE:
		fmt_rate(x, buf, n);
		break;
	case T_INT:
		snprintf(buf, n, "%.0f", x);
		break;
	default:
		fmt_double(x, buf, n);
		break;
	}
}

/*
 * MAJOR.MINOR[.PATCH], each part a decimal integer in range: Linux has had
 * majors 2 to 6 so far, minors and patch levels below 1000.  The model
 * compares (major, minor) as ints (host_kernel_at_least), so a part that
 * does not fit would silently read as another kernel.
 */
static bool version_ok(const char *s)
{
	static const long lo[3] = {KERNEL_MAJOR_MIN, 0, 0};
	static const long hi[3] = {KERNEL_MAJOR_MAX, KERNEL_MINOR_MAX, KERNEL_MINOR_MAX};
	int parts = 0;
	for (;;) {
		long v = 0;
		if (!isdigit((unsigned char)*s))
			return false;
		for (; isdigit((unsigned char)*s); s++)
			if ((v = v * 10 + (*s - '0')) > hi[parts])
				return false;
		if (v < lo[parts])
			return false;
		parts++;
		if (*s == '\0')
			return parts >= 2;
		if (*s != '.' || parts == 3)
			return false;
		s++;
	}
}

#define WHY(...) (snprintf(why, n, __VA_ARGS__), -1)

/* Parse text into v by the key's type (no range check); on failure describe it in why. */
static int value_parse(const struct key *k, const char *text, struct value *v, char *why, size_t n)
{
	const struct row *r = k->row;
	const char *end;
	double x, mult;

	memset(v, 0, sizeof *v);
	if (*text == '\0')
		return WHY("no value given");
	switch (r->type) {
	case T_INT:
		end = scan_number(text, &x);
		if (!end || *end)
			return WHY("'%s' is not an integer", text);
		if (!whole(x, &v->i))
			return WHY("'%s' is not an integer", text);
		v->d = x;
		return 0;
	case T_U64: {
		char *e;
		if (!isdigit((unsigned char)text[0]))
			return WHY("'%s' is not an unsigned integer", text);
		errno = 0;
		unsigned long long u = strtoull(text, &e, 10);
		if (*e)
			return WHY("'%s' is not an unsigned integer", text);
		if (errno == ERANGE)
			return WHY("'%s' is out of range (0..%" PRIu64 ")", text, UINT64_MAX);
		v->u = (uint64_t)u;
		return 0;
	}
	case T_SIZE:
		end = scan_number(text, &x);
		if (!end)
			return WHY("'%s' is not a size (examples: 65536, 64K, 4M)", text);
		while (*end == ' ' || *end == '\t')
			end++;
		if (!units_parse(UNIT_SIZE, end, &mult))
			return WHY("'%s' is not a size (examples: 65536, 64K, 4M)", text);
		v->d = x * mult;
		if (!whole(v->d, &v->i))
			return WHY("'%s' is not a whole number of bytes", text);
		return 0;
	case T_TIME:
		end = scan_number(text, &x);
		if (end) {
			while (*end == ' ' || *end == '\t')
				end++;
			if (*end == '\0') {
				INVARIANT(units_parse(UNIT_TIME, r->unit, &mult),
					  "time key %s has unit '%s'", key_full(k), r->unit);
			} else if (!units_parse(UNIT_TIME, end, &mult)) {
				end = NULL;
			}
		}
		if (!end)
			return WHY("'%s' is not a time (examples: 300ns, 40us, 1.5ms, 2s; "
				   "a bare number is in %s)", text, r->unit);
		v->d = x * mult;
		if (!whole(v->d, &v->i))
			return WHY("'%s' is not a whole number of nanoseconds", text);
		return 0;
	case T_RATE:
		end = scan_number(text, &x);
		if (end) {
			while (*end == ' ' || *end == '\t')
				end++;
			if (!units_parse(UNIT_RATE, end, &mult))
				end = NULL;
		}
		if (!end)
			return WHY("'%s' is not a rate (examples: 10Gbit, 100Mbit, 1e9)", text);
		v->d = x * mult;
		return 0;
	case T_DOUBLE:
		end = scan_number(text, &x);
		if (!end || *end)
			return WHY("'%s' is not a number", text);
		v->d = x;
		return 0;
	case T_BOOL: {
		static const char *const yes[] = {"on", "yes", "true", "1"};
		static const char *const no[] = {"off", "no", "false", "0"};
		for (size_t i = 0; i < ARRAY_SIZE(yes); i++) {
			if (strcasecmp(text, yes[i]) == 0) {
				v->i = 1;
				return 0;
			}
			if (strcasecmp(text, no[i]) == 0) {
				v->i = 0;
				return 0;
			}
		}
		return WHY("'%s' is not a boolean (on/off, yes/no, true/false, 1/0)", text);
	}
	case T_ENUM: {
		char list[256] = "";
		for (int i = 0; r->names[i]; i++) {
			if (strcasecmp(text, r->names[i]) == 0) {
				v->i = i;
				return 0;
			}
			snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "",
				 r->names[i]);
		}
		return WHY("'%s' is not one of: %s", text, list);
	}
	case T_STRING: {
		size_t len = strlen(text);
		INVARIANT(r->size <= sizeof v->s, "string key %s too wide", key_full(k));
		if (len >= r->size)
			return WHY("'%s' is longer than %zu characters", text, r->size - 1);
		for (const char *p = text; *p; p++)
			if (*p == '#' || *p == ';' || iscntrl((unsigned char)*p))
				return WHY("'%s' may not contain '#', ';' or control characters", text);
		if (isspace((unsigned char)text[0]) || isspace((unsigned char)text[len - 1]))
			return WHY("'%s' may not start or end with a blank", text);
		if ((r->flags & F_VERSION) && !version_ok(text))
			return WHY("'%s' is not a kernel version MAJOR.MINOR (e.g. 3.6; MAJOR %d..%d, "
				   "MINOR and PATCH 0..%d)", text, KERNEL_MAJOR_MIN, KERNEL_MAJOR_MAX,
				   KERNEL_MINOR_MAX);
		memcpy(v->s, text, len + 1);
		return 0;
	}
	}
	INVARIANT(0, "bad key type %d", (int)r->type);
	return -1;
}

/* Range check of a parsed numeric value; text is what the user wrote. */
static int value_check(const struct key *k, const char *text, const struct value *v, char *why, size_t n)
{
	const struct row *r = k->row;
	char bound[64];

	switch (r->type) {
	case T_INT: case T_SIZE: case T_TIME: case T_RATE: case T_DOUBLE:
		break;
	default:
		return 0;
	}
	if ((r->flags & F_ZERO_OK) && v->d == 0)
		return 0;
	if ((r->flags & F_NONZERO) && v->d == 0)
		return WHY("%s is not allowed (0 has no meaning here)", text);
	const char *also = r->flags & F_ZERO_OK ? " (or 0)" : "";
	if (!(v->d >= key_min(k))) {
		fmt_number(k, key_min(k), bound, sizeof bound);
		return WHY("%s below minimum %s%s", text, bound, also);
	}
	if (!(v->d <= key_max(k))) {
		fmt_number(k, key_max(k), bound, sizeof bound);
		return WHY("%s above maximum %s", text, bound);
	}
	return 0;
}

#undef WHY

static void value_store(void *p, const struct key *k, const struct value *v)
{
	const struct row *r = k->row;

	switch (r->type) {
	case T_INT:
	case T_ENUM:
	case T_SIZE:
		if (r->size == sizeof(int)) {
			int x = (int)v->i;
			memcpy(p, &x, sizeof x);
		} else {
			INVARIANT(r->size == sizeof(int64_t), "key %s: field size %zu", key_full(k), r->size);
			memcpy(p, &v->i, sizeof v->i);
		}
		return;
	case T_TIME:
		INVARIANT(r->size == sizeof(sim_ns), "key %s: field size %zu", key_full(k), r->size);
		memcpy(p, &v->i, sizeof v->i);
		return;
	case T_U64:
		INVARIANT(r->size == sizeof(uint64_t), "key %s: field size %zu", key_full(k), r->size);
		memcpy(p, &v->u, sizeof v->u);
		return;
	case T_DOUBLE:
	case T_RATE:
		INVARIANT(r->size == sizeof(double), "key %s: field size %zu", key_full(k), r->size);
		memcpy(p, &v->d, sizeof v->d);
		return;
	case T_BOOL: {
		bool b = v->i != 0;
		INVARIANT(r->size == sizeof(bool), "key %s: field size %zu", key_full(k), r->size);
		memcpy(p, &b, sizeof b);
		return;
	}
	case T_STRING:
		memset(p, 0, r->size);
		memcpy(p, v->s, strlen(v->s));
		return;
	}
}

static void value_load(const void *p, const struct key *k, struct value *v)
{
	const struct row *r = k->row;

	memset(v, 0, sizeof *v);
	switch (r->type) {
	case T_INT:
	case T_ENUM:
	case T_SIZE:
		if (r->size == sizeof(int)) {
			int x;
			memcpy(&x, p, sizeof x);
			v->i = x;
		} else {
			memcpy(&v->i, p, sizeof v->i);
		}
		v->d = (double)v->i;
		return;
	case T_TIME:
		memcpy(&v->i, p, sizeof v->i);
		v->d = (double)v->i;
		return;
	case T_U64:
		memcpy(&v->u, p, sizeof v->u);
		return;
	case T_DOUBLE:
	case T_RATE:
		memcpy(&v->d, p, sizeof v->d);
		return;
	case T_BOOL: {
		bool b;
		memcpy(&b, p, sizeof b);
		v->i = b;
		return;
	}
	case T_STRING:
		INVARIANT(r->size <= sizeof v->s, "string key %s too wide", key_full(k));
		memcpy(v->s, p, r->size);
		v->s[sizeof v->s - 1] = '\0';
		return;
	}
}

static void value_format(const struct key *k, const struct value *v, char *buf, size_t n)
{
	const struct row *r = k->row;

	switch (r->type) {
	case T_INT:
		snprintf(buf, n, "%" PRId64, v->i);
		return;
	case T_U64:
		snprintf(buf, n, "%" PRIu64, v->u);
		return;
	case T_SIZE:
		fmt_size(v->i, buf, n);
		return;
	case T_TIME:
		fmt_time(v->i, buf, n);
		return;
	case T_RATE:
		fmt_rate(v->d, buf, n);
		return;
	case T_DOUBLE:
		fmt_double(v->d, buf, n);
		return;
	case T_BOOL:
		snprintf(buf, n, "%s", v->i ? "on" : "off");
		return;
	case T_ENUM: {
		int count = 0;
		while (r->names[count])
			count++;
		INVARIANT(v->i >= 0 && v->i < count, "key %s holds %" PRId64, key_full(k), v->i);
		snprintf(buf, n, "%s", r->names[v->i]);
		return;
	}
	case T_STRING:
		snprintf(buf, n, "%s", v->s);
		return;
	}
}

/* The default of k as text (for [cost] rows, formatted from cost_table). */
static void key_default(const struct key *k, char *buf, size_t n)
{
	if (k->cost >= 0)
		fmt_double(cost_table[k->cost].def_cycles, buf, n);
	else
		snprintf(buf, n, "%s", k->row->def);
}

/* Store a parsed value; a host[0] key carries over to host[1] unless that was set explicitly. */
static void key_store(struct scenario *sc, const struct key *k, const struct value *v)
{
	value_store(key_field(sc, k, k->sec->host), k, v);
	if (!key_is_host(k))
		return;
	if (k->sec->host == 1)
		host1_mark(sc, k);
	else if (!host1_explicit(sc, k))
		value_store(key_field(sc, k, 1), k, v);
}

/*
 * Where the keys of the era checks (config_validate) were last set, as
 * "FILE:LINE" or "-s ARG", so that a refusal names the line to change;
 * kept by config_load_with_overrides while it reads, never in the
 * scenario (which a dump must reload byte-equal).
 */
struct origins {
	char gso[256], gro[256], cc[256], kernel[2][256];
};

static void origin_note(struct origins *o, const struct key *k, const char *where)
{
	char *slot = NULL;

	if (!o || k->cost >= 0)
		return;
	if (strcmp(k->row->full[0], "offload.gso_max_size") == 0)
		slot = o->gso;
	else if (strcmp(k->row->full[0], "offload.gro_max_size") == 0)
		slot = o->gro;
	else if (strcmp(k->row->full[0], "tcp.cc") == 0)
		slot = o->cc;
	else if (strcmp(k->row->full[0], "host.kernel") == 0)
		slot = o->kernel[k->sec->host];
	if (slot)
		snprintf(slot, sizeof o->gso, "%s", where);
}

static int validate_noted(const struct scenario *sc, const struct origins *o, struct tcpsim_err *err);

static int key_set(struct scenario *sc, const struct key *k, const char *text, const char *where,
		   struct tcpsim_err *err)
{
	struct value v;
	char why[512];

	if (value_parse(k, text, &v, why, sizeof why) != 0 || value_check(k, text, &v, why, sizeof why) != 0)
		return err_set(err, TCPSIM_EUSAGE, "%s: [%s] %s: %s", where, k->sec->name, key_short(k), why);
	key_store(sc, k, &v);
	return TCPSIM_OK;
}

/* ---- public: defaults, set, override, get ---- */

void config_defaults(struct scenario *sc)
{
	struct key k = {0};
	char def[64], why[512];
	struct value v;

	memset(sc, 0, sizeof *sc);
	while (key_next(&k)) {
		if (k.sec->host == 1)
			continue;   /* [rhost]/[rcost] follow [host]/[cost] */
		key_default(&k, def, sizeof def);
		int rc = value_parse(&k, def, &v, why, sizeof why);
		if (rc == 0)
			rc = value_check(&k, def, &v, why, sizeof why);
		INVARIANT(rc == 0, "default of %s: %s", key_full(&k), why);
		key_store(sc, &k, &v);
	}
}

int config_key_exists(const char *fullkey)
{
	struct key k;
	return key_find(fullkey, &k);
}

static int set_noted(struct scenario *sc, const char *fullkey, const char *value, const char *where,
		     struct origins *o, struct tcpsim_err *err)
{
	struct key k;
	char hint[128];
	int rc;

	if (!where)
		where = "config";
	if (!key_find(fullkey, &k)) {
		hint_full(fullkey, hint, sizeof hint);
		return err_set(err, TCPSIM_EUSAGE, "%s: unknown key '%s'%s", where, fullkey, hint);
	}
	rc = key_set(sc, &k, value, where, err);
	if (rc == TCPSIM_OK)
		origin_note(o, &k, where);
	return rc;
}

int config_set(struct scenario *sc, const char *fullkey, const char *value, const char *where,
	       struct tcpsim_err *err)
{
	return set_noted(sc, fullkey, value, where, NULL, err);
}

static char *trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	char *e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

static int override_noted(struct scenario *sc, const char *assignment, const char *origin, struct origins *o,
			  struct tcpsim_err *err)
{
	char *copy = xstrdup(assignment);
	char *eq = strchr(copy, '=');
	int rc;

	if (!origin)
		origin = assignment;
	if (!eq) {
		rc = err_set(err, TCPSIM_EUSAGE, "%s: expected section.key=value", origin);
	} else {
		*eq = '\0';
		char *key = trim(copy), *value = trim(eq + 1);
		char *dot = strchr(key, '.');
		if (!dot || dot == key || dot[1] == '\0')
			rc = err_set(err, TCPSIM_EUSAGE, "%s: expected section.key=value", origin);
		else
			rc = set_noted(sc, key, value, origin, o, err);
	}
	free(copy);
	return rc;
}

int config_override(struct scenario *sc, const char *assignment, const char *origin,
		    struct tcpsim_err *err)
{
	return override_noted(sc, assignment, origin, NULL, err);
}

int config_get(const struct scenario *sc, const char *fullkey, char *buf, size_t n)
{
	struct key k;
	struct value v;
	char text[128];

	if (!key_find(fullkey, &k))
		return -1;
	value_load(key_field((struct scenario *)sc, &k, k.sec->host), &k, &v);
	value_format(&k, &v, text, sizeof text);
	if (strlen(text) >= n)
		return -1;
	memcpy(buf, text, strlen(text) + 1);
	return 0;
}

int config_value_number(const char *fullkey, const char *text, double *out, const char **unit,
			struct tcpsim_err *err)
{
	struct key k;
	struct value v;
	char why[256];

	if (!key_find(fullkey, &k))
		return err_set(err, TCPSIM_EUSAGE, "unknown key '%s'", fullkey);
	if (value_parse(&k, text, &v, why, sizeof why) != 0)
		return err_set(err, TCPSIM_EUSAGE, "%s: %s", fullkey, why);
	*unit = key_unit(&k);
	switch (k.row->type) {
	case T_INT: case T_BOOL:
		*out = (double)v.i;
		return TCPSIM_OK;
	case T_SIZE:
		*out = (double)v.i;
		*unit = "bytes";
		return TCPSIM_OK;
	case T_TIME:
		*out = (double)v.i;
		*unit = "ns";
		return TCPSIM_OK;
	case T_U64:
		*out = (double)v.u;
		return TCPSIM_OK;
	case T_RATE:
		*out = v.d;
		*unit = "bit/s";
		return TCPSIM_OK;
	case T_DOUBLE:
		*out = v.d;
		return TCPSIM_OK;
	case T_ENUM: case T_STRING:
		break;
	}
	return err_set(err, TCPSIM_EUSAGE, "%s: '%s' is not a number (the key's values are names)", fullkey,
		       text);
}

int config_key_count(void)
{
	struct key k = {0};
	int n = 0;
	while (key_next(&k))
		n++;
	return n;
}

const char *config_key_name(int i)
{
	struct key k = {0};
	int n = 0;
	while (key_next(&k))
		if (n++ == i)
			return key_full(&k);
	return NULL;
}

/* ---- validation across keys ---- */

/* A multi-queue NIC's interrupts (link.type = nic): the affinity list
 * names CPUs of the host, a CPU runs at most CPU_NAPI_MAX queues' NAPI
 * (cpu.c), RPS and RFS exist since 2.6.35 (net/core/dev.c, get_rps_cpu)
 * and aRFS since 2.6.39 (ndo_rx_flow_steer). */
#define CPU_NAPI_MAX 8
static int validate_queues(const struct host_cfg *hc, const char *sect, struct tcpsim_err *err)
{
	int cpu_of[SCENARIO_MAX_CPUS], per_cpu[SCENARIO_MAX_CPUS] = {0}, n, bad = 0, maj = 0, min = 0, patch = 0, need;

	if (!nic_affinity_auto(hc)) {
		n = cpulist_parse(hc->irq_affinity, hc->cpus, cpu_of, &bad);
		if (n == -2)
			return err_set(err, TCPSIM_EUSAGE, "%s.irq_affinity = '%s': CPU %d but %s.cpus = %d (CPUs are 0..%d)",
				       sect, hc->irq_affinity, bad, sect, hc->cpus, hc->cpus - 1);
		if (n <= 0)
			return err_set(err, TCPSIM_EUSAGE, "%s.irq_affinity = '%s' is not a CPU list such as 0-7,16,18-19",
				       sect, hc->irq_affinity);
	} else {
		n = 1;
		cpu_of[0] = hc->irq_cpu;
	}
	for (int q = 0; q < hc->queues; q++) {
		int c = nic_affinity_auto(hc) ? (hc->irq_cpu + q) % hc->cpus : cpu_of[q % n];
		if (++per_cpu[c] > CPU_NAPI_MAX)
			return err_set(err, TCPSIM_EUSAGE, "%s.queues = %d puts more than %d queues' interrupts on cpu%d; "
				       "give %s.irq_affinity more CPUs", sect, hc->queues, CPU_NAPI_MAX, c, sect);
	}
	sscanf(hc->kernel, "%d.%d.%d", &maj, &min, &patch);
	need = hc->rx_steering == STEER_ARFS ? 39 : 35;
	if (hc->rx_steering != STEER_RSS && (maj < 2 || (maj == 2 && (min < 6 || (min == 6 && patch < need)))))
		return err_set(err, TCPSIM_EUSAGE, "%s.rx_steering = %s needs a kernel of 2.6.%d or later (RPS and RFS "
			       "came in 2.6.35, aRFS in 2.6.39) but %s.kernel = %s", sect, steering_names[hc->rx_steering],
			       need, sect, hc->kernel);
	return 0;
}

static bool kernel_at_least(const char *version, int major, int minor)
{
	int maj = 0, min = 0;

	if (sscanf(version, "%d.%d", &maj, &min) < 1)
		return false;
	return maj > major || (maj == major && min >= minor);
}

/*
 * Eras a key needs.  BIG TCP: offload.gso_max_size (the sender's, host) and
 * gro_max_size (the receiver's host) above GSO_LEGACY_MAX_SIZE need an
 * IPv4 BIG TCP kernel, 6.3 or later.  The message names the key's own
 * line when it is known (o), else the key.
 */
static int big_tcp_check(const struct scenario *sc, const struct origins *o, struct tcpsim_err *err)
{
	int rh = sc->link_type == LINK_NIC;
	const struct {
		const char *key, *where;
		int bytes, host;
	} lim[] = {
		{"gso_max_size", o ? o->gso : "", sc->gso_max_bytes, 0},
		{"gro_max_size", o ? o->gro : "", sc->gro_max_bytes, rh},
	};

	for (size_t i = 0; i < ARRAY_SIZE(lim); i++) {
		const char *kname = lim[i].host ? "rhost.kernel" : "host.kernel";
		const char *kwhere = o ? o->kernel[lim[i].host] : "";
		if (lim[i].host && o && !kwhere[0]) {   /* rhost.kernel follows host.kernel */
			kname = "host.kernel";
			kwhere = o->kernel[0];
		}
		if (lim[i].bytes <= BIG_TCP_LEGACY_BYTES || kernel_at_least(sc->host[lim[i].host].kernel, 6, 3))
			continue;
		return err_set(err, TCPSIM_EUSAGE,
			       "%s%s%s%s = %d: above %d bytes is BIG TCP, which Linux has for IPv4 since 6.3 "
			       "(IPv6 since 5.19; the model is IPv4), but %s = %s%s%s%s: set %s to 6.3 or later "
			       "or %s to %d at most",
			       lim[i].where[0] ? lim[i].where : "", lim[i].where[0] ? ": [offload] " : "offload.",
			       lim[i].key, "", lim[i].bytes, BIG_TCP_LEGACY_BYTES, kname,
			       sc->host[lim[i].host].kernel, kwhere[0] ? " (" : "", kwhere, kwhere[0] ? ")" : "",
			       kname, lim[i].key, BIG_TCP_LEGACY_BYTES);
	}
	if (sc->qdisc == QDISC_FQ && (sc->link_type != LINK_NIC || !kernel_at_least(sc->host[0].kernel, 3, 12)))
		return err_set(err, TCPSIM_EUSAGE, "link.qdisc = fq: %s",
			       sc->link_type != LINK_NIC ? "only a NIC has a qdisc here (loopback and veth are noqueue); set link.type = nic"
							 : "sch_fq is Linux 3.12's; set host.kernel to 3.12 or later");
	/* the algorithms' first mainline releases: tcp_dctcp.c 3.18, tcp_bbr.c 4.9 */
	if ((sc->cc == CC_DCTCP && !kernel_at_least(sc->host[0].kernel, 3, 18)) ||
	    (sc->cc == CC_BBR && !kernel_at_least(sc->host[0].kernel, 4, 9))) {
		const char *where = o ? o->cc : "", *kwhere = o ? o->kernel[0] : "";
		return err_set(err, TCPSIM_EUSAGE, "%s%scc = %s: Linux has it since %s, but host.kernel = %s%s%s%s",
			       where, where[0] ? ": [tcp] " : "tcp.", sc->cc == CC_BBR ? "bbr" : "dctcp",
			       sc->cc == CC_BBR ? "4.9" : "3.18", sc->host[0].kernel, kwhere[0] ? " (" : "", kwhere,
			       kwhere[0] ? ")" : "");
	}
	return TCPSIM_OK;
}

int config_validate(const struct scenario *sc, struct tcpsim_err *err)
{
	return validate_noted(sc, NULL, err);
}

static int validate_noted(const struct scenario *sc, const struct origins *o, struct tcpsim_err *err)
{
	char a[32], b[32];
	int rh = sc->link_type == LINK_NIC;   /* host the receiver runs on */
	const char *rname = rh ? "rhost" : "host";

	if (sc->send_cpu >= sc->host[0].cpus)
		return err_set(err, TCPSIM_EUSAGE, "app.send_cpu = %d but host.cpus = %d (CPUs are 0..%d)",
			       sc->send_cpu, sc->host[0].cpus, sc->host[0].cpus - 1);
	if (sc->recv_cpu >= sc->host[rh].cpus)
		return err_set(err, TCPSIM_EUSAGE, "app.recv_cpu = %d but %s.cpus = %d (CPUs are 0..%d)%s",
			       sc->recv_cpu, rname, sc->host[rh].cpus, sc->host[rh].cpus - 1,
			       rh ? "; with link.type = nic the receiver runs on rhost" : "");
	for (int h = 0; h <= rh; h++)   /* the NIC's interrupt: only used with link.type = nic */
		if (rh && sc->host[h].irq_cpu >= sc->host[h].cpus)
			return err_set(err, TCPSIM_EUSAGE, "%s.irq_cpu = %d but %s.cpus = %d (CPUs are 0..%d)",
				       h ? "rhost" : "host", sc->host[h].irq_cpu, h ? "rhost" : "host",
				       sc->host[h].cpus, sc->host[h].cpus - 1);
	for (int h = 0; h <= rh; h++) {
		int rc = rh ? validate_queues(&sc->host[h], h ? "rhost" : "host", err) : 0;
		if (rc)
			return rc;
	}
	if (sc->duration_ns < sc->batch_ns) {
		fmt_time(sc->duration_ns, a, sizeof a);
		fmt_time(sc->batch_ns, b, sizeof b);
		return err_set(err, TCPSIM_EUSAGE, "run.duration = %s is shorter than run.batch = %s", a, b);
	}
	if (sc->delack_min_ns > sc->delack_max_ns) {
		fmt_time(sc->delack_min_ns, a, sizeof a);
		fmt_time(sc->delack_max_ns, b, sizeof b);
		return err_set(err, TCPSIM_EUSAGE, "tcp.delack_min = %s is above tcp.delack_max = %s", a, b);
	}
	if (sc->ato_min_ns > sc->delack_max_ns) {
		fmt_time(sc->ato_min_ns, a, sizeof a);
		fmt_time(sc->delack_max_ns, b, sizeof b);
		return err_set(err, TCPSIM_EUSAGE, "tcp.ato_min = %s is above tcp.delack_max = %s", a, b);
	}
	if (sc->wmem_default > sc->wmem_max) {
		fmt_size(sc->wmem_default, a, sizeof a);
		fmt_size(sc->wmem_max, b, sizeof b);
		return err_set(err, TCPSIM_EUSAGE, "tcp.wmem_default = %s is above tcp.wmem_max = %s", a, b);
	}
	if (sc->rmem_default > sc->rmem_max) {
		fmt_size(sc->rmem_default, a, sizeof a);
		fmt_size(sc->rmem_max, b, sizeof b);
		return err_set(err, TCPSIM_EUSAGE, "tcp.rmem_default = %s is above tcp.rmem_max = %s", a, b);
	}
	/* sched_nr_latency = latency / min_granularity (kernel/sched/fair.c) */
	if (sc->sched_min_gran_ns <= 0)
		return err_set(err, TCPSIM_EUSAGE,
			       "sched.min_granularity = 0 is not allowed (the scheduler divides by it)");
	return big_tcp_check(sc, o, err);
}

/* ---- files ---- */

struct cfg_file {
	struct scenario *sc;
	struct tcpsim_err *err;
	FILE *f;
	const char *path;             /* as named in messages */
	int line;                     /* of the line inih is handling */
	char *buf;                    /* that line, whole (see the header comment) */
	size_t buf_cap;
	const char *value;            /* its value, in buf, when it is a key line */
	int read_errno;               /* errno of a failed read, else 0 */
	int depth;                    /* 0 for the top file */
	const struct cfg_file *parent;
	struct origins *orig;         /* where era-checked keys were set; NULL: not kept */
};

static int cfg_parse_file(struct scenario *sc, const char *path, int depth, const struct cfg_file *parent,
			  struct origins *orig, struct tcpsim_err *err);

static bool cfg_is_comment(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return *s == '#' || *s == ';';
}

/*
 * The next line of cf->f into cf->buf, newline dropped; false at the end
 * of the file or on an error (recorded in cf).  A comment line longer than
 * CONFIG_LINE_MAX is kept only as far as its first characters.
 */
static bool cfg_getline(struct cfg_file *cf)
{
	size_t len = 0;
	int c;

	errno = 0;
	while ((c = getc(cf->f)) != EOF && c != '\n') {
		if (len == CONFIG_LINE_MAX) {
			cf->buf[len] = '\0';
			if (cfg_is_comment(cf->buf))
				continue;
			err_set(cf->err, TCPSIM_EUSAGE,
				"%s:%d: line longer than %d characters: write one key = value a line "
				"(no value is that long; a file with CR-only line ends needs LF)",
				cf->path, cf->line + 1, CONFIG_LINE_MAX);
			return false;
		}
		if (len + 2 > cf->buf_cap) {
			cf->buf_cap = cf->buf_cap ? 2 * cf->buf_cap : 256;
			cf->buf = xrealloc(cf->buf, cf->buf_cap);
		}
		cf->buf[len++] = (char)c;
	}
	if (c == EOF && ferror(cf->f)) {
		cf->read_errno = errno ? errno : EIO;
		return false;
	}
	if (c == EOF && len == 0)
		return false;
	if (!cf->buf)
		cf->buf = xmalloc(cf->buf_cap = 256);
	cf->buf[len] = '\0';
	cf->line++;
	return true;
}

/* inih's line reader: see the header comment of this file. */
static char *cfg_read_line(char *str, int num, void *stream)
{
	struct cfg_file *cf = stream;
	char *s, *p;

	cf->value = NULL;
	if (cf->err->code || !cfg_getline(cf))
		return NULL;
	str[0] = '\0';   /* what inih sees of a blank or comment line */
	s = cf->buf;
	if (cf->line == 1 && strncmp(s, "\xEF\xBB\xBF", 3) == 0)
		s += 3;
	while (*s == ' ' || *s == '\t')
		s++;
	if (*s == '#' || *s == ';')
		return str;
	/* a '#' or ';' after a blank starts a comment (inih itself cuts only ';') */
	for (p = s; *p; p++)
		if ((*p == '#' || *p == ';') && p > s && isspace((unsigned char)p[-1])) {
			*p = '\0';
			break;
		}
	s = trim(s);
	if (*s == '\0')
		return str;
	/* Check each line here, so errors come out in line order. */
	if (*s == '[') {
		char name[64], hint[128];
		p = strchr(s, ']');
		if (!p) {
			err_set(cf->err, TCPSIM_EUSAGE, "%s:%d: syntax error ('[' without ']')", cf->path, cf->line);
			return NULL;
		}
		size_t n = (size_t)(p - s - 1);
		if (n >= sizeof name)
			n = sizeof name - 1;
		memcpy(name, s + 1, n);
		name[n] = '\0';
		if (!section_find(name)) {
			hint_section(trim(name), hint, sizeof hint);
			err_set(cf->err, TCPSIM_EUSAGE, "%s:%d: unknown section [%s]%s", cf->path, cf->line,
				name, hint);
			return NULL;
		}
		if (*trim(p + 1) != '\0') {   /* inih would ignore it */
			err_set(cf->err, TCPSIM_EUSAGE,
				"%s:%d: syntax error (text after ']'; one [section] or key = value a line, "
				"and a file with CR-only line ends needs LF)", cf->path, cf->line);
			return NULL;
		}
		snprintf(str, (size_t)num, "[%s]", name);
		return str;
	}
	/* inih splits a key line at its first '=' or ':' too */
	p = strpbrk(s, "=:");
	if (!p) {
		err_set(cf->err, TCPSIM_EUSAGE, "%s:%d: syntax error (expected key = value or [section])",
			cf->path, cf->line);
		return NULL;
	}
	*p = '\0';
	cf->value = trim(p + 1);
	/* a key longer than inih's buffer is cut, and then unknown */
	snprintf(str, (size_t)num, "%s=", s);
	return str;
}

/* "top.cfg:3 -> mid.cfg:1 -> ... -> cf.path:line -> next": how we got here. */
static void include_chain(const struct cfg_file *cf, const char *next, char *buf, size_t n)
{
	const struct cfg_file *chain[CONFIG_INCLUDE_MAX + 1];
	int count = 0;

	for (const struct cfg_file *p = cf; p && count < (int)ARRAY_SIZE(chain); p = p->parent)
		chain[count++] = p;
	buf[0] = '\0';
	for (int i = count - 1; i >= 0; i--)
		snprintf(buf + strlen(buf), n - strlen(buf), "%s:%d -> ", chain[i]->path, chain[i]->line);
	snprintf(buf + strlen(buf), n - strlen(buf), "%s", next);
}

static int cfg_include(struct cfg_file *cf, const char *value)
{
	char chain[768];
	int rc;

	if (*value == '\0')
		return err_set(cf->err, TCPSIM_EUSAGE, "%s:%d: include: no file named", cf->path, cf->line);
	const char *slash = strrchr(cf->path, '/');
	size_t dirlen = value[0] == '/' || !slash ? 0 : (size_t)(slash - cf->path) + 1;
	char *path = xmalloc(dirlen + strlen(value) + 1);
	memcpy(path, cf->path, dirlen);
	strcpy(path + dirlen, value);

	bool cycle = false;
	for (const struct cfg_file *p = cf; p; p = p->parent)
		cycle |= strcmp(p->path, path) == 0;
	if (cycle) {
		include_chain(cf, path, chain, sizeof chain);
		rc = err_set(cf->err, TCPSIM_EUSAGE, "%s:%d: include cycle: %s", cf->path, cf->line, chain);
	} else if (cf->depth >= CONFIG_INCLUDE_MAX) {
		include_chain(cf, path, chain, sizeof chain);
		rc = err_set(cf->err, TCPSIM_EUSAGE, "%s:%d: includes nested more than %d deep: %s",
			     cf->path, cf->line, CONFIG_INCLUDE_MAX, chain);
	} else {
		rc = cfg_parse_file(cf->sc, path, cf->depth + 1, cf, cf->orig, cf->err);
	}
	free(path);
	return rc;
}

static int cfg_on_key(void *user, const char *section, const char *name, const char *value)
{
	struct cfg_file *cf = user;
	const struct section *sec;
	struct key k;
	char where[1024], hint[128];

	if (cf->err->code)
		return 0;
	if (cf->value)   /* the reader kept the value (see the header comment) */
		value = cf->value;
	if (strcmp(name, "include") == 0)
		return cfg_include(cf, value) == TCPSIM_OK;
	snprintf(where, sizeof where, "%s:%d", cf->path, cf->line);
	if (*section == '\0') {
		hint_key(NULL, name, hint, sizeof hint);
		err_set(cf->err, TCPSIM_EUSAGE, "%s: key '%s' is outside any [section]%s", where, name, hint);
		return 0;
	}
	sec = section_find(section);
	if (!sec) {   /* the reader checks [section] lines; this is a safety net */
		hint_section(section, hint, sizeof hint);
		err_set(cf->err, TCPSIM_EUSAGE, "%s: unknown section [%s]%s", where, section, hint);
		return 0;
	}
	if (!key_find_in(sec, name, &k)) {
		hint_key(sec, name, hint, sizeof hint);
		err_set(cf->err, TCPSIM_EUSAGE, "%s: [%s] unknown key '%s'%s", where, sec->name, name, hint);
		return 0;
	}
	if (key_set(cf->sc, &k, value, where, cf->err) != TCPSIM_OK)
		return 0;
	origin_note(cf->orig, &k, where);
	return 1;
}

/* Read all of f into *buf (len bytes, NUL-terminated): a NUL byte is an
 * error at its line, and so is passing CONFIG_FILE_MAX bytes. */
static int cfg_slurp(FILE *f, const char *path, char **buf, size_t *len, struct tcpsim_err *err)
{
	size_t cap = 8192, n = 0, got;
	char *b = xmalloc(cap + 1);
	int line = 1;

	while ((got = fread(b + n, 1, cap - n, f)) > 0) {
		for (size_t i = n; i < n + got; i++) {
			if (b[i] == '\0') {
				free(b);
				return err_set(err, TCPSIM_EUSAGE,
					       "%s:%d: NUL byte in the file (a scenario is text; is this a binary "
					       "file or a device?)", path, line);
			}
			line += b[i] == '\n';
		}
		n += got;
		if (n > (size_t)CONFIG_FILE_MAX) {
			free(b);
			return err_set(err, TCPSIM_EUSAGE,
				       "%s:%d: more than %ld MiB without an end (a scenario is a small text "
				       "file; is this a device or an endless pipe?)", path, line,
				       CONFIG_FILE_MAX >> 20);
		}
		if (n == cap) {
			cap *= 2;
			b = xrealloc(b, cap + 1);
		}
	}
	if (ferror(f)) {
		int e = errno ? errno : EIO;
		free(b);
		return err_set(err, TCPSIM_EUSAGE, "cannot read scenario '%s': %s", path, strerror(e));
	}
	b[n] = '\0';
	*buf = b;
	*len = n;
	return TCPSIM_OK;
}

static int cfg_parse_file(struct scenario *sc, const char *path, int depth, const struct cfg_file *parent,
			  struct origins *orig, struct tcpsim_err *err)
{
	FILE *f = fopen(path, "r");
	char *text = NULL;
	size_t len = 0;

	if (!f) {
		if (parent)
			return err_set(err, TCPSIM_EUSAGE, "%s:%d: cannot open included file '%s': %s",
				       parent->path, parent->line, path, strerror(errno));
		return err_set(err, TCPSIM_EUSAGE, "cannot open scenario '%s': %s", path, strerror(errno));
	}
	errno = 0;
	int slurped = cfg_slurp(f, path, &text, &len, err);
	fclose(f);
	if (slurped)
		return err->code;
	if (len == 0) {   /* fmemopen wants a non-empty buffer; an empty file sets nothing */
		free(text);
		return TCPSIM_OK;
	}
	f = fmemopen(text, len, "r");
	INVARIANT(f != NULL, "fmemopen: %s", strerror(errno));
	struct cfg_file cf = {.sc = sc, .err = err, .f = f, .path = path, .depth = depth, .parent = parent,
			      .orig = orig};
	int rc = ini_parse_stream(cfg_read_line, &cf, cfg_on_key, &cf);
	fclose(f);
	free(cf.buf);
	free(text);
	if (err->code)
		return err->code;
	if (cf.read_errno)
		return err_set(err, TCPSIM_EUSAGE, "cannot read scenario '%s': %s", path, strerror(cf.read_errno));
	if (rc > 0)
		return err_set(err, TCPSIM_EUSAGE, "%s:%d: syntax error", path, rc);
	if (rc < 0)
		return err_set(err, TCPSIM_EUSAGE, "cannot parse scenario '%s' (inih status %d)", path, rc);
	return TCPSIM_OK;
}

static int load_noted(struct scenario *sc, const char *path, struct origins *o, struct tcpsim_err *err)
{
	struct tcpsim_err e = {0};
	struct scenario tmp;

	/* Parse into a copy: a file with an error leaves sc as it was. */
	memcpy(&tmp, sc, sizeof tmp);
	cfg_parse_file(&tmp, path, 0, NULL, o, &e);
	if (e.code)
		return err_set(err, e.code, "%s", e.msg);
	memcpy(sc, &tmp, sizeof tmp);
	return TCPSIM_OK;
}

int config_load(struct scenario *sc, const char *path, struct tcpsim_err *err)
{
	return load_noted(sc, path, NULL, err);
}

/* ---- help and dump ---- */

static void key_range(const struct key *k, char *buf, size_t n)
{
	const struct row *r = k->row;
	char lo[32], hi[32];

	switch (r->type) {
	case T_BOOL:
		snprintf(buf, n, "on|off");
		return;
	case T_U64:
		snprintf(buf, n, "0..2^64-1");
		return;
	case T_ENUM:
		buf[0] = '\0';
		for (int i = 0; r->names[i]; i++)
			snprintf(buf + strlen(buf), n - strlen(buf), "%s%s", i ? "|" : "", r->names[i]);
		return;
	case T_STRING:
		if (r->flags & F_VERSION)
			snprintf(buf, n, "MAJOR.MINOR");
		else
			snprintf(buf, n, "1..%zu chars", r->size - 1);
		return;
	default:
		break;
	}
	fmt_number(k, key_min(k), lo, sizeof lo);
	fmt_number(k, key_max(k), hi, sizeof hi);
	snprintf(buf, n, "%s%s..%s%s", r->flags & F_ZERO_OK ? "0|" : "", lo, hi, r->flags & F_NONZERO ? ", not 0" : "");
}

/* Print s wrapped to fit HELP_WIDTH, starting at column col, continuing at column indent. */
static void print_wrapped(FILE *f, const char *s, int col, int indent)
{
	while (*s) {
		int room = HELP_WIDTH - col;
		int len = (int)strlen(s);
		int take = len;
		if (len > room) {
			take = room;
			while (take > 0 && s[take] != ' ')
				take--;
			if (take == 0) {   /* no blank: break before the text instead */
				if (col > indent) {
					fprintf(f, "\n%*s", indent, "");
					col = indent;
					continue;
				}
				take = len;
			}
		}
		fprintf(f, "%.*s", take, s);
		s += take;
		while (*s == ' ')
			s++;
		if (*s) {
			fprintf(f, "\n%*s", indent, "");
			col = indent;
		}
	}
	fputc('\n', f);
}

void config_print_help(FILE *f)
{
	struct key k = {0};
	const struct section *cur = NULL;
	char def[64], range[128];

	fprintf(f, "Scenario keys: set in a .cfg file under [section] as key = value, or with\n"
		   "-s section.key=value.  Sizes: 65536, 64K, 4M, 1G (powers of 1024).  Times: 300ns,\n"
		   "40us, 1.5ms, 2s (a bare number is in the key's unit).  Rates: 10Gbit, 100Mbit, 1e9.\n"
		   "Booleans: on/off, yes/no, true/false, 1/0.  [rhost] and [rcost] are host[1] (the\n"
		   "receiver when link.type = nic) and follow [host] and [cost] unless set.\n"
		   "`include = PATH` reads another file, relative to the including one.\n");
	while (key_next(&k)) {
		if (k.sec != cur) {
			cur = k.sec;
			fprintf(f, "\n[%s]\n%-2s%-24s %-6s %-10s %-15s %s\n", cur->name, "", "key", "type",
				"default", "range", "help [unit]");
		}
		if (k.sec->host == 1)
			snprintf(def, sizeof def, "(%s)", k.row->group == G_COST ? "cost" : "host");
		else
			key_default(&k, def, sizeof def);
		key_range(&k, range, sizeof range);
		int col = fprintf(f, "  %-24s %-6s %-10s %-15s ", key_full(&k), type_names[k.row->type], def, range);
		char help[256];
		const char *unit = key_unit(&k);
		snprintf(help, sizeof help, "%s%s%s%s", key_help(&k), *unit ? " [" : "", unit, *unit ? "]" : "");
		print_wrapped(f, help, col, col <= 70 ? col : 8);
	}
}

void config_dump(const struct scenario *sc, FILE *f, const char *prefix)
{
	struct key k = {0};
	const struct section *cur = NULL;
	char val[128];
	size_t plen;

	if (!prefix)
		prefix = "";
	plen = strlen(prefix);
	while (plen > 0 && isspace((unsigned char)prefix[plen - 1]))
		plen--;
	while (key_next(&k)) {
		if (k.sec != cur) {
			if (cur)
				fprintf(f, "%.*s\n", (int)plen, prefix);
			cur = k.sec;
			fprintf(f, "%s[%s]\n", prefix, cur->name);
		}
		struct value v;
		value_load(key_field((struct scenario *)sc, &k, k.sec->host), &k, &v);
		value_format(&k, &v, val, sizeof val);
		if (k.sec->host == 1 && !host1_explicit(sc, &k))
			fprintf(f, "%s# %s = %s (follows %s.%s)\n", prefix, key_short(&k), val,
				k.row->group == G_COST ? "cost" : "host", key_short(&k));
		else
			fprintf(f, "%s%s = %s\n", prefix, key_short(&k), val);
	}
}

int config_load_with_overrides(struct scenario *sc, const char *path, const char *const *overrides, int n,
			       struct tcpsim_err *err)
{
	/* a relative path that names nothing here may name a shipped scenario */
	char *found = datadir_find(path);
	struct origins o = {0};
	int rc;

	config_defaults(sc);
	rc = load_noted(sc, found ? found : path, &o, err);
	free(found);
	if (rc)
		return rc;
	for (int i = 0; i < n; i++) {
		size_t len = strlen(overrides[i]) + 4;
		char *origin = xmalloc(len);
		snprintf(origin, len, "-s %s", overrides[i]);
		rc = override_noted(sc, overrides[i], origin, &o, err);
		free(origin);
		if (rc)
			return rc;
	}
	rc = validate_noted(sc, &o, err);
	return rc;
}
