/* ibv_bench: micro-benchmarks of a libibverbs.so.1 on an rxe device.
 *
 * Built once against Debian's <infiniband/verbs.h> and -libverbs; the library
 * under test is chosen at run time (LD_LIBRARY_PATH / LD_PRELOAD), so the very
 * same binary measures Debian's rdma-core 44 and ours. bench/run.sh runs it in
 * the Soft-RoCE VM, interleaving the two libraries round by round.
 *
 *   ibv_bench [-d DEV] [-g GIDX] [-s SCALE] [-b BATCHES] [-q] [ROW|GROUP ...]
 *
 * GROUP: data, control, memory (the default is all three), peak (the peak-RSS
 * run of 1000 QPs; run it in a process of its own). -q: quick (smoke test):
 * one batch, scale 0.02. -l: list the rows. One line per row on stdout, tab-separated:
 *
 *   R <row> <value> <unit> <description>
 *   R <row> n/a <unit> <description> <TAB>error: <strerror>
 *
 * A row's value is the median over its timed batches (after one warm-up
 * batch) of the batch's time divided by its operations, from
 * clock_gettime(CLOCK_MONOTONIC) around each batch. A verb that fails makes
 * its row n/a and the program goes on with the next row.
 *
 * Rows timed in batches (data and control) also print, after their R line,
 *
 *   O <row> <ops> <batches>
 *
 * the number of operations of their timed batches (warm-up excluded) and of
 * those batches. Under
 * callgrind (valgrind --tool=callgrind --collect-atstart=no) exactly those
 * timed regions are collected (CALLGRIND_TOGGLE_COLLECT just outside each
 * clock_gettime pair; a few no-op instructions when not under valgrind), and
 * each such row ends with a dump of its own (CALLGRIND_DUMP_STATS_AT(row)), so
 * (dump Ir - batches * region overhead) / ops = user-space instructions per
 * operation. The region overhead (two clock reads and the toggles) is measured
 * first when under valgrind, as an empty timed region dumped as
 * "region_overhead" (O line: 0 ops, 1 batch).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <infiniband/verbs.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <valgrind/callgrind.h>

#define MAXB 64

static const char *dev_name = "rxe0";
static int gid_index = 1;
static double scale = 1.0;
static int batches = 7;

struct env {
	struct ibv_device *dev;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	union ibv_gid gid;
	char *buf;		/* 1 MiB, registered as mr */
	struct ibv_mr *mr;
	struct ibv_cq *cq;	/* stays empty: post_recv and empty-poll rows */
	/* a connected RC pair: a sends to b (and back, for the round trip) */
	struct ibv_cq *a_scq, *a_rcq, *b_scq, *b_rcq;
	struct ibv_qp *a, *b;
	int pair_err;		/* errno why the pair could not be set up */
};

/* callgrind collection of the timed regions: the batch being run is a timed
 * one (not the warm-up), collection is on, operations of the row's timed
 * batches so far */
static int cg_timed, cg_on;
static long long row_ops;
static int row_batches;

/* just before a timed region of n operations (before its first clock read) */
static void cg_start(int n)
{
	if (!cg_timed)
		return;
	row_ops += n;
	row_batches++;
	if (!cg_on) {
		cg_on = 1;
		CALLGRIND_TOGGLE_COLLECT;
	}
}

/* just after the timed region (after its last clock read); also after every
 * batch, in case it left its region early */
static void cg_stop(void)
{
	if (cg_on) {
		CALLGRIND_TOGGLE_COLLECT;
		cg_on = 0;
	}
}

static double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int iters(int base)
{
	int n = (int)(base * scale);

	return n < 1 ? 1 : n;
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_dbl);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* errno of a verb that returned rc (0, an errno, or -1 with errno set) */
static int verr(int rc)
{
	if (rc == 0)
		return 0;
	if (rc < 0)
		return errno ? errno : EIO;
	return rc;
}

/* poll_cq's result: n >= 0 completions, or -errno. A "count" above what was
 * asked for is a provider returning an errno where it should not (rdma-core's
 * dummy op returns EOPNOTSUPP): taken as that errno. */
static int cq_poll(struct ibv_cq *cq, int max, struct ibv_wc *wc)
{
	int n = ibv_poll_cq(cq, max, wc);

	if (n < 0)
		return n;
	if (n > max)
		return -n;
	for (int i = 0; i < n; i++)
		if (wc[i].status != IBV_WC_SUCCESS)
			return -EIO;
	return n;
}

