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
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <infiniband/verbs.h>

#define DEPTH 32
#define MSG 64
#define CUT_AFTER 200
#define RQ 512
#define GUARD 60.0

struct peer { uint32_t qpn, psn; uint8_t gid[16]; uint32_t count; };

static int gidx = 1, port = 18515, retry = 3, stream_only;
static uint64_t PHASE2 = 100;
static const char *syncdir;
static struct ibv_context *ctx;
static struct ibv_pd *pd;

#define die(...) do { fprintf(stderr, "rc_linkdown: " __VA_ARGS__); fprintf(stderr, "\n"); exit(1); } while (0)

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static void touch(const char *name)
{
	char p[512];
	snprintf(p, sizeof(p), "%s/%s", syncdir, name);
	int fd = open(p, O_CREAT | O_WRONLY, 0644);
	if (fd < 0)
		die("cannot create %s: %s", p, strerror(errno));
	close(fd);
}

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

static void xfer(int fd, void *buf, size_t n, int out)
{
	char *p = buf;
	while (n) {
		ssize_t r = out ? write(fd, p, n) : read(fd, p, n);
		if (r <= 0)
			die("TCP %s failed: %s", out ? "write" : "read", r ? strerror(errno) : "peer closed");
		p += r;
		n -= r;
	}
}

struct conn { struct ibv_cq *cq; struct ibv_qp *qp; struct ibv_mr *mr; char *buf; uint32_t psn; };

