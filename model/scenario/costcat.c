/*
 * costcat: each cost key's category (see costcat.h).  The symbols named in
 * each row and their categories are those of Cai et al.'s
 * symbol_mapping.tsv; where a key's work spans categories, the row says
 * which part decided.
 */
#include "costcat.h"

#include <string.h>

const struct costcat_desc costcat_table[COST_N] = {
	/* entry_SYSCALL_64/do_syscall_64 are sched there, but the call's body
	 * (sock_sendmsg, tcp_sendmsg_locked, tcp_recvmsg, tcp_cleanup_rbuf) is
	 * tcp/ip and most of the cost */
	[COST_SYSCALL]       = {CAT_TCPIP, "tcp_sendmsg, tcp_recvmsg, inet_recvmsg, sock_recvmsg"},
	[COST_COPY_BYTE]     = {CAT_DATA_COPY, "copy_user_enhanced_fast_string, _copy_to_iter, skb_copy_datagram_iter"},
	[COST_CSUM_BYTE]     = {CAT_ETC, "csum_partial, do_csum"},
	[COST_SENDFILE_PAGE] = {CAT_SKB, "skb_fill_page_desc, skb_add_rx_frag (attaching a page to an skb)"},
	[COST_SKB_ALLOC]     = {CAT_SKB, "__alloc_skb, sk_stream_alloc_skb, build_skb"},
	[COST_SKB_FREE]      = {CAT_SKB, "__kfree_skb, skb_release_data, skb_release_all"},
	[COST_PAGE_ALLOC]    = {CAT_MM, "__alloc_pages_nodemask, get_page_from_freelist, page_frag_alloc"},
	[COST_PAGE_FREE]     = {CAT_MM, "free_unref_page, __free_pages_ok, page_frag_free"},
	/* the driver's xmit (mlx5e_xmit, netdev) is a smaller part */
	[COST_TX_FRAME]      = {CAT_TCPIP, "__tcp_transmit_skb, ip_queue_xmit, ip_output, ip_finish_output2"},
	[COST_TX_SEG]        = {CAT_NETDEV, "tcp_gso_segment, inet_gso_segment, dev_hard_start_xmit, mlx5e_xmit per segment"},
	/* per skb after GRO: netif_receive_skb_internal and
	 * __netif_receive_skb_core are netdev there, the IP layer, netfilter's
	 * hooks and the socket lookup tcp/ip and the larger part */
	[COST_RX_FRAME]      = {CAT_TCPIP, "ip_rcv, ip_rcv_finish, ip_local_deliver, nf_hook_slow, tcp_v4_rcv, __inet_lookup_established"},
	[COST_RX_TCP]        = {CAT_TCPIP, "tcp_v4_do_rcv, tcp_rcv_established, tcp_data_queue, tcp_event_data_recv"},
	/* per wire frame, before GRO (build_skb is skb_alloc's) */
	[COST_RX_SEG]        = {CAT_NETDEV, "mlx5e_poll_rx_cq, mlx5e_handle_rx_cqe_mpwrq, mlx5e_skb_from_cqe_mpwrq_linear, dma_direct_sync_single_for_cpu, eth_type_trans, mlx5e_post_rx_mpwqes"},
	[COST_ACK_TX]        = {CAT_TCPIP, "__tcp_send_ack, __tcp_transmit_skb, ip_output"},
	[COST_ACK_RX]        = {CAT_TCPIP, "tcp_ack, tcp_ack_update_rtt, tcp_rate_skb_delivered"},
	[COST_SOFTIRQ]       = {CAT_SCHED, "__softirqentry_text_start, __local_bh_enable_ip (__do_softirq is etc)"},
	[COST_HARDIRQ]       = {CAT_NETDEV, "mlx5_irq_int_handler, mlx5e_completion_event, napi_schedule_prep, apic_ack_irq"},
	[COST_WAKEUP]        = {CAT_SCHED, "try_to_wake_up, ttwu_do_wakeup, __wake_up_common"},
	[COST_CTXSW]         = {CAT_SCHED, "__schedule, __switch_to, finish_task_switch, pick_next_task_fair"},
	[COST_IPI_SEND]      = {CAT_ETC, "llist_add_batch, native_write_msr"},
	[COST_IPI_RECV]      = {CAT_ETC, "flush_smp_call_function_queue, sched_ttwu_pending"},
	/* the ACK the timer sends is ack_tx */
	[COST_TIMER]         = {CAT_ETC, "mod_timer, lock_timer_base, detach_if_pending"},
	[COST_GRO_SEG]       = {CAT_NETDEV, "napi_gro_receive, dev_gro_receive, inet_gro_receive, tcp4_gro_receive"},
	[COST_NAPI_POLL]     = {CAT_NETDEV, "net_rx_action, mlx5e_napi_poll, napi_complete_done"},
	[COST_TX_COMPL]      = {CAT_NETDEV, "mlx5e_poll_tx_cq, napi_consume_skb"},
	[COST_TICK]          = {CAT_SCHED, "task_tick_fair, update_curr"},
	[COST_MONITOR]       = {CAT_ETC, "none of the network stack (a background task's own work)"},
	[COST_KSWAPD]        = {CAT_MM, "kswapd's page reclaim"},
	[COST_TIMER_IRQ]     = {CAT_ETC, "hrtimer interrupt: native_write_msr, ktime_get, tick_nohz_next_event"},
	[COST_POLL]          = {CAT_ETC, "do_select, core_sys_select, sock_poll, tcp_poll"},
	[COST_RECV_COPY_BYTE] = {CAT_DATA_COPY, "skb_copy_datagram_iter, _copy_to_iter"},
	[COST_RECV_COPY_COLD] = {CAT_DATA_COPY, "_copy_to_iter (its misses on bytes later data pushed out of the cache)"},
	[COST_RECV_COPY_PIECE] = {CAT_DATA_COPY, "__skb_datagram_iter, check_object_size, _copy_to_iter (once per fragment)"},
	[COST_RECV_COPY_SPLICED] = {CAT_DATA_COPY, "skb_copy_datagram_iter, _copy_to_iter (of page-cache pages splice_to_socket put in the skb)"},
	[COST_SEND_BYTE] = {CAT_TCPIP, "tcp_sendmsg_locked, tcp_skb_entail, sk_wmem_schedule (per byte queued, outside the copy)"},
	[COST_SEND_SPLICED_BYTE] = {CAT_TCPIP, "tcp_sendmsg_locked, skb_splice_from_iter, splice_to_socket (per byte of spliced pages)"},
	[COST_COPY_XCPU] = {CAT_DATA_COPY, "_copy_to_iter, _copy_from_iter (their misses on lines the other CPU holds)"},
	[COST_SOCK_XCPU] = {CAT_TCPIP, "tcp_v4_rcv, tcp_rcv_established, tcp_ack, tcp_recvmsg, tcp_sendmsg (their misses on the socket)"},
	[COST_RECV_SYSCALL]  = {CAT_TCPIP, "ksys_read, sock_read_iter, inet_recvmsg, tcp_recvmsg, tcp_recvmsg_locked"},
	[COST_SKB_XCPU]      = {CAT_SKB, "tcp_v4_rcv, tcp_ack, tcp_recvmsg_locked, __skb_clone (their misses on an sk_buff and its skb_shared_info the other CPU wrote)"},
	[COST_IPI_SEND_POLLED] = {CAT_ETC, "native_write_msr (x2APIC ICR: a VM exit the host answers from its halt poll)"},
	[COST_NOHZ_EXIT]     = {CAT_SCHED, "tick_nohz_idle_exit, tick_nohz_restart_sched_tick, native_write_msr"},
	[COST_RX_GSO_SEG]    = {CAT_TCPIP, "ip_rcv, tcp_v4_rcv, tcp_rcv_established, tcp_queue_rcv (a segment skb_segment cut)"},
	/* user space is no kernel category of theirs: etc, with the rest their
	 * map does not name */
	[COST_USER]          = {CAT_ETC, "the application's own code in user space (iperf3's loop)"},
	[COST_RECV_USER]     = {CAT_ETC, "the reader's own code in user space (iperf3's server loop)"},
};

