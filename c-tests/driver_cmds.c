/* The provider-facing interface (IBVERBS_PRIVATE_34: execute_ioctl and the
 * ibv_cmd_* a C provider plugin calls) used directly on rxe0's context, as a
 * plugin such as libmlx5 would. Debian's library (its librxe context) and ours
 * hosting that plugin (IBV_PROVIDERS=plugin) must give the kernel's answers
 * for rxe, checked against the values below (Debian's run proves them); a
 * context of our Rust provider is not a plugin's, so each call is EINVAL there
 * and touches nothing. Kernel answers are printed tagged ([system]/[ours]),
 * argument errors (the same everywhere) untagged; the checks carry the test. */
#include "dp.h"
#include <fcntl.h>
#include <stdint.h>

/* rdma-core 44's driver.h / cmd_ioctl.h (private: not in verbs.h). */
struct ibv_command_buffer;
int execute_ioctl(struct ibv_context *ctx, struct ibv_command_buffer *cmd);
int ibv_cmd_query_context(struct ibv_context *ctx, struct ibv_command_buffer *driver);
int ibv_cmd_open_xrcd(struct ibv_context *ctx, void *xrcd, int vxrcd_size,
		      struct ibv_xrcd_init_attr *attr, void *cmd, size_t cmd_size, void *resp,
		      size_t resp_size);
int ibv_cmd_alloc_dm(struct ibv_context *ctx, const struct ibv_alloc_dm_attr *attr, void *dm,
		     struct ibv_command_buffer *link);
int ibv_cmd_create_counters(struct ibv_context *ctx, struct ibv_counters_init_attr *attr,
			    void *vcounters, struct ibv_command_buffer *link);
int ibv_cmd_query_mr(struct ibv_pd *pd, void *vmr, uint32_t mr_handle);
int ibv_cmd_query_port(struct ibv_context *ctx, uint8_t port_num, struct ibv_port_attr *port_attr,
		       void *cmd, size_t cmd_size);
int ibv_cmd_advise_mr(struct ibv_pd *pd, enum ibv_advise_mr_advice advice, uint32_t flags,
		      struct ibv_sge *sg_list, uint32_t num_sge);
/* rdma-core 56.1 added the driver's command buffer to this one within
 * IBVERBS_PRIVATE_34 (and 65 keeps it): passing NULL suits every release,
 * since 44's seven-argument form ignores the eighth. */
int ibv_cmd_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset, size_t length, uint64_t iova,
			  int fd, int access, void *vmr, void *driver);
int ibv_cmd_rereg_mr(void *vmr, uint32_t flags, void *addr, size_t length, uint64_t hca_va,
		     int access, struct ibv_pd *pd, void *cmd, size_t cmd_sz, void *resp,
		     size_t resp_sz);
int ibv_cmd_open_qp(struct ibv_context *ctx, void *qp, int vqp_sz, struct ibv_qp_open_attr *attr,
		    void *cmd, size_t cmd_size, void *resp, size_t resp_size);
int ibv_cmd_modify_qp_ex(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask, void *cmd,
			 size_t cmd_size, void *resp, size_t resp_size);
int ibv_cmd_create_srq_ex(struct ibv_context *ctx, void *srq,
			  struct ibv_srq_init_attr_ex *attr_ex, void *cmd, size_t cmd_size,
			  void *resp, size_t resp_size);
int ibv_cmd_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad_wr);
int ibv_cmd_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr);
int ibv_cmd_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
			  struct ibv_recv_wr **bad_wr);
int ibv_cmd_poll_cq(struct ibv_cq *cq, int ne, struct ibv_wc *wc);
int ibv_cmd_destroy_cq(struct ibv_cq *cq);
int ibv_cmd_req_notify_cq(struct ibv_cq *cq, int solicited_only);
int ibv_cmd_create_flow(struct ibv_qp *qp, struct ibv_flow *flow_id,
			struct ibv_flow_attr *flow_attr, void *ucmd, size_t ucmd_size);
int ibv_cmd_create_flow_action_esp(struct ibv_context *ctx, struct ibv_flow_action_esp_attr *attr,
				   void *flow_action, struct ibv_command_buffer *driver);
int ibv_cmd_modify_flow_action_esp(void *flow_action, struct ibv_flow_action_esp_attr *attr,
				   struct ibv_command_buffer *driver);
