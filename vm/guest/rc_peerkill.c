/*
 * The peer dies under a stream of RC SENDs set up by rdma_cm between two hosts
 * (vm/run-two-hosts-tests.sh, cases rc_peerkill and rc_peercut).
 *
 *   rc_peerkill -s SYNCDIR -p PORT [-k]     survivor: listens, sends (guest a;
 *                                           -k: the peer is killed, not cut off)
 *   rc_peerkill -p PORT -c SERVER           victim: connects, receives (guest b)
 *
 * The survivor keeps 32 signaled SENDs in flight, each carrying its sequence
 * number; after 200 successes it writes SYNCDIR/cut, and the script on the
 * victim's guest either SIGKILLs the victim (kill) or takes its NIC down for
 * good (cut: up again only after the survivor has exited). The survivor never
 * kills anything itself. Expected outcome, written before the first run:
 *   - every posted work request gets exactly one completion: successes for a
 *     prefix, then errors only, each IBV_WC_RETRY_EXC_ERR or
 *     IBV_WC_WR_FLUSH_ERR (cut: the first is RETRY_EXC_ERR, as nothing comes
 *     back; kill: the victim's kernel destroys its cm_id and QP, so a DREQ
 *     arrives and either status may come first). Seen since, and accepted as
 *     the first error in kill only: IBV_WC_REM_OP_ERR, the victim's QP
 *     answering with a NAK while its kernel tears it down (first seen with
 *     Debian's library as the survivor: a kernel race on the victim's side);
 *   - the QP ends in IBV_QPS_ERR and the CQ stays empty afterwards;
 *   - rdma_cm: kill: RDMA_CM_EVENT_DISCONNECTED arrives on its own (the
 *     victim's kernel sent the DREQ); cut: it arrives after the survivor's own
 *     rdma_disconnect, once the DREQ's retries ran out (70 s in the first
 *     run, on both libraries; the wait for it is DREQ_WAIT). Then the survivor
 *     waits up to 60 s for RDMA_CM_EVENT_TIMEWAIT_EXIT and reports whether it
 *     came (recorded; ours must do what Debian's does);
 *   - asynchronous events are read and reported (rxe is not expected to
 *     raise any for a retry-exceeded QP; recorded, compared with Debian's);
 *   - the survivor frees everything and exits 0 on its own, long before the
 *     hang guard (90 s per wait); a leak check (valgrind memcheck, definite
 *     leaks are errors) may wrap it.
 * The victim checks each message it receives (in order, uncorrupted) and
 * prints FAIL at the first one that is not; it is killed in both cases.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#define DEPTH 32
#define MSG 64
#define CUT_AFTER 200
#define RQ 256
#define GUARD 90.0
#define TW_WAIT 60.0
#define DREQ_WAIT 200.0

static const char *syncdir;
static int port = 20900, killed;

#define die(...) do { fprintf(stderr, "rc_peerkill: " __VA_ARGS__); fprintf(stderr, "\n"); exit(1); } while (0)

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

static void nonblock(int fd)
{
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK))
		die("fcntl: %s", strerror(errno));
}

/* the next event of ch, blocking up to secs; 0 when none came */
static struct rdma_cm_event *cm_wait(struct rdma_event_channel *ch, double secs)
{
	struct rdma_cm_event *e;
	double t0 = now();
	for (;;) {
		if (rdma_get_cm_event(ch, &e) == 0)
			return e;
		if (errno != EAGAIN)
			die("rdma_get_cm_event: %s", strerror(errno));
		if (now() - t0 > secs)
			return NULL;
		usleep(10000);
	}
}

static struct rdma_cm_event *cm_expect(struct rdma_event_channel *ch, enum rdma_cm_event_type t)
{
	struct rdma_cm_event *e = cm_wait(ch, GUARD);
	if (!e)
		die("no %s within %.0f s", rdma_event_str(t), GUARD);
	if (e->event != t)
		die("got %s (status %d), expected %s", rdma_event_str(e->event), e->status, rdma_event_str(t));
	return e;
}

static void fill(char *m, uint64_t seq)
{
	for (int i = 0; i < MSG; i++)
		m[i] = (char)(seq * 7 + i);
	memcpy(m, &seq, 8);
}

static int msg_ok(const char *m, uint64_t seq)
{
	char want[MSG];
	fill(want, seq);
	return memcmp(m, want, MSG) == 0;
}

struct ev { char what[48]; double t; };

