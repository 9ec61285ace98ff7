/* Bad input to every exported verb (issue #14): one table line per case, each
 * case run in a forked child (alarm() against hangs), so that a crash is
 * survivable and shows in the output.
 *
 * The bad objects (column "obj" rows expand to one case per variant):
 *   NULL       a NULL object pointer
 *   foreign    a zeroed struct the library never made (its context field set
 *              to the live context, so that verbs.h's inlines reach the library)
 *   destroyed  an object after its destroy verb
 *   closed     an object of a context closed since (ibv_close_device)
 *   forged     a memcpy of a live object's struct into other memory
 * and out-of-range values (enums, flags, ports, lengths, attr_mask and
 * comp_mask bits, opcodes, num_sge) on live objects.
 *
 * Every case names what our library must return, in the libibverbs convention
 * of its verb: "NULL EINVAL" (NULL + errno), "-1 EINVAL" (-1 + errno), "EINVAL"
 * (a positive errno), "0"/"ok" (success), "void" (returned), "wc N" (the
 * status of an error completion). Debian's result is either the same (the
 * line is printed untagged and run.sh/tests.sh diff it with Debian's run), a
 * fixed other outcome, or undefined ("UB": Debian uses freed, foreign or
 * forged memory, or dereferences NULL in the caller's own inline code), then
 * printed tagged. A case where Debian crashes or hangs and we return an error
 * is printed as a win. Cases that need a device are skipped (one line) when
 * there is none (on the host, `make c-test`); in the VM they run on rxe0.
 */

#include "badinput.h"

/* ---- the cases -------------------------------------------------------------- */
/* helpers for cases that need a few statements */
static struct out qp_create(struct ibv_pd *pd, struct ibv_cq *cq, struct ibv_srq *srq,
			    int type, uint32_t wr, uint32_t sge, uint32_t inl)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = cq, .recv_cq = cq, .srq = srq, .qp_type = type,
		.cap = { .max_send_wr = wr, .max_recv_wr = wr, .max_send_sge = sge,
			 .max_recv_sge = sge, .max_inline_data = inl },
	};
	return PTR(ibv_create_qp(pd, &ia));
}
static struct out qp_modify(struct ibv_qp *qp, int state, int mask, int port, int mtu)
{
	struct ibv_qp_attr a = { .qp_state = state, .port_num = port, .path_mtu = mtu,
				 .qp_access_flags = IBV_ACCESS_LOCAL_WRITE };
	return POS(ibv_modify_qp(qp, &a, mask));
}
static struct out qp_query(struct ibv_qp *qp, int mask)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;

	return POS(ibv_query_qp(qp, &a, mask, &ia));
}
static struct out srq_create(struct ibv_pd *pd, uint32_t wr, uint32_t sge, uint32_t limit)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = wr, .max_sge = sge, .srq_limit = limit } };

	return PTR(ibv_create_srq(pd, &sa));
}
static struct out srq_modify(struct ibv_srq *srq, uint32_t wr, uint32_t limit, int mask)
{
	struct ibv_srq_attr a = { .max_wr = wr, .srq_limit = limit };

	return POS(ibv_modify_srq(srq, &a, mask));
}
static struct out srq_query(struct ibv_srq *srq)
{
	struct ibv_srq_attr a;

	return POS(ibv_query_srq(srq, &a));
}
static struct out ah_create(struct ibv_pd *pd, int port, int sgid, int global)
{
	struct ibv_ah_attr a;

	ah_attr_of(&fx_main, &a);
	a.port_num = port;
	a.grh.sgid_index = sgid;
	a.is_global = global;
	return PTR(ibv_create_ah(pd, &a));
}
static struct out send1(struct ibv_qp *qp, int opcode, int nsge, int flags, uint32_t len,
			struct ibv_ah *ah, uint32_t lkey)
{
	struct ibv_sge s[8];
	struct ibv_send_wr wr = { .wr_id = 1, .sg_list = s, .num_sge = nsge, .opcode = opcode,
				  .send_flags = flags },
			   *bad = NULL;
	struct ibv_mr *mr = mr_of(&fx_main);
	int i;

