/* A ping-pong written as Rust programs on the sideway binding write it: an
 * extended CQ shared by send and receive (rx_depth + 1 entries), sends posted
 * with ibv_wr_* while an ibv_start_poll batch on that CQ is open, right after
 * the previous send's completion was read, receives reposted inside the same
 * batch once half are consumed, and ibv_end_poll after ibv_next_poll's ENOENT.
 *
 * Two processes (fork), each with its own context, on rxe0 (GID index 1).
 * Every message carries its sequence number and a pattern derived from it;
 * the receiver checks both, so a lost, duplicated, reordered or overwritten
 * message is seen. Cases (`modes`): max_send_wr 1, 2 and 3, up to that many
 * sends in flight, posted inside the poll batch or after ibv_end_poll, with
 * ibv_wr_* or ibv_post_send, receives on the QP's RQ or on an SRQ, deep or
 * one at a time.
 *
 * Outcomes: "ok" (every message sent and received, data checked), "full"
 * (a post reported a full queue: ENOSPC or ENOMEM), "error" (another error,
 * a bad completion, or a completion read twice), "stall" (no completion for
 * STALL_SECS while messages are outstanding: a hang). On our data path every
 * case must be "ok", with no CQ overflow event. rdma-core 44's rxe (Debian's
 * library, or its plugin hosted by ours) steps its CQ index twice when
 * ibv_end_poll follows ibv_next_poll's ENOENT, so it reads stale completions
 * and reports full queues; its answer varies from run to run, so it is
 * printed as "[system]" lines, not compared.
 *
 * Stress mode: ONE_SLOT_ROUNDS rounds of every case (default 1) with
 * ONE_SLOT_ITERS messages each way (default 64); on ours, lost, duplicated
 * and corrupted messages over all rounds must be 0. */
#include "dp.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MSG 1024
#define STALL_SECS 30
#define SEND_ID 0xffffffffull

enum outcome { OK, FULL, ERROR, STALL, NOUTCOMES };
static const char *outcome_name[] = {"ok", "full", "error", "stall"};

struct result {
	int outcome;
	int err;		/* errno of a failed post or verb */
	unsigned sent, received;
	unsigned lost, dup, corrupt;	/* seen by the receiver */
	unsigned cq_err_events;
	char step[24];		/* where an error came from */
};

struct peer_info {
	uint32_t qpn;
};

static void fill(char *p, uint32_t seq, int side)
{
	uint32_t x = seq * 2654435761u + side;

	memcpy(p, &seq, 4);
	for (int i = 4; i < MSG; i++) {
		x = x * 1103515245u + 12345u;
		p[i] = (char)(x >> 16);
	}
}

static int check(const char *p, uint32_t want, int side)
{
	static char ref[MSG];

	fill(ref, want, side);
	return memcmp(p, ref, MSG) == 0;
}

/* Counts IBV_EVENT_CQ_ERR events waiting on the context (non-blocking). */
static unsigned drain_async(struct ibv_context *ctx)
{
	struct ibv_async_event ev;
	struct pollfd pfd = {.fd = ctx->async_fd, .events = POLLIN};
	unsigned n = 0;

	while (poll(&pfd, 1, 0) == 1) {
		if (ibv_get_async_event(ctx, &ev))
			break;
		if (ev.event_type == IBV_EVENT_CQ_ERR)
			n++;
		ibv_ack_async_event(&ev);
	}
	return n;
}

static int to_init(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = IBV_ACCESS_LOCAL_WRITE,
	};

	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
					IBV_QP_ACCESS_FLAGS);
}

static int to_rts(struct ibv_qp *qp, uint32_t remote, const union ibv_gid *gid)
{
	struct ibv_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = remote;
	a.rq_psn = 0;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 1;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = *gid;
	a.ah_attr.grh.sgid_index = 1;
	a.ah_attr.grh.hop_limit = 1;
	a.ah_attr.port_num = 1;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
				     IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
				     IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
					IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
					IBV_QP_MAX_QP_RD_ATOMIC);
}

/* One case: the queue sizes and how each side posts. */
struct mode {
	unsigned sq;		/* max_send_wr */
	unsigned rx;		/* receive depth; 0: the message count (at most 500) */
	int inside;		/* sends posted inside the poll batch */
	int wr_api;		/* ibv_wr_* (else ibv_post_send) */
	int srq;		/* receives on an SRQ (else the QP's RQ) */
};

static const struct mode modes[] = {
	{1, 0, 1, 1, 0}, {1, 0, 0, 1, 0}, {2, 0, 1, 1, 0},
	{2, 0, 0, 1, 0}, {3, 0, 1, 1, 0}, {3, 0, 0, 1, 0},
	{1, 0, 1, 0, 0}, {2, 0, 1, 0, 0}, {3, 0, 1, 0, 0},
	{1, 0, 1, 1, 1}, {1, 0, 0, 0, 1},
	/* one receive at a time too (the sender waits on RNR retries) */
	{1, 1, 1, 1, 0}, {1, 1, 1, 0, 1},
};