/* waits (up to ~30 s) until `want` completions were polled from cq */
static int wait_cq(struct ibv_cq *cq, int want)
{
	struct ibv_wc wc[16];
	double deadline = now_ns() + 30e9;
	int got = 0, n;

	while (got < want) {
		n = cq_poll(cq, want - got > 16 ? 16 : want - got, wc);
		if (n < 0)
			return -n;
		got += n;
		if (n == 0 && now_ns() > deadline)
			return ETIMEDOUT;
	}
	return 0;
}

/* ---------------------------------------------------------------- set-up */

static struct ibv_qp *make_qp(struct env *e, struct ibv_cq *scq, struct ibv_cq *rcq,
			      int sdepth, int rdepth, int inl)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = scq, .recv_cq = rcq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = sdepth, .max_recv_wr = rdepth,
			 .max_send_sge = 1, .max_recv_sge = 1, .max_inline_data = inl },
	};

	return ibv_create_qp(e->pd, &ia);
}

static int qp_init(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .pkey_index = 0, .port_num = 1,
		.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ,
	};

	return verr(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
					  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS));
}

/* INIT -> RTR -> RTS towards remote QP number dqpn on our own GID */
static int qp_rts(struct env *e, struct ibv_qp *qp, uint32_t dqpn)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTR, .path_mtu = IBV_MTU_1024, .dest_qp_num = dqpn,
		.rq_psn = 0, .max_dest_rd_atomic = 1, .min_rnr_timer = 12,
		.ah_attr = { .is_global = 1, .port_num = 1,
			     .grh = { .dgid = e->gid, .sgid_index = gid_index, .hop_limit = 1 } },
	};
	int rc = verr(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
					       IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
					       IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER));
	if (rc)
		return rc;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.sq_psn = 0;
	a.max_rd_atomic = 1;
	return verr(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
					       IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
					       IBV_QP_MAX_QP_RD_ATOMIC));
}

#define PAIR_DEPTH 1024