int ibv_cmd_create_wq(struct ibv_context *ctx, struct ibv_wq_init_attr *attr, struct ibv_wq *wq,
		      void *cmd, size_t cmd_size, void *resp, size_t resp_size);
int ibv_cmd_modify_wq(struct ibv_wq *wq, struct ibv_wq_attr *attr, void *cmd, size_t cmd_size);
int ibv_cmd_destroy_wq(struct ibv_wq *wq);
int ibv_cmd_create_rwq_ind_table(struct ibv_context *ctx, struct ibv_rwq_ind_table_init_attr *attr,
				 struct ibv_rwq_ind_table *t, void *resp, size_t resp_size);

/* struct ibv_command_buffer with room for two attributes (cmd_ioctl.h). */
struct attr {
	uint16_t attr_id, len, flags, attr_data;
	uint64_t data;
};
struct cmdb {
	void *next;
	struct attr *next_attr, *last_attr;
	uint8_t uhw_in_idx, uhw_out_idx, uhw_in_headroom, uhw_out_headroom;
	uint8_t flags; /* buffer_error:1, fallback_require_ex:1, fallback_ioctl_only:1 */
	struct {
		uint16_t length, object_id, method_id, num_attrs;
		uint64_t reserved1;
		uint32_t driver_id, reserved2;
	} hdr;
	struct attr attrs[2];
};

/* The object structs the calls fill, big enough for any of them. */
static uint64_t obj[512];
static uint64_t cmd[64], resp[16];

/* What a call must give: the kernel's answer for rxe on a plugin's context,
 * EINVAL on our Rust provider's. */
static void expect(const char *what, int r, int kernel)
{
	int want = ctest_ours_dp() ? EINVAL : kernel;

	ctest_impl_line("%s: %d", what, r);
	CHECK(r == want, "%s: %d, want %d", what, r, want);
}

/* An argument error: the same answer on every context, before any kernel call. */
static void expect_args(const char *what, int r, int want)
{
	printf("%s: %d\n", what, r);
	CHECK(r == want, "%s: %d, want %d", what, r, want);
}

/* A post's bad_wr: the kernel's index on a plugin's context, untouched (-1) on ours. */
static void expect_bad(const char *what, int idx, int kernel)
{
	int want = ctest_ours_dp() ? -1 : kernel;

	ctest_impl_line("%s: %d", what, idx);
	CHECK(idx == want, "%s: %d, want %d", what, idx, want);
}

/* Which node of a list of `n` a post named as bad: its index, -1 for none. */
static int bad_index(const void *bad, const void *list, size_t node, int n)
{
	for (int i = 0; i < n; i++)
		if (bad == (const char *)list + i * node)
			return i;
	return -1;
}

/* The write() data path (cmd.c's POST_SEND, POST_RECV, POST_SRQ_RECV, POLL_CQ,
 * REQ_NOTIFY_CQ) on a QP in INIT: the kernel's answers for user queues, with
 * the failed work request reported through bad_wr. */
