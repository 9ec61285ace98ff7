/* ibv_create_cq / _ex, ibv_resize_cq, ibv_req_notify_cq, ibv_destroy_cq on rxe. */
#include "rxe.h"

int main(void)
{
	struct ibv_device_attr da;
	struct ibv_context *ctx;
	struct ibv_cq *cq, *cq2;
	struct ibv_cq_ex *cqx;
	struct ibv_pd *pd;
	struct ibv_qp *qp;
	int r;

	ctest_init();
	ctx = rxe_open(&da);
	if (!ctx)
		return ctest_finish();
	printf("max_cqe=%d\n", da.max_cqe);

	errno = 0;
	cq = ibv_create_cq(ctx, 16, (void *)0x1234, NULL, 0);
	SHOW_PTR("create_cq 16", cq, errno);
	if (!cq)
		return ctest_finish();
	printf("cqe=%d ctx_ok=%d cq_context=%p channel=%p comp_acked=%u async_acked=%u\n",
	       cq->cqe, cq->context == ctx, cq->cq_context, (void *)cq->channel,
	       cq->comp_events_completed, cq->async_events_completed);
	{
		int sizes[] = { 0, 1, 100, 4096, da.max_cqe };

		for (unsigned i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
			errno = 0;
			cq2 = ibv_create_cq(ctx, sizes[i], NULL, NULL, 0);
			printf("create_cq %d: %s cqe=%d errno=%d\n", sizes[i], cq2 ? "ok" : "NULL",
			       cq2 ? cq2->cqe : -1, cq2 ? 0 : errno);
			if (cq2)
				CHECK(ibv_destroy_cq(cq2) == 0, "destroy");
		}
	}
	errno = 0;
	cq2 = ibv_create_cq(ctx, da.max_cqe + 1, NULL, NULL, 0);
	SHOW_PTR("create_cq max+1", cq2, errno);
	errno = 0;
	cq2 = ibv_create_cq(ctx, -1, NULL, NULL, 0);
	SHOW_PTR("create_cq -1", cq2, errno);
	errno = 0;
	cq2 = ibv_create_cq(ctx, 16, NULL, NULL, 1000);
	SHOW_PTR("create_cq comp_vector 1000", cq2, errno);
	if (cq2)
		ibv_destroy_cq(cq2);

	/* resize */
	r = ibv_resize_cq(cq, 100);
	printf("resize 100: %d cqe=%d\n", r, cq->cqe);
	r = ibv_resize_cq(cq, 8);
	printf("resize 8: %d cqe=%d\n", r, cq->cqe);
	r = ibv_resize_cq(cq, da.max_cqe + 1);
	printf("resize max+1: %d cqe=%d\n", r, cq->cqe);
	r = ibv_resize_cq(cq, 0);
	printf("resize 0: %d cqe=%d\n", r, cq->cqe);

	/* req_notify */
	printf("req_notify 0: %d\n", ibv_req_notify_cq(cq, 0));
	printf("req_notify 1: %d\n", ibv_req_notify_cq(cq, 1));

	/* create_cq_ex */
	{
		struct ibv_cq_init_attr_ex a = { .cqe = 32, .cq_context = (void *)0x55,
						 .wc_flags = IBV_WC_STANDARD_FLAGS };
		uint64_t bad[] = { IBV_WC_EX_WITH_COMPLETION_TIMESTAMP, IBV_WC_EX_WITH_CVLAN,
				   IBV_WC_EX_WITH_FLOW_TAG, IBV_WC_EX_WITH_TM_INFO,
				   IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK, 1u << 20 };

		errno = 0;
		cqx = ibv_create_cq_ex(ctx, &a);
		SHOW_PTR("create_cq_ex std", cqx, errno);
		if (cqx) {
			struct ibv_cq *c = ibv_cq_ex_to_cq(cqx);
			printf("cq_ex cqe=%d same=%d cq_context=%p start_poll=%d read_opcode=%d "
			       "read_byte_len=%d read_completion_ts=%d read_cvlan=%d\n",
			       c->cqe, (void *)c == (void *)cqx, c->cq_context,
			       cqx->start_poll != NULL, cqx->read_opcode != NULL,
			       cqx->read_byte_len != NULL, cqx->read_completion_ts != NULL,
			       cqx->read_cvlan != NULL);
			printf("destroy cq_ex: %d\n", ibv_destroy_cq(c));
		}
		a.wc_flags = IBV_WC_EX_WITH_BYTE_LEN;
		cqx = ibv_create_cq_ex(ctx, &a);
		SHOW_PTR("create_cq_ex byte_len", cqx, errno);
		if (cqx) {
			printf("read_byte_len=%d read_imm_data=%d read_qp_num=%d\n",
			       cqx->read_byte_len != NULL, cqx->read_imm_data != NULL,
			       cqx->read_qp_num != NULL);
			ibv_destroy_cq(ibv_cq_ex_to_cq(cqx));
		}
		for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			a.wc_flags = bad[i];
			errno = 0;
			cqx = ibv_create_cq_ex(ctx, &a);
			printf("create_cq_ex wc_flags=0x%llx: %s errno=%d\n", (unsigned long long)bad[i],
			       cqx ? "ok" : "NULL", cqx ? 0 : errno);
			if (cqx)
				ibv_destroy_cq(ibv_cq_ex_to_cq(cqx));
		}
		a.wc_flags = 0;
		a.comp_mask = IBV_CQ_INIT_ATTR_MASK_FLAGS;
		a.flags = IBV_CREATE_CQ_ATTR_SINGLE_THREADED;
		errno = 0;
		cqx = ibv_create_cq_ex(ctx, &a);
		SHOW_PTR("create_cq_ex single_threaded", cqx, errno);
		if (cqx)
			ibv_destroy_cq(ibv_cq_ex_to_cq(cqx));
		a.flags = IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN;
		errno = 0;
		cqx = ibv_create_cq_ex(ctx, &a);
		SHOW_PTR("create_cq_ex ignore_overrun", cqx, errno);
		if (cqx)
			ibv_destroy_cq(ibv_cq_ex_to_cq(cqx));
		a.flags = 0;
		a.comp_mask = 0x10;
		errno = 0;
		cqx = ibv_create_cq_ex(ctx, &a);
		/* rdma-core returns NULL without setting errno here */
		printf("create_cq_ex comp_mask 0x10: %s\n", cqx ? "ok" : "NULL");
		if (!cqx)
			ctest_impl_line("create_cq_ex comp_mask 0x10 errno=%d", errno);
		a.comp_mask = 0;
		a.cqe = da.max_cqe + 1;
		errno = 0;
		cqx = ibv_create_cq_ex(ctx, &a);
		SHOW_PTR("create_cq_ex max+1", cqx, errno);
	}

	/* destroy while a QP uses it */
	pd = ibv_alloc_pd(ctx);
	CHECK(pd != NULL, "alloc_pd errno %d", errno);
	if (pd) {
		struct ibv_qp_init_attr qa = { .send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
					       .cap = { .max_send_wr = 4, .max_recv_wr = 4,
							.max_send_sge = 1, .max_recv_sge = 1 } };
		qp = ibv_create_qp(pd, &qa);
		SHOW_PTR("create_qp", qp, errno);
		if (qp) {
			printf("destroy cq in use: %d\n", ibv_destroy_cq(cq));
			printf("destroy qp: %d\n", ibv_destroy_qp(qp));
		}
		printf("dealloc_pd: %d\n", ibv_dealloc_pd(pd));
	}
	printf("destroy cq: %d\n", ibv_destroy_cq(cq));
	if (ctest_ours()) {
		/* rdma-core would use freed memory: ours refuses */
		ctest_impl_line("destroy cq again: %d", ibv_destroy_cq(cq));
		ctest_impl_line("resize destroyed cq: %d", ibv_resize_cq(cq, 10));
		ctest_impl_line("destroy NULL cq: %d", ibv_destroy_cq(NULL));
		errno = 0;
		cq2 = ibv_create_cq(NULL, 1, NULL, NULL, 0);
		ctest_impl_line("create_cq NULL ctx: %s errno=%d", cq2 ? "ok" : "NULL", errno);
	}
	CHECK(ibv_close_device(ctx) == 0, "close");
	return ctest_finish();
}