static int setup(struct env *e)
{
	struct ibv_device **l = ibv_get_device_list(NULL);

	if (!l)
		return errno ? errno : ENODEV;
	for (int i = 0; l[i]; i++)
		if (!strcmp(ibv_get_device_name(l[i]), dev_name))
			e->dev = l[i];
	if (!e->dev)
		return ENODEV;
	/* the list stays allocated: e->dev is used by the open/close row */
	e->ctx = ibv_open_device(e->dev);
	if (!e->ctx)
		return errno ? errno : EIO;
	e->pd = ibv_alloc_pd(e->ctx);
	if (!e->pd)
		return errno;
	e->buf = aligned_alloc(4096, 1 << 20);
	memset(e->buf, 0, 1 << 20);
	e->mr = ibv_reg_mr(e->pd, e->buf, 1 << 20, IBV_ACCESS_LOCAL_WRITE |
			   IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	if (!e->mr)
		return errno;
	e->cq = ibv_create_cq(e->ctx, 256, NULL, NULL, 0);
	if (!e->cq)
		return errno;
	return 0;
}

/* the connected RC pair a <-> b on our own GID (loopback through rxe) */
static int setup_pair(struct env *e)
{
	int rc;

	if ((rc = verr(ibv_query_gid(e->ctx, 1, gid_index, &e->gid))))
		return rc;
	e->a_scq = ibv_create_cq(e->ctx, 2 * PAIR_DEPTH, NULL, NULL, 0);
	e->a_rcq = ibv_create_cq(e->ctx, 2 * PAIR_DEPTH, NULL, NULL, 0);
	e->b_scq = ibv_create_cq(e->ctx, 2 * PAIR_DEPTH, NULL, NULL, 0);
	e->b_rcq = ibv_create_cq(e->ctx, 2 * PAIR_DEPTH, NULL, NULL, 0);
	if (!e->a_scq || !e->a_rcq || !e->b_scq || !e->b_rcq)
		return errno;
	e->a = make_qp(e, e->a_scq, e->a_rcq, PAIR_DEPTH, PAIR_DEPTH, 64);
	e->b = make_qp(e, e->b_scq, e->b_rcq, PAIR_DEPTH, PAIR_DEPTH, 64);
	if (!e->a || !e->b)
		return errno;
	if ((rc = qp_init(e->a)) || (rc = qp_init(e->b)) ||
	    (rc = qp_rts(e, e->a, e->b->qp_num)) || (rc = qp_rts(e, e->b, e->a->qp_num)))
		return rc;
	return 0;
}

/* ---------------------------------------------------------------- rows */

typedef int (*row_fn)(struct env *e, double *out);

/* Runs one batch function (returns ns per op, or <0: -errno) 1 + batches times. */
#define BATCHES(expr)                                                   \
	do {                                                            \
		double v_[MAXB];                                        \
		for (int b_ = 0; b_ <= batches; b_++) {                 \
			cg_timed = b_ > 0;                              \
			double r_ = (expr);                             \
			cg_stop();                                      \
			cg_timed = 0;                                   \
			if (r_ < 0)                                     \
				return (int)-r_;                        \
			if (b_ > 0)                                     \
				v_[b_ - 1] = r_;                        \
		}                                                       \
		*out = median(v_, batches);                             \
		return 0;                                               \
	} while (0)

/* post_recv: a fresh RC QP in INIT with a receive queue of RQ_DEPTH, filled
 * by timed posts of `list` WRs each; the QP is re-created between batches. */
#define RQ_DEPTH 4096
static double b_post_recv(struct env *e, int list)
{
	struct ibv_qp *qp = make_qp(e, e->cq, e->cq, 1, RQ_DEPTH, 0);
	struct ibv_recv_wr wr[16], *bad;
	struct ibv_sge sge[16];
	int rc, n = RQ_DEPTH / list;
	double t;

	if (!qp)
		return -errno;
	if ((rc = qp_init(qp))) {
		ibv_destroy_qp(qp);
		return -rc;
	}
	for (int i = 0; i < list; i++) {
		sge[i] = (struct ibv_sge){ (uintptr_t)e->buf + 64 * i, 64, e->mr->lkey };
		wr[i] = (struct ibv_recv_wr){ .wr_id = i, .sg_list = &sge[i], .num_sge = 1,
					      .next = i + 1 < list ? &wr[i + 1] : NULL };
	}
	cg_start(n);
	t = now_ns();
	for (int i = 0; i < n; i++)
		if ((rc = ibv_post_recv(qp, wr, &bad)))
			break;
	t = now_ns() - t;
	cg_stop();
	ibv_destroy_qp(qp);
	return rc ? -verr(rc) : t / n;
}

static int row_post_recv_1(struct env *e, double *out) { BATCHES(b_post_recv(e, 1)); }
static int row_post_recv_16(struct env *e, double *out) { BATCHES(b_post_recv(e, 16)); }

static double b_poll_empty(struct env *e)
{
	struct ibv_wc wc;
	int n = iters(100000), r = 0;
	double t;

	cg_start(n);
	t = now_ns();
	for (int i = 0; i < n; i++)
		if ((r = cq_poll(e->cq, 1, &wc)) != 0)
			break;
	t = now_ns() - t;
	cg_stop();
	if (r < 0)
		return r;
	return r ? -EPROTO : t / n;
}

static int row_poll_cq_empty(struct env *e, double *out)
{
	BATCHES(b_poll_empty(e));
}

/* posts n sends (or RDMA writes) a->b of `len` bytes in signaled chunks of
 * up to 64 WRs and waits for their completions on a's send CQ */
static int send_msgs(struct env *e, int n, enum ibv_wr_opcode op, int len)
{
	struct ibv_sge sge = { (uintptr_t)e->buf, len, e->mr->lkey };
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1, .opcode = op }, *bad;
	int rc;

	wr.wr.rdma.remote_addr = (uintptr_t)e->buf + 4096;
	wr.wr.rdma.rkey = e->mr->rkey;
	while (n > 0) {
		int c = n > 64 ? 64 : n;
		for (int i = 0; i < c; i++) {
			wr.send_flags = i == c - 1 ? IBV_SEND_SIGNALED : 0;
			if ((rc = ibv_post_send(e->a, &wr, &bad)))
				return verr(rc);
		}
		if ((rc = wait_cq(e->a_scq, 1)))
			return rc;
		n -= c;
	}
	return 0;
}

static int post_recvs(struct ibv_qp *qp, struct env *e, int n)
{
	struct ibv_sge sge = { (uintptr_t)e->buf + 8192, 64, e->mr->lkey };
	struct ibv_recv_wr wr = { .sg_list = &sge, .num_sge = 1 }, *bad;
	int rc;

	for (int i = 0; i < n; i++)
		if ((rc = ibv_post_recv(qp, &wr, &bad)))
			return verr(rc);
	return 0;
}

/* poll_cq draining 16: K*16 receive completions are made to wait in b's
 * receive CQ (a's send completion of the last send means the responder has
 * already written every receive completion), then K polls of 16 are timed. */
static double b_poll_16(struct env *e)
{
	int k = iters(32), rc, n;
	struct ibv_wc wc[16];
	double t;

	if (k * 16 > PAIR_DEPTH)
		k = PAIR_DEPTH / 16;
	if ((rc = post_recvs(e->b, e, k * 16)) || (rc = send_msgs(e, k * 16, IBV_WR_SEND, 8)))
		return -rc;
	cg_start(k);
	t = now_ns();
	for (int i = 0; i < k; i++)
		if ((n = cq_poll(e->b_rcq, 16, wc)) != 16)
			return n < 0 ? n : -EAGAIN;
	t = now_ns() - t;
	cg_stop();
	return t / k;
}

