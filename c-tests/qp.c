/* ibv_create_qp / _ex, ibv_modify_qp, ibv_query_qp, ibv_destroy_qp and friends on rxe,
 * plus a create/destroy loop of CQ+QP+SRQ that must not leak. */
#include "rxe.h"

static void show_cap(const char *what, struct ibv_qp *qp, int e, struct ibv_qp_cap *c)
{
	if (!qp) {
		printf("%s: NULL errno=%d\n", what, e);
		return;
	}
	printf("%s: ok cap=%u/%u/%u/%u/%u state=%d type=%d\n", what, c->max_send_wr,
	       c->max_recv_wr, c->max_send_sge, c->max_recv_sge, c->max_inline_data, qp->state,
	       qp->qp_type);
}

static struct ibv_qp *mk(struct ibv_pd *pd, struct ibv_cq *scq, struct ibv_cq *rcq,
			 struct ibv_srq *srq, enum ibv_qp_type t, uint32_t swr, uint32_t rwr,
			 uint32_t ssge, uint32_t rsge, uint32_t inl, const char *what)
{
	struct ibv_qp_init_attr a = { .send_cq = scq, .recv_cq = rcq, .srq = srq, .qp_type = t,
				      .cap = { swr, rwr, ssge, rsge, inl } };
	struct ibv_qp *qp;

	errno = 0;
	qp = ibv_create_qp(pd, &a);
	show_cap(what, qp, errno, &a.cap);
	return qp;
}

static void dump_ah(const char *n, struct ibv_ah_attr *a)
{
	printf("  %s: dgid=", n);
	for (int i = 0; i < 16; i++)
		printf("%02x", a->grh.dgid.raw[i]);
	printf(" fl=%u sgid=%u hop=%u tc=%u dlid=%u sl=%u spb=%u rate=%u glob=%u port=%u\n",
	       a->grh.flow_label, a->grh.sgid_index, a->grh.hop_limit, a->grh.traffic_class,
	       a->dlid, a->sl, a->src_path_bits, a->static_rate, a->is_global, a->port_num);
}

static void query(struct ibv_qp *qp, struct ibv_cq *cq, const char *what)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr i;
	int r;

	memset(&a, 0xab, sizeof(a));
	memset(&i, 0xab, sizeof(i));
	r = ibv_query_qp(qp, &a, 0x1ffffff, &i);
	printf("query %s: %d\n", what, r);
	if (r)
		return;
	printf("  state=%d cur=%d mtu=%d mig=%d qkey=0x%x rq_psn=%u sq_psn=%u dqpn_set=%d "
	       "acc=0x%x cap=%u/%u/%u/%u/%u pkey=%u alt_pkey=%u sqd_notify=0x%x draining=%u "
	       "rd_atomic=%u dest_rd_atomic=%u rnr_timer=%u port=%u timeout=%u retry=%u "
	       "rnr_retry=%u alt_port=%u alt_timeout=%u rate_limit=0x%x\n",
	       a.qp_state, a.cur_qp_state, a.path_mtu, a.path_mig_state, a.qkey, a.rq_psn,
	       a.sq_psn, a.dest_qp_num == qp->qp_num, a.qp_access_flags, a.cap.max_send_wr,
	       a.cap.max_recv_wr, a.cap.max_send_sge, a.cap.max_recv_sge,
	       a.cap.max_inline_data, a.pkey_index, a.alt_pkey_index, a.en_sqd_async_notify,
	       a.sq_draining, a.max_rd_atomic, a.max_dest_rd_atomic, a.min_rnr_timer,
	       a.port_num, a.timeout, a.retry_cnt, a.rnr_retry, a.alt_port_num, a.alt_timeout,
	       a.rate_limit);
	dump_ah("ah", &a.ah_attr);
	dump_ah("alt_ah", &a.alt_ah_attr);
	printf("  init: ctx=%p scq_ok=%d rcq_ok=%d srq_ok=%d type=%d cap=%u/%u/%u/%u/%u sig_all=%d"
	       " qp->state=%d\n",
	       i.qp_context, i.send_cq == cq, i.recv_cq == cq, i.srq == qp->srq, i.qp_type,
	       i.cap.max_send_wr, i.cap.max_recv_wr, i.cap.max_send_sge, i.cap.max_recv_sge,
	       i.cap.max_inline_data, i.sq_sig_all, qp->state);
}