struct run {
	int side;		/* 0 server, 1 client (sends first) */
	unsigned sq, iters, rx_depth;
	int inside, wr_api, use_srq;
	int sock;
};

struct state {
	struct ibv_qp_ex *qpx;
	struct ibv_qp *qp;
	struct ibv_srq *srq;
	struct ibv_mr *mr;
	char *sbuf, *rbuf;	/* sq send slots, rx_depth receive slots */
	unsigned posted_recv, sent, in_flight, send_done;
	struct result *res;
};

static int post_recv(struct run *r, struct state *s)
{
	unsigned slot = s->posted_recv % r->rx_depth;
	struct ibv_sge sge = {
		.addr = (uintptr_t)(s->rbuf + (size_t)slot * MSG),
		.length = MSG,
		.lkey = s->mr->lkey,
	};
	struct ibv_recv_wr wr = {.wr_id = s->posted_recv, .sg_list = &sge, .num_sge = 1}, *bad;
	int e = s->srq ? ibv_post_srq_recv(s->srq, &wr, &bad) : ibv_post_recv(s->qp, &wr, &bad);

	if (e) {
		s->res->outcome = e == ENOMEM ? FULL : ERROR;
		s->res->err = e;
		return -1;
	}
	s->posted_recv++;
	return 0;
}

static int post_send(struct run *r, struct state *s)
{
	unsigned slot = s->sent % r->sq;
	char *p = s->sbuf + (size_t)slot * MSG;
	int e;

	fill(p, s->sent, r->side);
	if (r->wr_api) {
		ibv_wr_start(s->qpx);
		s->qpx->wr_id = SEND_ID;
		s->qpx->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_send(s->qpx);
		ibv_wr_set_sge(s->qpx, s->mr->lkey, (uintptr_t)p, MSG);
		e = ibv_wr_complete(s->qpx);
	} else {
		struct ibv_sge sge = {.addr = (uintptr_t)p, .length = MSG, .lkey = s->mr->lkey};
		struct ibv_send_wr wr = {.wr_id = SEND_ID, .sg_list = &sge, .num_sge = 1,
					 .opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED};
		struct ibv_send_wr *bad;

		e = ibv_post_send(s->qp, &wr, &bad);
	}
	if (e) {
		s->res->outcome = e == ENOSPC || e == ENOMEM ? FULL : ERROR;
		s->res->err = e;
		return -1;
	}
	s->sent++;
	s->in_flight++;
	return 0;
}

static int want_send(struct run *r, struct state *s)
{
	return s->sent < r->iters && s->in_flight < r->sq;
}

/* One completion of the batch; -1 ends the run (outcome set). */
static int on_completion(struct run *r, struct state *s, struct ibv_cq_ex *cq,
			 unsigned *rout)
{
	struct result *res = s->res;

	if (cq->status != IBV_WC_SUCCESS) {
		res->outcome = ERROR;
		res->err = -(int)cq->status;
		return -1;
	}
	if (cq->wr_id == SEND_ID) {
		if (!s->in_flight) {
			/* a completion for no send: a stale entry read again */
			res->dup++;
			res->outcome = ERROR;
			return -1;
		}
		s->in_flight--;
		s->send_done++;
	} else if (res->received >= r->iters) {
		/* more receives than were sent: a stale entry read again */
		res->dup++;
		res->outcome = ERROR;
		return -1;
	} else {
		uint64_t n = cq->wr_id;
		unsigned slot = n % r->rx_depth;
		uint32_t seq;

		memcpy(&seq, s->rbuf + (size_t)slot * MSG, 4);
		if (n != res->received || ibv_wc_read_byte_len(cq) != MSG)
			res->corrupt++;
		else if (seq < res->received)
			res->dup++;
		else if (seq > res->received)
			res->lost += seq - res->received;
		else if (!check(s->rbuf + (size_t)slot * MSG, seq, !r->side))
			res->corrupt++;
		res->received++;
		(*rout)--;
		if (*rout <= r->rx_depth / 2) {
			while (*rout < r->rx_depth &&
			       s->posted_recv < r->iters + r->rx_depth) {
				if (post_recv(r, s))
					return -1;
				(*rout)++;
			}
		}
	}
	if (r->inside && want_send(r, s) && post_send(r, s))
		return -1;
	return 0;
}

/* Whether the other process has closed its end (it gave up or died). */
static int peer_gone(int sock)
{
	struct pollfd pfd = {.fd = sock, .events = POLLRDHUP};

	return poll(&pfd, 1, 0) == 1 && (pfd.revents & (POLLRDHUP | POLLHUP | POLLERR));
}