static int row_poll_cq_16(struct env *e, double *out)
{
	if (!e->a)
		return e->pair_err;
	BATCHES(b_poll_16(e));
}

/* post_send with its doorbell: RDMA writes a->b, `list` WRs per call, the
 * last WR of a batch signaled; the batch's completion is awaited untimed. */
static double b_post_send(struct env *e, int list, int inl)
{
	struct ibv_sge sge[16];
	struct ibv_send_wr wr[16], *bad;
	int n = iters(256) / list, rc = 0;
	double t;

	if (n < 1)
		n = 1;
	if (n * list > PAIR_DEPTH / 2)
		n = PAIR_DEPTH / 2 / list;
	for (int i = 0; i < list; i++) {
		sge[i] = (struct ibv_sge){ (uintptr_t)e->buf + 64 * i, inl ? 64 : 8, e->mr->lkey };
		wr[i] = (struct ibv_send_wr){ .wr_id = i, .sg_list = &sge[i], .num_sge = 1,
					      .opcode = IBV_WR_RDMA_WRITE,
					      .send_flags = inl ? IBV_SEND_INLINE : 0,
					      .next = i + 1 < list ? &wr[i + 1] : NULL };
		wr[i].wr.rdma.remote_addr = (uintptr_t)e->buf + 65536 + 64 * i;
		wr[i].wr.rdma.rkey = e->mr->rkey;
	}
	cg_start(n);
	t = now_ns();
	for (int i = 0; i < n; i++) {
		if (i == n - 1)
			wr[list - 1].send_flags |= IBV_SEND_SIGNALED;
		if ((rc = ibv_post_send(e->a, wr, &bad)))
			break;
	}
	t = now_ns() - t;
	cg_stop();
	if (rc)
		return -verr(rc);
	if ((rc = wait_cq(e->a_scq, 1)))
		return -rc;
	return t / n;
}

static int row_post_send_1(struct env *e, double *out)
{
	if (!e->a)
		return e->pair_err;
	BATCHES(b_post_send(e, 1, 0));
}

static int row_post_send_16(struct env *e, double *out)
{
	if (!e->a)
		return e->pair_err;
	BATCHES(b_post_send(e, 16, 0));
}

static int row_post_send_inline(struct env *e, double *out)
{
	if (!e->a)
		return e->pair_err;
	BATCHES(b_post_send(e, 1, 1));
}

/* RC send/recv round trip a->b->a, one thread driving both ends: post send,
 * poll the peer's receive CQ, re-post its receive, answer, and the same back.
 * Sends are signaled every 32nd and their completions reaped when due. */
static double b_roundtrip(struct env *e)
{
	int n = iters(200), rc;
	struct ibv_sge sge = { (uintptr_t)e->buf, 8, e->mr->lkey };
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND }, *bad;
	double t;

	static int primed;

	/* 64 receives stay posted on each side from the first batch on */
	if (!primed && ((rc = post_recvs(e->a, e, 64)) || (rc = post_recvs(e->b, e, 64))))
		return -rc;
	primed = 1;
	cg_start(n);
	t = now_ns();
	for (int i = 0; i < n; i++) {
		int sig = i % 32 == 31;
		wr.send_flags = sig ? IBV_SEND_SIGNALED : 0;
		if ((rc = verr(ibv_post_send(e->a, &wr, &bad))) || (rc = wait_cq(e->b_rcq, 1)) ||
		    (rc = post_recvs(e->b, e, 1)) ||
		    (rc = verr(ibv_post_send(e->b, &wr, &bad))) || (rc = wait_cq(e->a_rcq, 1)) ||
		    (rc = post_recvs(e->a, e, 1)))
			return -rc;
		if (sig && ((rc = wait_cq(e->a_scq, 1)) || (rc = wait_cq(e->b_scq, 1))))
			return -rc;
	}
	t = now_ns() - t;
	cg_stop();
	return t / n;
}

static int row_roundtrip(struct env *e, double *out)
{
	if (!e->a)
		return e->pair_err;
	BATCHES(b_roundtrip(e));
}

/* -------- control path (µs per operation) */

static double b_open_close(struct env *e)
{
	int n = iters(100);
	double t;

	cg_start(n);
	t = now_ns();

	for (int i = 0; i < n; i++) {
		struct ibv_context *c = ibv_open_device(e->dev);
		if (!c)
			return -errno;
		if (ibv_close_device(c))
			return -errno;
	}
	t = now_ns() - t;
	cg_stop();
	return t / n / 1e3;
}