static void modify(struct ibv_qp *qp, struct ibv_qp_attr *a, int mask, const char *what)
{
	int r = ibv_modify_qp(qp, a, mask);

	printf("modify %s: %d qp->state=%d\n", what, r, qp->state);
}

static void leak_loop(struct ibv_context *ctx, struct ibv_pd *pd)
{
	long fd0 = 0, m0 = 0, rss0 = 0;
	int bad = 0;

	for (int i = 0; i < 300; i++) {
		struct ibv_cq *cq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
		struct ibv_srq_init_attr sa = { .attr = { .max_wr = 64, .max_sge = 2 } };
		struct ibv_srq *srq = ibv_create_srq(pd, &sa);
		struct ibv_qp_init_attr qa = { .send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
					       .cap = { 64, 64, 2, 2, 64 } };
		struct ibv_qp_init_attr qb = { .send_cq = cq, .recv_cq = cq, .srq = srq,
					       .qp_type = IBV_QPT_UD, .cap = { 64, 0, 2, 0, 0 } };
		struct ibv_qp *qp = cq ? ibv_create_qp(pd, &qa) : NULL;
		struct ibv_qp *qp2 = cq && srq ? ibv_create_qp(pd, &qb) : NULL;

		if (!cq || !srq || !qp || !qp2)
			bad++;
		if (qp2)
			bad += ibv_destroy_qp(qp2) != 0;
		if (qp)
			bad += ibv_destroy_qp(qp) != 0;
		if (srq)
			bad += ibv_destroy_srq(srq) != 0;
		if (cq)
			bad += ibv_destroy_cq(cq) != 0;
		if (i == 49) {
			fd0 = rxe_count_fds();
			m0 = rxe_count_maps();
			rss0 = rxe_rss_kb();
		}
	}
	printf("leak loop: failures=%d fds+%ld maps+%ld\n", bad, rxe_count_fds() - fd0,
	       rxe_count_maps() - m0);
	CHECK(rxe_rss_kb() - rss0 < 1024, "RSS grew by %ld kB", rxe_rss_kb() - rss0);
}