static int survivor(void)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_cm_id *lid, *id;
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port) };
	if (!ch || rdma_create_id(ch, &lid, NULL, RDMA_PS_TCP))
		die("rdma_create_id: %s", strerror(errno));
	if (rdma_bind_addr(lid, (struct sockaddr *)&sa) || rdma_listen(lid, 1))
		die("rdma_bind_addr/listen on port %d: %s", port, strerror(errno));
	struct rdma_cm_event *e = cm_expect(ch, RDMA_CM_EVENT_CONNECT_REQUEST);
	id = e->id;
	rdma_ack_cm_event(e);

	struct ibv_pd *pd = ibv_alloc_pd(id->verbs);
	struct ibv_cq *cq = pd ? ibv_create_cq(id->verbs, DEPTH + 8, NULL, NULL, 0) : NULL;
	if (!cq)
		die("ibv_alloc_pd/ibv_create_cq: %s", strerror(errno));
	struct ibv_qp_init_attr ia = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = DEPTH, .max_recv_wr = 1, .max_send_sge = 1, .max_recv_sge = 1 },
	};
	if (rdma_create_qp(id, pd, &ia))
		die("rdma_create_qp: %s", strerror(errno));
	char *buf = calloc(DEPTH, MSG);
	struct ibv_mr *mr = ibv_reg_mr(pd, buf, DEPTH * MSG, IBV_ACCESS_LOCAL_WRITE);
	if (!mr)
		die("ibv_reg_mr: %s", strerror(errno));
	struct rdma_conn_param cp = { .retry_count = 3, .rnr_retry_count = 7 };
	if (rdma_accept(id, &cp))
		die("rdma_accept: %s", strerror(errno));
	rdma_ack_cm_event(cm_expect(ch, RDMA_CM_EVENT_ESTABLISHED));
	nonblock(ch->fd);
	nonblock(id->verbs->async_fd);

	enum { MAXWR = 1 << 22 };
	unsigned char *seen = calloc(MAXWR, 1);
	enum ibv_wc_status *st = calloc(MAXWR, sizeof(*st));
	struct ev evs[16];
	int nev = 0, bad = 0, cut = 0, disconnected = 0, timewait = 0, post_failed = 0;
	uint64_t posted = 0, completed = 0, ok = 0, first_err = UINT64_MAX;
	double t_cut = 0, t_err = 0, t_last = 0;

	/* stream until the first error, then drain; read events throughout */
	for (;;) {
		while (!post_failed && first_err == UINT64_MAX && !disconnected &&
		       posted - completed < DEPTH && posted < MAXWR) {
			char *m = buf + (posted % DEPTH) * MSG;
			fill(m, posted);
			struct ibv_sge s = { (uintptr_t)m, MSG, mr->lkey };
			struct ibv_send_wr w = { .wr_id = posted, .sg_list = &s, .num_sge = 1,
						 .opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED }, *bw;
			int r = ibv_post_send(id->qp, &w, &bw);
			if (r && !cut)
				die("ibv_post_send (wr %llu) before the cut: %s", (unsigned long long)posted, strerror(r));
			if (r) {
				printf("ibv_post_send (wr %llu) after the cut: %s; posting stopped\n",
				       (unsigned long long)posted, strerror(r));
				post_failed = 1;
				break;
			}
			posted++;
		}
		struct ibv_wc wc[16];
		int n = ibv_poll_cq(cq, 16, wc);
		if (n < 0)
			die("ibv_poll_cq failed");
		for (int i = 0; i < n; i++) {
			uint64_t w = wc[i].wr_id;
			if (w >= posted || seen[w]++) {
				printf("FAIL: completion for wr %llu (posted %llu) unknown or twice\n",
				       (unsigned long long)w, (unsigned long long)posted);
				bad = 1;
				continue;
			}
			st[w] = wc[i].status;
			completed++;
			t_last = now();
			if (wc[i].status == IBV_WC_SUCCESS)
				ok++;
			else if (first_err == UINT64_MAX) {
				first_err = w;
				t_err = now();
			}
		}
		struct rdma_cm_event *ce;
		while ((ce = cm_wait(ch, 0))) {
			if (nev < 16) {
				snprintf(evs[nev].what, sizeof(evs[nev].what), "%s", rdma_event_str(ce->event));
				evs[nev++].t = now();
			}
			if (ce->event == RDMA_CM_EVENT_DISCONNECTED)
				disconnected = 1;
			rdma_ack_cm_event(ce);
		}
		struct ibv_async_event ae;
		while (ibv_get_async_event(id->verbs, &ae) == 0) {
			if (nev < 16) {
				snprintf(evs[nev].what, sizeof(evs[nev].what), "async %s", ibv_event_type_str(ae.event_type));
				evs[nev++].t = now();
			}
			ibv_ack_async_event(&ae);
		}
		if (!cut && ok >= CUT_AFTER) {
			touch("cut");
			cut = 1;
			t_cut = now();
		}
		if ((first_err != UINT64_MAX || disconnected || post_failed) && completed == posted)
			break;
		if (cut && now() - t_cut > GUARD) {
			printf("FAIL: hang: %llu of %llu completions, %.0f s after the cut\n",
			       (unsigned long long)completed, (unsigned long long)posted, GUARD);
			return 1;
		}
		if (n == 0)
			usleep(500);
	}
	usleep(500000);
	struct ibv_wc extra;
	if (ibv_poll_cq(cq, 1, &extra) != 0) {
		printf("FAIL: a completion after every posted WR had one (wr %llu)\n", (unsigned long long)extra.wr_id);
		bad = 1;
	}
	uint64_t nflush = 0, nretry = 0;
	for (uint64_t w = 0; w < posted; w++) {
		if (w < first_err && st[w] != IBV_WC_SUCCESS)
			bad = 1;
		else if (w > first_err && st[w] == IBV_WC_SUCCESS) {
			printf("FAIL: wr %llu succeeded after wr %llu failed\n", (unsigned long long)w,
			       (unsigned long long)first_err);
			bad = 1;
		} else if (w >= first_err) {
			if (st[w] == IBV_WC_WR_FLUSH_ERR)
				nflush++;
			else if (st[w] == IBV_WC_RETRY_EXC_ERR)
				nretry++;
			else if (st[w] == IBV_WC_REM_OP_ERR && w == first_err && killed)
				;
			else {
				printf("FAIL: wr %llu: %s\n", (unsigned long long)w, ibv_wc_status_str(st[w]));
				bad = 1;
			}
		}
	}
	if (!cut) {
		printf("FAIL: the stream ended before the cut\n");
		bad = 1;
	}
	/* the QP is in error once a WR failed (a DISCONNECTED alone may come before) */
	struct ibv_qp_attr qa;
	struct ibv_qp_init_attr qi;
	if (ibv_query_qp(id->qp, &qa, IBV_QP_STATE, &qi))
		die("ibv_query_qp: %s", strerror(errno));
	if (first_err != UINT64_MAX && qa.qp_state != IBV_QPS_ERR) {
		printf("FAIL: QP state %d after the error, not IBV_QPS_ERR\n", qa.qp_state);
		bad = 1;
	}
	printf("stream: %llu posted, %llu success, %llu retry exceeded, %llu flushed; ",
	       (unsigned long long)posted, (unsigned long long)ok, (unsigned long long)nretry,
	       (unsigned long long)nflush);
	if (first_err != UINT64_MAX)
		printf("first error %s at wr %llu, %.2f s after the cut request; ", ibv_wc_status_str(st[first_err]),
		       (unsigned long long)first_err, t_err - t_cut);
	printf("last completion %.2f s after it; QP state %s\n", t_last - t_cut,
	       qa.qp_state == IBV_QPS_ERR ? "ERR" : "not ERR");

	/* the connection's end: our own rdma_disconnect, then DISCONNECTED and TIMEWAIT_EXIT */
	double t_dc = now();
	int r = rdma_disconnect(id);
	printf("rdma_disconnect: %s\n", r ? strerror(errno) : "0");
	for (double t0 = now(); now() - t0 < (disconnected ? TW_WAIT : DREQ_WAIT) && !timewait;) {
		struct rdma_cm_event *ce = cm_wait(ch, 1);
		if (!ce)
			continue;
		if (nev < 16) {
			snprintf(evs[nev].what, sizeof(evs[nev].what), "%s", rdma_event_str(ce->event));
			evs[nev++].t = now();
		}
		if (ce->event == RDMA_CM_EVENT_DISCONNECTED) {
			disconnected = 1;
			t0 = now();
		}
		if (ce->event == RDMA_CM_EVENT_TIMEWAIT_EXIT)
			timewait = 1;
		rdma_ack_cm_event(ce);
	}
	printf("events:");
	for (int i = 0; i < nev; i++)
		printf(" %s(%+.2fs)", evs[i].what, evs[i].t - t_cut);
	printf("\nevent kinds:");
	for (int i = 0; i < nev; i++)
		printf(" %s", evs[i].what);
	printf("\n");
	if (!disconnected) {
		printf("FAIL: no RDMA_CM_EVENT_DISCONNECTED %.0f s after rdma_disconnect\n", now() - t_dc);
		bad = 1;
	}
	printf("TIMEWAIT_EXIT: %s\n", timewait ? "arrived" : "did not arrive");

	rdma_destroy_qp(id);
	if (ibv_dereg_mr(mr) || ibv_destroy_cq(cq) || ibv_dealloc_pd(pd))
		die("destroy: %s", strerror(errno));
	if (rdma_destroy_id(id) || rdma_destroy_id(lid))
		die("rdma_destroy_id: %s", strerror(errno));
	rdma_destroy_event_channel(ch);
	free(buf);
	free(seen);
	free(st);
	return bad;
}