static void data_path(struct ibv_pd *pd, struct ibv_qp *qp, struct ibv_cq *cq, void *buf,
		      uint32_t lkey)
{
	static struct ibv_sge many[32];
	struct ibv_sge sge = { .addr = (uintptr_t)buf, .length = 64, .lkey = lkey };
	struct ibv_send_wr sw[2], *sbad = NULL;
	struct ibv_recv_wr rw[2], *rbad = NULL;
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 4, .max_sge = 1 } };
	struct ibv_srq *srq = ibv_create_srq(pd, &sa);
	struct ibv_wc wc[4];
	int r;

	for (int i = 0; i < 32; i++)
		many[i] = sge;
	memset(sw, 0, sizeof(sw));
	for (int i = 0; i < 2; i++) {
		sw[i] = (struct ibv_send_wr){ .wr_id = 0x50 + i, .sg_list = &sge, .num_sge = 1,
					      .opcode = IBV_WR_SEND };
	}
	sw[0].next = &sw[1];
	/* rxe refuses a send before RTS and names the first request. */
	expect("post_send in INIT", ibv_cmd_post_send(qp, sw, &sbad), EINVAL);
	expect_bad("post_send bad_wr", bad_index(sbad, sw, sizeof(sw[0]), 2), 0);

	/* rxe takes no receive through the kernel on a user QP (EOPNOTSUPP for
	 * the first request), before it could see that the second has more SGEs
	 * than the queue takes. */
	rw[0] = (struct ibv_recv_wr){ .wr_id = 0x60, .next = &rw[1], .sg_list = &sge,
				      .num_sge = 1 };
	rw[1] = (struct ibv_recv_wr){ .wr_id = 0x61, .sg_list = many, .num_sge = 32 };
	expect("post_recv", ibv_cmd_post_recv(qp, rw, &rbad), EOPNOTSUPP);
	expect_bad("post_recv bad_wr", bad_index(rbad, rw, sizeof(rw[0]), 2), 0);

	CHECK(srq != NULL, "create srq: errno %d", errno);
	if (srq) {
		rbad = NULL;
		rw[0] = rw[1];
		expect("post_srq_recv", ibv_cmd_post_srq_recv(srq, rw, &rbad), EOPNOTSUPP);
		expect_bad("post_srq_recv bad_wr", bad_index(rbad, rw, sizeof(rw[0]), 1), 0);
		CHECK(ibv_destroy_srq(srq) == 0, "destroy srq");
	}

	/* Connected to itself and in RTS, the QP's send through the kernel is
	 * taken: rxe only runs its requester on the user ring, which is empty,
	 * so the request itself makes no completion. */
	{
		struct dp d = { .ctx = qp->context, .type = IBV_QPT_RC };

		dp_gid(qp->context, &d.gid);
		r = dp_connect(&d, qp, qp->qp_num, 7);
		ctest_impl_line("connect to itself: %d", r);
		CHECK(ctest_ours_dp() || r == 0, "connect: %d", r);
		sbad = NULL;
		expect("post_send in RTS", ibv_cmd_post_send(qp, sw, &sbad), 0);
		expect_bad("post_send RTS bad_wr", bad_index(sbad, sw, sizeof(sw[0]), 2), -1);
		r = ibv_poll_cq(cq, 4, wc);
		printf("completions after the kernel's send: %d\n", r);
		CHECK(r == 0, "completions: %d", r);
	}

	/* rxe polls no user CQ through the kernel: -1 with errno EOPNOTSUPP. */
	errno = 0;
	r = ibv_cmd_poll_cq(cq, 4, wc);
	expect("poll_cq errno", r == -1 ? errno : 1000 + r, EOPNOTSUPP);
	errno = 0;
	r = ibv_cmd_poll_cq(cq, 0, wc);
	expect("poll_cq ne 0 errno", r == -1 ? errno : 1000 + r, EOPNOTSUPP);
	/* rdma-core cannot size a negative response: -1 everywhere. */
	expect_args("poll_cq ne -1", ibv_cmd_poll_cq(cq, -1, wc), -1);
	expect("req_notify_cq", ibv_cmd_req_notify_cq(cq, 0), 0);
	expect("req_notify_cq solicited", ibv_cmd_req_notify_cq(cq, 1), 0);
}

static void clear(void)
{
	memset(obj, 0, sizeof(obj));
	memset(cmd, 0, sizeof(cmd));
	memset(resp, 0, sizeof(resp));
}

/* ibv_cmd_create_cq_ex2 (rdma-core 55's IBVERBS_PRIVATE_34; Debian 12's 44
 * has none, so it is looked up): the extended CQ create with a driver's
 * chain, as 56.1's mlx5 calls it. rxe takes no driver attribute: an
 * optional one is ignored by the kernel, a mandatory one refused (the
 * kernel's EPROTONOSUPPORT, then no write() command can carry it). */
typedef int (*create_cq_ex2_fn)(struct ibv_context *, const struct ibv_cq_init_attr_ex *, void *,
				void *, size_t, void *, size_t, uint32_t, void *);

