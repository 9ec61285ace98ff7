/* Behaviours the manual pages state (ibv_create_qp / ibv_destroy_qp,
 * ibv_query_device(_ex), ibv_query_qp_data_in_order), on rxe, compared with
 * Debian's library:
 *  - create_qp: send/recv CQ required ([ours] lines: rdma-core crashes); SRQ only on RC/UD (and its PD);
 *    capacities over the device limits fail, within them are written back;
 *    max_recv_wr/max_recv_sge ignored with an SRQ; sq_sig_all kept;
 *  - query_device: node_guid is ibv_get_device_guid's; query_device_ex's base
 *    part is query_device's; non-zero input comp_mask is EINVAL;
 *  - query_qp_data_in_order: every opcode x flags x QP type. */
#include "rxe.h"

static struct ibv_qp *qp_try(const char *what, struct ibv_pd *pd, struct ibv_qp_init_attr a)
{
	struct ibv_qp *qp;

	errno = 0;
	qp = ibv_create_qp(pd, &a);
	if (!qp) {
		printf("%s: NULL errno %d\n", what, errno);
		return NULL;
	}
	printf("%s: ok type %d cap %u/%u/%u/%u/%u has srq %d\n", what, qp->qp_type,
	       a.cap.max_send_wr, a.cap.max_recv_wr, a.cap.max_send_sge, a.cap.max_recv_sge,
	       a.cap.max_inline_data, qp->srq != NULL);
	return qp;
}

static void qp_once(const char *what, struct ibv_pd *pd, struct ibv_qp_init_attr a)
{
	struct ibv_qp *qp = qp_try(what, pd, a);

	if (qp)
		CHECK(ibv_destroy_qp(qp) == 0, "destroy %s", what);
}

int main(void)
{
	struct ibv_device_attr da;
	struct ibv_device_attr_ex dx;
	struct ibv_query_device_ex_input in;
	struct ibv_device **list;
	struct ibv_context *ctx;
	struct ibv_pd *pd, *pd2;
	struct ibv_cq *cq;
	struct ibv_srq *srq, *srq2;
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 8, .max_sge = 1 } };
	struct ibv_qp_init_attr base;
	struct ibv_qp_init_attr a;
	static const enum ibv_qp_type types[] = { IBV_QPT_RC, IBV_QPT_UC, IBV_QPT_UD };
	int r;

	ctest_init();
	ctx = rxe_open(&da);
	if (!ctx)
		return ctest_finish();

	/* ibv_query_device / _ex */
	list = ibv_get_device_list(NULL);
	printf("node_guid == ibv_get_device_guid: %d\n",
	       da.node_guid == ibv_get_device_guid(list[0]));
	ibv_free_device_list(list);
	memset(&dx, 0xa5, sizeof(dx));
	r = ibv_query_device_ex(ctx, NULL, &dx);
	printf("query_device_ex NULL input = %d, base same %d\n", r,
	       memcmp(&dx.orig_attr, &da, sizeof(da)) == 0);
	{
		static const uint32_t masks[] = { 1, 2, 0x80000000u };

		for (unsigned k = 0; k < 3; k++) {
			in.comp_mask = masks[k];
			errno = 0;
			r = ibv_query_device_ex(ctx, &in, &dx);
			printf("query_device_ex input comp_mask %#x = %d\n", masks[k], r);
		}
	}
	in.comp_mask = 0;
	printf("query_device_ex input comp_mask 0 = %d\n", ibv_query_device_ex(ctx, &in, &dx));

	pd = ibv_alloc_pd(ctx);
	pd2 = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	srq = ibv_create_srq(pd, &sa);
	sa.attr.max_wr = 8;
	srq2 = ibv_create_srq(pd2, &sa);
	CHECK(pd && pd2 && cq && srq && srq2, "objects: errno %d", errno);
	if (!pd || !pd2 || !cq || !srq || !srq2)
		return ctest_finish();

	memset(&base, 0, sizeof(base));
	base.send_cq = cq;
	base.recv_cq = cq;
	base.cap = (struct ibv_qp_cap){ 4, 4, 1, 1, 0 };

	for (unsigned i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		char w[96];
		const char *n = types[i] == IBV_QPT_RC ? "RC" : types[i] == IBV_QPT_UC ? "UC" : "UD";

		a = base;
		a.qp_type = types[i];
#define T(label, stmt) do { a = base; a.qp_type = types[i]; stmt; \
	snprintf(w, sizeof(w), "%s %s", n, label); qp_once(w, pd, a); } while (0)
		T("plain", (void)0);
		if (ctest_ours()) { /* rdma-core dereferences the NULL CQ */
			struct ibv_qp *q;

			a = base;
			a.qp_type = types[i];
			a.send_cq = NULL;
			errno = 0;
			q = ibv_create_qp(pd, &a);
			ctest_impl_line("%s no send_cq: %s errno %d", n, q ? "ok" : "NULL", errno);
			a.send_cq = cq;
			a.recv_cq = NULL;
			errno = 0;
			q = ibv_create_qp(pd, &a);
			ctest_impl_line("%s no recv_cq: %s errno %d", n, q ? "ok" : "NULL", errno);
		}
		T("srq", a.srq = srq);
		T("srq, recv caps ignored", (a.srq = srq, a.cap.max_recv_wr = 1u << 30,
					    a.cap.max_recv_sge = 1000));
		T("srq of another pd", a.srq = srq2);
		T("send_wr = max_qp_wr", a.cap.max_send_wr = da.max_qp_wr);
		T("send_wr = max_qp_wr + 1", a.cap.max_send_wr = da.max_qp_wr + 1);
		T("recv_wr = max_qp_wr + 1", a.cap.max_recv_wr = da.max_qp_wr + 1);
		T("send_sge = max_sge", a.cap.max_send_sge = da.max_sge);
		T("send_sge = max_sge + 1", a.cap.max_send_sge = da.max_sge + 1);
		T("recv_sge = max_sge + 1", a.cap.max_recv_sge = da.max_sge + 1);
		T("inline 64", a.cap.max_inline_data = 64);
		T("inline 1 MiB", a.cap.max_inline_data = 1 << 20);
		T("all caps 0", memset(&a.cap, 0, sizeof(a.cap)));
		T("odd caps", (a.cap.max_send_wr = 3, a.cap.max_recv_wr = 5, a.cap.max_send_sge = 2,
				      a.cap.max_recv_sge = 3, a.cap.max_inline_data = 17));
		T("sq_sig_all 1", a.sq_sig_all = 1);
