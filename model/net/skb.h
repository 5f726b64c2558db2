/*
 * skb: socket buffers as the model needs them, and the memory they cost.
 *
 * An skb is a data frame (one GSO/TSO unit of `segs` segments of at most
 * gso_size bytes each) or a pure ACK.  A transmitted data skb is a clone of
 * the write-queue original (fclone): one slab object shared by both, freed
 * when the second reference goes (refs).
 *
 * Page accounting (what proc-vmstat.pgalloc_normal / pgfree count):
 *  - skb objects come from a slab cache whose slabs hold mem.slab_objs
 *    objects in mem.slab_pages pages (kmalloc-1024: 32 objects in an
 *    order-3 slab of 8 pages, /proc/slabinfo).  Each CPU keeps the free
 *    objects it frees; it takes a new slab from the page allocator when it
 *    has none and gives one back when it holds more than mem.slab_cpu_objs.
 *    An skb allocated on one CPU and freed on another therefore churns
 *    pages; this is the model of SLUB's per-CPU slabs and remote frees.
 *  - TCP_STREAM copies into the socket's page frag, an order-3 (32 KB,
 *    mem.frag_pages pages) allocation refilled when used up
 *    (sk_page_frag_refill); the pages are freed once the data in them is
 *    acknowledged and freed.
 */
#ifndef TCPSIM_SKB_H
#define TCPSIM_SKB_H

#include "sim.h"

/* Sizes every layer of the packet path shares: the page of the slab and
 * page-frag model and of sendfile's page cache (x86: 4 KiB), and the
 * headers of a segment (IPv4 and TCP without options; the timestamps
 * option padded to 12 bytes, RFC 7323). */
#define PAGE_BYTES 4096u
#define IP_HDR_BYTES 20
#define TCP_HDR_BYTES 20
#define TCP_TS_OPT_BYTES 12
/* A segment's IP and TCP headers, with the timestamps option or without. */
static inline int seg_hdr_bytes(bool timestamps)
{
	return IP_HDR_BYTES + TCP_HDR_BYTES + (timestamps ? TCP_TS_OPT_BYTES : 0);
}
/* MAX_TCP_HEADER on x86-64: L1_CACHE_ALIGN(128 + MAX_HEADER), 320 bytes;
 * a socket's sk_gso_max_size is the device's gso_max_size less it and 1 */
#define MAX_TCP_HEADER_BYTES 320
#define TCP_MIN_RCVMSS 536 /* include/net/tcp.h */

enum skb_kind { SKB_DATA, SKB_ACK };

/*
 * Laid out by who reads what.  A bulk flow's skbs are touched a few times
 * each, milliseconds apart, and each touch misses the caches (see
 * skb_prefetch below); most touches after the first -- TCP sending it, the
 * ACK's walk of the write queue and its free, the reader's pop, copy and
 * free -- read only the first line, so it holds what they read: the list
 * link, orig, destructor and refs (skb_free), seq and len, and the flags.
 * The delivery-rate state and the ACK's fields fill the other two lines.
 * Every skb starts a cache line (the _Alignas, and skb.c's blocks): before,
 * skbs began 8 bytes into a line and skb_free read four lines of two skbs;
 * now one of each.  cachegrind with a 1 MB last level, loopback-64k.cfg at
 * 256 instances on 128 CPUs: its read misses 4.84 M -> 2.57 M.
 */
struct skb {
	/* line 1 */
	_Alignas(64) struct skb *next;
	struct skb *orig;        /* clone: the write-queue skb it shares memory with */
	/* skb->destructor (tcp_wfree): run when the skb is freed or orphaned */
	void (*destructor)(struct sim *sim, struct cpu *c, struct skb *skb);
	uint64_t seq;            /* first byte */
	struct tcp_conn *conn;
	uint32_t len;            /* payload bytes */
	uint32_t consumed;       /* receive queue: bytes already copied out */
	int refs;                /* original: references to the slab object */
	int truesize;
	uint8_t kind;
	bool sent;               /* write queue: handed to the device */
	uint16_t segs;
	bool gso_cut;            /* data: a segment skb_segment cut for a device without TSO */
	bool ce;                 /* data: marked Congestion Experienced */
	bool retrans;            /* data: a retransmission (not on the write queue) */
	uint8_t frags;           /* received data with others merged in (backlog or receive queue): its page frags (0: its own) */
	/* line 2 */
	sim_ns sent_at;          /* write queue: when it was handed to the device */
	/* delivery-rate state when sent (tcp_rate_skb_sent) */
	uint64_t tx_delivered;   /* tp->delivered then */
	sim_ns tx_delivered_at;  /* tp->delivered_mstamp then */
	sim_ns tx_first_at;      /* tp->first_tx_mstamp then */
	sim_ns tstamp;           /* data: earliest departure (skb->tstamp, EDT) for sch_fq; 0: now */
	struct host *dst_host;   /* host that will receive it */
	uint32_t gso_size;       /* MSS of the segments (0 for ACKs) */
	int alloc_cpu;           /* CPU (of host alloc_host) that allocated it */
	int alloc_host;
	bool tx_app_limited;
	bool ect;                /* data: ECN-capable transport */
	bool dsack;              /* ACK: reports data received twice (D-SACK) */
	bool psh;                /* data: PSH, the end of a write (tcp_push -> tcp_mark_push); a split
	                          * leaves it on the second part, a GSO cut on the last segment */
	/* line 3 */
	_Alignas(64) sim_ns ts_at; /* TS option: an ACK's TSval, a data frame's TSecr (the time each stands for) */
	uint64_t ack_seq;        /* ACK: cumulative ack */
	uint64_t wnd_end;        /* ACK: right edge of the advertised window */
	uint64_t sack_lo;        /* ACK: first byte SACKed beyond ack_seq (the hole's end) */
	uint64_t sack_hi;        /* ACK: highest byte SACKed beyond ack_seq (0: no SACK block) */
	uint32_t ece_bytes;      /* ACK: CE-marked bytes it reports (ECE; DCTCP's accurate echo) */
	int line_cpu;            /* the CPU of alloc_host whose caches hold its lines, + 1 (0: alloc_cpu's;
	                          * kept only where cost.skb_xcpu is set: skb_touch) */
	sim_ns tsecr_at;         /* ACK: its TSecr, the newest data TSval its sender took (ts_recent) */
};

