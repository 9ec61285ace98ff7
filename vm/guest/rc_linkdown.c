/*
 * The link goes down under a stream of RC SENDs between two hosts
 * (vm/run-two-hosts-tests.sh, case rc_linkdown).
 *
 *   rc_linkdown -g GIDX -s SYNCDIR -p PORT PEER    sender (guest a)
 *   rc_linkdown -g GIDX -p PORT                    receiver (guest b)
 *
 * The sender keeps 32 signaled SENDs in flight, each carrying its sequence
 * number; after 200 successes it writes SYNCDIR/cut and the script on the
 * receiver's guest takes its NIC down. Expected outcome, written before the
 * first run:
 *   - every posted work request gets exactly one completion: successes for a
 *     prefix of the stream, then one IBV_WC_RETRY_EXC_ERR, then only
 *     IBV_WC_WR_FLUSH_ERR (RETRY_EXC also accepted) for the rest;
 *   - the QP is then in IBV_QPS_ERR, and the CQ stays empty afterwards;
 *   - nothing hangs: the error comes and the drain ends on their own (the
 *     hang guard is 60 s, far past the retry budget: timeout 14, 67 ms, and
 *     retry_cnt 3, about 0.3 s; rxe takes retry_cnt 7 as "retry forever");
 *   - the receiver got every message in order, at least as many as the
 *     sender saw succeed, none twice, none corrupted;
 *   - once the link is back (SYNCDIR/up), a fresh QP pair carries 100 checked
 *     messages.
 * The sender then writes SYNCDIR/drained. Exit 0 when all of that held.
 * The TCP connection that exchanges QP numbers stays open across the outage.
 *
 *   rc_linkdown -n N [-r RETRY] ...                stream only (no cut)
 *
 * sends just the checked stream of N messages on one QP pair (retry_cnt RETRY,
 * default 3; rxe's 7 retries forever): every message arrives once, in order,
 * uncorrupted, and every send completes once with success (case rc_netem,
 * with loss, duplication, corruption and reordering on the link).
 *
 *   rc_linkdown -x -m BYTES [-r RETRY] ...         a path that loses it all
 *
 * (case rc_mtu_retry): messages of BYTES (4096: four packets of the path
 * MTU 1024) over a path whose hop of small MTU drops every data packet
 * (a's filter drops RoCE packets of 1024 to 2047 IP bytes, as a router of
 * MTU 576 drops what does not fit with DF set); retry_cnt 3. Expected
 * outcome, written before the first run, the same on both libraries:
 *   - no send succeeds; the first completion is IBV_WC_RETRY_EXC_ERR, about
 *     (retry_cnt + 1) x 67 ms after the first post, then only flushes (or
 *     RETRY_EXC), one completion per posted WR; the QP ends in
 *     IBV_QPS_ERR and the CQ stays empty;
 *   - nothing hangs (the guard is 60 s from the first post);
 *   - the receiver gets no message and no error completion.
 */
#define _GNU_SOURCE
#include <poll.h>
#define PROG "rc_linkdown"
#include "rc_common.h"

#define RQ 512
#define GUARD 60.0

static int port = 18515, stream_only, lost;
static uint64_t PHASE2 = 100;
static const char *syncdir;
static struct dev dev = { .gidx = 1, .retry = 3 };

static void wait_file(const char *name)
{
	char p[512];
	struct stat st;
	double t0 = now();
	snprintf(p, sizeof(p), "%s/%s", syncdir, name);
	while (stat(p, &st) != 0) {
		if (now() - t0 > GUARD)
			die("%s did not appear within %.0f s", p, GUARD);
		usleep(100000);
	}
}

static int post_send(struct conn *c, uint64_t seq)
{
	char *m = c->buf + (seq % DEPTH) * msg;
	fill(m, seq);
	struct ibv_sge s = { (uintptr_t)m, msg, c->mr->lkey };
	struct ibv_send_wr w = { .wr_id = seq, .sg_list = &s, .num_sge = 1, .opcode = IBV_WR_SEND,
				 .send_flags = IBV_SEND_SIGNALED }, *bad;
	return ibv_post_send(c->qp, &w, &bad);
}

