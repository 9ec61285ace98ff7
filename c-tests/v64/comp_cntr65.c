/* rdma-core 65's IBVERBS_1.18 on rxe, built against our header, with what
 * rdma-core 65 answers there (its rxe has no completion counter op, so its
 * generic code answers EOPNOTSUPP; its rxe keeps the heap ibv_alloc_buf):
 *  - ibv_query_comp_cntr_caps: EOPNOTSUPP, the caller's struct zeroed;
 *  - ibv_create_comp_cntr: NULL, errno EOPNOTSUPP (with or without attr);
 *  - ibv_qp_attach_comp_cntr on a live QP: EOPNOTSUPP;
 *  - ibv_export_buf_dmabuf_fd on an ibv_alloc_buf buffer: -1, errno ENODATA.
 * The same lines come from rdma-core 65's own library (built against its
 * header). Bad input, where rdma-core 65 would follow a foreign pointer, is
 * EINVAL on ours ("[ours]" lines). Self-checking. */
#include "../rxe.h"

// ctest: no-system

int main(void)
{
	struct ibv_comp_cntr_init_attr ca = { .type = IBV_COMP_CNTR_TYPE_WRS };
	struct ibv_qp_attach_comp_cntr_attr qa = { .op_mask = IBV_QP_ATTACH_COMP_CNTR_OP_SEND };
	struct ibv_qp_init_attr qia = { 0 };
	struct ibv_comp_cntr_caps caps;
	struct ibv_device_attr da;
	struct ibv_comp_cntr *cc;
	struct ibv_context *ctx;
	struct ibv_buf *buf = NULL;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	uint64_t v = 7;
	void *mem;
	int r;

	ctest_init();
	ctx = rxe_open(&da);
	if (!ctx)
		return ctest_finish();
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 4, NULL, NULL, 0);
	CHECK(pd && cq, "pd/cq errno %d", errno);
	qia.send_cq = qia.recv_cq = cq;
	qia.qp_type = IBV_QPT_RC;
	qia.cap.max_send_wr = qia.cap.max_recv_wr = 1;
	qia.cap.max_send_sge = qia.cap.max_recv_sge = 1;
	qp = ibv_create_qp(pd, &qia);
	CHECK(qp, "create_qp errno %d", errno);

	memset(&caps, 0xaa, sizeof(caps));
	r = ibv_query_comp_cntr_caps(ctx, &caps);
	printf("query_comp_cntr_caps: %d, caps %s\n", r,
	       caps.max_value == 0 && caps.max_counters == 0 && caps.supported_qp_attach_ops == 0 ?
	       "zeroed" : "not zeroed");
	CHECK(r == EOPNOTSUPP && caps.max_value == 0 && caps.max_counters == 0, "caps %d", r);

	errno = 0;
	cc = ibv_create_comp_cntr(ctx, &ca);
	SHOW_PTR("create_comp_cntr", cc, errno);
	CHECK(!cc && errno == EOPNOTSUPP, "create_comp_cntr");
	errno = 0;
	cc = ibv_create_comp_cntr(ctx, NULL);
	SHOW_PTR("create_comp_cntr(NULL attr)", cc, errno);
	CHECK(!cc && errno == EOPNOTSUPP, "create_comp_cntr NULL attr");

	if (qp) {
		r = ibv_qp_attach_comp_cntr(qp, NULL, &qa);
		printf("qp_attach_comp_cntr: %d\n", r);
		CHECK(r == EOPNOTSUPP, "qp_attach_comp_cntr %d", r);
	}

	mem = ibv_alloc_buf(pd, 4096, &buf);
	CHECK(mem && buf, "alloc_buf errno %d", errno);
	if (buf) {
		errno = 0;
		r = ibv_export_buf_dmabuf_fd(buf);
		printf("export_buf_dmabuf_fd: %d errno=%d\n", r, errno);
		CHECK(r == -1 && errno == ENODATA, "export_buf_dmabuf_fd %d %d", r, errno);
		ibv_free_buf(buf);
	}

	if (ctest_ours()) {
		struct ibv_comp_cntr fake = { .context = ctx };

		r = ibv_destroy_comp_cntr(&fake);
		ctest_impl_line("destroy_comp_cntr(foreign): %d", r);
		CHECK(r == EINVAL, "destroy foreign %d", r);
		r = ibv_read_comp_cntr(NULL, &v);
		ctest_impl_line("read_comp_cntr(NULL): %d", r);
		CHECK(r == EINVAL && v == 7, "read NULL %d", r);
		CHECK(ibv_set_comp_cntr(&fake, 1) == EINVAL, "set foreign");
		CHECK(ibv_set_err_comp_cntr(&fake, 1) == EINVAL, "set_err foreign");
		CHECK(ibv_inc_comp_cntr(&fake, 1) == EINVAL, "inc foreign");
		CHECK(ibv_inc_err_comp_cntr(&fake, 1) == EINVAL, "inc_err foreign");
		CHECK(ibv_read_err_comp_cntr(&fake, &v) == EINVAL, "read_err foreign");
		r = _ibv_query_comp_cntr_caps(NULL, &caps, sizeof(caps));
		ctest_impl_line("query_comp_cntr_caps(NULL ctx): %d", r);
		CHECK(r == EINVAL, "caps NULL ctx %d", r);
		CHECK(_ibv_query_comp_cntr_caps(ctx, NULL, sizeof(caps)) == EINVAL, "caps NULL");
		CHECK(ibv_qp_attach_comp_cntr(NULL, NULL, &qa) == EINVAL, "attach NULL qp");
		errno = 0;
		r = ibv_export_buf_dmabuf_fd((struct ibv_buf *)&fake);
		ctest_impl_line("export_buf_dmabuf_fd(foreign): %d errno=%d", r, errno);
		CHECK(r == -1 && errno == EINVAL, "export foreign");
	}

	if (qp)
		CHECK(ibv_destroy_qp(qp) == 0, "destroy_qp");
	CHECK(ibv_destroy_cq(cq) == 0 && ibv_dealloc_pd(pd) == 0, "cleanup");
	ibv_close_device(ctx);
	return ctest_finish();
}
