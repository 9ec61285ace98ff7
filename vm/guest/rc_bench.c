/*
 * An RC send/recv round trip between two hosts, for `make bench-two-hosts`
 * (the two-host form of bench/ibv_bench.c's rc_roundtrip row).
 *
 *   rc_bench -g GIDX -p PORT [-n N] [-b BATCHES]         server (guest a): echoes
 *   rc_bench -g GIDX -p PORT [-n N] [-b BATCHES] PEER    client (guest b)
 *
 * The client sends 8 B and waits for the echo, then re-posts the receive;
 * the server does the same the other way. Sends are signaled every 16th,
 * their completions reaped from the same CQ. One warm-up batch, then
 * BATCHES timed batches of N round trips each; each side prints
 *
 *   R <row> <ns per round trip, median of the batches> ns
 *   O <row> <round trips of the timed batches> <batches> <empty polls>
 *
 * row rc_roundtrip_client or rc_roundtrip_server. The wait for the peer
 * spins on the receive buffer, not in ibv_poll_cq, and under callgrind
 * (--collect-atstart=no) with collection paused: how long the peer takes
 * is timing, not the library. Only the timed batches are collected and
 * dumped as <row>; "region_overhead" (an empty timed region), "empty_poll"
 * (1000 polls of the empty CQ) and "toggle_pair" (1000 pauses) are dumped
 * first, so that
 *   Ir/op = (Ir(row) - batches x Ir(region_overhead)
 *            - empty polls x Ir(empty_poll) / 1000 - round trips x
 *            Ir(toggle_pair) / 1000) / round trips
 * is the library's cost of a round trip (post_send, the receive's poll_cq
 * and post_recv, a 16th of a send completion) plus the loop's own few.
 */
#define _GNU_SOURCE
#include <valgrind/callgrind.h>
#define PROG "rc_bench"
#include "rc_common.h"

#define RQ 64
#define SIG_EVERY 16
#define MAXB 64

static int port = 18600, n = 2000, batches = 5, cg_on;
static struct dev dev = { .gidx = 1, .retry = 7 };

static double now_ns(void)
{
	return now() * 1e9;
}

