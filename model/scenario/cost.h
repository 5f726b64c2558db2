/*
 * cost: the named units of CPU work and what each costs, in cycles.
 *
 * Every piece of work the simulator charges to a CPU is one of these.  A
 * cost is in CPU cycles so a profile scales with host.ghz; the time a unit
 * takes is cycles / (ghz * 1e9) seconds.  The simulator accounts busy time
 * per CPU, per context and per cost, so the report can say where the time
 * went.  The table in cost.c holds each cost's config key (under [cost]),
 * default and help; defaults describe the reference profile documented in
 * scenarios/profiles/README.md.
 *
 * Per-byte costs are doubles (cycles per byte); everything else is per
 * event.  Adding a cost: add the enum value here and one row in cost.c.
 */
#ifndef TCPSIM_COST_H
#define TCPSIM_COST_H

enum cost_id {
	COST_SYSCALL,      /* one send()/sendfile()/recv() call, entry to exit */
	COST_COPY_BYTE,    /* per byte copied between user and kernel */
	COST_CSUM_BYTE,    /* per byte checksummed in software */
	COST_SENDFILE_PAGE,/* per page-cache page handed to the socket */
	COST_SKB_ALLOC,    /* allocate an skb (head + struct) */
	COST_SKB_FREE,     /* free an skb */
	COST_PAGE_ALLOC,   /* per 4 KB page taken from the page allocator; per socket page frag since 3.7 */
	COST_PAGE_FREE,    /* per 4 KB page given back; per socket page frag since 3.7 */
	COST_TX_FRAME,     /* tcp_transmit_skb..dev_queue_xmit, per frame */
	COST_TX_SEG,       /* per segment cut in software (GSO without TSO) */
	COST_RX_FRAME,     /* netif_receive_skb..tcp_v4_rcv's socket lookup, per frame (softirq) */
	COST_RX_TCP,       /* tcp_v4_do_rcv of a data frame, paid by the socket's owner */
	COST_RX_SEG,       /* per wire frame taken off the RX ring (NIC) */
	COST_ACK_TX,       /* build and send a pure ACK */
	COST_ACK_RX,       /* tcp_ack() on an incoming ACK */
	COST_SOFTIRQ,      /* per softirq handler run (entry and exit) */
	COST_HARDIRQ,      /* per device hardirq */
	COST_WAKEUP,       /* try_to_wake_up() of a sleeping task */
	COST_CTXSW,        /* one context switch */
	COST_IPI_SEND,     /* sending a rescheduling / function-call IPI */
	COST_IPI_RECV,     /* taking an IPI on the target CPU */
	COST_TIMER,        /* running one TCP timer (delayed ACK) */
	COST_GRO_SEG,      /* per segment merged by LRO/GRO */
	COST_NAPI_POLL,    /* per NAPI poll call */
	COST_TX_COMPL,     /* per TX completion reaped */
	COST_TICK,         /* scheduler tick on a busy CPU */
	COST_MONITOR,      /* one run of a background monitor task */
	COST_KSWAPD,       /* one run of kswapd woken by a high-order allocation */
	COST_TIMER_IRQ,    /* one hrtimer interrupt (local APIC timer, LOC): entry, expiry, reprogramming */
	COST_POLL,         /* one select()/poll() of the application's loop (iperf3) */
	COST_IPI_SEND_POLLED, /* an IPI to a halted vCPU its hypervisor still polls (host.vm_halt_poll) */
	COST_NOHZ_EXIT,    /* leaving idle for a task: NOHZ's tick restart (tick_nohz_idle_exit) */
	COST_RX_GSO_SEG,   /* the receive of one segment software GSO cut (skb_segment), ip_rcv to tcp_queue_rcv */
	COST_SOCK_XCPU,    /* a socket's hot lines fetched from the other CPU that last touched it */
	COST_COPY_XCPU,    /* per byte copied whose lines the peer task's CPU touched last */
	COST_SKB_XCPU,     /* an skb's own lines fetched from the other CPU of its host that last touched it */
	COST_RECV_SYSCALL, /* one read()/recv() of a TCP socket, entry to exit (0: syscall) */
	COST_RECV_COPY_BYTE, /* per byte of the reader's copy of what a writer's copy wrote (0: copy_byte) */
	COST_RECV_COPY_COLD, /* per byte of that copy more than host.cache_bytes of later data left behind */
	COST_RECV_COPY_PIECE, /* per page fragment the reader's copy walks (__skb_datagram_iter) */
	COST_RECV_COPY_SPLICED, /* per byte of the reader's copy of spliced page-cache pages (0: copy_byte) */
	COST_SEND_BYTE,    /* per byte tcp_sendmsg queues, outside the copy (its loop, the skb's and the memory's bookkeeping) */
	COST_SEND_SPLICED_BYTE, /* the same per byte of page-cache pages sendfile() splices in (0: send_byte) */
	COST_USER,         /* the application's own code around each write()/read() call (user space) */
	COST_RECV_USER,    /* the reader's own code around each read() call (0: user) */
	COST_N
};

struct cost_desc {
	const char *key;      /* config key under [cost] */
	double def_cycles;    /* default, reference profile */
	double max_cycles;    /* upper bound accepted */
	const char *help;
};

extern const struct cost_desc cost_table[COST_N];

#endif