static int row_open_close(struct env *e, double *out) { BATCHES(b_open_close(e)); }

static double b_query_ex(struct env *e)
{
	struct ibv_device_attr_ex a;
	int n = iters(2000), rc;
	double t;

	cg_start(n);
	t = now_ns();

	for (int i = 0; i < n; i++)
		if ((rc = verr(ibv_query_device_ex(e->ctx, NULL, &a))))
			return -rc;
	t = now_ns() - t;
	cg_stop();
	return t / n / 1e3;
}

static int row_query_ex(struct env *e, double *out) { BATCHES(b_query_ex(e)); }

static char *big;
#define BIG (64u << 20)

static double b_reg(struct env *e, void *addr, size_t len, int base)
{
	int n = iters(base);
	double t;

	cg_start(n);
	t = now_ns();

	for (int i = 0; i < n; i++) {
		struct ibv_mr *mr = ibv_reg_mr(e->pd, addr, len, IBV_ACCESS_LOCAL_WRITE |
					       IBV_ACCESS_REMOTE_WRITE);
		if (!mr)
			return -errno;
		if (ibv_dereg_mr(mr))
			return -errno;
	}
	t = now_ns() - t;
	cg_stop();
	return t / n / 1e3;
}

static int row_reg_4k(struct env *e, double *out) { BATCHES(b_reg(e, e->buf, 4096, 500)); }

static int row_reg_64m(struct env *e, double *out)
{
	if (!big) {
		big = mmap(NULL, BIG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (big == MAP_FAILED) {
			big = NULL;
			return errno;
		}
		memset(big, 1, BIG);
	}
	BATCHES(b_reg(e, big, BIG, 5));
}

static double b_qp_life(struct env *e)
{
	int n = iters(50), rc;
	double t;

	cg_start(n);
	t = now_ns();

	for (int i = 0; i < n; i++) {
		struct ibv_qp *qp = make_qp(e, e->cq, e->cq, 64, 64, 0);
		if (!qp)
			return -errno;
		if ((rc = qp_init(qp)) || (rc = qp_rts(e, qp, qp->qp_num))) {
			ibv_destroy_qp(qp);
			return -rc;
		}
		if ((rc = verr(ibv_destroy_qp(qp))))
			return -rc;
	}
	t = now_ns() - t;
	cg_stop();
	return t / n / 1e3;
}

static int row_qp_life(struct env *e, double *out) { BATCHES(b_qp_life(e)); }

static double b_cq_life(struct env *e)
{
	int n = iters(100), rc;
	double t;

	cg_start(n);
	t = now_ns();

	for (int i = 0; i < n; i++) {
		struct ibv_cq *cq = ibv_create_cq(e->ctx, 256, NULL, NULL, 0);
		if (!cq)
			return -errno;
		if ((rc = verr(ibv_destroy_cq(cq))))
			return -rc;
	}
	t = now_ns() - t;
	cg_stop();
	return t / n / 1e3;
}

static int row_cq_life(struct env *e, double *out) { BATCHES(b_cq_life(e)); }

/* -------- memory */

struct mem {
	long heap;	/* the library's own memory: malloc's arena bytes in use
			 * (mallinfo2 uordblks) plus the resident bytes of
			 * anonymous unnamed mappings (malloc's mmap'd chunks,
			 * and object slabs a library maps itself, as ours
			 * does: mallinfo alone would not see those) */
	long rings;	/* size of the mappings of /dev/infiniband/uverbs* (queue rings) */
	long rss;	/* resident bytes, all mappings (smaps_rollup) */
};

/* an smaps header line of a mapping with no pathname: "lo-hi perms off dev
 * inode" and nothing after the inode ([heap], [stack], files are named) */
static int anon_unnamed(const char *line)
{
	char perms[8], dev[16];
	unsigned long lo, hi, off, inode;
	int end = 0;

	if (sscanf(line, "%lx-%lx %7s %lx %15s %lu %n", &lo, &hi, perms, &off, dev, &inode,
		   &end) < 6 || !end)
		return 0;
	return line[end] == '\0' || line[end] == '\n';
}

/* one line of /proc/self/smaps into m; in_ring and in_anon: whether the
 * mapping of the lines that follow is a ring, an anonymous unnamed one */
static void mem_line(struct mem *m, const char *line, int *in_ring, int *in_anon)
{
	unsigned long lo, hi;
	long kb;

	if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, ' ')) {
		*in_ring = strstr(line, "/dev/infiniband/uverbs") != NULL;
		if (*in_ring)
			m->rings += (long)(hi - lo);
		*in_anon = anon_unnamed(line);
	} else if (sscanf(line, "Rss: %ld kB", &kb) == 1) {
		m->rss += kb * 1024;
		if (*in_anon)
			m->heap += kb * 1024;
	}
}