static void cg_toggle(int on)
{
	if (on != cg_on) {
		CALLGRIND_TOGGLE_COLLECT;
		cg_on = on;
	}
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static struct conn c;
static long long empty, nrecv;

/* Waits for the next message: spins on its slot's first 8 bytes (message k
 * carries k + 1, and lands in slot k % RQ: the receives are re-posted in the
 * order they were taken) with callgrind's collection off, so that the wait
 * for the peer costs no counted instruction; then polls its completion
 * (send completions are reaped on the way; an empty poll is counted). */
static void wait_recv(void)
{
	volatile uint64_t *slot = (volatile uint64_t *)(c.buf + (nrecv % RQ) * msg);
	int was = cg_on;
	cg_toggle(0);
	while (*slot != (uint64_t)nrecv + 1)
		;
	cg_toggle(was);
	nrecv++;
	struct ibv_wc wc[4];
	for (;;) {
		int k = ibv_poll_cq(c.cq, 4, wc), got = 0;
		if (k < 0)
			die("ibv_poll_cq failed");
		if (k == 0) {
			empty++;
			continue;
		}
		for (int i = 0; i < k; i++) {
			if (wc[i].status != IBV_WC_SUCCESS)
				die("completion: %s", ibv_wc_status_str(wc[i].status));
			if (wc[i].opcode == IBV_WC_RECV) {
				post_recv(&c, wc[i].wr_id);
				got++;
			}
		}
		if (got > 1)
			die("%d receive completions at once: the peer is ahead", got);
		if (got)
			return;
	}
}

static void send_one(long long i)
{
	uint64_t v = (uint64_t)i + 1;	/* the buffer is free: the previous send was answered */
	memcpy(c.buf + RQ * msg, &v, 8);
	struct ibv_sge g = { (uintptr_t)c.buf + RQ * msg, msg, c.mr->lkey };
	struct ibv_send_wr w = { .wr_id = i, .sg_list = &g, .num_sge = 1, .opcode = IBV_WR_SEND,
				 .send_flags = i % SIG_EVERY == SIG_EVERY - 1 ? IBV_SEND_SIGNALED : 0 }, *bad;
	int r = ibv_post_send(c.qp, &w, &bad);
	if (r)
		die("ibv_post_send: %s", strerror(r));
}

int main(int argc, char **argv)
{
	int o;
	while ((o = getopt(argc, argv, "b:g:n:p:")) != -1) {
		switch (o) {
		case 'b': batches = atoi(optarg); break;
		case 'g': dev.gidx = atoi(optarg); break;
		case 'n': n = atoi(optarg); break;
		case 'p': port = atoi(optarg); break;
		default: die("usage: rc_bench -g GIDX -p PORT [-n N] [-b BATCHES] [PEER]");
		}
	}
	if (batches < 1 || batches > MAXB || n < 1)
		die("-b must be 1..%d and -n at least 1", MAXB);
	int client = optind < argc;
	const char *row = client ? "rc_roundtrip_client" : "rc_roundtrip_server";
	msg = 8;
	srand48(getpid() ^ time(NULL));
	setvbuf(stdout, NULL, _IOLBF, 0);
	dev_open(&dev);
	int fd = client ? tcp_connect(argv[optind], port) : tcp_accept(port);
	struct peer me = {0}, them;
	conn_create(&dev, &c, RQ + 1, RQ);
	for (int i = 0; i < RQ; i++)
		post_recv(&c, i);
	conn_me(&dev, &c, &me);
	xfer(fd, &me, sizeof(me), 1);
	xfer(fd, &them, sizeof(them), 0);
	conn_connect(&dev, &c, &them);
	if (RUNNING_ON_VALGRIND) {
		struct ibv_wc wc[4];
		double t = now_ns();
		CALLGRIND_ZERO_STATS;
		cg_toggle(1);
		t = now_ns();
		t = now_ns() - t;
		cg_toggle(0);
		CALLGRIND_DUMP_STATS_AT("region_overhead");
		/* the CQ is empty: the peer sends only after the exchange below */
		long long k = 0;
		cg_toggle(1);
		while (k < 1000 && ibv_poll_cq(c.cq, 4, wc) == 0)
			empty++, k++;
		cg_toggle(0);
		if (k != 1000)
			die("a completion before the first send");
		CALLGRIND_DUMP_STATS_AT("empty_poll");
		empty = 0;
		/* what the pause around each wait costs */
		cg_toggle(1);
		for (k = 0; k < 1000; k++) {
			cg_toggle(0);
			cg_toggle(1);
		}
		cg_toggle(0);
		CALLGRIND_DUMP_STATS_AT("toggle_pair");
	}
	char go = 'G';
	xfer(fd, &go, 1, 1);	/* both QPs in RTS, both calibrated, before the first send */
	xfer(fd, &go, 1, 0);

	double v[MAXB];
	long long seq = 0, ops = 0, empties = 0;
	for (int b = 0; b <= batches; b++) {
		long long e0 = empty;
		if (b > 0)
			cg_toggle(1);
		double t = now_ns();
		for (int i = 0; i < n; i++) {
			if (client) {
				send_one(seq++);
				wait_recv();
			} else {
				wait_recv();
				send_one(seq++);
			}
		}
		t = now_ns() - t;
		cg_toggle(0);
		if (b > 0) {
			v[b - 1] = t / n;
			ops += n;
			empties += empty - e0;
		}
	}
	CALLGRIND_DUMP_STATS_AT(row);
	qsort(v, batches, sizeof(v[0]), cmp_dbl);
	double med = batches % 2 ? v[batches / 2] : (v[batches / 2 - 1] + v[batches / 2]) / 2;
	printf("R\t%s\t%.0f\tns\tRC send/recv round trip across the link (8 B, spin on the buffer)\n", row, med);
	printf("O\t%s\t%lld\t%d\t%lld\n", row, ops, batches, empties);
	/* the last signaled send's completion may still be due: wait for it quietly */
	xfer(fd, &go, 1, 1);
	xfer(fd, &go, 1, 0);
	conn_destroy(&c);
	close(fd);
	dev_close(&dev);
	return 0;
}