/* a bad receive: what its buffer holds, for telling a duplicate or a
 * shifted message (the kernel's) from other damage; the seq of each 1 KiB
 * part, mod 256, read back from its bytes (seq * 7 + i, 7 odd) */
static void report_bad(const char *phase, uint64_t next, const struct ibv_wc *wc, const char *m)
{
	uint64_t got;
	memcpy(&got, m, 8);
	printf("FAIL: %s message %llu: %s; byte_len %u, wr_id %llu, holds %llu, 1 KiB parts from messages (mod 256)",
	       phase, (unsigned long long)next, ibv_wc_status_str(wc->status), wc->byte_len,
	       (unsigned long long)wc->wr_id, (unsigned long long)got);
	for (int o = 0; o + 16 <= msg; o += 1024)
		printf(" %u", (unsigned)((unsigned char)(m[o + 8] - o - 8) * 183u & 255));
	printf(" (next: %u)\n", (unsigned)(next & 255));
}

/* phase 2 on the sender: PHASE2 checked sends, all must succeed */
static void send_checked(struct conn *c)
{
	uint64_t posted = 0, done = 0;
	unsigned char *seen = calloc(PHASE2, 1);
	double t0 = now();
	while (done < PHASE2) {
		while (posted < PHASE2 && posted - done < DEPTH)
			if (post_send(c, posted++))
				die("phase 2: ibv_post_send: %s", strerror(errno));
		struct ibv_wc wc[16];
		int n = ibv_poll_cq(c->cq, 16, wc);
		if (n < 0)
			die("phase 2: ibv_poll_cq failed");
		if (n == 0)
			usleep(200);
		for (int i = 0; i < n; i++) {
			if (wc[i].status != IBV_WC_SUCCESS)
				die("phase 2: wr %llu: %s", (unsigned long long)wc[i].wr_id, ibv_wc_status_str(wc[i].status));
			if (wc[i].wr_id >= posted || seen[wc[i].wr_id]++)
				die("phase 2: completion for wr %llu unknown or twice", (unsigned long long)wc[i].wr_id);
		}
		done += n;
		if (now() - t0 > GUARD)
			die("phase 2: %llu of %llu completions after %.0f s", (unsigned long long)done,
			    (unsigned long long)PHASE2, GUARD);
	}
	free(seen);
}

/* phase 1 on the sender: stream until the first error completion (after
 * the cut, or with -x from the start), drain, judge; 0 when all held */
static int stream_to_error(struct conn *c, uint32_t *ok)
{
	struct stream s;
	int cut = lost;
	double t_cut = now();
	stream_init(&s, c->qp, c->mr, c->buf);
	while (s.first_err == UINT64_MAX) {
		stream_post(&s, cut);
		int n = stream_reap(&s, c->cq);
		if (n == 0)
			usleep(200);
		if (!cut && s.ok >= CUT_AFTER) {
			touch(syncdir, "cut");
			cut = 1;
			t_cut = now();
		}
		if (cut && now() - t_cut > GUARD)
			die("no error completion %.0f s after the %s (%llu posted, %llu completed)", GUARD,
			    lost ? "start" : "cut", (unsigned long long)s.posted, (unsigned long long)s.completed);
		if (s.posted == MAXWR && s.completed == s.posted)
			die("%d sends succeeded: the link never went down", MAXWR);
	}
	/* drain: every outstanding WR completes (flushed) without new posts */
	double t_drain = now();
	while (s.completed < s.posted) {
		if (stream_reap(&s, c->cq) == 0)
			usleep(1000);
		if (now() - t_drain > GUARD) {
			printf("FAIL: hang: %llu of %llu completions %.0f s after the first error\n",
			       (unsigned long long)s.completed, (unsigned long long)s.posted, GUARD);
			return 1;
		}
	}
	stream_judge(&s, c->cq, 0);
	if (s.st[s.first_err] != IBV_WC_RETRY_EXC_ERR) {
		printf("FAIL: the first error is %s, not retry exceeded\n", ibv_wc_status_str(s.st[s.first_err]));
		s.bad = 1;
	}
	if (lost && s.ok) {
		printf("FAIL: %llu sends succeeded over a path that drops every data packet\n", (unsigned long long)s.ok);
		s.bad = 1;
	}
	if (qp_state(c->qp) != IBV_QPS_ERR) {
		printf("FAIL: QP state %d after the error, not IBV_QPS_ERR\n", qp_state(c->qp));
		s.bad = 1;
	}
	printf("phase 1: %llu posted, %llu success, %llu retry exceeded, %llu flushed; "
	       "first error at wr %llu, %.2f s after the %s; QP in error\n",
	       (unsigned long long)s.posted, (unsigned long long)s.ok, (unsigned long long)s.nretry,
	       (unsigned long long)s.nflush, (unsigned long long)s.first_err, s.t_err - t_cut,
	       lost ? "first post" : "cut request");
	int bad = s.bad;
	*ok = (uint32_t)s.ok;
	stream_free(&s);
	return bad;
}