static int victim(const char *host)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_cm_id *id;
	struct addrinfo *ai;
	char ps[16];
	snprintf(ps, sizeof(ps), "%d", port);
	if (getaddrinfo(host, ps, NULL, &ai))
		die("cannot resolve %s", host);
	if (!ch || rdma_create_id(ch, &id, NULL, RDMA_PS_TCP))
		die("rdma_create_id: %s", strerror(errno));
	if (rdma_resolve_addr(id, NULL, ai->ai_addr, 5000))
		die("rdma_resolve_addr: %s", strerror(errno));
	rdma_ack_cm_event(cm_expect(ch, RDMA_CM_EVENT_ADDR_RESOLVED));
	if (rdma_resolve_route(id, 5000))
		die("rdma_resolve_route: %s", strerror(errno));
	rdma_ack_cm_event(cm_expect(ch, RDMA_CM_EVENT_ROUTE_RESOLVED));
	struct ibv_pd *pd = ibv_alloc_pd(id->verbs);
	struct ibv_cq *cq = pd ? ibv_create_cq(id->verbs, RQ + 8, NULL, NULL, 0) : NULL;
	if (!cq)
		die("ibv_alloc_pd/ibv_create_cq: %s", strerror(errno));
	struct ibv_qp_init_attr ia = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 1, .max_recv_wr = RQ, .max_send_sge = 1, .max_recv_sge = 1 },
	};
	if (rdma_create_qp(id, pd, &ia))
		die("rdma_create_qp: %s", strerror(errno));
	char *buf = calloc(RQ, MSG);
	struct ibv_mr *mr = ibv_reg_mr(pd, buf, RQ * MSG, IBV_ACCESS_LOCAL_WRITE);
	if (!mr)
		die("ibv_reg_mr: %s", strerror(errno));
	for (int i = 0; i < RQ; i++) {
		struct ibv_sge s = { (uintptr_t)(buf + i * MSG), MSG, mr->lkey };
		struct ibv_recv_wr w = { .wr_id = i, .sg_list = &s, .num_sge = 1 }, *bw;
		if (ibv_post_recv(id->qp, &w, &bw))
			die("ibv_post_recv failed");
	}
	struct rdma_conn_param cp = { .retry_count = 3, .rnr_retry_count = 7 };
	if (rdma_connect(id, &cp))
		die("rdma_connect: %s", strerror(errno));
	rdma_ack_cm_event(cm_expect(ch, RDMA_CM_EVENT_ESTABLISHED));
	printf("connected\n");
	uint64_t next = 0;
	for (;;) {	/* until killed */
		struct ibv_wc wc[16];
		int n = ibv_poll_cq(cq, 16, wc);
		if (n < 0)
			die("ibv_poll_cq failed");
		for (int i = 0; i < n; i++) {
			if (wc[i].status != IBV_WC_SUCCESS) {
				printf("receive %llu: %s\n", (unsigned long long)next, ibv_wc_status_str(wc[i].status));
				continue;
			}
			if (!msg_ok(buf + wc[i].wr_id * MSG, next)) {
				printf("FAIL: message %llu out of order or corrupted\n", (unsigned long long)next);
				return 1;
			}
			next++;
			if (next % 100 == 0)
				printf("received %llu in order\n", (unsigned long long)next);
			struct ibv_sge s = { (uintptr_t)(buf + wc[i].wr_id * MSG), MSG, mr->lkey };
			struct ibv_recv_wr w = { .wr_id = wc[i].wr_id, .sg_list = &s, .num_sge = 1 }, *bw;
			if (ibv_post_recv(id->qp, &w, &bw))
				die("ibv_post_recv failed");
		}
		if (n == 0)
			usleep(200);
	}
}

int main(int argc, char **argv)
{
	const char *host = NULL;
	int o;
	while ((o = getopt(argc, argv, "c:kp:s:")) != -1) {
		switch (o) {
		case 'k': killed = 1; break;
		case 'c': host = optarg; break;
		case 'p': port = atoi(optarg); break;
		case 's': syncdir = optarg; break;
		default: die("usage: rc_peerkill -p PORT (-s SYNCDIR | -c SERVER)");
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (host)
		return victim(host);
	if (!syncdir)
		die("the survivor needs -s SYNCDIR");
	int r = survivor();
	printf("%s\n", r ? "FAIL" : "PASS");
	return r;
}
