/* An extended QP of fake34.c (a PABI 34 plugin of rdma-core 45..56's
 * layout) through the host: ibv_qp_to_qp_ex must find the plugin's
 * VERBS_QP_EX where that layout has comp_mask, and ibv_wr_flush must reach
 * the plugin's wr_flush. */
#include "open_fake.h"

int main(void)
{
	struct ibv_context *ctx = open_fake("fake34_0", (void *)ibv_qp_to_qp_ex);

	if (!ctx)
		return 1;
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_cq *cq = NULL;
	struct ibv_qp_init_attr_ex a = {
		.qp_type = IBV_QPT_RC,
		.send_cq = cq,
		.recv_cq = cq,
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = pd,
		.send_ops_flags = IBV_QP_EX_WITH_FLUSH,
	};
	struct ibv_qp *qp = pd ? ibv_create_qp_ex(ctx, &a) : NULL;
	if (!qp) {
		printf("create_qp_ex: %s\n", strerror(errno));
		return 1;
	}
	struct ibv_qp_ex *qpx = ibv_qp_to_qp_ex(qp);
	printf("qp_to_qp_ex: %s\n", qpx == (struct ibv_qp_ex *)qp ? "the QP" : qpx ? "wrong" : "NULL");
	if (qpx)
		ibv_wr_flush(qpx, 7, 4096, 64, IBV_FLUSH_GLOBAL, IBV_FLUSH_RANGE);
	printf("destroy_qp: %d\n", ibv_destroy_qp(qp));
	printf("dealloc_pd: %d\n", ibv_dealloc_pd(pd));
	printf("close: %d\n", ibv_close_device(ctx));
	return 0;
}