	for (i = 0; i < 8; i++)
		s[i] = (struct ibv_sge){ (uintptr_t)mr->addr, len, lkey ? lkey : mr->lkey };
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = ud_of(&fx_main)->qp_num;
	wr.wr.ud.remote_qkey = 0x11111111;
	return POS(ibv_post_send(qp, &wr, &bad));
}
/* Posts one signalled send and returns the status of its completion ("wc N"),
 * or the post's error. */
static struct out send_wc(struct ibv_qp *qp, int opcode, uint32_t len, struct ibv_ah *ah,
			  uint32_t lkey)
{
	struct out o = send1(qp, opcode, 1, IBV_SEND_SIGNALED, len, ah, lkey);
	struct ibv_wc wc;
	int n, tries = 0;

	if (o.ret)
		return o;
	while ((n = ibv_poll_cq(cq_of(&fx_main), 1, &wc)) == 0 && tries++ < 2000000)
		;
	if (n != 1)
		return (struct out){ K_NEG, n, errno };
	return (struct out){ K_WC, wc.status, 0 };
}
static struct out recv1(struct ibv_qp *qp, struct ibv_srq *srq, int nsge)
{
	struct ibv_sge s[8];
	struct ibv_recv_wr wr = { .wr_id = 1, .sg_list = s, .num_sge = nsge }, *bad = NULL;
	struct ibv_mr *mr = mr_of(&fx_main);
	int i;

	for (i = 0; i < 8; i++)
		s[i] = (struct ibv_sge){ (uintptr_t)mr->addr, 64, mr->lkey };
	if (srq)
		return POS(ibv_post_srq_recv(srq, &wr, &bad));
	return POS(ibv_post_recv(qp, &wr, &bad));
}
static struct out poll1(struct ibv_cq *cq, int n)
{
	struct ibv_wc wc[4];

	return NEG(ibv_poll_cq(cq, n, wc));
}
static struct out bind1(struct ibv_qp *qp, struct ibv_mw *mw, struct ibv_mr *mr, uint64_t len,
			int access)
{
	struct ibv_mw_bind b = { .wr_id = 1, .send_flags = IBV_SEND_SIGNALED,
				 .bind_info = { .mr = mr, .addr = (uintptr_t)buf_of(&fx_main),
						.length = len, .mw_access_flags = access } };

	return POS(ibv_bind_mw(qp, mw, &b));
}
static struct out mcast(struct ibv_qp *qp, int attach, int mc)
{
	union ibv_gid g = { .raw = { 0xff, 0x12, 0x60, 0x1b, [15] = 1 } };

	if (!mc)
		g = fx_main.gid;
	return POS(attach ? ibv_attach_mcast(qp, &g, 0) : ibv_detach_mcast(qp, &g, 0));
}
/* No event is pending: a forged copy's fd (the live one) is made non-blocking,
 * where Debian's library reads it. */
static void nonblock(int fd)
{
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}
static struct out cq_event(int v)
{
	struct ibv_cq *cq;
	void *cctx;
	struct ibv_comp_channel *ch = CH(v);

	if (v == V_FORGED)
		nonblock(fx_main.ch->fd);
	return NEG(ibv_get_cq_event(ch, &cq, &cctx));
}
static struct out async_event(int v)
{
	struct ibv_async_event ev;
	struct ibv_context *c = CTX(v);

	if (v == V_FORGED)
		nonblock(fx_main.ctx->async_fd);
	return NEG(ibv_get_async_event(c, &ev));
}
static struct out query_port(struct ibv_context *c, int port)
{
	struct ibv_port_attr a;

	return POS(ibv_query_port(c, port, &a));
}
static struct out query_device(struct ibv_context *c)
{
	struct ibv_device_attr a;

	return POS(ibv_query_device(c, &a));
}
static struct out query_gid(struct ibv_context *c, int port, int idx)
{
	union ibv_gid g;

	return NEG(ibv_query_gid(c, port, idx, &g));
}
static struct out query_pkey(struct ibv_context *c, int port, int idx)
{
	uint16_t k;

	return NEG(ibv_query_pkey(c, port, idx, &k));
}
static struct out query_gid_ex(struct ibv_context *c, int port, int idx, int flags)
{
	struct ibv_gid_entry e;