/* smaps is read with read(2) into a buffer on the stack (named [stack], not
 * counted), not with stdio: fopen's FILE would stay in malloc's per-thread
 * cache after fclose, which mallinfo2 counts as in use (480 B more at the
 * first memory row's second reading than at its first: 4.8 B per QP) */
static void mem_now(struct mem *m)
{
	char buf[16384];
	size_t have = 0;
	ssize_t r;
	int in_ring = 0, in_anon = 0, fd;

	m->heap = (long)mallinfo2().uordblks;
	m->rings = 0;
	m->rss = 0;
	if ((fd = open("/proc/self/smaps", O_RDONLY | O_CLOEXEC)) < 0)
		return;
	while ((r = read(fd, buf + have, sizeof(buf) - 1 - have)) > 0) {
		char *line = buf, *nl;

		have += (size_t)r;
		buf[have] = '\0';
		while ((nl = memchr(line, '\n', have - (size_t)(line - buf)))) {
			*nl = '\0';
			mem_line(m, line, &in_ring, &in_anon);
			line = nl + 1;
		}
		have -= (size_t)(line - buf);
		memmove(buf, line, have);
	}
	close(fd);
}

#define MEM_N 100
#define MEM_DEPTH 256

enum { M_HEAP, M_RINGS, M_RSS };
static double mem_res[2][3];
static int mem_err[2];

/* bench/malloc_count.c's marks, if it is preloaded: it logs each malloc
 * and free between them with its callers. Looked up once, before a row's
 * first reading: a dlsym that fails mallocs its error text, which would
 * otherwise count as the row's heap. */
static void (*mark_fn)(int);

static void malloc_count_lookup(void)
{
	static int looked;

	if (!looked)
		mark_fn = (void (*)(int))dlsym(RTLD_DEFAULT, "malloc_count_mark");
	looked = 1;
}

static void malloc_count_mark(int start)
{
	if (mark_fn)
		mark_fn(start);
}

/* creates MEM_N objects (0: RC QPs of MEM_DEPTH send and receive WRs on one
 * CQ, 1: CQs of MEM_DEPTH entries) and records the per-object deltas */
static void mem_measure(struct env *e, int kind)
{
	static void *objs[MEM_N];
	struct ibv_cq *cq = NULL;
	struct mem m0, m1;
	int err = 0, n = 0;

	if (kind == 0 && !(cq = ibv_create_cq(e->ctx, 2 * MEM_DEPTH, NULL, NULL, 0))) {
		mem_err[kind] = errno;
		return;
	}
	/* one object first, so that first-use allocations are not counted */
	void *first = kind ? (void *)ibv_create_cq(e->ctx, MEM_DEPTH, NULL, NULL, 0)
			   : (void *)make_qp(e, cq, cq, MEM_DEPTH, MEM_DEPTH, 0);
	if (!first) {
		mem_err[kind] = errno;
		goto out;
	}
	malloc_count_lookup();
	mem_now(&m0);
	malloc_count_mark(1);
	for (n = 0; n < MEM_N; n++) {
		objs[n] = kind ? (void *)ibv_create_cq(e->ctx, MEM_DEPTH, NULL, NULL, 0)
			       : (void *)make_qp(e, cq, cq, MEM_DEPTH, MEM_DEPTH, 0);
		if (!objs[n]) {
			err = errno;
			break;
		}
	}
	malloc_count_mark(0);
	mem_now(&m1);
	if (err)
		mem_err[kind] = err;
	else {
		mem_res[kind][M_HEAP] = (double)(m1.heap - m0.heap) / MEM_N;
		mem_res[kind][M_RINGS] = (double)(m1.rings - m0.rings) / MEM_N;
		mem_res[kind][M_RSS] = (double)(m1.rss - m0.rss) / MEM_N;
	}
	while (n-- > 0)
		kind ? ibv_destroy_cq(objs[n]) : ibv_destroy_qp(objs[n]);
	kind ? ibv_destroy_cq(first) : ibv_destroy_qp(first);
out:
	if (cq)
		ibv_destroy_cq(cq);
}

static int mem_row(struct env *e, int kind, int what, double *out)
{
	static int done[2];

	if (!done[kind]) {
		mem_measure(e, kind);
		done[kind] = 1;
	}
	if (mem_err[kind])
		return mem_err[kind];
	*out = mem_res[kind][what];
	return 0;
}