static int sender(const char *host)
{
	int fd = tcp_connect(host, port);
	struct conn c;
	struct peer me = {0}, them;
	conn_create(&dev, &c, DEPTH, RQ);
	conn_me(&dev, &c, &me);
	xfer(fd, &me, sizeof(me), 1);
	xfer(fd, &them, sizeof(them), 0);
	conn_connect(&dev, &c, &them);
	int bad = 0;
	double t_s = 0, t_e = 0;
	char verdict;
	if (stream_only)
		goto checked;

	bad = stream_to_error(&c, &me.count);
	if (lost) {	/* no link to bring back: the receiver's count, then its verdict */
		xfer(fd, &me, sizeof(me), 1);
		goto verdict;
	}
	touch(syncdir, "drained");
	wait_file("up");

	/* phase 2: fresh QP pair over the link that came back */
	conn_destroy(&c);
	conn_create(&dev, &c, DEPTH, RQ);
	conn_me(&dev, &c, &me);
	xfer(fd, &me, sizeof(me), 1);
	xfer(fd, &them, sizeof(them), 0);
	conn_connect(&dev, &c, &them);
checked:
	t_s = now();
	send_checked(&c);
	t_e = now();
verdict:
	xfer(fd, &verdict, 1, 0);
	if (verdict != 'Y') {
		printf("FAIL: the receiver reported a failure (see its output)\n");
		bad = 1;
	} else if (!lost)
		printf("%s: %llu checked sends completed once each, in %.2f s%s\n", stream_only ? "stream" : "phase 2",
		       (unsigned long long)PHASE2, t_e - t_s, stream_only ? "" : ", on a fresh QP pair after the link came back");
	conn_destroy(&c);
	close(fd);
	return bad;
}