	return POS(ibv_query_gid_ex(c, port, idx, &e, flags));
}
static struct out query_gid_table(struct ibv_context *c, size_t n, int flags)
{
	struct ibv_gid_entry e[64];

	return POS(ibv_query_gid_table(c, e, n, flags));
}
static struct out reg_mr(struct ibv_pd *pd, void *addr, size_t len, int access)
{
	return PTR(ibv_reg_mr(pd, addr, len, access));
}
static struct out rereg(struct ibv_mr *mr, int flags, struct ibv_pd *pd, int access)
{
	return NEG(ibv_rereg_mr(mr, flags, pd, NULL, 0, access));
}
static struct out cq_create(struct ibv_context *c, int cqe, struct ibv_comp_channel *ch, int vec)
{
	return PTR(ibv_create_cq(c, cqe, NULL, ch, vec));
}
static struct out from_wc(struct ibv_pd *pd, int port, int grh)
{
	struct ibv_wc wc = { .wc_flags = grh ? IBV_WC_GRH : 0 };
	struct ibv_grh g;

	memset(&g, 0, sizeof(g));
	return PTR(ibv_create_ah_from_wc(pd, &wc, &g, port));
}
static struct out init_from_wc(struct ibv_context *c, int port, int grh)
{
	struct ibv_wc wc = { .wc_flags = grh ? IBV_WC_GRH : 0 };
	struct ibv_grh g;
	struct ibv_ah_attr a;

	memset(&g, 0, sizeof(g));
	return NEG(ibv_init_ah_from_wc(c, port, &wc, &g, &a));
}
static struct out ece(struct ibv_qp *qp, int set)
{
	struct ibv_ece e = { .vendor_id = 1 };

	return POS(set ? ibv_set_ece(qp, &e) : ibv_query_ece(qp, &e));
}
static struct out async_ack(void)
{
	struct ibv_async_event ev = { .event_type = IBV_EVENT_QP_FATAL, .element.qp = QP(V_FOREIGN) };

	return VOID(ibv_ack_async_event(&ev));
}
static struct out devname(struct ibv_device *d)
{
	return PTR(ibv_get_device_name(d));
}
static struct ibv_device *DEVICE(enum var v)
{
	if (v == V_NULL)
		return NULL;
	if (v == V_FOREIGN)
		return foreign(0);
	if (!devs)
		devs = ibv_get_device_list(&ndevs);
	if (!devs || ndevs < 1)
		die("ibv_get_device_list");
	return forge(devs[0], sizeof(struct ibv_device));
}

