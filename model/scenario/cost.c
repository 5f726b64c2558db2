/*
 * Defaults: an order-of-magnitude reference for a 2010-era x86 core, per
 * unit of work.  rx_frame and rx_tcp split what was one 4500-cycle
 * receive cost into its softirq part and its socket-owner part, about
 * evenly (an assumption, for calibration to correct).  They are starting points for calibration, not
 * measurements; the profiles under scenarios/profiles hold fitted values and say where
 * they came from.
 */
#include "cost.h"

const struct cost_desc cost_table[COST_N] = {
	[COST_SYSCALL]       = {"syscall", 1500, 1e7, "one send/sendfile/recv system call, entry to exit"},
	[COST_COPY_BYTE]     = {"copy_byte", 1.0, 1e3, "cycles per byte copied between user and kernel"},
	[COST_CSUM_BYTE]     = {"csum_byte", 0.6, 1e3, "cycles per byte checksummed in software (no offload)"},
	[COST_SENDFILE_PAGE] = {"sendfile_page", 700, 1e7, "per page-cache page handed to the socket by sendfile"},
	[COST_SKB_ALLOC]     = {"skb_alloc", 500, 1e7, "allocate one skb (struct and head)"},
	[COST_SKB_FREE]      = {"skb_free", 400, 1e7, "free one skb"},
	[COST_PAGE_ALLOC]    = {"page_alloc", 250, 1e7, "per 4 KB page from the page allocator (a socket page frag, one order-3 allocation, since 3.7: once)"},
	[COST_PAGE_FREE]     = {"page_free", 200, 1e7, "per 4 KB page returned to the page allocator (a socket page frag since 3.7: once)"},
	[COST_TX_FRAME]      = {"tx_frame", 4000, 1e7, "tcp_transmit_skb to dev_queue_xmit, per frame"},
	[COST_TX_SEG]        = {"tx_seg", 1200, 1e7, "per segment cut in software (GSO without TSO)"},
	[COST_RX_FRAME]      = {"rx_frame", 2000, 1e7, "netif_receive_skb to tcp_v4_rcv's socket lookup, per frame (and from 4.0 per pure ACK), in the softirq"},
	[COST_RX_TCP]        = {"rx_tcp", 2500, 1e7,
				"tcp_v4_do_rcv of one data frame (tcp_rcv_established, queueing, the ACK decision), paid by the reader that owns the socket (prequeue, backlog) or by the softirq when none does"},
	[COST_RX_SEG]        = {"rx_seg", 800, 1e7, "per wire frame taken off the NIC RX ring"},
	[COST_ACK_TX]        = {"ack_tx", 2500, 1e7, "build and transmit one pure ACK"},
	[COST_ACK_RX]        = {"ack_rx", 2000, 1e7, "tcp_ack() processing of one incoming ACK"},
	[COST_SOFTIRQ]       = {"softirq", 600, 1e7, "per softirq handler run (entry and exit)"},
	[COST_HARDIRQ]       = {"hardirq", 2000, 1e7, "per device hardirq, entry to exit"},
	[COST_WAKEUP]        = {"wakeup", 2500, 1e7, "try_to_wake_up() of one sleeping task"},
	[COST_CTXSW]         = {"ctxsw", 4000, 1e7, "one context switch"},
	[COST_IPI_SEND]      = {"ipi_send", 600, 1e7, "sending one IPI"},
	[COST_IPI_RECV]      = {"ipi_recv", 1800, 1e7, "taking one IPI on the target CPU"},
	[COST_TIMER]         = {"timer", 1200, 1e7, "running one TCP timer (delayed ACK)"},
	[COST_GRO_SEG]       = {"gro_seg", 400, 1e7, "per segment merged by LRO/GRO"},
	[COST_NAPI_POLL]     = {"napi_poll", 600, 1e7, "per NAPI poll call"},
	[COST_TX_COMPL]      = {"tx_completion", 300, 1e7, "per transmitted frame reaped on TX completion"},
	/* 4.0+ profiles: the scheduler's work in the tick only; the tick's
	 * interrupt is charged at timer_irq beside it (cpu.c) */
	[COST_TICK]          = {"tick", 3000, 1e7, "scheduler tick on a CPU that is not idle (host.kernel 4.0+: its work beyond the local timer interrupt, which costs timer_irq)"},
	[COST_MONITOR]       = {"monitor", 2e6, 1e10, "one run of a background monitor task (host.monitors)"},
	/* an assumption, not a measurement: one balance_pgdat pass over a few
	 * SWAP_CLUSTER_MAX batches of LRU pages; it matters only as CPU time */
	[COST_KSWAPD]        = {"kswapd", 5e4, 1e10, "one run of kswapd woken by an order-3 allocation (host.kswapd)"},
	/* bare metal: ~1-2 us per expiry including the TSC-deadline rewrite; a
	 * virtual machine pays a VM exit for each (measure with tools/bin/primcost) */
	[COST_TIMER_IRQ]     = {"timer_irq", 3000, 1e8, "one hrtimer interrupt (LOC) that expires a timer, e.g. TCP's pacing timer or (host.kernel 4.0+) the scheduler tick"},
	/* select() walks its fd sets and polls each socket (tcp_poll): not the
	 * send or recv call's entry, and a cost of its own to fit */
	[COST_POLL]          = {"poll", 1500, 1e7, "one select()/poll() call of the application's loop (iperf3: before each read, before every 10 writes)"},
	/* KVM's halt polling (host.vm_halt_poll): the IPI's VM exit finds the
	 * target vCPU's thread still polling on the host, which sees the
	 * pending interrupt without being woken (kvm_vcpu_kick of a vCPU in
	 * kvm_vcpu_halt's poll); past the window ipi_send is paid */
	[COST_IPI_SEND_POLLED] = {"ipi_send_polled", 600, 1e7, "sending one IPI to a halted vCPU its hypervisor still polls (host.vm_halt_poll)"},
	/* 0 by default: the reference profiles predate it.  Bare metal: a
	 * TSC-deadline write, well under a microsecond; a virtual machine pays
	 * a VM exit for it */
	[COST_NOHZ_EXIT]     = {"nohz_exit", 0, 1e8,
				"a CPU leaving idle to run a task: the idle loop's exit and NOHZ's tick restart (tick_nohz_idle_exit, tick_nohz_restart_sched_tick: the local APIC timer reprogrammed)"},
	/* 0 by default (every profile before it: such a segment pays rx_frame
	 * and rx_tcp, as a frame does).  A segment skb_segment cut is received
	 * right after its frame's others, its flow's lines hot, and merges into
	 * the queue's tail: on intel-xeon-2cpu-2600 lo's receive path takes
	 * ~550 cycles a segment (validation/live/intel-xeon-2cpu-2600.profile-tsooff.txt),
	 * where the fit prices a frame's rx_frame + rx_tcp at ~1,700 */
	[COST_RX_GSO_SEG]    = {"rx_gso_seg", 0, 1e7,
				"the receive of one segment software GSO cut (skb_segment on lo, or veth without the peer's GRO): ip_rcv to tcp_queue_rcv, in place of rx_frame and rx_tcp (0: it pays those, as a frame)"},
	[COST_COPY_XCPU] = {"copy_xcpu", 0, 1e3, "per byte copied, on top of copy_byte (recv_copy_byte), whose lines the other task's CPU wrote or read last"},
	[COST_SOCK_XCPU] = {"sock_xcpu", 0, 1e7, "a socket touched by a CPU other than the one that touched it last: its hot cache lines move"},
	/* 0 by default: syscall prices the writer's and the reader's calls
	 * alike, as every profile before it did.  They differ: regressed on
	 * the counters alone (tools/bin/costfit), the reader's CPU pays
	 * 2.2-4.0 times the writer's per call on every live host (iperf3's
	 * server selects before each read, tcp_recvmsg walks the queue, sets
	 * the window, adjusts rcvbuf); perf on amd-epyc-2cpu-2695 puts a
	 * read() with iperf3's code around it at 8,300-9,600 cycles and a
	 * write() with its code at 5,700-6,300 (validation/live/README.md,
	 * "MTU 4096 with 4 KB writes, by cost key") */
	[COST_RECV_SYSCALL] = {"recv_syscall", 0, 1e7,
			       "one read()/recv() call of the reader on a TCP socket, entry to exit, in place of syscall (0: syscall)"},
	/* 0 by default (every profile before it: an skb costs the same on
	 * whichever CPU).  An sk_buff and its skb_shared_info are written
	 * where they are built and where TCP last took them in; the next CPU
	 * to read them misses on those lines.  On lo the reader that keeps up
	 * reads what the writer's CPU built and received, and the writer
	 * takes in the ACKs the reader's CPU built (through its backlog);
	 * a reader behind its data transmits and receives on its own CPU.
	 * perf on amd-epyc-2cpu-2596-1207b puts the reader's syscall, ACK and
	 * receive keys at 15,967 cycles a write where it keeps up (MTU 1500,
	 * 4 KB) and its calls at 3,877 a read behind (MTU 65536), where the
	 * model with one price per key has 8,917 and 5,096
	 * (validation/live/README.md, "An skb's lines on the other CPU") */
	[COST_SKB_XCPU] = {"skb_xcpu", 0, 1e7,
			   "an skb (sk_buff and shared info) taken in, read or cloned by a CPU of its host other than the one that touched it last: its lines move (0: not tracked)"},
	/* 0 by default: copy_byte prices both copies, as every profile before
	 * it did.  They differ: on intel-xeon-2cpu-2600, pinned together, perf
	 * puts the writer's _copy_from_iter at ~0.05 cycles a byte and the
	 * reader's _copy_to_iter of what it wrote at ~0.09
	 * (validation/live/intel-xeon-2cpu-2600.profile-together.txt), while
	 * the reader's copy of sendfile()'s page-cache pages, which nobody
	 * writes, takes 0.036-0.05 (.profile-sendfile.txt) */
	[COST_RECV_COPY_BYTE] = {"recv_copy_byte", 0, 1e3,
				 "cycles per byte of the reader's copy to user of bytes a writer's copy wrote (tcp_recvmsg: skb_copy_datagram_iter, _copy_to_iter), in place of copy_byte (0: copy_byte; sendfile()'s pages: copy_byte)"},
	/* 0 by default: every profile before it copies at one cost whatever
	 * waited.  On intel-xeon-2cpu-2600 perf puts the reader's copy at
	 * 0.132 cycles a byte keeping up and 0.165-0.186 when the reader is
	 * behind its data, window-limited 50-65% (validation/live,
	 * profile-256k.txt, profile-64k.txt) */
	[COST_RECV_COPY_COLD] = {"recv_copy_cold_byte", 0, 1e3,
				 "on top of recv_copy_byte, per byte the reader copies after more than host.cache_bytes of later data arrived behind it (a reader behind its data copies bytes that left the cache)"},
	/* 0 by default: every profile before it prices the reader's copy by
	 * the byte alone.  On amd-epyc-2cpu-2596 skb_copy_datagram_iter takes
	 * 0.226-0.254 cycles a byte at MTU 1500 without TSO (one 1,448-byte
	 * fragment a segment) against 0.075-0.082 with it (32 KB fragments):
	 * 219-249 cycles a fragment; 107-456 at MTU 9000 (validation/live,
	 * amd-epyc-2cpu-2596.profile-tsooff.txt, .profile-tsoon-pieces.txt) */
	[COST_RECV_COPY_PIECE] = {"recv_copy_piece", 0, 1e5,
				  "cycles per page fragment of an skb the reader's copy walks (__skb_datagram_iter: kmap, the usercopy check, one copy call each), on top of the bytes"},
	/* 0 by default (copy_byte, as before): where the writer's copy is
	 * cheap its price fits sendfile's pages too (perf's _copy_to_iter of
	 * them: 0.036-0.052 cycles a byte on intel-xeon-2cpu-2600, copy_byte
	 * 0.045).  On amd-epyc-2cpu-2596 the writer's _copy_from_iter takes
	 * 0.25 and the reader's copy of the re-sent file block 0.068-0.114,
	 * median 0.099 (validation/live, amd-epyc-2cpu-2596.profile-sendfile.txt,
	 * .profile-sendfile-iter.txt) */
	[COST_RECV_COPY_SPLICED] = {"recv_copy_spliced_byte", 0, 1e3,
				    "per byte of the reader's copy of page-cache pages a sendfile() spliced into the skbs, nobody writing them (0: copy_byte)"},
	/* 0 by default: every profile before it prices tcp_sendmsg's work by
	 * the call (syscall) and by the frame it sends (tx_frame), where the
	 * kernel does the byte's part in the writer's call, whichever CPU
	 * later transmits the frame.  On amd-epyc-2cpu-2596 perf's syscall key
	 * of the writer grows with the bytes a call queues (validation/live,
	 * amd-epyc-2cpu-2596.profile-send.txt) */
	[COST_SEND_BYTE] = {"send_byte", 0, 1e3,
			    "per byte a write() or sendfile() queues in tcp_sendmsg, outside the copy (its loop, skb_entail, the write queue's memory accounting), charged in the writer's call"},
	[COST_SEND_SPLICED_BYTE] = {"send_spliced_byte", 0, 1e3,
				    "per byte of page-cache pages sendfile() splices into the skbs (tcp_sendmsg with MSG_SPLICE_PAGES, splice_to_socket), outside sendfile_page (0: send_byte)"},
	/* 0 by default: every profile before it has the applications' own
	 * code in no key (the fits took it into theirs).  perf's user-space
	 * samples of iperf3 on amd-epyc-2cpu-2596 are 1-8% of each CPU's busy
	 * time, some 400 cycles a write and 600 a read (validation/live) */
	[COST_USER] = {"user", 0, 1e6,
		       "the application's own code (user space) around each write(), sendfile() or read() call: iperf3's loop, its buffers' bookkeeping (0: none)"},
	[COST_RECV_USER] = {"recv_user", 0, 1e6,
			    "the reader's own code (user space) around each read() call, in place of user (0: user)"},
};
