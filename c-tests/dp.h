/* Helpers of the data-path C tests (datapath.c, wr_api.c, mt_post_poll.c):
 * a loopback pair of QPs on the first device (rxe0 in the VM: GID index 1 is
 * ::ffff:10.0.0.1), connected to each other, with registered buffers.
 * Output lines are deterministic (no addresses, QP numbers only as
 * relations) so c-tests/vm-diff.sh can diff Debian's run and ours. */
#ifndef CTEST_DP_H
#define CTEST_DP_H

#include "rxe.h"
#include <time.h>

#define DP_BUF 65536

struct dp {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq[2];	/* one CQ per side (send and receive) */
	struct ibv_qp *qp[2];
	struct ibv_mr *mr[2];
	char *buf[2];
	union ibv_gid gid;
	enum ibv_qp_type type;
};

static inline double dp_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static inline int dp_gid(struct ibv_context *ctx, union ibv_gid *gid)
{
	memset(gid, 0, sizeof(*gid));
	if (ibv_query_gid(ctx, 1, 1, gid) == 0 && gid->raw[10] == 0xff)
		return 0;
	/* ::ffff:10.0.0.1 (rxe0 in the VM) */
	memset(gid, 0, sizeof(*gid));
	gid->raw[10] = gid->raw[11] = 0xff;
	gid->raw[12] = 10;
	gid->raw[15] = 1;
	return 0;
}

static inline void dp_ah_attr(struct dp *d, struct ibv_ah_attr *ah)
{
	memset(ah, 0, sizeof(*ah));
	ah->is_global = 1;
	ah->grh.dgid = d->gid;
	ah->grh.sgid_index = 1;
	ah->grh.hop_limit = 64;
	ah->port_num = 1;
}

static inline int dp_to_init(struct dp *d, struct ibv_qp *qp)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.pkey_index = 0,
		.port_num = 1,
		.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC,
	};
	int mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT;

	if (d->type == IBV_QPT_UD) {
		a.qkey = 0x11111111;
		mask |= IBV_QP_QKEY;
	} else {
		mask |= IBV_QP_ACCESS_FLAGS;
	}
	return ibv_modify_qp(qp, &a, mask);
}

/* INIT -> RTR -> RTS towards `remote`, with this RNR retry count. */
static inline int dp_connect(struct dp *d, struct ibv_qp *qp, uint32_t remote, int rnr_retry)
{
	struct ibv_qp_attr a;
	int r;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	if (d->type == IBV_QPT_UD) {
		r = ibv_modify_qp(qp, &a, IBV_QP_STATE);
	} else {
		a.path_mtu = IBV_MTU_1024;
		a.dest_qp_num = remote;
		a.rq_psn = 0;
		dp_ah_attr(d, &a.ah_attr);
		int mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			   IBV_QP_RQ_PSN;
		if (d->type == IBV_QPT_RC) {
			a.max_dest_rd_atomic = 4;
			a.min_rnr_timer = 1;
			mask |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
		}
		r = ibv_modify_qp(qp, &a, mask);
	}
	if (r)
		return r;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0;
	int mask = IBV_QP_STATE | IBV_QP_SQ_PSN;
	if (d->type == IBV_QPT_RC) {
		a.timeout = 14;
		a.retry_cnt = 7;
		a.rnr_retry = rnr_retry;
		a.max_rd_atomic = 4;
		mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			IBV_QP_MAX_QP_RD_ATOMIC;
	}
	return ibv_modify_qp(qp, &a, mask);
}

/* Creates one QP of d->type on both sides' CQs (side i sends and receives on cq[i]). */
static inline struct ibv_qp *dp_qp(struct dp *d, int side, struct ibv_srq *srq)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = d->cq[side],
		.recv_cq = d->cq[side],
		.srq = srq,
		.cap = { .max_send_wr = 256, .max_recv_wr = 256, .max_send_sge = 4,
			 .max_recv_sge = 4, .max_inline_data = 128 },
		.qp_type = d->type,
	};

	return ibv_create_qp(d->pd, &ia);
}