#define CASES(X, OBJ)                                                                                   \
	/* device list and devices (no device needed) */                                               \
	X(dl_free_null, NODEV, "ibv_free_device_list(NULL)", "void", "SIGSEGV", VOID(ibv_free_device_list(NULL))) \
	OBJ(devname, NODEV, "ibv_get_device_name", (1 << V_NULL) | (1 << V_FOREIGN), "NULL EINVAL", "UB", "NULL EINVAL", devname(DEVICE(v))) \
	OBJ(devguid, NODEV, "ibv_get_device_guid", (1 << V_NULL) | (1 << V_FOREIGN), "0", "SIGSEGV", "0", POS(ibv_get_device_guid(DEVICE(v)))) \
	OBJ(devindex, NODEV, "ibv_get_device_index", (1 << V_NULL) | (1 << V_FOREIGN), "-1 errno 0", "SIGSEGV", "-1 errno 0", NEG(ibv_get_device_index(DEVICE(v)))) \
	OBJ(open, NODEV, "ibv_open_device", (1 << V_NULL) | (1 << V_FOREIGN), "NULL EINVAL", "SIGSEGV", "NULL EINVAL", PTR(ibv_open_device(DEVICE(v)))) \
	OBJ(devname_d, NEEDDEV, "ibv_get_device_name", (1 << V_FORGED), "", "", "NULL EINVAL", devname(DEVICE(v))) \
	OBJ(open_d, NEEDDEV, "ibv_open_device", (1 << V_FORGED), "", "", "NULL EINVAL", PTR(ibv_open_device(DEVICE(v)))) \
	X(import_dev_m1, NODEV, "ibv_import_device(-1)", "NULL EINVAL", "=", PTR(ibv_import_device(-1))) \
	X(import_dev_null, NODEV, "ibv_import_device(/dev/null)", "NULL ENODEV", "=", PTR(ibv_import_device(open("/dev/null", O_RDWR)))) \
	X(copy_qp_attr, NODEV, "ibv_copy_qp_attr_from_kern(NULL, NULL)", "void", "SIGSEGV", VOID(ibv_copy_qp_attr_from_kern(NULL, NULL))) \
	X(copy_ah_attr, NODEV, "ibv_copy_ah_attr_from_kern(NULL, NULL)", "void", "SIGSEGV", VOID(ibv_copy_ah_attr_from_kern(NULL, NULL))) \
	X(copy_path_from, NODEV, "ibv_copy_path_rec_from_kern(NULL, NULL)", "void", "SIGSEGV", VOID(ibv_copy_path_rec_from_kern(NULL, NULL))) \
	X(copy_path_to, NODEV, "ibv_copy_path_rec_to_kern(NULL, NULL)", "void", "SIGSEGV", VOID(ibv_copy_path_rec_to_kern(NULL, NULL))) \
	X(ack_async_foreign, NEEDDEV, "ibv_ack_async_event(QP event, foreign QP)", "void", "UB", async_ack()) \
	X(ack_async_null, NODEV, "ibv_ack_async_event(NULL)", "void", "SIGSEGV", VOID(ibv_ack_async_event(NULL))) \
	X(dontfork_null, NODEV, "ibv_dontfork_range(NULL, 0)", "0", "=", POS(ibv_dontfork_range(NULL, 0))) \
	X(dofork_null, NODEV, "ibv_dofork_range(NULL, 0)", "0", "=", POS(ibv_dofork_range(NULL, 0))) \
	/* contexts */                                                                                 \
	OBJ(close, NODEV, "ibv_close_device", (1 << V_NULL) | (1 << V_FOREIGN), "EINVAL", "SIGSEGV", "EINVAL", POS(ibv_close_device(CTX(v)))) \
	OBJ(close_d, NEEDDEV, "ibv_close_device", (1 << V_DESTROYED) | (1 << V_FORGED), "", "", "EINVAL", POS(ibv_close_device(CTX(v)))) \
	OBJ(qdev, NODEV, "ibv_query_device", (1 << V_NULL) | (1 << V_FOREIGN), "EINVAL", "SIGSEGV", "EINVAL", query_device(CTX(v))) \
	OBJ(qdev_d, NEEDDEV, "ibv_query_device", (1 << V_DESTROYED) | (1 << V_FORGED), "", "", "EINVAL", query_device(CTX(v))) \
	OBJ(qport, NEEDDEV, "ibv_query_port", NOCLOSED, INL_NULL("EINVAL"), "SIGSEGV", "EINVAL", query_port(CTX(v), 1)) \
	OBJ(qgid, NEEDDEV, "ibv_query_gid", NOCLOSED, "-1 EINVAL", "SIGSEGV", "-1 EINVAL", query_gid(CTX(v), 1, 0)) \
	OBJ(qpkey, NEEDDEV, "ibv_query_pkey", NOCLOSED, "-1 EINVAL", "SIGSEGV", "-1 EINVAL", query_pkey(CTX(v), 1, 0)) \
	OBJ(pkeyidx, NEEDDEV, "ibv_get_pkey_index", NOCLOSED, "-1 EINVAL", "SIGSEGV", "-1 EINVAL", NEG(ibv_get_pkey_index(CTX(v), 1, 0xffff))) \
	OBJ(qgidex, NEEDDEV, "ibv_query_gid_ex", NOCLOSED, "EINVAL", "SIGSEGV", "EINVAL", query_gid_ex(CTX(v), 1, 0, 0)) \
	OBJ(qgidtab, NEEDDEV, "ibv_query_gid_table", NOCLOSED, "-EINVAL", "SIGSEGV", "-EINVAL", query_gid_table(CTX(v), 64, 0)) \
	OBJ(allocpd, NEEDDEV, "ibv_alloc_pd", NOCLOSED, "NULL EINVAL", "SIGSEGV", "NULL EINVAL", PTR(ibv_alloc_pd(CTX(v)))) \
	OBJ(createcq, NEEDDEV, "ibv_create_cq", NOCLOSED, "NULL EINVAL", "SIGSEGV", "NULL EINVAL", cq_create(CTX(v), 4, NULL, 0)) \
	OBJ(createch, NEEDDEV, "ibv_create_comp_channel", NOCLOSED, "NULL EINVAL", "SIGSEGV", "NULL EINVAL", PTR(ibv_create_comp_channel(CTX(v)))) \
	OBJ(asyncev, NEEDDEV, "ibv_get_async_event", NOCLOSED, "-1 EINVAL", "SIGSEGV", "-1 EINVAL", async_event(v)) \
	OBJ(importpd, NEEDDEV, "ibv_import_pd", NOCLOSED, "NULL EINVAL", "SIGSEGV", "NULL EINVAL", PTR(ibv_import_pd(CTX(v), 1))) \
	/* without IBV_WC_GRH Debian never reads the context (NULL is outside the API: UB); ours checks it */ \
	OBJ(initah, NEEDDEV, "ibv_init_ah_from_wc", NOCLOSED, "-1 EINVAL", "UB", "-1 EINVAL", init_from_wc(CTX(v), 1, 0)) \
	/* protection domains */                                                                       \
	OBJ(deallocpd, NEEDDEV, "ibv_dealloc_pd", ALL, "EINVAL", "SIGSEGV", "EINVAL", POS(ibv_dealloc_pd(PD(v)))) \
	OBJ(regmr, NEEDDEV, "ibv_reg_mr", ALL, "NULL EINVAL", "SIGSEGV", "NULL EINVAL", reg_mr(PD(v), buf_of(&fx_main), 4096, IBV_ACCESS_LOCAL_WRITE)) \
	OBJ(regmriova, NEEDDEV, "ibv_reg_mr_iova", ALL, "NULL EINVAL", "SIGSEGV", "NULL EINVAL", PTR(ibv_reg_mr_iova(PD(v), buf_of(&fx_main), 4096, 0x1000, 0))) \
	OBJ(regdmabuf, NEEDDEV, "ibv_reg_dmabuf_mr", ALL, "NULL EINVAL", "SIGSEGV", "NULL EINVAL", PTR(ibv_reg_dmabuf_mr(PD(v), 0, 4096, 0, -1, 0))) \
	OBJ(createqp, NEEDDEV, "ibv_create_qp", ALL, "NULL EINVAL", "SIGSEGV", "NULL EINVAL", qp_create(PD(v), cq_of(&fx_main), NULL, IBV_QPT_RC, 4, 1, 0)) \
	OBJ(createsrq, NEEDDEV, "ibv_create_srq", ALL, "NULL EINVAL", "SIGSEGV", "NULL EINVAL", srq_create(PD(v), 4, 1, 0)) \
	OBJ(createah, NEEDDEV, "ibv_create_ah", ALL, "NULL EINVAL", "SIGSEGV", "NULL EINVAL", ah_create(PD(v), 1, 1, 1)) \
	OBJ(ahfromwc, NEEDDEV, "ibv_create_ah_from_wc", ALL, "NULL EINVAL", "SIGSEGV", "NULL EINVAL", from_wc(PD(v), 1, 0)) \
	OBJ(allocmw, NEEDDEV, "ibv_alloc_mw", ALL, INL_NULL("NULL EINVAL"), "SIGSEGV", "NULL EINVAL", PTR(ibv_alloc_mw(PD(v), IBV_MW_TYPE_1))) \
	OBJ(unimportpd, NEEDDEV, "ibv_unimport_pd", ALL, "void", "SIGSEGV", "void", VOID(ibv_unimport_pd(PD(v)))) \
	OBJ(importmr, NEEDDEV, "ibv_import_mr", ALL, "NULL EINVAL", "SIGSEGV", "NULL EINVAL", PTR(ibv_import_mr(PD(v), 1))) \
	/* completion channels and CQs */                                                              \
	OBJ(destroych, NEEDDEV, "ibv_destroy_comp_channel", ALL, "EINVAL", "SIGSEGV", "EINVAL", POS(ibv_destroy_comp_channel(CH(v)))) \
	OBJ(cqevent, NEEDDEV, "ibv_get_cq_event", ALL, "-1 EINVAL", "SIGSEGV", "-1 EINVAL", cq_event(v)) \
	OBJ(cqonch, NEEDDEV, "ibv_create_cq(channel)", NONULL, "", "", "NULL EINVAL", cq_create(C, 4, CH(v), 0)) \
	OBJ(destroycq, NEEDDEV, "ibv_destroy_cq", ALL, "EINVAL", "SIGSEGV", "EINVAL", POS(ibv_destroy_cq(CQ(v)))) \
	OBJ(resizecq, NEEDDEV, "ibv_resize_cq", ALL, "EINVAL", "SIGSEGV", "EINVAL", POS(ibv_resize_cq(CQ(v), 32))) \
	OBJ(pollcq, NEEDDEV, "ibv_poll_cq", ALL, INL_NULL("-1 EINVAL"), "SIGSEGV", "-1 EINVAL", poll1(CQ(v), 1)) \
	OBJ(notify, NEEDDEV, "ibv_req_notify_cq", ALL, INL_NULL("EINVAL"), "SIGSEGV", "EINVAL", POS(ibv_req_notify_cq(CQ(v), 0))) \
	OBJ(ackcq, NEEDDEV, "ibv_ack_cq_events", ALL, "void", "SIGSEGV", "void", VOID(ibv_ack_cq_events(CQ(v), 1))) \
	OBJ(qponcq, NEEDDEV, "ibv_create_qp(send_cq)", ALL, "NULL EINVAL", "SIGSEGV", "NULL EINVAL", qp_create(P, CQ(v), NULL, IBV_QPT_RC, 4, 1, 0)) \
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
	X(qport0, NEEDDEV, "ibv_query_port(port 0)", "EINVAL", "=", query_port(C, 0)) \
	X(qport2, NEEDDEV, "ibv_query_port(port 2)", "EINVAL", "=", query_port(C, 2)) \
	X(qport255, NEEDDEV, "ibv_query_port(port 255)", "EINVAL", "=", query_port(C, 255)) \
	X(qgid0, NEEDDEV, "ibv_query_gid(port 0)", "-1 EINVAL", "=", query_gid(C, 0, 0)) \
	X(qgid255, NEEDDEV, "ibv_query_gid(port 255)", "-1 EINVAL", "=", query_gid(C, 255, 0)) \
	X(qgidbig, NEEDDEV, "ibv_query_gid(index 100000)", "-1 EINVAL", "=", query_gid(C, 1, 100000)) \
	X(qgidneg, NEEDDEV, "ibv_query_gid(index -1)", "-1 EINVAL", "=", query_gid(C, 1, -1)) \
	X(qpkey0, NEEDDEV, "ibv_query_pkey(port 0)", "-1 ENOENT", "=", query_pkey(C, 0, 0)) \
	X(qpkeybig, NEEDDEV, "ibv_query_pkey(index 100000)", "-1 ENOENT", "=", query_pkey(C, 1, 100000)) \
	X(pkeymiss, NEEDDEV, "ibv_get_pkey_index(pkey 0x1234)", "-1 ENOENT", "=", NEG(ibv_get_pkey_index(C, 1, 0x1234))) \
	X(pkeyport, NEEDDEV, "ibv_get_pkey_index(port 255)", "-1 ENOENT", "=", NEG(ibv_get_pkey_index(C, 255, 0xffff))) \
	X(qgidex_port, NEEDDEV, "ibv_query_gid_ex(port 255)", "EINVAL", "=", query_gid_ex(C, 255, 0, 0)) \
	X(qgidex_idx, NEEDDEV, "ibv_query_gid_ex(index 100000)", "EINVAL", "=", query_gid_ex(C, 1, 100000, 0)) \
	X(qgidex_flags, NEEDDEV, "ibv_query_gid_ex(flags 1)", "EINVAL", "=", query_gid_ex(C, 1, 0, 1)) \
	X(qgidtab_0, NEEDDEV, "ibv_query_gid_table(max_entries 0)", "-EINVAL", "=", query_gid_table(C, 0, 0)) \
	X(qgidtab_flags, NEEDDEV, "ibv_query_gid_table(flags 1)", "-EINVAL", "=", query_gid_table(C, 64, 1)) \
	X(cq_0, NEEDDEV, "ibv_create_cq(cqe 0)", "NULL EINVAL", "=", cq_create(C, 0, NULL, 0)) \
	X(cq_neg, NEEDDEV, "ibv_create_cq(cqe -1)", "NULL EINVAL", "=", cq_create(C, -1, NULL, 0)) \
	X(cq_huge, NEEDDEV, "ibv_create_cq(cqe INT_MAX)", "NULL EINVAL", "=", cq_create(C, INT_MAX, NULL, 0)) \
	X(cq_vec, NEEDDEV, "ibv_create_cq(comp_vector 1000)", "NULL EINVAL", "=", cq_create(C, 4, NULL, 1000)) \
	X(cq_vecneg, NEEDDEV, "ibv_create_cq(comp_vector -1)", "NULL EINVAL", "=", cq_create(C, 4, NULL, -1)) \
	X(resize_0, NEEDDEV, "ibv_resize_cq(cqe 0)", "EINVAL", "=", POS(ibv_resize_cq(cq_of(&fx_main), 0))) \
	X(resize_neg, NEEDDEV, "ibv_resize_cq(cqe -1)", "EINVAL", "=", POS(ibv_resize_cq(cq_of(&fx_main), -1))) \
	X(resize_huge, NEEDDEV, "ibv_resize_cq(cqe INT_MAX)", "EINVAL", "=", POS(ibv_resize_cq(cq_of(&fx_main), INT_MAX))) \
	X(poll_neg, NEEDDEV, "ibv_poll_cq(num_entries -1)", "0", "=", poll1(cq_of(&fx_main), -1)) \
	X(poll_0, NEEDDEV, "ibv_poll_cq(num_entries 0)", "0", "=", poll1(cq_of(&fx_main), 0)) \
	X(notify_2, NEEDDEV, "ibv_req_notify_cq(solicited_only 2)", "0", "=", POS(ibv_req_notify_cq(cq_of(&fx_main), 2))) \
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
	X(importpd_h, NEEDDEV, "ibv_import_pd(handle 12345)", "NULL EOPNOTSUPP", "=", PTR(ibv_import_pd(C, 12345))) \
	X(importmr_h, NEEDDEV, "ibv_import_mr(handle 12345)", "NULL EOPNOTSUPP", "=", PTR(ibv_import_mr(P, 12345))) \
	X(importdm_h, NEEDDEV, "ibv_import_dm(handle 1)", "NULL EOPNOTSUPP", "=", PTR(ibv_import_dm(C, 1))) \
	X(dmabuf_fd, NEEDDEV, "ibv_reg_dmabuf_mr(fd -1)", "NULL EOPNOTSUPP", "=", PTR(ibv_reg_dmabuf_mr(P, 0, 4096, 0, -1, 0))) \
	X(inorder_op, NEEDDEV, "ibv_query_qp_data_in_order(opcode 99)", "0", "=", POS(ibv_query_qp_data_in_order(qp_of(&fx_main), 99, 0))) \
	X(inorder_flags, NEEDDEV, "ibv_query_qp_data_in_order(flags 1<<30)", "0", "=", POS(ibv_query_qp_data_in_order(qp_of(&fx_main), IBV_WR_SEND, 1u << 30))) \
	X(mc_notmc, NEEDDEV, "ibv_attach_mcast(unicast gid)", "EINVAL", "=", mcast(ud_of(&fx_main), 1, 0)) \
	X(mc_rc, NEEDDEV, "ibv_attach_mcast(RC QP)", "EINVAL", "=", mcast(qp_of(&fx_main), 1, 1)) \
	X(mc_detach, NEEDDEV, "ibv_detach_mcast(not attached)", "EINVAL", "=", mcast(ud_of(&fx_main), 0, 1)) \
	X(initah_port, NEEDDEV, "ibv_init_ah_from_wc(port 255, GRH)", "-1 EPROTONOSUPPORT", "=", init_from_wc(C, 255, 1)) \
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