static void create_cq_ex2(struct ibv_context *ctx)
{
	create_cq_ex2_fn f = (create_cq_ex2_fn)dlvsym(RTLD_DEFAULT, "ibv_cmd_create_cq_ex2",
						      "IBVERBS_PRIVATE_34");
	struct ibv_cq_init_attr_ex ca = { .cqe = 8, .wc_flags = IBV_WC_STANDARD_FLAGS };
	struct ibv_cq *cq = (void *)obj;
	struct cmdb chain;

	if (!f) {
		ctest_impl_line("create_cq_ex2: not exported");
		return;
	}
	/* struct ibv_create_cq_ex: headers 24 + core 32; the response's core 16
	 * and rxe's 16 (its queue's mmap offer, which rxe requires). */
	clear();
	expect("create_cq_ex2 no chain", f(ctx, &ca, obj, cmd, 56, resp, 32, 0, NULL), 0);
	if (!ctest_ours_dp() && cq->context == ctx)
		expect("create_cq_ex2 destroy", ibv_cmd_destroy_cq(cq), 0);
	for (int mandatory = 0; mandatory < 2; mandatory++) {
		clear();
		memset(&chain, 0, sizeof(chain));
		chain.attrs[0] = (struct attr){ .attr_id = 0x1002, .len = 4, .flags = mandatory,
						.data = 7 };
		chain.next_attr = chain.attrs + 1;
		chain.last_attr = chain.attrs + 2;
		chain.uhw_in_idx = chain.uhw_out_idx = 0xff;
		if (!mandatory) {
			expect("create_cq_ex2 optional driver attribute",
			       f(ctx, &ca, obj, cmd, 56, resp, 32, 0, &chain), 0);
			if (!ctest_ours_dp() && cq->context == ctx)
				expect("create_cq_ex2 destroy", ibv_cmd_destroy_cq(cq), 0);
		} else {
			expect("create_cq_ex2 mandatory driver attribute",
			       f(ctx, &ca, obj, cmd, 56, resp, 32, 0, &chain), EOPNOTSUPP);
		}
	}
	ca.comp_mask = 1 << 5; /* past FLAGS and PD */
	/* An argument error on every context (tagged: Debian 12 has no such call). */
	{
		int r = f(ctx, &ca, obj, cmd, 56, resp, 32, 0, NULL);

		ctest_impl_line("create_cq_ex2 unknown mask: %d", r);
		CHECK(r == EOPNOTSUPP, "create_cq_ex2 unknown mask: %d, want %d", r, EOPNOTSUPP);
	}
}

/* ibv_cmd_query_port fills the ibv_port_attr of the provider's release: 52
 * bytes before rdma-core 50, 56 (active_speed_ex) from 50 on. 44's libmlx5
 * passes one of 52 bytes from its stack, so no byte past the caller's struct
 * may be written. The fields must be ibv_query_port's. */
static void cmd_query_port(struct ibv_context *ctx)
{
	int rel = ctest_ours() ? ctest_rxe_plugin_release() : ctest_release();
	size_t end = rel >= 50 ? 56 : 52, i, past = 0, ex = 0;
	unsigned char got[64];
	struct ibv_port_attr want;

	memset(got, 0xa5, sizeof(got));
	clear();
	expect("cmd_query_port", ibv_cmd_query_port(ctx, 1, (void *)got, cmd, 16), 0);
	if (ctest_ours_dp())
		end = 0;
	for (i = end; i < sizeof(got); i++)
		past += got[i] != 0xa5;
	for (i = 52; i < end; i++)
		ex += got[i] != 0xa5;
	ctest_impl_line("cmd_query_port: release %d, %zu bytes, %zu written past them, "
			"active_speed_ex %s", rel, end, past, ex ? "written" : "untouched");
	CHECK(past == 0, "cmd_query_port wrote %zu bytes past the %zu of release %d", past, end,
	      rel);
	CHECK(end != 56 || ex > 0, "cmd_query_port left active_speed_ex of release %d", rel);
	if (!end)
		return;
	CHECK(ibv_query_port(ctx, 1, &want) == 0, "query_port: errno %d", errno);
	/* Every field through port_cap_flags2 (offset 48, 2 bytes). */
	CHECK(memcmp(got, &want, 50) == 0, "cmd_query_port's fields differ from ibv_query_port's");
}