#undef T
		/* ibv_query_qp_data_in_order: every opcode and flag value. */
		a = base;
		a.qp_type = types[i];
		{
			struct ibv_qp *qp = ibv_create_qp(pd, &a);
			struct ibv_qp_attr qa;
			struct ibv_qp_init_attr qi;

			CHECK(qp != NULL, "create %s", n);
			if (!qp)
				continue;
			if (ibv_query_qp(qp, &qa, IBV_QP_CAP, &qi) == 0)
				printf("%s query_qp sq_sig_all %d\n", n, qi.sq_sig_all);
			for (int op = 0; op <= 16; op++) {
				printf("%s data_in_order op %2d:", n, op);
				for (uint32_t f = 0; f <= 4; f++)
					printf(" %d", ibv_query_qp_data_in_order(qp, op, f));
				printf(" %d\n", ibv_query_qp_data_in_order(qp, op, 0xffffffffu));
			}
			CHECK(ibv_destroy_qp(qp) == 0, "destroy");
		}
	}
	a = base;
	a.qp_type = IBV_QPT_RC;
	a.sq_sig_all = 1;
	{
		struct ibv_qp *qp = ibv_create_qp(pd, &a);
		struct ibv_qp_attr qa;
		struct ibv_qp_init_attr qi;

		if (qp && ibv_query_qp(qp, &qa, IBV_QP_CAP, &qi) == 0)
			printf("RC sq_sig_all 1 query_qp sq_sig_all %d\n", qi.sq_sig_all);
		if (qp)
			ibv_destroy_qp(qp);
	}
	a.qp_type = 0x99;
	qp_once("bad qp_type", pd, a);
	a.qp_type = IBV_QPT_RAW_PACKET;
	qp_once("RAW_PACKET", pd, a);
	a.qp_type = IBV_QPT_XRC_SEND;
	qp_once("XRC_SEND", pd, a);

	CHECK(ibv_destroy_srq(srq) == 0 && ibv_destroy_srq(srq2) == 0, "destroy srq");
	CHECK(ibv_destroy_cq(cq) == 0, "destroy cq");
	CHECK(ibv_dealloc_pd(pd) == 0 && ibv_dealloc_pd(pd2) == 0, "dealloc");
	CHECK(ibv_close_device(ctx) == 0, "close");
	return ctest_finish();
}