/* Sets up the pair; returns 0 (skip printed when there is no device). */
static inline int dp_setup(struct dp *d, enum ibv_qp_type type, int rnr_retry)
{
	struct ibv_device_attr da;

	memset(d, 0, sizeof(*d));
	d->type = type;
	d->ctx = rxe_open(&da);
	if (!d->ctx)
		return -1;
	dp_gid(d->ctx, &d->gid);
	d->pd = ibv_alloc_pd(d->ctx);
	CHECK(d->pd, "alloc_pd errno %d", errno);
	for (int i = 0; i < 2; i++) {
		d->buf[i] = aligned_alloc(4096, DP_BUF);
		memset(d->buf[i], 0, DP_BUF);
		d->mr[i] = ibv_reg_mr(d->pd, d->buf[i], DP_BUF,
				      IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				      IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC |
				      IBV_ACCESS_MW_BIND);
		CHECK(d->mr[i], "reg_mr errno %d", errno);
		d->cq[i] = ibv_create_cq(d->ctx, 1024, NULL, NULL, 0);
		CHECK(d->cq[i], "create_cq errno %d", errno);
		d->qp[i] = dp_qp(d, i, NULL);
		CHECK(d->qp[i], "create_qp errno %d", errno);
	}
	if (!d->qp[0] || !d->qp[1])
		return -1;
	for (int i = 0; i < 2; i++) {
		CHECK(dp_to_init(d, d->qp[i]) == 0, "init errno %d", errno);
		CHECK(dp_connect(d, d->qp[i], d->qp[1 - i]->qp_num, rnr_retry) == 0,
		      "connect errno %d", errno);
	}
	return 0;
}

/* Sets up the pair on an open context, over the caller's two DP_BUF-byte
 * buffers (dp_setup without its open and allocations); 0, or -1 on an error. */
static inline int dp_pair_on(struct dp *d, struct ibv_context *ctx, char *buf0, char *buf1)
{
	memset(d, 0, sizeof(*d));
	d->type = IBV_QPT_RC;
	d->ctx = ctx;
	d->buf[0] = buf0;
	d->buf[1] = buf1;
	dp_gid(ctx, &d->gid);
	d->pd = ibv_alloc_pd(ctx);
	if (!d->pd)
		return -1;
	for (int i = 0; i < 2; i++) {
		d->mr[i] = ibv_reg_mr(d->pd, d->buf[i], DP_BUF,
				      IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				      IBV_ACCESS_REMOTE_READ);
		d->cq[i] = ibv_create_cq(ctx, 256, NULL, NULL, 0);
		d->qp[i] = d->cq[i] && d->mr[i] ? dp_qp(d, i, NULL) : NULL;
		if (!d->qp[i])
			return -1;
	}
	for (int i = 0; i < 2; i++)
		if (dp_to_init(d, d->qp[i]) || dp_connect(d, d->qp[i], d->qp[1 - i]->qp_num, 7))
			return -1;
	return 0;
}

/* Replaces the pair's CQs and QPs with extended ones (ibv_create_cq_ex with
 * `wc_flags`, ibv_create_qp_ex with `ops` as send_ops_flags) and connects
 * them; returns 0, or -1 after a failed create. */
static inline int dp_ex_setup(struct dp *d, uint64_t wc_flags, uint64_t ops,
			      struct ibv_cq_ex *cqx[2], struct ibv_qp_ex *qpx[2])
{
	for (int i = 0; i < 2; i++) {
		ibv_destroy_qp(d->qp[i]);
		ibv_destroy_cq(d->cq[i]);
		struct ibv_cq_init_attr_ex ca = { .cqe = 256, .wc_flags = wc_flags };
		cqx[i] = ibv_create_cq_ex(d->ctx, &ca);
		CHECK(cqx[i], "create_cq_ex errno %d", errno);
		d->cq[i] = cqx[i] ? ibv_cq_ex_to_cq(cqx[i]) : NULL;
		d->qp[i] = NULL;
		if (!cqx[i])
			return -1;
		struct ibv_qp_init_attr_ex qa = {
			.send_cq = d->cq[i], .recv_cq = d->cq[i],
			.cap = { .max_send_wr = 64, .max_recv_wr = 64, .max_send_sge = 4,
				 .max_recv_sge = 4, .max_inline_data = 64 },
			.qp_type = d->type,
			.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
			.pd = d->pd,
			.send_ops_flags = ops,
		};
		d->qp[i] = ibv_create_qp_ex(d->ctx, &qa);
		CHECK(d->qp[i], "create_qp_ex errno %d", errno);
		if (!d->qp[i])
			return -1;
		qpx[i] = ibv_qp_to_qp_ex(d->qp[i]);
	}
	for (int i = 0; i < 2; i++) {
		CHECK(dp_to_init(d, d->qp[i]) == 0, "init errno %d", errno);
		CHECK(dp_connect(d, d->qp[i], d->qp[1 - i]->qp_num, 7) == 0, "rtr errno %d", errno);
	}
	return 0;
}