static void peer(struct run *r, struct result *res)
{
	struct ibv_device_attr dattr;
	struct ibv_context *ctx = rxe_open(&dattr);
	struct ibv_pd *pd;
	struct ibv_cq_ex *cq;
	struct state s = {.res = res};
	struct peer_info me, them;
	union ibv_gid gid;
	unsigned rout = 0;
	double last;

	res->outcome = ERROR;
#define STEP(name) snprintf(res->step, sizeof(res->step), "%s", name)
	STEP("open");
	if (!ctx || !(pd = ibv_alloc_pd(ctx))) {
		res->err = errno;
		return;
	}
	struct ibv_cq_init_attr_ex ca = {
		.cqe = r->rx_depth + 1,
		.wc_flags = IBV_WC_EX_WITH_BYTE_LEN,
	};
	cq = ibv_create_cq_ex(ctx, &ca);
	struct ibv_qp_init_attr_ex qa = {
		.qp_type = IBV_QPT_RC,
		.send_cq = ibv_cq_ex_to_cq(cq),
		.recv_cq = ibv_cq_ex_to_cq(cq),
		.cap = {.max_send_wr = r->sq, .max_recv_wr = r->rx_depth,
			.max_send_sge = 1, .max_recv_sge = 1, .max_inline_data = 128},
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = pd,
		.send_ops_flags = IBV_QP_EX_WITH_SEND,
	};
	size_t len = (size_t)(r->sq + r->rx_depth) * MSG;

	if (r->use_srq) {
		struct ibv_srq_init_attr sa = {.attr = {.max_wr = r->rx_depth, .max_sge = 1}};

		STEP("create_srq");
		if (!(s.srq = ibv_create_srq(pd, &sa))) {
			res->err = errno;
			return;
		}
		qa.srq = s.srq;
	}
	if ((STEP("create_cq_ex"), !cq) ||
	    (STEP("create_qp_ex"), !(s.qp = ibv_create_qp_ex(ctx, &qa))) ||
	    !(s.qpx = ibv_qp_to_qp_ex(s.qp)) || !(s.sbuf = calloc(1, len)) ||
	    (STEP("reg_mr"), !(s.mr = ibv_reg_mr(pd, s.sbuf, len, IBV_ACCESS_LOCAL_WRITE)))) {
		res->err = errno;
		return;
	}
	s.rbuf = s.sbuf + (size_t)r->sq * MSG;
	STEP("init");
	if (to_init(s.qp)) {
		res->err = errno;
		return;
	}
	STEP("post_recv");
	for (unsigned i = 0; i < r->rx_depth; i++) {
		if (post_recv(r, &s))
			return;
		rout++;
	}
	if (ibv_query_gid(ctx, 1, 1, &gid))
		memset(&gid, 0, sizeof(gid));
	me.qpn = s.qp->qp_num;
	STEP("connect");
	if (write(r->sock, &me, sizeof(me)) != sizeof(me) ||
	    read(r->sock, &them, sizeof(them)) != sizeof(them) ||
	    to_rts(s.qp, them.qpn, &gid)) {
		res->err = errno;
		return;
	}
	/* both sides ready to receive before the first send */
	if (write(r->sock, &me, 1) != 1 || read(r->sock, &them, 1) != 1)
		return;
	STEP("traffic");
	if (r->side == 1 && post_send(r, &s))
		goto out;
	last = dp_now();
	while (s.send_done < r->iters || res->received < r->iters) {
		struct ibv_poll_cq_attr pa = {0};
		int e = ibv_start_poll(cq, &pa);

		if (e == ENOENT) {
			if (!r->inside && want_send(r, &s) && post_send(r, &s))
				goto out;
			if (dp_now() - last > 1 && peer_gone(r->sock)) {
				res->err = -1001;
				goto out;
			}
			if (dp_now() - last > STALL_SECS) {
				res->outcome = STALL;
				goto out;
			}
			continue;
		}
		if (e) {
			res->err = e;
			goto out;
		}
		last = dp_now();
		for (;;) {
			if (on_completion(r, &s, cq, &rout)) {
				ibv_end_poll(cq);
				goto out;
			}
			e = ibv_next_poll(cq);
			if (e == ENOENT)
				break;
			if (e) {
				res->err = e;
				ibv_end_poll(cq);
				goto out;
			}
		}
		ibv_end_poll(cq);
		if (!r->inside && want_send(r, &s) && post_send(r, &s))
			goto out;
	}
	res->outcome = OK;
	/* the peer may still wait for our last ACKs: stay until it is done */
	if (write(r->sock, &me, 1) == 1)
		(void)!read(r->sock, &them, 1);
out:
	res->sent = s.sent;
	res->cq_err_events = drain_async(ctx);
	ibv_destroy_qp(s.qp);
	if (s.srq)
		ibv_destroy_srq(s.srq);
	ibv_dereg_mr(s.mr);
	ibv_destroy_cq(ibv_cq_ex_to_cq(cq));
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	free(s.sbuf);
}