static int row_mem_qp_heap(struct env *e, double *o) { return mem_row(e, 0, M_HEAP, o); }
static int row_mem_qp_rings(struct env *e, double *o) { return mem_row(e, 0, M_RINGS, o); }
static int row_mem_qp_rss(struct env *e, double *o) { return mem_row(e, 0, M_RSS, o); }
static int row_mem_cq_heap(struct env *e, double *o) { return mem_row(e, 1, M_HEAP, o); }
static int row_mem_cq_rings(struct env *e, double *o) { return mem_row(e, 1, M_RINGS, o); }
static int row_mem_cq_rss(struct env *e, double *o) { return mem_row(e, 1, M_RSS, o); }

/* peak RSS of a process that opens the device and creates 1000 RC QPs (64
 * send / 64 receive WRs) on one CQ: the sum of the Rss of all its mappings
 * (/proc/self/smaps) with the 1000 QPs alive; run in a process of its own */
static int row_peak_1000(struct env *e, double *out)
{
	int n = iters(1000) < 1000 && scale < 1 ? iters(1000) : 1000, err = 0, i;
	struct ibv_qp **qps = calloc(n, sizeof(*qps));
	struct ibv_cq *cq = ibv_create_cq(e->ctx, 128, NULL, NULL, 0);
	char line[256];
	long kb = -1;
	FILE *f;

	struct mem m0, m1;

	if (!cq)
		return errno;
	mem_now(&m0);
	for (i = 0; i < n; i++)
		if (!(qps[i] = make_qp(e, cq, cq, 64, 64, 0))) {
			err = errno;
			break;
		}
	if ((f = fopen("/proc/self/status", "r"))) {
		while (fgets(line, sizeof(line), f))
			sscanf(line, "VmHWM: %ld kB", &kb);
		fclose(f);
	}
	mem_now(&m1);
	printf("# peak: %d QPs: VmHWM %ld KiB; since before the QPs: heap %+ld B, rings %+ld B, "
	       "Rss %+ld B\n", i, kb, m1.heap - m0.heap, m1.rings - m0.rings, m1.rss - m0.rss);
	while (i-- > 0)
		ibv_destroy_qp(qps[i]);
	ibv_destroy_cq(cq);
	free(qps);
	if (err)
		return err;
	/* VmHWM is only what the kernel's lagging per-thread RSS counters had
	 * synced (ring pages are counted lazily): the peak is taken from the
	 * page walk of smaps instead, with all 1000 QPs alive. */
	*out = (double)m1.rss / 1024;
	return 0;
}

/* ---------------------------------------------------------------- table */

struct row {
	const char *name, *group, *unit, *desc;
	row_fn fn;
	int needs_pair;
};

static const struct row rows[] = {
	{ "post_recv_1", "data", "ns", "ibv_post_recv, 1 WR", row_post_recv_1, 0 },
	{ "post_recv_16", "data", "ns", "ibv_post_recv, list of 16 WRs (per call)", row_post_recv_16, 0 },
	{ "poll_cq_empty", "data", "ns", "ibv_poll_cq on an empty CQ", row_poll_cq_empty, 0 },
	{ "poll_cq_16", "data", "ns", "ibv_poll_cq draining 16 completions (per call)", row_poll_cq_16, 1 },
	{ "post_send_1", "data", "ns", "ibv_post_send + doorbell, 1 WR (RDMA write 8 B)", row_post_send_1, 1 },
	{ "post_send_16", "data", "ns", "ibv_post_send + doorbell, list of 16 WRs (per call)", row_post_send_16, 1 },
	{ "post_send_inline", "data", "ns", "ibv_post_send + doorbell, 1 WR inline 64 B", row_post_send_inline, 1 },
	{ "rc_roundtrip", "data", "ns", "RC send/recv round trip between two QPs (one thread)", row_roundtrip, 1 },
	{ "open_close", "control", "us", "ibv_open_device + ibv_close_device", row_open_close, 0 },
	{ "query_device_ex", "control", "us", "ibv_query_device_ex", row_query_ex, 0 },
	{ "reg_mr_4k", "control", "us", "ibv_reg_mr + ibv_dereg_mr, 4 KiB", row_reg_4k, 0 },
	{ "reg_mr_64m", "control", "us", "ibv_reg_mr + ibv_dereg_mr, 64 MiB", row_reg_64m, 0 },
	{ "qp_lifecycle", "control", "us", "ibv_create_qp (RC) + modify INIT/RTR/RTS + ibv_destroy_qp", row_qp_life, 0 },
	{ "cq_lifecycle", "control", "us", "ibv_create_cq (256) + ibv_destroy_cq", row_cq_life, 0 },
	{ "mem_qp_heap", "memory", "B", "library memory per RC QP (256/256 WRs): malloc'd + anonymous mappings", row_mem_qp_heap, 0 },
	{ "mem_qp_rings", "memory", "B", "mapped ring bytes per RC QP (256/256 WRs)", row_mem_qp_rings, 0 },
	{ "mem_qp_rss", "memory", "B", "resident bytes per RC QP (256/256 WRs)", row_mem_qp_rss, 0 },
	{ "mem_cq_heap", "memory", "B", "library memory per CQ (256 CQEs): malloc'd + anonymous mappings", row_mem_cq_heap, 0 },
	{ "mem_cq_rings", "memory", "B", "mapped ring bytes per CQ (256 CQEs)", row_mem_cq_rings, 0 },
	{ "mem_cq_rss", "memory", "B", "resident bytes per CQ (256 CQEs)", row_mem_cq_rss, 0 },
	{ "peak_rss_1000qp", "peak", "KiB", "peak RSS (smaps) of a process with 1000 RC QPs (64/64 WRs)", row_peak_1000, 0 },
};
#define NROWS (int)(sizeof(rows) / sizeof(rows[0]))