static void conn_create(struct conn *c, int nbuf)
{
	struct ibv_qp_init_attr ia = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = DEPTH, .max_recv_wr = RQ, .max_send_sge = 1, .max_recv_sge = 1 },
	};
	c->cq = ibv_create_cq(ctx, DEPTH + RQ + 16, NULL, NULL, 0);
	if (!c->cq)
		die("ibv_create_cq: %s", strerror(errno));
	ia.send_cq = ia.recv_cq = c->cq;
	c->qp = ibv_create_qp(pd, &ia);
	if (!c->qp)
		die("ibv_create_qp: %s", strerror(errno));
	c->buf = calloc(nbuf, MSG);
	c->mr = ibv_reg_mr(pd, c->buf, (size_t)nbuf * MSG, IBV_ACCESS_LOCAL_WRITE);
	if (!c->mr)
		die("ibv_reg_mr: %s", strerror(errno));
	c->psn = lrand48() & 0xffffff;
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1 };
	if (ibv_modify_qp(c->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		die("modify to INIT: %s", strerror(errno));
}

static void conn_me(struct conn *c, struct peer *me)
{
	union ibv_gid g;
	if (ibv_query_gid(ctx, 1, gidx, &g))
		die("ibv_query_gid %d: %s", gidx, strerror(errno));
	me->qpn = c->qp->qp_num;
	me->psn = c->psn;
	memcpy(me->gid, g.raw, 16);
}

static void conn_connect(struct conn *c, const struct peer *p)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTR, .path_mtu = IBV_MTU_1024, .dest_qp_num = p->qpn,
		.rq_psn = p->psn, .max_dest_rd_atomic = 1, .min_rnr_timer = 12,
		.ah_attr = { .is_global = 1, .port_num = 1, .grh = { .sgid_index = gidx, .hop_limit = 64 } },
	};
	memcpy(a.ah_attr.grh.dgid.raw, p->gid, 16);
	if (ibv_modify_qp(c->qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			  IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		die("modify to RTR: %s", strerror(errno));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = retry;
	a.rnr_retry = 7;
	a.sq_psn = c->psn;
	a.max_rd_atomic = 1;
	if (ibv_modify_qp(c->qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			  IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC))
		die("modify to RTS: %s", strerror(errno));
}

static void conn_destroy(struct conn *c)
{
	if (ibv_destroy_qp(c->qp) || ibv_dereg_mr(c->mr) || ibv_destroy_cq(c->cq))
		die("destroy: %s", strerror(errno));
	free(c->buf);
}

static void post_recv(struct conn *c, int slot)
{
	struct ibv_sge s = { (uintptr_t)(c->buf + slot * MSG), MSG, c->mr->lkey };
	struct ibv_recv_wr w = { .wr_id = slot, .sg_list = &s, .num_sge = 1 }, *bad;
	if (ibv_post_recv(c->qp, &w, &bad))
		die("ibv_post_recv: %s", strerror(errno));
}

static int post_send(struct conn *c, uint64_t seq)
{
	char *m = c->buf + (seq % DEPTH) * MSG;
	for (int i = 0; i < MSG; i++)
		m[i] = (char)(seq * 7 + i);
	memcpy(m, &seq, 8);
	struct ibv_sge s = { (uintptr_t)m, MSG, c->mr->lkey };
	struct ibv_send_wr w = { .wr_id = seq, .sg_list = &s, .num_sge = 1, .opcode = IBV_WR_SEND,
				 .send_flags = IBV_SEND_SIGNALED }, *bad;
	return ibv_post_send(c->qp, &w, &bad);
}

/* message seq's bytes, as post_send wrote them */
static int msg_ok(const char *m, uint64_t seq)
{
	uint64_t got;
	memcpy(&got, m, 8);
	if (got != seq)
		return 0;
	for (int i = 8; i < MSG; i++)
		if (m[i] != (char)(seq * 7 + i))
			return 0;
	return 1;
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

static int sender(const char *host)
{
	struct addrinfo *ai, hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM };
	char ps[16];
	int fd = -1;
	snprintf(ps, sizeof(ps), "%d", port);
	if (getaddrinfo(host, ps, &hints, &ai))
		die("cannot resolve %s", host);
	for (int i = 0; i < 300; i++) {	/* the receiver may not listen yet */
		fd = socket(AF_INET, SOCK_STREAM, 0);
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
			break;
		close(fd);
		fd = -1;
		usleep(200000);
	}
	if (fd < 0)
		die("cannot connect to %s:%d", host, port);

	struct conn c;
	struct peer me = {0}, them;
	conn_create(&c, DEPTH);
	conn_me(&c, &me);
	xfer(fd, &me, sizeof(me), 1);
	xfer(fd, &them, sizeof(them), 0);
	conn_connect(&c, &them);
	int bad = 0;
	if (stream_only)
		goto checked;

	/* phase 1: stream until the first error completion */
	enum { MAXWR = 1 << 22 };
	unsigned char *seen = calloc(MAXWR, 1);
	enum ibv_wc_status *st = calloc(MAXWR, sizeof(*st));
	uint64_t posted = 0, completed = 0, ok = 0, first_err = UINT64_MAX;
	int cut = 0, post_failed = 0;
	double t_cut = 0, t_err = 0;
	while (first_err == UINT64_MAX) {
		while (!post_failed && posted - completed < DEPTH && posted < MAXWR) {
			int e = post_send(&c, posted);
			if (e && !cut)
				die("ibv_post_send (wr %llu) failed before the cut: %s",
				    (unsigned long long)posted, strerror(e));
			if (e) {	/* not posted: no completion is due for it */
				printf("ibv_post_send (wr %llu) failed after the cut: %s; posting stopped\n",
				       (unsigned long long)posted, strerror(e));
				post_failed = 1;
				break;
			}
			posted++;
		}
		struct ibv_wc wc[16];
		int n = ibv_poll_cq(c.cq, 16, wc);
		if (n < 0)
			die("ibv_poll_cq failed");
		for (int i = 0; i < n; i++) {
			uint64_t id = wc[i].wr_id;
			if (id >= posted || seen[id]++) {
				printf("FAIL: completion for wr %llu (posted %llu, seen before: %d)\n",
				       (unsigned long long)id, (unsigned long long)posted, id < posted ? seen[id] - 1 : -1);
				bad = 1;
				continue;
			}
			st[id] = wc[i].status;
			completed++;
			if (wc[i].status == IBV_WC_SUCCESS)
				ok++;
			else if (first_err == UINT64_MAX) {
				first_err = id;
				t_err = now();
			}
		}
		if (n == 0)
			usleep(200);
		if (!cut && ok >= CUT_AFTER) {
			touch("cut");
			cut = 1;
			t_cut = now();
		}
		if (cut && now() - t_cut > GUARD)
			die("no error completion %.0f s after the cut (%llu posted, %llu completed)", GUARD,
			    (unsigned long long)posted, (unsigned long long)completed);
		if (posted == MAXWR && completed == posted)
			die("%d sends succeeded: the link never went down", MAXWR);
	}
	/* drain: every outstanding WR completes (flushed) without new posts */
	double t_drain = now();
	while (completed < posted) {
		struct ibv_wc wc[16];
		int n = ibv_poll_cq(c.cq, 16, wc);
		if (n < 0)
			die("ibv_poll_cq failed");
		for (int i = 0; i < n; i++) {
			uint64_t id = wc[i].wr_id;
			if (id >= posted || seen[id]++) {
				printf("FAIL: completion for wr %llu (posted %llu) twice or unknown\n",
				       (unsigned long long)id, (unsigned long long)posted);
				bad = 1;
				continue;
			}
			st[id] = wc[i].status;
			completed++;
		}
		if (n == 0)
			usleep(1000);
		if (now() - t_drain > GUARD) {
			printf("FAIL: hang: %llu of %llu completions %.0f s after the first error\n",
			       (unsigned long long)completed, (unsigned long long)posted, GUARD);
			return 1;
		}
	}
	usleep(500000);
	struct ibv_wc extra;
	int n = ibv_poll_cq(c.cq, 1, &extra);
	if (n != 0) {
		printf("FAIL: %d completion(s) after every posted WR had one (wr %llu)\n", n,
		       (unsigned long long)extra.wr_id);
		bad = 1;
	}
	uint64_t nflush = 0, nretry = 0;
	for (uint64_t id = 0; id < posted; id++) {
		if (seen[id] != 1) {
			printf("FAIL: wr %llu completed %d times\n", (unsigned long long)id, seen[id]);
			bad = 1;
		} else if (id < first_err && st[id] != IBV_WC_SUCCESS) {
			bad = 1;
		} else if (id > first_err && st[id] == IBV_WC_SUCCESS) {
			printf("FAIL: wr %llu succeeded after wr %llu failed\n", (unsigned long long)id,
			       (unsigned long long)first_err);
			bad = 1;
		} else if (id >= first_err) {
			if (st[id] == IBV_WC_WR_FLUSH_ERR)
				nflush++;
			else if (st[id] == IBV_WC_RETRY_EXC_ERR)
				nretry++;
			else {
				printf("FAIL: wr %llu: %s\n", (unsigned long long)id, ibv_wc_status_str(st[id]));
				bad = 1;
			}
		}
	}
	if (st[first_err] != IBV_WC_RETRY_EXC_ERR) {
		printf("FAIL: the first error is %s, not retry exceeded\n", ibv_wc_status_str(st[first_err]));
		bad = 1;
	}
	struct ibv_qp_attr qa;
	struct ibv_qp_init_attr qi;
	if (ibv_query_qp(c.qp, &qa, IBV_QP_STATE, &qi))
		die("ibv_query_qp: %s", strerror(errno));
	if (qa.qp_state != IBV_QPS_ERR) {
		printf("FAIL: QP state %d after the error, not IBV_QPS_ERR\n", qa.qp_state);
		bad = 1;
	}
	printf("phase 1: %llu posted, %llu success, %llu retry exceeded, %llu flushed; "
	       "first error at wr %llu, %.2f s after the cut request; QP in error\n",
	       (unsigned long long)posted, (unsigned long long)ok, (unsigned long long)nretry,
	       (unsigned long long)nflush, (unsigned long long)first_err, t_err - t_cut);
	touch("drained");
	wait_file("up");

	/* phase 2: fresh QP pair over the link that came back */
	conn_destroy(&c);
	conn_create(&c, DEPTH);
	conn_me(&c, &me);
	me.count = (uint32_t)ok;
	xfer(fd, &me, sizeof(me), 1);
	xfer(fd, &them, sizeof(them), 0);
	conn_connect(&c, &them);
checked:;
	double t_s = now();
	send_checked(&c);
	double t_e = now();
	char verdict;
	xfer(fd, &verdict, 1, 0);
	if (verdict != 'Y') {
		printf("FAIL: the receiver reported a failure (see its output)\n");
		bad = 1;
	} else
		printf("%s: %llu checked sends completed once each, in %.2f s%s\n", stream_only ? "stream" : "phase 2",
		       (unsigned long long)PHASE2, t_e - t_s, stream_only ? "" : ", on a fresh QP pair after the link came back");
	conn_destroy(&c);
	close(fd);
	return bad;
}

static int receiver(void)
{
	int ls = socket(AF_INET, SOCK_STREAM, 0), one = 1;
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port) };
	setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(ls, (struct sockaddr *)&sa, sizeof(sa)) || listen(ls, 1))
		die("cannot listen on port %d: %s", port, strerror(errno));
	int fd = accept(ls, NULL, NULL);
	if (fd < 0)
		die("accept: %s", strerror(errno));
	close(ls);

	struct conn c;
	struct peer me = {0}, them;
	conn_create(&c, RQ);
	for (int i = 0; i < RQ; i++)
		post_recv(&c, i);
	conn_me(&c, &me);
	xfer(fd, &them, sizeof(them), 0);
	xfer(fd, &me, sizeof(me), 1);
	conn_connect(&c, &them);
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
			char *m = c.buf + wc[i].wr_id * MSG;
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
	if (next < them.count) {
		printf("FAIL: received %llu messages, the sender saw %u succeed\n", (unsigned long long)next,
		       them.count);
		bad = 1;
	}
	printf("phase 1: received %llu messages in order (the sender saw %u succeed)\n",
	       (unsigned long long)next, them.count);

	conn_destroy(&c);
	conn_create(&c, RQ);
	for (int i = 0; i < RQ; i++)
		post_recv(&c, i);
	conn_me(&c, &me);
	xfer(fd, &me, sizeof(me), 1);
	conn_connect(&c, &them);
