/* Bad input, part two (see c-tests/badinput.c, whose harness it shares): QPs,
 * SRQs, MRs, MWs, AHs and the data path, in a program of its own to keep each
 * run within the VM's per-program time limit. */
#include "badinput.h"

#define CASES(X, OBJ)                                                                                   \
	/* QPs */                                                                                      \
	OBJ(destroyqp, NEEDDEV, "ibv_destroy_qp", ALL, "EINVAL", "SIGSEGV", "EINVAL", POS(ibv_destroy_qp(QP(v)))) \
	OBJ(modifyqp, NEEDDEV, "ibv_modify_qp", ALL, "EINVAL", "SIGSEGV", "EINVAL", qp_modify(QP(v), IBV_QPS_INIT, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS, 1, 0)) \
	OBJ(queryqp, NEEDDEV, "ibv_query_qp", ALL, "EINVAL", "SIGSEGV", "EINVAL", qp_query(QP(v), IBV_QP_STATE)) \
	OBJ(postsend, NEEDDEV, "ibv_post_send", ALL, INL_NULL("EINVAL"), "SIGSEGV", "EINVAL", send1(QP(v), IBV_WR_SEND, 1, 0, 16, NULL, 0)) \
	OBJ(postrecv, NEEDDEV, "ibv_post_recv", ALL, INL_NULL("EINVAL"), "SIGSEGV", "EINVAL", recv1(QP(v), NULL, 1)) \
	OBJ(attach, NEEDDEV, "ibv_attach_mcast", ALL, "EINVAL", "SIGSEGV", "EINVAL", mcast(UD(v), 1, 1)) \
	OBJ(detach, NEEDDEV, "ibv_detach_mcast", ALL, "EINVAL", "SIGSEGV", "EINVAL", mcast(UD(v), 0, 1)) \
	OBJ(queryece, NEEDDEV, "ibv_query_ece", ALL, "EINVAL", "SIGSEGV", "EINVAL", ece(QP(v), 0)) \
	OBJ(setece, NEEDDEV, "ibv_set_ece", ALL, "EINVAL", "SIGSEGV", "EINVAL", ece(QP(v), 1)) \
	OBJ(qptoex, NEEDDEV, "ibv_qp_to_qp_ex", ALL, "NULL EINVAL", "SIGSEGV", "NULL EINVAL", PTR(ibv_qp_to_qp_ex(QP(v)))) \
	OBJ(inorder, NEEDDEV, "ibv_query_qp_data_in_order", ALL, "0", "SIGSEGV", "0", POS(ibv_query_qp_data_in_order(QP(v), IBV_WR_SEND, 0))) \
	OBJ(bindqp, NEEDDEV, "ibv_bind_mw(qp)", ALL, "EINVAL", "SIGSEGV", "EINVAL", bind1(QP(v), mw_of(&fx_main), mr_of(&fx_main), 64, IBV_ACCESS_REMOTE_READ)) \
	/* SRQs */                                                                                     \
	OBJ(destroysrq, NEEDDEV, "ibv_destroy_srq", ALL, "EINVAL", "SIGSEGV", "EINVAL", POS(ibv_destroy_srq(SRQ(v)))) \
	OBJ(modifysrq, NEEDDEV, "ibv_modify_srq", ALL, "EINVAL", "SIGSEGV", "EINVAL", srq_modify(SRQ(v), 0, 2, IBV_SRQ_LIMIT)) \
	OBJ(querysrq, NEEDDEV, "ibv_query_srq", ALL, "EINVAL", "SIGSEGV", "EINVAL", srq_query(SRQ(v))) \
	OBJ(postsrq, NEEDDEV, "ibv_post_srq_recv", ALL, INL_NULL("EINVAL"), "SIGSEGV", "EINVAL", recv1(NULL, SRQ(v), 1)) \
	OBJ(qponsrq, NEEDDEV, "ibv_create_qp(srq)", NONULL, "", "", "NULL EINVAL", qp_create(P, cq_of(&fx_main), SRQ(v), IBV_QPT_RC, 4, 1, 0)) \
	/* MRs, MWs, AHs */                                                                            \
	OBJ(deregmr, NEEDDEV, "ibv_dereg_mr", ALL, "EINVAL", "SIGSEGV", "EINVAL", POS(ibv_dereg_mr(MR(v)))) \
	OBJ(reregmr, NEEDDEV, "ibv_rereg_mr", ALL, "-1 EINVAL", "SIGSEGV", "-1 EINVAL", rereg(MR(v), IBV_REREG_MR_CHANGE_ACCESS, NULL, IBV_ACCESS_LOCAL_WRITE)) \
	OBJ(unimportmr, NEEDDEV, "ibv_unimport_mr", ALL, "void", "SIGSEGV", "void", VOID(ibv_unimport_mr(MR(v)))) \
	OBJ(bindmr, NEEDDEV, "ibv_bind_mw(mr)", 1 << V_FORGED, "", "", "EINVAL", bind1(ud_of(&fx_main), mw_of(&fx_main), MR(v), 64, IBV_ACCESS_REMOTE_READ)) \
	/* verbs.h's ibv_bind_mw itself returns EPERM when the MR's PD is not the MW's: \
	 * it reads both structs (a destroyed one of ours is still readable memory) */ \
	X(bindmr_foreign, NEEDDEV, "ibv_bind_mw(mr)(foreign)", "EPERM", "UB", bind1(ud_of(&fx_main), mw_of(&fx_main), MR(V_FOREIGN), 64, IBV_ACCESS_REMOTE_READ)) \
	X(bindmr_destroyed, NEEDDEV, "ibv_bind_mw(mr)(destroyed)", "EPERM", "UB", bind1(ud_of(&fx_main), mw_of(&fx_main), MR(V_DESTROYED), 64, IBV_ACCESS_REMOTE_READ)) \
	X(bindmr_closed, NEEDDEV, "ibv_bind_mw(mr)(closed)", "EPERM", "UB", bind1(ud_of(&fx_main), mw_of(&fx_main), MR(V_CLOSED), 64, IBV_ACCESS_REMOTE_READ)) \
	X(bindmw_destroyed, NEEDDEV, "ibv_bind_mw(mw)(destroyed)", "EPERM", "UB", bind1(ud_of(&fx_main), MW(V_DESTROYED), mr_of(&fx_main), 64, IBV_ACCESS_REMOTE_READ)) \
	X(bindmw_closed, NEEDDEV, "ibv_bind_mw(mw)(closed)", "EPERM", "UB", bind1(ud_of(&fx_main), MW(V_CLOSED), mr_of(&fx_main), 64, IBV_ACCESS_REMOTE_READ)) \
	OBJ(deallocmw, NEEDDEV, "ibv_dealloc_mw", ALL, INL_NULL("EINVAL"), "SIGSEGV", "EINVAL", POS(ibv_dealloc_mw(MW(v)))) \
	OBJ(bindmw, NEEDDEV, "ibv_bind_mw(mw)", (1 << V_NULL) | (1 << V_FOREIGN) | (1 << V_FORGED), INL_NULL("EINVAL"), "SIGSEGV", "EINVAL", bind1(ud_of(&fx_main), MW(v), mr_of(&fx_main), 64, IBV_ACCESS_REMOTE_READ)) \
	OBJ(destroyah, NEEDDEV, "ibv_destroy_ah", ALL, "EINVAL", "SIGSEGV", "EINVAL", POS(ibv_destroy_ah(AH(v)))) \
	OBJ(udah, NEEDDEV, "ibv_post_send(UD, ah)", ALL, "EINVAL", "SIGSEGV", "EINVAL", send1(ud_of(&fx_main), IBV_WR_SEND, 1, 0, 16, AH(v), 0)) \
	/* out-of-range values on live objects */                                                      \
	X(qp_type, NEEDDEV, "ibv_create_qp(qp_type 99)", "NULL EINVAL", "=", qp_create(P, cq_of(&fx_main), NULL, 99, 4, 1, 0)) \
	X(qp_xrc, NEEDDEV, "ibv_create_qp(qp_type XRC_SEND)", "NULL EOPNOTSUPP", "=", qp_create(P, cq_of(&fx_main), NULL, IBV_QPT_XRC_SEND, 4, 1, 0)) \
	X(qp_wr, NEEDDEV, "ibv_create_qp(max_wr 1<<30)", "NULL EINVAL", "=", qp_create(P, cq_of(&fx_main), NULL, IBV_QPT_RC, 1u << 30, 1, 0)) \
	X(qp_sge, NEEDDEV, "ibv_create_qp(max_sge 1000)", "NULL EINVAL", "=", qp_create(P, cq_of(&fx_main), NULL, IBV_QPT_RC, 4, 1000, 0)) \
	X(qp_inl, NEEDDEV, "ibv_create_qp(max_inline 1<<20)", "NULL EINVAL", "=", qp_create(P, cq_of(&fx_main), NULL, IBV_QPT_RC, 4, 1, 1u << 20)) \
	X(qp_nocq, NEEDDEV, "ibv_create_qp(send_cq NULL)", "NULL EINVAL", "SIGSEGV", qp_create(P, NULL, NULL, IBV_QPT_RC, 4, 1, 0)) \
	X(mod_mask0, NEEDDEV, "ibv_modify_qp(attr_mask 0)", "0", "=", qp_modify(qp_of(&fx_main), IBV_QPS_INIT, 0, 1, 0)) \
	X(mod_maskbit, NEEDDEV, "ibv_modify_qp(attr_mask 1<<30)", "EOPNOTSUPP", "=", qp_modify(qp_of(&fx_main), IBV_QPS_INIT, IBV_QP_STATE | (1 << 30), 1, 0)) \
	X(mod_state, NEEDDEV, "ibv_modify_qp(qp_state 99)", "EINVAL", "=", qp_modify(qp_of(&fx_main), 99, IBV_QP_STATE, 1, 0)) \
	X(mod_trans, NEEDDEV, "ibv_modify_qp(RESET to RTS)", "EINVAL", "=", qp_modify(qp_of(&fx_main), IBV_QPS_RTS, IBV_QP_STATE, 1, 0)) \
	X(mod_port0, NEEDDEV, "ibv_modify_qp(INIT, port 0)", "EINVAL", "=", qp_modify(qp_of(&fx_main), IBV_QPS_INIT, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS, 0, 0)) \
	X(mod_port255, NEEDDEV, "ibv_modify_qp(INIT, port 255)", "EINVAL", "=", qp_modify(qp_of(&fx_main), IBV_QPS_INIT, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS, 255, 0)) \
	X(mod_mtu, NEEDDEV, "ibv_modify_qp(path_mtu 99)", "EINVAL", "=", qp_modify(qp_of(&fx_main), IBV_QPS_INIT, IBV_QP_STATE | IBV_QP_PATH_MTU, 1, 99)) \
	X(query_mask0, NEEDDEV, "ibv_query_qp(attr_mask 0)", "0", "=", qp_query(qp_of(&fx_main), 0)) \
	X(query_maskbit, NEEDDEV, "ibv_query_qp(attr_mask 1<<30)", "EOPNOTSUPP", "=", qp_query(qp_of(&fx_main), 1 << 30)) \
	X(srq_0, NEEDDEV, "ibv_create_srq(max_wr 0)", "NULL EINVAL", "=", srq_create(P, 0, 1, 0)) \
	X(srq_huge, NEEDDEV, "ibv_create_srq(max_wr 1<<30)", "NULL EINVAL", "=", srq_create(P, 1u << 30, 1, 0)) \
	X(srq_sge, NEEDDEV, "ibv_create_srq(max_sge 1000)", "NULL EINVAL", "=", srq_create(P, 4, 1000, 0)) \
	X(srq_limit, NEEDDEV, "ibv_create_srq(srq_limit > max_wr)", "ok", "=", srq_create(P, 4, 1, 100)) \
	X(msrq_limit, NEEDDEV, "ibv_modify_srq(srq_limit 1<<30)", "EINVAL", "=", srq_modify(srq_of(&fx_main), 0, 1u << 30, IBV_SRQ_LIMIT)) \
	X(msrq_mask, NEEDDEV, "ibv_modify_srq(attr_mask 1<<30)", "0", "=", srq_modify(srq_of(&fx_main), 0, 2, 1 << 30)) \
	X(msrq_wr, NEEDDEV, "ibv_modify_srq(max_wr 1<<30)", "EINVAL", "=", srq_modify(srq_of(&fx_main), 1u << 30, 0, IBV_SRQ_MAX_WR)) \
	X(mr_len0, NEEDDEV, "ibv_reg_mr(length 0)", "ok", "=", reg_mr(P, buf_of(&fx_main), 0, IBV_ACCESS_LOCAL_WRITE)) \
	X(mr_huge, NEEDDEV, "ibv_reg_mr(length SIZE_MAX)", "NULL EINVAL", "=", reg_mr(P, buf_of(&fx_main), SIZE_MAX, IBV_ACCESS_LOCAL_WRITE)) \
	X(mr_access, NEEDDEV, "ibv_reg_mr(access 1<<30)", "NULL EINVAL", "=", reg_mr(P, buf_of(&fx_main), 4096, 1 << 30)) \
	X(mr_rw, NEEDDEV, "ibv_reg_mr(REMOTE_WRITE without LOCAL_WRITE)", "NULL EINVAL", "=", reg_mr(P, buf_of(&fx_main), 4096, IBV_ACCESS_REMOTE_WRITE)) \
	X(mr_unmapped, NEEDDEV, "ibv_reg_mr(addr 4096, unmapped)", "NULL EFAULT", "=", reg_mr(P, (void *)4096, 4096, IBV_ACCESS_LOCAL_WRITE)) \
	X(rereg_0, NEEDDEV, "ibv_rereg_mr(flags 0)", "-4 EOPNOTSUPP", "=", rereg(mr_of(&fx_main), 0, NULL, 0)) \
	X(rereg_flags, NEEDDEV, "ibv_rereg_mr(flags 1<<20)", "-1 EINVAL", "=", rereg(mr_of(&fx_main), 1 << 20, NULL, 0)) \
	X(rereg_pd, NEEDDEV, "ibv_rereg_mr(CHANGE_PD, pd NULL)", "-4 EOPNOTSUPP", "=", rereg(mr_of(&fx_main), IBV_REREG_MR_CHANGE_PD, NULL, 0)) \
	X(ah_port0, NEEDDEV, "ibv_create_ah(port 0)", "NULL EINVAL", "=", ah_create(P, 0, 1, 1)) \
	X(ah_port255, NEEDDEV, "ibv_create_ah(port 255)", "NULL EINVAL", "=", ah_create(P, 255, 1, 1)) \
	X(ah_sgid, NEEDDEV, "ibv_create_ah(sgid_index 1000)", "NULL ENODATA", "=", ah_create(P, 1, 1000, 1)) \
	X(ah_noglobal, NEEDDEV, "ibv_create_ah(no GRH on RoCE)", "NULL EINVAL", "=", ah_create(P, 1, 1, 0)) \
	X(ahwc_port, NEEDDEV, "ibv_create_ah_from_wc(port 255)", "NULL EPROTONOSUPPORT", "=", from_wc(P, 255, 1)) \
	X(ahwc_nogrh, NEEDDEV, "ibv_create_ah_from_wc(no GRH)", "NULL EINVAL", "=", from_wc(P, 1, 0)) \
	X(mw_type, NEEDDEV, "ibv_alloc_mw(type 99)", "NULL EINVAL", "=", PTR(ibv_alloc_mw(P, 99))) \
	X(importmr_h, NEEDDEV, "ibv_import_mr(handle 12345)", "NULL EOPNOTSUPP", "=", PTR(ibv_import_mr(P, 12345))) \
	X(dmabuf_fd, NEEDDEV, "ibv_reg_dmabuf_mr(fd -1)", "NULL EOPNOTSUPP", "=", PTR(ibv_reg_dmabuf_mr(P, 0, 4096, 0, -1, 0))) \
	X(inorder_op, NEEDDEV, "ibv_query_qp_data_in_order(opcode 99)", "0", "=", POS(ibv_query_qp_data_in_order(qp_of(&fx_main), 99, 0))) \
	X(inorder_flags, NEEDDEV, "ibv_query_qp_data_in_order(flags 1<<30)", "0", "=", POS(ibv_query_qp_data_in_order(qp_of(&fx_main), IBV_WR_SEND, 1u << 30))) \
	X(mc_notmc, NEEDDEV, "ibv_attach_mcast(unicast gid)", "EINVAL", "=", mcast(ud_of(&fx_main), 1, 0)) \
	X(mc_rc, NEEDDEV, "ibv_attach_mcast(RC QP)", "EINVAL", "=", mcast(qp_of(&fx_main), 1, 1)) \
	X(mc_detach, NEEDDEV, "ibv_detach_mcast(not attached)", "EINVAL", "=", mcast(ud_of(&fx_main), 0, 1)) \
	X(send_reset, NEEDDEV, "ibv_post_send(RC QP in RESET)", "EINVAL", "=", send1(qp_of(&fx_main), IBV_WR_SEND, 1, 0, 16, NULL, 0)) \
	X(recv_reset, NEEDDEV, "ibv_post_recv(RC QP in RESET)", "EINVAL", "=", recv1(qp_of(&fx_main), NULL, 1)) \
	X(send_op, NEEDDEV, "ibv_post_send(UD, opcode 99)", "0", "=", send1(ud_of(&fx_main), 99, 1, 0, 16, ah_of(&fx_main), 0)) \
	X(send_op_rc, NEEDDEV, "ibv_post_send(UD, opcode RDMA_WRITE)", "0", "=", send1(ud_of(&fx_main), IBV_WR_RDMA_WRITE, 1, 0, 16, ah_of(&fx_main), 0)) \
	X(send_nsge, NEEDDEV, "ibv_post_send(num_sge 8 > max 2)", "EINVAL", "=", send1(ud_of(&fx_main), IBV_WR_SEND, 8, 0, 16, ah_of(&fx_main), 0)) \
	X(send_nsgeneg, NEEDDEV, "ibv_post_send(num_sge -1)", "EINVAL", "=", send1(ud_of(&fx_main), IBV_WR_SEND, -1, 0, 16, ah_of(&fx_main), 0)) \
	X(send_inline, NEEDDEV, "ibv_post_send(inline 2 x 60 > max 64)", "EINVAL", "=", send1(ud_of(&fx_main), IBV_WR_SEND, 2, IBV_SEND_INLINE, 60, ah_of(&fx_main), 0)) \
	X(send_flags, NEEDDEV, "ibv_post_send(send_flags 1<<30)", "0", "=", send1(ud_of(&fx_main), IBV_WR_SEND, 1, 1 << 30, 16, ah_of(&fx_main), 0)) \
	X(send_big, NEEDDEV, "ibv_post_send(UD, length 1<<30 > MTU)", "wc 0", "=", send_wc(ud_of(&fx_main), IBV_WR_SEND, 1u << 30, ah_of(&fx_main), 0)) \
	X(send_lkey, NEEDDEV, "ibv_post_send(UD, bad lkey)", "wc 2", "=", send_wc(ud_of(&fx_main), IBV_WR_SEND, 16, ah_of(&fx_main), 0xdead00)) \
	X(send_noah, NEEDDEV, "ibv_post_send(UD, ah NULL)", "EINVAL", "SIGSEGV", send1(ud_of(&fx_main), IBV_WR_SEND, 1, 0, 16, NULL, 0)) \
	X(recv_nsge, NEEDDEV, "ibv_post_recv(num_sge 8 > max 2)", "EINVAL", "=", recv1(ud_of(&fx_main), NULL, 8)) \
	X(srecv_nsge, NEEDDEV, "ibv_post_srq_recv(num_sge 8 > max 1)", "EINVAL", "=", recv1(NULL, srq_of(&fx_main), 8)) \
	X(recv_srqqp, NEEDDEV, "ibv_post_recv(QP on an SRQ)", "EINVAL", "=", recv1(mkqp(&fx_main, IBV_QPT_RC, srq_of(&fx_main)), NULL, 1)) \
	X(bind_len, NEEDDEV, "ibv_bind_mw(length > MR)", "EINVAL", "=", bind1(ud_of(&fx_main), mw_of(&fx_main), mr_of(&fx_main), 1u << 20, IBV_ACCESS_REMOTE_READ)) \
	X(bind_access, NEEDDEV, "ibv_bind_mw(access 1<<30)", "EINVAL", "=", bind1(ud_of(&fx_main), mw_of(&fx_main), mr_of(&fx_main), 64, 1 << 30)) \
	X(bind_nomr, NEEDDEV, "ibv_bind_mw(mr NULL)", "EINVAL", "=", bind1(ud_of(&fx_main), mw_of(&fx_main), NULL, 64, IBV_ACCESS_REMOTE_READ)) \
	X(ece_set, NEEDDEV, "ibv_set_ece(live QP)", "EOPNOTSUPP", "=", ece(qp_of(&fx_main), 1)) \
	X(ece_query, NEEDDEV, "ibv_query_ece(live QP)", "EOPNOTSUPP", "=", ece(qp_of(&fx_main), 0)) \
	X(qpex_plain, NEEDDEV, "ibv_qp_to_qp_ex(QP of ibv_create_qp)", "NULL errno 0", "=", PTR0(ibv_qp_to_qp_ex(qp_of(&fx_main))))

CASES(FN_X, FN_OBJ)
static const struct bcase cases[] = { CASES(ROW_X, ROW_OBJ) };

int main(void)
{
	return badinput_main(cases, (int)(sizeof(cases) / sizeof(cases[0])));
}