static int selected(const struct row *r, int argc, char **argv)
{
	if (argc == 0)
		return strcmp(r->group, "peak") != 0;
	for (int i = 0; i < argc; i++)
		if (!strcmp(argv[i], r->name) || !strcmp(argv[i], r->group) || !strcmp(argv[i], "all"))
			return 1;
	return 0;
}

static void report(const struct row *r, int err, double v)
{
	if (err)
		printf("R\t%s\tn/a\t%s\t%s\terror: %s\n", r->name, r->unit, r->desc, strerror(err));
	else
		printf("R\t%s\t%.3f\t%s\t%s\n", r->name, v, r->unit, r->desc);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	struct env e = { 0 };
	int opt, err;

	while ((opt = getopt(argc, argv, "d:g:s:b:qlh")) != -1) {
		switch (opt) {
		case 'd': dev_name = optarg; break;
		case 'g': gid_index = atoi(optarg); break;
		case 's': scale = atof(optarg); break;
		case 'b': batches = atoi(optarg); break;
		case 'q': scale = 0.02; batches = 1; break;
		case 'l':
			for (int i = 0; i < NROWS; i++)
				printf("%s\t%s\t%s\t%s\n", rows[i].name, rows[i].group, rows[i].unit, rows[i].desc);
			return 0;
		default:
			fprintf(stderr, "usage: %s [-d DEV] [-g GIDX] [-s SCALE] [-b BATCHES] [-q] [-l] "
					"[ROW|data|control|memory|peak|all ...]\n", argv[0]);
			return opt == 'h' ? 0 : 2;
		}
	}
	if (batches < 1 || batches > MAXB || scale <= 0) {
		fprintf(stderr, "ibv_bench: -b must be 1..%d and -s > 0\n", MAXB);
		return 2;
	}
	argc -= optind;
	argv += optind;

	err = setup(&e);
	if (err) {
		/* without a device and a PD nothing can be measured */
		for (int i = 0; i < NROWS; i++)
			if (selected(&rows[i], argc, argv))
				report(&rows[i], err, 0);
		return 1;
	}
	if ((e.pair_err = setup_pair(&e)))
		e.a = NULL;
	printf("# ibv_bench: device %s, scale %g, %d batches + 1 warm-up per row\n",
	       dev_name, scale, batches);
	if (RUNNING_ON_VALGRIND) {
		/* what an empty timed region costs (clock reads warmed up first) */
		double t = now_ns();

		CALLGRIND_ZERO_STATS;
		cg_timed = 1;
		cg_start(0);
		t = now_ns();
		t = now_ns() - t;
		cg_stop();
		cg_timed = 0;
		CALLGRIND_DUMP_STATS_AT("region_overhead");
		printf("O\tregion_overhead\t0\t1\n");
		fflush(stdout);
	}
	for (int i = 0; i < NROWS; i++) {
		double v = 0;

		if (!selected(&rows[i], argc, argv))
			continue;
		row_ops = 0;
		row_batches = 0;
		CALLGRIND_ZERO_STATS;
		err = rows[i].needs_pair && !e.a ? e.pair_err : rows[i].fn(&e, &v);
		if (!err && !(v >= 0))
			err = ERANGE;
		report(&rows[i], err, v);
		if (row_ops > 0) {
			/* the row's own callgrind dump, named after it */
			CALLGRIND_DUMP_STATS_AT(rows[i].name);
			if (!err)
				printf("O\t%s\t%lld\t%d\n", rows[i].name, row_ops, row_batches);
			fflush(stdout);
		}
	}
	return 0;
}