int main(void)
{
	struct ibv_device_attr da;
	struct ibv_context *ctx, *ctx2;
	struct ibv_pd *pd, *pd2;
	struct ibv_cq *cq, *cq2;
	struct ibv_srq *srq;
	struct ibv_qp *qp, *q;
	struct ibv_qp_attr a;

	ctest_init();
	ctx = rxe_open(&da);
	if (!ctx)
		return ctest_finish();
	printf("max_qp_wr=%d max_sge=%d\n", da.max_qp_wr, da.max_sge);
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 256, NULL, NULL, 0);
	CHECK(pd && cq, "pd/cq errno %d", errno);
	if (!pd || !cq)
		return ctest_finish();
	{
		struct ibv_srq_init_attr sa = { .attr = { .max_wr = 16, .max_sge = 1 } };
		srq = ibv_create_srq(pd, &sa);
		CHECK(srq != NULL, "srq errno %d", errno);
	}

	/* types and capacities */
	qp = mk(pd, cq, cq, NULL, IBV_QPT_RC, 10, 10, 1, 1, 0, "rc 10/10/1/1/0");
	q = mk(pd, cq, cq, NULL, IBV_QPT_UC, 1, 1, 1, 1, 1, "uc 1/1/1/1/1");
	if (q)
		ibv_destroy_qp(q);
	q = mk(pd, cq, cq, NULL, IBV_QPT_UD, 100, 33, 3, 5, 64, "ud 100/33/3/5/64");
	if (q)
		ibv_destroy_qp(q);
	q = mk(pd, cq, cq, NULL, IBV_QPT_RC, 0, 0, 0, 0, 0, "rc 0/0/0/0/0");
	if (q)
		ibv_destroy_qp(q);
	q = mk(pd, cq, cq, NULL, IBV_QPT_RC, da.max_qp_wr, da.max_qp_wr, da.max_sge, da.max_sge,
	       0, "rc at max");
	if (q)
		ibv_destroy_qp(q);
	q = mk(pd, cq, cq, NULL, IBV_QPT_RC, da.max_qp_wr + 1, 1, 1, 1, 0, "rc send_wr max+1");
	if (q)
		ibv_destroy_qp(q);
	q = mk(pd, cq, cq, NULL, IBV_QPT_RC, 1, da.max_qp_wr + 1, 1, 1, 0, "rc recv_wr max+1");
	if (q)
		ibv_destroy_qp(q);
	q = mk(pd, cq, cq, NULL, IBV_QPT_RC, 1, 1, da.max_sge + 1, 1, 0, "rc send_sge max+1");
	if (q)
		ibv_destroy_qp(q);
	q = mk(pd, cq, cq, NULL, IBV_QPT_RC, 1, 1, 1, da.max_sge + 1, 0, "rc recv_sge max+1");
	if (q)
		ibv_destroy_qp(q);
	q = mk(pd, cq, cq, NULL, IBV_QPT_RC, 1, 1, 1, 1, 100000, "rc inline 100000");
	if (q)
		ibv_destroy_qp(q);
	q = mk(pd, cq, cq, NULL, IBV_QPT_RAW_PACKET, 1, 1, 1, 1, 0, "raw_packet");
	if (q)
		ibv_destroy_qp(q);
	q = mk(pd, cq, cq, NULL, IBV_QPT_XRC_SEND, 1, 1, 1, 1, 0, "xrc_send");
	if (q)
		ibv_destroy_qp(q);
	q = mk(pd, cq, cq, NULL, IBV_QPT_XRC_RECV, 1, 1, 1, 1, 0, "xrc_recv");
	if (q)
		ibv_destroy_qp(q);
	q = mk(pd, cq, cq, NULL, 77, 1, 1, 1, 1, 0, "type 77");
	if (q)
		ibv_destroy_qp(q);
	/* SRQ-attached: no receive queue */
	q = mk(pd, cq, cq, srq, IBV_QPT_RC, 4, 4, 1, 1, 0, "rc with srq");
	if (q) {
		printf("destroy srq in use: %d\n", ibv_destroy_srq(srq));
		query(q, cq, "rc with srq");
		ibv_destroy_qp(q);
	}
	q = mk(pd, cq, cq, srq, IBV_QPT_UD, 4, 4, 1, 1, 0, "ud with srq");
	if (q)
		ibv_destroy_qp(q);
	q = mk(pd, cq, cq, srq, IBV_QPT_UC, 4, 4, 1, 1, 0, "uc with srq");
	if (q)
		ibv_destroy_qp(q);
	if (!qp)
		return ctest_finish();
	printf("qp_num_nonzero=%d ctx_ok=%d pd_ok=%d\n", qp->qp_num != 0, qp->context == ctx,
	       qp->pd == pd);

	/* what rdma-core would crash on: ours says EINVAL */
	if (ctest_ours()) {
		struct ibv_qp_init_attr na = { .qp_type = IBV_QPT_RC, .cap = { 1, 1, 1, 1, 0 } };

		errno = 0;
		q = ibv_create_qp(pd, &na);
		ctest_impl_line("qp without cqs: %s errno=%d", q ? "ok" : "NULL", errno);
		na.send_cq = cq;
		errno = 0;
		q = ibv_create_qp(pd, &na);
		ctest_impl_line("qp without recv cq: %s errno=%d", q ? "ok" : "NULL", errno);
		errno = 0;
		q = ibv_create_qp(NULL, &na);
		ctest_impl_line("qp NULL pd: %s errno=%d", q ? "ok" : "NULL", errno);
		errno = 0;
		q = ibv_create_qp(pd, NULL);
		ctest_impl_line("qp NULL attr: %s errno=%d", q ? "ok" : "NULL", errno);
		/* wrong PD: another context's */
		ctx2 = ibv_open_device(ctx->device);
		pd2 = ctx2 ? ibv_alloc_pd(ctx2) : NULL;
		cq2 = ctx2 ? ibv_create_cq(ctx2, 4, NULL, NULL, 0) : NULL;
		na.recv_cq = cq;
		errno = 0;
		q = pd2 ? ibv_create_qp(pd2, &na) : NULL;
		ctest_impl_line("qp pd of another context: %s errno=%d", q ? "ok" : "NULL", errno);
		if (q)
			ibv_destroy_qp(q);
		na.send_cq = cq2;
		errno = 0;
		q = ibv_create_qp(pd, &na);
		ctest_impl_line("qp cq of another context: %s errno=%d", q ? "ok" : "NULL", errno);
		if (q)
			ibv_destroy_qp(q);
		if (cq2)
			ibv_destroy_cq(cq2);
		if (pd2)
			ibv_dealloc_pd(pd2);
		if (ctx2)
			ibv_close_device(ctx2);
	}

	/* state machine */
	query(qp, cq, "reset");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	modify(qp, &a, IBV_QP_STATE, "reset->rtr");
	a.qp_state = IBV_QPS_INIT;
	modify(qp, &a, IBV_QP_STATE, "reset->init missing attrs");
	a.pkey_index = 0;
	a.port_num = 1;
	a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
	modify(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS,
	       "reset->init");
	modify(qp, &a, IBV_QP_STATE | IBV_QP_RATE_LIMIT, "rate_limit mask");
	query(qp, cq, "init");
	a.qp_state = IBV_QPS_RTS;
	modify(qp, &a, IBV_QP_STATE, "init->rts");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = qp->qp_num;
	a.rq_psn = 77;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.hop_limit = 1;
	a.ah_attr.grh.sgid_index = 1;
	a.ah_attr.port_num = 1;
	{
		union ibv_gid g;

		if (ibv_query_gid(ctx, 1, 1, &g) != 0) {
			/* until ibv_query_gid is merged in: the VM's ::ffff:10.0.0.1 */
			ctest_impl_line("query_gid failed: using ::ffff:10.0.0.1");
			memset(&g, 0, sizeof(g));
			g.raw[10] = g.raw[11] = 0xff;
			g.raw[12] = 10;
			g.raw[15] = 1;
		}
		a.ah_attr.grh.dgid = g;
	}
	modify(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			   IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER,
	       "init->rtr");
	query(qp, cq, "rtr");
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.sq_psn = 99;
	a.max_rd_atomic = 1;
	modify(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			   IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC,
	       "rtr->rts");
	query(qp, cq, "rts");
	a.qp_state = IBV_QPS_ERR;
	modify(qp, &a, IBV_QP_STATE, "rts->err");
	a.qp_state = IBV_QPS_RTS;
	modify(qp, &a, IBV_QP_STATE, "err->rts");
	a.qp_state = 42;
	modify(qp, &a, IBV_QP_STATE, "state 42");
	query(qp, cq, "err");

	/* misc */
	printf("qp_to_qp_ex legacy: %s\n", ibv_qp_to_qp_ex(qp) ? "non-NULL" : "NULL");
	printf("data_in_order send 0: %d\n", ibv_query_qp_data_in_order(qp, IBV_WR_SEND, 0));
	printf("data_in_order write caps: %d\n",
	       ibv_query_qp_data_in_order(qp, IBV_WR_RDMA_WRITE,
					  1 /* RETURN_CAPS */));
	{
		struct ibv_ece e = { 0 };
		printf("query_ece: %d\n", ibv_query_ece(qp, &e));
		printf("set_ece vendor 0: %d\n", ibv_set_ece(qp, &e));
		e.vendor_id = 0x15b3;
		printf("set_ece vendor 15b3: %d\n", ibv_set_ece(qp, &e));
	}

	/* create_qp_ex */
	{
		struct ibv_qp_init_attr_ex x = { .send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
						 .cap = { 4, 4, 1, 1, 0 }, .pd = pd,
						 .comp_mask = IBV_QP_INIT_ATTR_PD };
		struct ibv_qp_ex *qx;

		errno = 0;
		q = ibv_create_qp_ex(ctx, &x);
		show_cap("qp_ex PD only", q, errno, &x.cap);
		if (q) {
			printf("  to_qp_ex: %s\n", ibv_qp_to_qp_ex(q) ? "non-NULL" : "NULL");
			ibv_destroy_qp(q);
		}
		x.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
		x.send_ops_flags = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_RDMA_WRITE;
		errno = 0;
		q = ibv_create_qp_ex(ctx, &x);
		show_cap("qp_ex send ops rc", q, errno, &x.cap);
		if (q) {
			qx = ibv_qp_to_qp_ex(q);
			printf("  to_qp_ex same=%d wr_send=%d wr_rdma_write=%d wr_rdma_read=%d "
			       "wr_start=%d wr_set_sge=%d wr_set_xrc_srqn=%d wr_send_tso=%d\n",
			       (void *)qx == (void *)q, qx && qx->wr_send, qx && qx->wr_rdma_write,
			       qx && qx->wr_rdma_read, qx && qx->wr_start, qx && qx->wr_set_sge,
			       qx && qx->wr_set_xrc_srqn, qx && qx->wr_send_tso);
			query(q, cq, "qp_ex");
			ibv_destroy_qp(q);
		}
		x.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_CREATE_FLAGS;
		x.create_flags = 0;
		errno = 0;
		q = ibv_create_qp_ex(ctx, &x);
		show_cap("qp_ex create_flags 0", q, errno, &x.cap);
		if (q)
			ibv_destroy_qp(q);
		x.create_flags = IBV_QP_CREATE_SCATTER_FCS;
		errno = 0;
		q = ibv_create_qp_ex(ctx, &x);
		show_cap("qp_ex create_flags fcs", q, errno, &x.cap);
		x.create_flags = 0;
		x.qp_type = IBV_QPT_UD;
		x.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
		x.send_ops_flags = IBV_QP_EX_WITH_RDMA_WRITE;
		errno = 0;
		q = ibv_create_qp_ex(ctx, &x);
		show_cap("qp_ex ud rdma_write", q, errno, &x.cap);
		x.qp_type = IBV_QPT_UC;
		x.send_ops_flags = IBV_QP_EX_WITH_RDMA_READ;
		errno = 0;
		q = ibv_create_qp_ex(ctx, &x);
		show_cap("qp_ex uc rdma_read", q, errno, &x.cap);
		x.qp_type = IBV_QPT_RAW_PACKET;
		x.send_ops_flags = IBV_QP_EX_WITH_SEND;
		errno = 0;
		q = ibv_create_qp_ex(ctx, &x);
		show_cap("qp_ex raw send ops", q, errno, &x.cap);
		x.qp_type = IBV_QPT_RC;
		x.comp_mask = IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
		errno = 0;
		q = ibv_create_qp_ex(ctx, &x);
		show_cap("qp_ex no PD", q, errno, &x.cap);
		x.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_IND_TABLE;
		errno = 0;
		q = ibv_create_qp_ex(ctx, &x);
		show_cap("qp_ex ind table", q, errno, &x.cap);
		x.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_XRCD;
		errno = 0;
		q = ibv_create_qp_ex(ctx, &x);
		show_cap("qp_ex xrcd", q, errno, &x.cap);
		x.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
		x.send_ops_flags = IBV_QP_EX_WITH_SEND;
		x.qp_type = IBV_QPT_UD;
		x.cap.max_send_wr = da.max_qp_wr + 1;
		errno = 0;
		q = ibv_create_qp_ex(ctx, &x);
		show_cap("qp_ex ud over max", q, errno, &x.cap);
	}

	/* destroys */
	printf("destroy cq in use: %d\n", ibv_destroy_cq(cq));
	printf("dealloc pd in use: %d\n", ibv_dealloc_pd(pd));
	printf("destroy qp: %d\n", ibv_destroy_qp(qp));
	if (ctest_ours()) {
		ctest_impl_line("destroy qp again: %d", ibv_destroy_qp(qp));
		ctest_impl_line("modify destroyed qp: %d", ibv_modify_qp(qp, &a, IBV_QP_STATE));
		ctest_impl_line("destroy NULL qp: %d", ibv_destroy_qp(NULL));
		ctest_impl_line("query NULL qp: %d", ibv_query_qp(NULL, &a, 0, NULL));
	}
	leak_loop(ctx, pd);
	printf("destroy srq: %d\n", ibv_destroy_srq(srq));
	printf("destroy cq: %d\n", ibv_destroy_cq(cq));
	printf("dealloc pd: %d\n", ibv_dealloc_pd(pd));
	CHECK(ibv_close_device(ctx) == 0, "close");
	return ctest_finish();
}