checked:
	next = 0;
	double t0 = now();
	while (next < PHASE2) {
		struct ibv_wc wc[16];
		int n = ibv_poll_cq(c.cq, 16, wc);
		for (int i = 0; i < n; i++) {
			if (wc[i].status != IBV_WC_SUCCESS || !msg_ok(c.buf + wc[i].wr_id * MSG, next)) {
				printf("FAIL: phase 2 message %llu: %s\n", (unsigned long long)next,
				       ibv_wc_status_str(wc[i].status));
				bad = 1;
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
		bad = 1;
	}
	printf("%s: received %llu checked messages, in order, each once\n", stream_only ? "stream" : "phase 2",
	       (unsigned long long)PHASE2);
	char verdict = bad ? 'N' : 'Y';
	xfer(fd, &verdict, 1, 1);
	conn_destroy(&c);
	close(fd);
	return bad;
}

int main(int argc, char **argv)
{
	int o;
	while ((o = getopt(argc, argv, "g:n:p:r:s:")) != -1) {
		switch (o) {
		case 'n': PHASE2 = strtoull(optarg, NULL, 0); stream_only = 1; break;
		case 'r': retry = atoi(optarg); break;
		case 'g': gidx = atoi(optarg); break;
		case 'p': port = atoi(optarg); break;
		case 's': syncdir = optarg; break;
		default: die("usage: rc_linkdown -g GIDX -p PORT [-s SYNCDIR PEER]");
		}
	}
	srand48(getpid() ^ time(NULL));
	int num;
	struct ibv_device **l = ibv_get_device_list(&num);
	if (!l || !num)
		die("no RDMA device");
	ctx = ibv_open_device(l[0]);
	if (!ctx)
		die("ibv_open_device: %s", strerror(errno));
	ibv_free_device_list(l);
	pd = ibv_alloc_pd(ctx);
	if (!pd)
		die("ibv_alloc_pd: %s", strerror(errno));
	setvbuf(stdout, NULL, _IOLBF, 0);
	int r;
	if (optind < argc) {
		if (!syncdir && !stream_only)
			die("the sender needs -s SYNCDIR");
		r = sender(argv[optind]);
	} else
		r = receiver();
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	printf("%s\n", r ? "FAIL" : "PASS");
	return r;
}