int main(void)
{
	struct ibv_device_attr dattr;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	static char buf[4096];
	int r;

	ctest_init();
	ctx = rxe_open(&dattr);
	if (!ctx)
		return ctest_finish();
	pd = ibv_alloc_pd(ctx);
	mr = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	cq = ibv_create_cq(ctx, 8, NULL, NULL, 0);
	CHECK(pd && mr && cq, "set-up: errno %d", errno);
	{
		struct ibv_qp_init_attr qa = { .send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
					       .cap = { .max_send_wr = 4, .max_recv_wr = 4,
							.max_send_sge = 1, .max_recv_sge = 1 } };
		qp = ibv_create_qp(pd, &qa);
		CHECK(qp != NULL, "create qp: errno %d", errno);
	}

	/* execute_ioctl: QUERY_CONTEXT (object DEVICE, method 4) built by hand. */
	{
		struct cmdb b;
		uint32_t ncv = 0xffffffff;
		uint64_t core = 0;

		memset(&b, 0, sizeof(b));
		b.next_attr = b.attrs;
		b.last_attr = b.attrs + 2;
		b.uhw_in_idx = b.uhw_out_idx = 0xff;
		b.hdr.object_id = 0;
		b.hdr.method_id = 4;
		b.attrs[0] = (struct attr){ .attr_id = 0, .len = 4, .flags = 1,
					    .data = (uintptr_t)&ncv };
		b.attrs[1] = (struct attr){ .attr_id = 1, .len = 8, .flags = 1,
					    .data = (uintptr_t)&core };
		b.next_attr = b.attrs + 2;
		r = execute_ioctl(ctx, (void *)&b);
		/* rxe has no query_ucontext: the kernel refuses the method. */
		expect("execute_ioctl query_context", r, EOPNOTSUPP);
		if (!ctest_ours_dp() && r == 0) {
			CHECK(ncv == (uint32_t)ctx->num_comp_vectors, "num_comp_vectors %u", ncv);
			CHECK(b.hdr.num_attrs == 2 && b.hdr.length == 24 + 2 * 16,
			      "header: %u attrs, %u bytes", b.hdr.num_attrs, b.hdr.length);
		}
		b.flags = 1; /* buffer_error: a fill helper could not marshal */
		b.next_attr = b.attrs + 2;
		expect_args("execute_ioctl buffer_error", execute_ioctl(ctx, (void *)&b), EINVAL);
	}

	expect("query_context", ibv_cmd_query_context(ctx, NULL), EOPNOTSUPP);
	create_cq_ex2(ctx);
	cmd_query_port(ctx);

	clear();
	{
		struct ibv_xrcd_init_attr xa = { .comp_mask = IBV_XRCD_INIT_ATTR_FD |
							     IBV_XRCD_INIT_ATTR_OFLAGS,
						 .fd = -1, .oflags = O_CREAT };
		/* struct ibv_open_xrcd: header 8 + core 16; response 4. */
		expect("open_xrcd", ibv_cmd_open_xrcd(ctx, obj, 24, &xa, cmd, 24, resp, 4),
		       EOPNOTSUPP);
		xa.comp_mask = IBV_XRCD_INIT_ATTR_FD;
		expect_args("open_xrcd no oflags", ibv_cmd_open_xrcd(ctx, obj, 24, &xa, cmd, 24, resp, 4),
		       EINVAL);
	}

	clear();
	{
		struct ibv_alloc_dm_attr da = { .length = 4096 };
		struct ibv_counters_init_attr ca = { 0 };

		expect("alloc_dm", ibv_cmd_alloc_dm(ctx, &da, obj, NULL), EPROTONOSUPPORT);
		expect("create_counters", ibv_cmd_create_counters(ctx, &ca, obj, NULL),
		       EPROTONOSUPPORT);
		ca.comp_mask = 1;
		expect_args("create_counters comp_mask", ibv_cmd_create_counters(ctx, &ca, obj, NULL),
		       EOPNOTSUPP);
	}

	clear();
	r = ibv_cmd_query_mr(pd, obj, mr->handle);
	expect("query_mr", r, 0);
	if (!ctest_ours_dp() && r == 0) {
		struct ibv_mr *q = (void *)obj;

		CHECK(q->lkey == mr->lkey && q->rkey == mr->rkey && q->length == sizeof(buf),
		      "query_mr: lkey %u rkey %u length %zu", q->lkey, q->rkey, q->length);
	}
	{
		struct ibv_sge sge = { .addr = (uintptr_t)buf, .length = 64, .lkey = mr->lkey };

		expect("advise_mr", ibv_cmd_advise_mr(pd, IBV_ADVISE_MR_ADVICE_PREFETCH, 0, &sge, 1),
		       EOPNOTSUPP);
	}
	clear();
	expect("reg_dmabuf_mr", ibv_cmd_reg_dmabuf_mr(pd, 0, 4096, 0, -1, 0, obj, NULL),
	       EOPNOTSUPP);

	/* rereg_mr through the kernel on the real MR (struct ibv_rereg_mr: 8 + 48). */
	clear();
	expect("rereg_mr", ibv_cmd_rereg_mr(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, 0, 0,
						    IBV_ACCESS_LOCAL_WRITE, NULL, cmd, 56, resp, 8),
		       EOPNOTSUPP);

	clear();
	{
		struct ibv_qp_open_attr oa = { .comp_mask = IBV_QP_OPEN_ATTR_NUM |
							    IBV_QP_OPEN_ATTR_XRCD |
							    IBV_QP_OPEN_ATTR_TYPE,
					       .qp_num = 0x12345, .xrcd = (void *)(obj + 256),
					       .qp_type = IBV_QPT_XRC_RECV };

		/* struct ibv_open_qp: 8 + 32; response 32. */
		expect("open_qp bad xrcd", ibv_cmd_open_qp(ctx, obj, 512, &oa, cmd, 40, resp, 32),
		       EOPNOTSUPP);
		oa.comp_mask = IBV_QP_OPEN_ATTR_NUM;
		expect_args("open_qp no xrcd", ibv_cmd_open_qp(ctx, obj, 512, &oa, cmd, 40, resp, 32),
		       EINVAL);
	}

	clear();
	{
		struct ibv_srq_init_attr_ex sa = { .comp_mask = IBV_SRQ_INIT_ATTR_PD, .pd = pd,
						   .attr = { .max_wr = 4, .max_sge = 1 } };

		/* struct ibv_create_xsrq: 8 + 48; response 16; no driver data, which rxe
		 * needs for its ring. */
		expect("create_srq_ex no udata",
		       ibv_cmd_create_srq_ex(ctx, obj, &sa, cmd, 56, resp, 16), EINVAL);
		sa.comp_mask |= IBV_SRQ_INIT_ATTR_RESERVED;
		expect_args("create_srq_ex reserved",
		       ibv_cmd_create_srq_ex(ctx, obj, &sa, cmd, 56, resp, 16), EOPNOTSUPP);
	}

	/* modify_qp_ex: the extended MODIFY_QP to INIT, on the real QP. */
	clear();
	if (qp) {
		struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1 };
		struct ibv_qp_init_attr ia;
		int mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS;

		/* struct ibv_modify_qp_ex: 24 + 120; response 8. */
		expect("modify_qp_ex init", ibv_cmd_modify_qp_ex(qp, &a, mask, cmd, 144, resp, 8), 0);
		if (!ctest_ours_dp()) {
			memset(&a, 0, sizeof(a));
			CHECK(ibv_query_qp(qp, &a, IBV_QP_STATE, &ia) == 0 &&
				      a.qp_state == IBV_QPS_INIT,
			      "state %d", a.qp_state);
		}
		data_path(pd, qp, cq, buf, mr->lkey);
		/* A flow rule (one ETH spec) on the QP: rxe has no flow steering. */
		{
			struct {
				struct ibv_flow_attr attr;
				struct ibv_flow_spec_eth eth;
			} fa = { .attr = { .type = IBV_FLOW_ATTR_NORMAL, .size = sizeof(fa),
					   .num_of_specs = 1, .port = 1 },
				 .eth = { .type = IBV_FLOW_SPEC_ETH,
					  .size = sizeof(struct ibv_flow_spec_eth),
					  .val.ether_type = 0x0008, .mask.ether_type = 0xffff } };

			clear();
			expect("create_flow", ibv_cmd_create_flow(qp, (void *)obj, &fa.attr, NULL, 0),
			       EOPNOTSUPP);
			/* A spec type rdma-core 44 does not know: refused before the kernel. */
			fa.eth.type = 0x7777;
			expect_args("create_flow bad spec",
				    ibv_cmd_create_flow(qp, (void *)obj, &fa.attr, NULL, 0), EINVAL);
		}
		a.rate_limit = 10;
		expect_args("modify_qp_ex rate_limit short cmd",
		       ibv_cmd_modify_qp_ex(qp, &a, IBV_QP_RATE_LIMIT, cmd, 136, resp, 8), EINVAL);
		CHECK(ibv_destroy_qp(qp) == 0, "destroy qp");
	}

	/* ESP flow actions (ioctl only): rxe has no IPsec offload. */
	clear();
	{
		struct ibv_flow_action_esp esp = { .spi = 0x100, .seq = 1 };
		uint8_t key[36] = { 1 };
		struct ibv_flow_action_esp_attr ea = {
			.esp_attr = &esp, .keymat_proto = IBV_FLOW_ACTION_ESP_KEYMAT_AES_GCM,
			.keymat_len = sizeof(key), .keymat_ptr = key,
			.comp_mask = IBV_FLOW_ACTION_ESP_MASK_ESN, .esn = 5 };
		struct { struct ibv_flow_action action; uint32_t handle, type; } *fa = (void *)obj;

		expect("create_flow_action_esp",
		       ibv_cmd_create_flow_action_esp(ctx, &ea, obj, NULL), EPROTONOSUPPORT);
		clear();
		fa->action.context = ctx;
		fa->handle = 0x1234;
		expect("modify_flow_action_esp", ibv_cmd_modify_flow_action_esp(obj, &ea, NULL),
		       EPROTONOSUPPORT);
	}

	/* WQs and RSS tables: rxe has none, so the kernel refuses each. */
	clear();
	{
		struct ibv_wq_init_attr wa = { .wq_type = IBV_WQT_RQ, .max_wr = 4, .max_sge = 1,
					       .pd = pd, .cq = cq };
		struct ibv_wq_attr ma = { .attr_mask = IBV_WQ_ATTR_STATE, .wq_state = IBV_WQS_RDY };
		struct ibv_wq *wq = (void *)obj;
		struct ibv_rwq_ind_table_init_attr ta = { .log_ind_tbl_size = 0, .ind_tbl = &wq };
		struct ibv_rwq_ind_table t;

		/* struct ibv_create_wq: headers 24 + core 40; response 24. */
		expect("create_wq", ibv_cmd_create_wq(ctx, &wa, wq, cmd, 64, resp, 24), EOPNOTSUPP);
		wa.comp_mask = IBV_WQ_INIT_ATTR_RESERVED;
		expect_args("create_wq reserved", ibv_cmd_create_wq(ctx, &wa, wq, cmd, 64, resp, 24),
			    EINVAL);
		wa.comp_mask = IBV_WQ_INIT_ATTR_FLAGS;
		wa.create_flags = IBV_WQ_FLAGS_RESERVED;
		expect_args("create_wq reserved flag",
			    ibv_cmd_create_wq(ctx, &wa, wq, cmd, 64, resp, 24), EOPNOTSUPP);
		/* A WQ the kernel never made, on this context. */
		clear();
		wq->context = ctx;
		wq->handle = 0x1234;
		/* struct ibv_modify_wq: headers 24 + core 24. */
		expect("modify_wq", ibv_cmd_modify_wq(wq, &ma, cmd, 48), EOPNOTSUPP);
		ma.attr_mask = IBV_WQ_ATTR_RESERVED;
		expect_args("modify_wq reserved", ibv_cmd_modify_wq(wq, &ma, cmd, 48), EINVAL);
		expect("destroy_wq", ibv_cmd_destroy_wq(wq), EOPNOTSUPP);
		memset(&t, 0, sizeof(t));
		expect("create_rwq_ind_table", ibv_cmd_create_rwq_ind_table(ctx, &ta, &t, resp, 16),
		       EOPNOTSUPP);
		ta.comp_mask = IBV_CREATE_IND_TABLE_RESERVED;
		expect_args("create_rwq_ind_table reserved",
			    ibv_cmd_create_rwq_ind_table(ctx, &ta, &t, resp, 16), EINVAL);
	}

	CHECK(ibv_dereg_mr(mr) == 0, "dereg mr");
	CHECK(ibv_destroy_cq(cq) == 0, "destroy cq");
	CHECK(ibv_dealloc_pd(pd) == 0, "dealloc pd");
	CHECK(ibv_close_device(ctx) == 0, "close");
	printf("driver commands: done\n");
	return ctest_finish();
}
