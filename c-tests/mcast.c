/* ibv_attach_mcast / ibv_detach_mcast on rxe, compared with Debian's library:
 * UD QPs (attach, double attach, detach, detach of a group not attached, two
 * QPs in one group, several groups), RC QPs, unicast GIDs, LIDs, and
 * ibv_destroy_qp while attached (the kernel refuses with EBUSY).
 * [ours] lines: NULL QP / GID and a destroyed QP (rdma-core crashes). */
#include "rxe.h"

#include <arpa/inet.h>

static union ibv_gid mgid(const char *s)
{
	union ibv_gid g;

	inet_pton(AF_INET6, s, g.raw);
	return g;
}

static struct ibv_qp *mkqp(struct ibv_pd *pd, struct ibv_cq *cq, enum ibv_qp_type t)
{
	struct ibv_qp_init_attr a = { .send_cq = cq, .recv_cq = cq, .qp_type = t,
				      .cap = { 4, 4, 1, 1, 0 } };
	struct ibv_qp *qp = ibv_create_qp(pd, &a);

	CHECK(qp != NULL, "create_qp type %d: errno %d", t, errno);
	return qp;
}

static void to_init(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .pkey_index = 0, .port_num = 1,
				 .qkey = 0x11111111 };

	CHECK(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				    IBV_QP_QKEY) == 0, "modify to INIT: errno %d", errno);
}

#define R(what, call) do { errno = 0; int r_ = (call); \
	printf("%s = %d, errno %d\n", what, r_, r_ ? errno : 0); } while (0)

int main(void)
{
	struct ibv_device_attr da;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *ud, *ud2, *rc;
	union ibv_gid g1 = mgid("ff0e::ffff:e000:0005"), g2 = mgid("ff12:401b::1"),
		      g3 = mgid("ff02::1:ff00:1234"), uni = mgid("::ffff:10.0.0.1"),
		      zero = mgid("::");

	ctest_init();
	ctx = rxe_open(&da);
	if (!ctx)
		return ctest_finish();
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	CHECK(pd && cq, "pd/cq");
	ud = mkqp(pd, cq, IBV_QPT_UD);
	ud2 = mkqp(pd, cq, IBV_QPT_UD);
	rc = mkqp(pd, cq, IBV_QPT_RC);
	if (!ud || !ud2 || !rc)
		return ctest_finish();

	R("attach UD (RESET) g1", ibv_attach_mcast(ud, &g1, 0));
	R("attach UD g1 again", ibv_attach_mcast(ud, &g1, 0));
	R("detach UD g1", ibv_detach_mcast(ud, &g1, 0));
	R("detach UD g1 again (not attached)", ibv_detach_mcast(ud, &g1, 0));
	R("detach UD g2 (never attached)", ibv_detach_mcast(ud, &g2, 0));
	to_init(ud);
	R("attach UD (INIT) g1", ibv_attach_mcast(ud, &g1, 0));
	R("attach UD g2", ibv_attach_mcast(ud, &g2, 0));
	R("attach UD g3", ibv_attach_mcast(ud, &g3, 0));
	R("attach UD2 g1 (shared group)", ibv_attach_mcast(ud2, &g1, 0));
	R("attach UD g1 lid 0xc001", ibv_attach_mcast(ud, &g1, 0xc001));
	R("attach UD g2 lid 0xffff", ibv_attach_mcast(ud2, &g2, 0xffff));
	R("attach UD unicast GID", ibv_attach_mcast(ud, &uni, 0));
	R("attach UD zero GID", ibv_attach_mcast(ud, &zero, 0));
	R("detach UD unicast GID", ibv_detach_mcast(ud, &uni, 0));
	R("attach RC g1", ibv_attach_mcast(rc, &g1, 0));
	R("detach RC g1", ibv_detach_mcast(rc, &g1, 0));
	R("destroy UD while attached", ibv_destroy_qp(ud));
	R("destroy UD2 while attached", ibv_destroy_qp(ud2));
	R("detach UD g1", ibv_detach_mcast(ud, &g1, 0));
	R("detach UD g2", ibv_detach_mcast(ud, &g2, 0));
	R("destroy UD still in g3", ibv_destroy_qp(ud));
	R("detach UD g3", ibv_detach_mcast(ud, &g3, 0));
	R("detach UD2 g1", ibv_detach_mcast(ud2, &g1, 0));
	R("detach UD2 g2", ibv_detach_mcast(ud2, &g2, 0));
	R("destroy UD", ibv_destroy_qp(ud));
	R("destroy UD2", ibv_destroy_qp(ud2));
	R("destroy RC", ibv_destroy_qp(rc));
	if (ctest_ours()) {
		errno = 0;
		ctest_impl_line("attach destroyed QP = %d", ibv_attach_mcast(ud, &g1, 0));
		ctest_impl_line("detach destroyed QP = %d", ibv_detach_mcast(ud, &g1, 0));
		ctest_impl_line("attach NULL QP = %d", ibv_attach_mcast(NULL, &g1, 0));
		ctest_impl_line("detach NULL QP = %d", ibv_detach_mcast(NULL, &g1, 0));
		ud = mkqp(pd, cq, IBV_QPT_UD);
		ctest_impl_line("attach NULL GID = %d", ibv_attach_mcast(ud, NULL, 0));
		ctest_impl_line("detach NULL GID = %d", ibv_detach_mcast(ud, NULL, 0));
		ctest_impl_line("destroy = %d", ibv_destroy_qp(ud));
	}
	R("destroy CQ", ibv_destroy_cq(cq));
	R("dealloc PD", ibv_dealloc_pd(pd));
	R("close", ibv_close_device(ctx));
	return ctest_finish();
}
