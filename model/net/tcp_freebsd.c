/*
 * tcp_freebsd.c: FreeBSD 6/7's tcp_output, the sender of the FreeBSD rows
 * (app.sendfile = freebsd-*; app.c is its only caller).
 */
#include "tcp_impl.h"

/* ------------------------------------------------------------------ */
/* FreeBSD tcp_output, for app.sendfile = freebsd-* (the NIC path's     */
/* sender; app.c is its only caller)                                   */

/*
 * FreeBSD 6/7 tcp_output (sys/netinet/tcp_output.c) sends at once every
 * whole MSS the windows allow -- with TSO as one frame, its length rounded
 * down to whole segments unless that empties the socket buffer -- and
 * holds back only a sub-MSS remainder while data is in flight.  Linux lets
 * a partial tail grow to the size goal first (tcp_push's Nagle/TSO
 * deferral above).  So: split the unsent tail at its last whole MSS and
 * push; the head goes, the remainder waits for more data or the ACKs.
 */
void tcp_push_whole_mss(struct sim *sim, struct cpu *c, struct tcp_conn *tc)
{
	struct skb *tail = tc->wq.tail;
	uint32_t mss = (uint32_t)tc->mss_bytes;
	bool short_tail;

	/* split only when nothing queued before it waits for the window:
	 * FreeBSD cuts frames from the byte stream when it sends them */
	if (tail && !tail->sent && tail == tc->send_head && tail->len > mss) {
		uint32_t whole = tail->len / mss * mss;
		if (whole == tail->len)
			whole -= mss; /* a full last segment stays the tail; it is not short */
		tcp_split_skb(sim, c, tc, tail, whole);
	}
	/* the sub-MSS remainder goes only when nothing is in flight: FreeBSD's
	 * Nagle test has no Minshall variant */
	tail = tc->wq.tail;
	short_tail = tail && !tail->sent && tail->len < mss;
	tcp_push(sim, c, tc, !short_tail || tc->snd_nxt == tc->snd_una);
}