static const char *const cat_names[CAT_N][2] = {
	[CAT_DATA_COPY] = {"data_copy", "data_copy"},
	[CAT_ETC] = {"etc", "etc"},
	[CAT_LOCK] = {"lock", "lock"},
	[CAT_MM] = {"mm", "mm"},
	[CAT_NETDEV] = {"netdev", "netdev"},
	[CAT_SCHED] = {"sched", "sched"},
	[CAT_SKB] = {"skb", "skb"},
	[CAT_TCPIP] = {"tcp/ip", "tcpip"},
};

const char *costcat_name(int cat)
{
	return cat >= 0 && cat < CAT_N ? cat_names[cat][0] : NULL;
}

const char *costcat_ident(int cat)
{
	return cat >= 0 && cat < CAT_N ? cat_names[cat][1] : NULL;
}

const char *costcat_role_name(int role)
{
	static const char *const names[ROLE_N] = {"app", "irq"};
	return role >= 0 && role < ROLE_N ? names[role] : NULL;
}

enum cost_role costcat_role_of_ctx(int ctx)
{
	return ctx == 2 ? ROLE_APP : ROLE_IRQ;
}

void costcat_shares(const double (*ctx_cost)[COST_N], double cat_pct[ROLE_N][CAT_N])
{
	double total = 0;

	memset(cat_pct, 0, sizeof(double) * ROLE_N * CAT_N);
	for (int x = 0; x < 3; x++)
		for (int k = 0; k < COST_N; k++) {
			cat_pct[costcat_role_of_ctx(x)][costcat_table[k].cat] += ctx_cost[x][k];
			total += ctx_cost[x][k];
		}
	for (int r = 0; r < ROLE_N; r++)
		for (int c = 0; c < CAT_N; c++)
			cat_pct[r][c] = total > 0 ? 100.0 * cat_pct[r][c] / total : 0;
}

void costcat_order(const double *pct, int order[CAT_N])
{
	for (int c = 0; c < CAT_N; c++) {
		int j = c;
		while (j > 0 && pct[order[j - 1]] < pct[c]) {
			order[j] = order[j - 1];
			j--;
		}
		order[j] = c;
	}
}
