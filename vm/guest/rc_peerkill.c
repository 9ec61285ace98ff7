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
#define PROG "rc_peerkill"
#include "rc_common.h"
#include <rdma/rdma_cma.h>

#define RQ 256
#define GUARD 90.0
#define TW_WAIT 60.0
#define DREQ_WAIT 200.0

static const char *syncdir;
static int port = 20900, killed;

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
	char *buf = calloc(DEPTH, msg);
	struct ibv_mr *mr = ibv_reg_mr(pd, buf, DEPTH * msg, IBV_ACCESS_LOCAL_WRITE);
	if (!mr)
		die("ibv_reg_mr: %s", strerror(errno));
	struct rdma_conn_param cp = { .retry_count = 3, .rnr_retry_count = 7 };
	if (rdma_accept(id, &cp))
		die("rdma_accept: %s", strerror(errno));
	rdma_ack_cm_event(cm_expect(ch, RDMA_CM_EVENT_ESTABLISHED));
	nonblock(ch->fd);
	nonblock(id->verbs->async_fd);

	struct stream s;
	struct ev evs[16];
	int nev = 0, cut = 0, disconnected = 0, timewait = 0;
	double t_cut = 0;
	stream_init(&s, id->qp, mr, buf);

	/* stream until the first error, then drain; read events throughout */
	for (;;) {
		if (s.first_err == UINT64_MAX && !disconnected)
			stream_post(&s, cut);
		int n = stream_reap(&s, cq);
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
		if (!cut && s.ok >= CUT_AFTER) {
			touch(syncdir, "cut");
			cut = 1;
			t_cut = now();
		}
		if ((s.first_err != UINT64_MAX || disconnected || s.post_failed) && s.completed == s.posted)
			break;
		if (cut && now() - t_cut > GUARD) {
			printf("FAIL: hang: %llu of %llu completions, %.0f s after the cut\n",
			       (unsigned long long)s.completed, (unsigned long long)s.posted, GUARD);
			return 1;
		}
		if (n == 0)
			usleep(500);
	}
	stream_judge(&s, cq, killed);
	int bad = s.bad;
	if (!cut) {
		printf("FAIL: the stream ended before the cut\n");
		bad = 1;
	}
	/* the QP is in error once a WR failed (a DISCONNECTED alone may come before) */
	enum ibv_qp_state qs = qp_state(id->qp);
	if (s.first_err != UINT64_MAX && qs != IBV_QPS_ERR) {
		printf("FAIL: QP state %d after the error, not IBV_QPS_ERR\n", qs);
		bad = 1;
	}
	printf("stream: %llu posted, %llu success, %llu retry exceeded, %llu flushed; ",
	       (unsigned long long)s.posted, (unsigned long long)s.ok, (unsigned long long)s.nretry,
	       (unsigned long long)s.nflush);
	if (s.first_err != UINT64_MAX)
		printf("first error %s at wr %llu, %.2f s after the cut request; ", ibv_wc_status_str(s.st[s.first_err]),
		       (unsigned long long)s.first_err, s.t_err - t_cut);
	printf("last completion %.2f s after it; QP state %s\n", s.t_last - t_cut,
	       qs == IBV_QPS_ERR ? "ERR" : "not ERR");

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
	stream_free(&s);
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
	char *buf = calloc(RQ, msg);
	struct ibv_mr *mr = ibv_reg_mr(pd, buf, RQ * msg, IBV_ACCESS_LOCAL_WRITE);
	if (!mr)
		die("ibv_reg_mr: %s", strerror(errno));
	for (int i = 0; i < RQ; i++) {
		struct ibv_sge s = { (uintptr_t)(buf + i * msg), msg, mr->lkey };
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
			if (!msg_ok(buf + wc[i].wr_id * msg, next)) {
				printf("FAIL: message %llu out of order or corrupted\n", (unsigned long long)next);
				return 1;
			}
			next++;
			if (next % 100 == 0)
				printf("received %llu in order\n", (unsigned long long)next);
			struct ibv_sge s = { (uintptr_t)(buf + wc[i].wr_id * msg), msg, mr->lkey };
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