static int receiver(void)
{
	int fd = tcp_accept(port);
	struct conn c;
	struct peer me = {0}, them;
	conn_create(&dev, &c, RQ, RQ);
	for (int i = 0; i < RQ; i++)
		post_recv(&c, i);
	conn_me(&dev, &c, &me);
	xfer(fd, &them, sizeof(them), 0);
	xfer(fd, &me, sizeof(me), 1);
	conn_connect(&dev, &c, &them);
	uint64_t next = 0;
	int bad = 0;
	if (stream_only)
		goto checked;

	/* phase 1: take messages in order until the sender speaks again */
	for (;;) {
		struct ibv_wc wc[16];
		int n = ibv_poll_cq(c.cq, 16, wc);
		if (n < 0)
			die("ibv_poll_cq failed");
		for (int i = 0; i < n; i++) {
			if (wc[i].status != IBV_WC_SUCCESS) {
				if (wc[i].status != IBV_WC_WR_FLUSH_ERR) {
					printf("FAIL: receive: %s\n", ibv_wc_status_str(wc[i].status));
					bad = 1;
				}
				continue;
			}
			char *m = c.buf + wc[i].wr_id * msg;
			if (!msg_ok(m, next)) {
				uint64_t got;
				memcpy(&got, m, 8);
				printf("FAIL: message %llu: got %llu or corrupted bytes\n", (unsigned long long)next,
				       (unsigned long long)got);
				bad = 1;
			}
			next++;
			post_recv(&c, wc[i].wr_id);
		}
		struct pollfd p = { fd, POLLIN, 0 };
		if (n == 0 && poll(&p, 1, 1) == 1)
			break;
	}
	xfer(fd, &them, sizeof(them), 0);
	if (next < them.count || (lost && next)) {
		printf("FAIL: received %llu messages, the sender saw %u succeed\n", (unsigned long long)next,
		       them.count);
		bad = 1;
	}
	printf("phase 1: received %llu messages in order (the sender saw %u succeed)\n",
	       (unsigned long long)next, them.count);
	if (lost)
		goto verdict;

	conn_destroy(&c);
	conn_create(&dev, &c, RQ, RQ);
	for (int i = 0; i < RQ; i++)
		post_recv(&c, i);
	conn_me(&dev, &c, &me);
	xfer(fd, &me, sizeof(me), 1);
	conn_connect(&dev, &c, &them);
checked:
	next = 0;
	int bad2 = 0;	/* this stream's own */
	double t0 = now();
	while (next < PHASE2) {
		struct ibv_wc wc[16];
		int n = ibv_poll_cq(c.cq, 16, wc);
		for (int i = 0; i < n; i++) {
			if (wc[i].status != IBV_WC_SUCCESS || !msg_ok(c.buf + wc[i].wr_id * msg, next) ||
			    wc[i].byte_len != (uint32_t)msg) {
				report_bad(stream_only ? "stream" : "phase 2", next, &wc[i], c.buf + wc[i].wr_id * msg);
				bad2 = 1;
			}
			next++;
			if (stream_only)
				post_recv(&c, wc[i].wr_id);
		}
		if (n < 0)
			die("ibv_poll_cq failed");
		if (n == 0)
			usleep(200);
		if (now() - t0 > GUARD)
			die("phase 2: %llu of %llu messages after %.0f s", (unsigned long long)next,
			    (unsigned long long)PHASE2, GUARD);
	}
	usleep(200000);
	struct ibv_wc x;
	if (ibv_poll_cq(c.cq, 1, &x) > 0) {
		printf("FAIL: a receive completion beyond the %llu messages sent\n", (unsigned long long)PHASE2);
		bad2 = 1;
	}
	bad |= bad2;
	if (!bad2)
		printf("%s: received %llu checked messages, in order, each once\n", stream_only ? "stream" : "phase 2",
		       (unsigned long long)PHASE2);
verdict:;
	char verdict = bad ? 'N' : 'Y';
	xfer(fd, &verdict, 1, 1);
	conn_destroy(&c);
	close(fd);
	return bad;
}

int main(int argc, char **argv)
{
	int o;
	while ((o = getopt(argc, argv, "g:m:n:p:r:s:x")) != -1) {
		switch (o) {
		case 'n': PHASE2 = strtoull(optarg, NULL, 0); stream_only = 1; break;
		case 'm': msg = atoi(optarg); break;
		case 'r': dev.retry = atoi(optarg); break;
		case 'g': dev.gidx = atoi(optarg); break;
		case 'p': port = atoi(optarg); break;
		case 's': syncdir = optarg; break;
		case 'x': lost = 1; break;
		default: die("usage: rc_linkdown -g GIDX -p PORT [-m BYTES] [-r RETRY] [-n N | -x | -s SYNCDIR] [PEER]");
		}
	}
	if (msg < 8 || msg > 1 << 20)
		die("-m must be 8 to 1048576 bytes");
	srand48(getpid() ^ time(NULL));
	dev_open(&dev);
	setvbuf(stdout, NULL, _IOLBF, 0);
	int r;
	if (optind < argc) {
		if (!syncdir && !stream_only && !lost)
			die("the sender needs -s SYNCDIR");
		r = sender(argv[optind]);
	} else
		r = receiver();
	dev_close(&dev);
	printf("%s\n", r ? "FAIL" : "PASS");
	return r;
}