static inline void dp_teardown(struct dp *d)
{
	for (int i = 0; i < 2; i++) {
		if (d->qp[i])
			CHECK(ibv_destroy_qp(d->qp[i]) == 0, "destroy_qp %d", errno);
		if (d->cq[i])
			CHECK(ibv_destroy_cq(d->cq[i]) == 0, "destroy_cq %d", errno);
		if (d->mr[i])
			CHECK(ibv_dereg_mr(d->mr[i]) == 0, "dereg_mr %d", errno);
		free(d->buf[i]);
	}
	if (d->pd)
		CHECK(ibv_dealloc_pd(d->pd) == 0, "dealloc_pd %d", errno);
	if (d->ctx)
		CHECK(ibv_close_device(d->ctx) == 0, "close %d", errno);
}

/* Polls `cq` for one completion, up to 5 s; returns 1 with *wc, or 0. */
static inline int dp_poll1(struct ibv_cq *cq, struct ibv_wc *wc)
{
	double end = dp_now() + 5;

	while (dp_now() < end) {
		int n = ibv_poll_cq(cq, 1, wc);
		if (n < 0) {
			printf("poll_cq: %d\n", n);
			return 0;
		}
		if (n == 1)
			return 1;
	}
	return 0;
}

/* One completion as a deterministic line; QP numbers as "self"/"peer". */
static inline void dp_show(struct dp *d, const char *what, struct ibv_cq *cq)
{
	struct ibv_wc wc;
	struct ibv_qp *self;
	const char *qpn, *src;

	if (!dp_poll1(cq, &wc)) {
		printf("%s: no completion\n", what);
		return;
	}
	self = cq == d->cq[0] ? d->qp[0] : d->qp[1];
	qpn = wc.qp_num == self->qp_num ? "self" : "other";
	src = wc.src_qp == 0 ? "0" :
	      wc.src_qp == d->qp[0]->qp_num || wc.src_qp == d->qp[1]->qp_num ? "pair" : "?";
	printf("%s: wr_id=%llu status=%d(%s) opcode=%d", what, (unsigned long long)wc.wr_id,
	       wc.status, ibv_wc_status_str(wc.status), wc.opcode);
	if (wc.status == IBV_WC_SUCCESS)
		printf(" byte_len=%u imm=0x%08x flags=0x%x qp=%s src_qp=%s pkey=%u slid=%u sl=%u dlid_pb=%u",
		       wc.byte_len, wc.wc_flags & (IBV_WC_WITH_IMM | IBV_WC_WITH_INV) ?
		       wc.imm_data : 0, wc.wc_flags, qpn, src, wc.pkey_index, wc.slid, wc.sl,
		       wc.dlid_path_bits);
	else
		printf(" qp=%s", qpn);
	putchar('\n');
}

/* Nothing more on `cq` within 50 ms. */
static inline void dp_quiet(const char *what, struct ibv_cq *cq)
{
	struct ibv_wc wc;
	double end = dp_now() + 0.05;
	int n = 0;

	while (dp_now() < end)
		n += ibv_poll_cq(cq, 1, &wc) > 0;
	printf("%s: %d extra completion(s)\n", what, n);
}

#endif