/* Runs both peers of one case; fills res[2]. */
static void run_case(const struct mode *m, unsigned iters, struct result res[2])
{
	int sv[2], pipes[2][2];
	pid_t pid[2];

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv)) {
		perror("socketpair");
		exit(2);
	}
	for (int side = 0; side < 2; side++) {
		if (pipe(pipes[side])) {
			perror("pipe");
			exit(2);
		}
		pid[side] = fork();
		if (pid[side] == 0) {
			unsigned rx = m->rx ? m->rx : iters < 500 ? iters : 500;
			struct run r = {.side = side, .sq = m->sq, .iters = iters,
					.rx_depth = rx, .inside = m->inside,
					.wr_api = m->wr_api, .use_srq = m->srq,
					.sock = sv[side]};
			struct result out = {0};

			close(sv[!side]);
			/* a hang ends the process: the parent reads no result */
			alarm(STALL_SECS * 4);
			peer(&r, &out);
			if (write(pipes[side][1], &out, sizeof(out)) != sizeof(out))
				_exit(2);
			_exit(0);
		}
	}
	close(sv[0]);
	close(sv[1]);
	for (int side = 0; side < 2; side++) {
		close(pipes[side][1]);
		memset(&res[side], 0, sizeof(res[side]));
		if (read(pipes[side][0], &res[side], sizeof(res[side])) != sizeof(res[side])) {
			res[side].outcome = STALL;
			snprintf(res[side].step, sizeof(res[side].step), "killed");
		}
		close(pipes[side][0]);
	}
	for (int side = 0; side < 2; side++) {
		int st;

		/* a peer whose other side gave up may wait on the socket: it is closed */
		waitpid(pid[side], &st, 0);
	}
}

int main(void)
{
	const char *e;
	unsigned rounds = (e = getenv("ONE_SLOT_ROUNDS")) ? (unsigned)atoi(e) : 1;
	unsigned iters = (e = getenv("ONE_SLOT_ITERS")) ? (unsigned)atoi(e) : 64;
	unsigned long lost = 0, dup = 0, corrupt = 0, msgs = 0;
	unsigned counts[NOUTCOMES] = {0};
	int strict = ctest_ours_dp();

	ctest_init();
	if (!rxe_any_device())
		return ctest_finish();
	if (!rounds || !iters) {
		fprintf(stderr, "FAIL: ONE_SLOT_ROUNDS and ONE_SLOT_ITERS must be positive\n");
		return 1;
	}
	printf("one_slot: %u message(s) each way, %u round(s)\n", iters, rounds);
	for (unsigned round = 0; round < rounds; round++) {
		for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
			const struct mode *m = &modes[i];
			struct result res[2];
			char name[80];

			snprintf(name, sizeof(name), "sq %u rx %s %s %s %s", m->sq,
				 m->rx ? "1" : "n", m->srq ? "srq" : "rq",
				 m->wr_api ? "ibv_wr" : "post_send",
				 m->inside ? "inside" : "outside");
			run_case(m, iters, res);
			for (int side = 0; side < 2; side++) {
				struct result *x = &res[side];

				lost += x->lost;
				dup += x->dup;
				corrupt += x->corrupt;
				msgs += x->received;
				counts[x->outcome]++;
				if (round == 0 || x->outcome != OK)
					ctest_impl_line("%s %s: %s (errno %d in %s) sent %u received %u cq_err %u",
							name, side ? "client" : "server",
							outcome_name[x->outcome], x->err, x->step,
							x->sent, x->received, x->cq_err_events);
				if (strict) {
					CHECK(x->outcome == OK,
					      "%s side %d: %s (errno %d in %s), sent %u received %u",
					      name, side, outcome_name[x->outcome], x->err,
					      x->step, x->sent, x->received);
					CHECK(x->cq_err_events == 0, "%s side %d: CQ overflow reported",
					      name, side);
				}
			}
		}
	}
	/* rdma-core 44's stale completions show up here too: checked on ours. */
	if (strict)
		CHECK(lost == 0 && dup == 0 && corrupt == 0,
		      "lost %lu duplicated %lu corrupted %lu of %lu", lost, dup, corrupt, msgs);
	ctest_impl_line("outcomes: ok %u full %u error %u stall %u; %lu messages received: "
			"lost %lu duplicated %lu corrupted %lu",
			counts[OK], counts[FULL], counts[ERROR],
			counts[STALL], msgs, lost, dup, corrupt);
	return ctest_finish();
}