/* skb_cloned: s is a clone whose data its write-queue original still
 * shares (the original not yet freed by the ACK for it); skb_try_coalesce
 * takes nothing into such a tail. */
static inline bool skb_cloned(const struct skb *s)
{
	return s->orig && s->orig->refs > 1;
}

/*
 * Fetch skb s (NULL: nothing) into the cache ahead of its use.  A bulk
 * flow's skbs are touched a few times each, milliseconds apart: written
 * by send(), read when TCP sends them (the write queue of a 4 MB buffer
 * holds thousands), by the NIC when their frame leaves and by the ACK that
 * frees them; between two touches thousands of other skbs pass, so each
 * touch misses the caches.  The lists are walked in order, so whoever
 * takes an skb off one fetches the next: it is used an event or so later,
 * by when its lines are in.  A prefetch neither faults nor changes
 * anything but time, NULL's included, so there is no test for NULL: behind
 * one GCC 12 -O2 drops the whole fetch (a test and four prefetches; with
 * it this function compiled to nothing at every call site, objdump shows).
 */
static inline void skb_prefetch(const struct skb *s)
{
	/* the addresses as integers: an offset added to a null pointer is
	 * undefined behaviour (UBSan's pointer-overflow check) */
	uintptr_t b = (uintptr_t)s;

	for (size_t off = 0; off < sizeof(*s); off += 64)
		__builtin_prefetch((const void *)(b + off));
	__builtin_prefetch((const void *)(b + sizeof(*s) - 1)); /* the last line, when s does not start one */
}

void skb_list_push(struct skb_list *l, struct skb *s);
struct skb *skb_list_pop(struct skb_list *l);

/* New skb struct charged to c: SKB_ALLOC cost and one slab object. */
struct skb *skb_alloc(struct sim *sim, struct cpu *c, enum skb_kind kind);
/* A clone (fclone companion): no allocation, takes a reference on orig. */
struct skb *skb_clone(struct sim *sim, struct skb *orig);
/* skb_orphan: run the destructor now (a device that hands the skb on, as
 * loopback and veth do, releases the socket's claim at transmit). */
void skb_orphan(struct sim *sim, struct cpu *c, struct skb *s);
/* Drop one reference; the slab object is freed on c with the last one
 * (the destructor first). */
void skb_free(struct sim *sim, struct cpu *c, struct skb *s);

/* A segment software GSO cut, received on c whose host prices it on its
 * own (cost.rx_gso_seg > 0): it pays that in place of rx_frame and rx_tcp. */
bool rx_gso_seg(const struct cpu *c, const struct skb *s);

/* A reader on c is done with a received data skb (tcp_eat_recv_skb).
 * Since 5.17 (skb_attempt_defer_free, commit 68822bdf76f1) an skb that
 * another CPU of the host allocated goes to that CPU's defer list and is
 * released there at its next NET_RX run (skb_defer_free_flush), so the
 * release (cost.skb_free, charged for received skbs in this era) and its
 * slab traffic land on the sender's CPU; earlier kernels free it here and
 * the model folds that work into rx_tcp and the copy. */
void skb_free_received(struct sim *sim, struct cpu *c, struct skb *s);
/* CPU c takes in, reads or clones s (tcp_v4_rcv and the backlog, tcp_ack,
 * the reader's copy, the transmit's clone): where another CPU of s's host
 * touched its lines last, cost.skb_xcpu; s's lines are c's after it.  An
 * skb of another host (a NIC's frame) moves nothing.  Nothing at 0. */
void skb_touch(struct sim *sim, struct cpu *c, struct skb *s);

/* skb_defer_free_flush: release what other CPUs deferred to c. */
void skb_defer_flush(struct sim *sim, struct cpu *c);

/* A socket's page frag (sk->sk_frag), owned by the socket, accounted here. */
struct page_frag {
	uint32_t left_bytes;         /* bytes left in the current frag */
	uint64_t freed_bytes;        /* bytes freed not yet making a whole frag */
};

/* Page frags: account `bytes` copied into a STREAM socket's frag pf on c. */
void skb_frag_use(struct sim *sim, struct cpu *c, struct page_frag *pf, uint32_t bytes);
/* ... and `bytes` of frag data freed on c. */
void skb_frag_release(struct sim *sim, struct cpu *c, struct page_frag *pf, uint32_t bytes);

void skb_pool_release(struct sim *sim);

#endif
