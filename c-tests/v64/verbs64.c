/* rdma-core 64's new verbs on rxe, built against our (rdma-core 64) header,
 * with what rdma-core 64 answers there (its rxe has no op of its own for any
 * of them, so its generic code decides):
 *  - ibv_reg_mr_ex: address (+IOVA) registrations work; a DMA handle or an
 *    unknown mask bit is EOPNOTSUPP; no address, or fd fields without their
 *    companions, is EINVAL;
 *  - ibv_alloc_buf / ibv_reg_buf_mr / ibv_free_buf: page-aligned memory that
 *    registers within its bounds and PD only (EINVAL otherwise);
 *  - ibv_alloc_dmah: EOPNOTSUPP; ibv_query_port_speed: EOPNOTSUPP (returned);
 *  - ibv_query_port fills active_speed_ex (56-byte struct);
 *  - ibv_query_qp_data_in_order (the seed page, with 64's flags): every
 *    opcode x flags x QP type answers 0 on rxe (no in-order guarantee);
 *  - ibv_wr_opcode_str and IBV_EVENT_DEVICE_SPEED_CHANGE's string.
 * Self-checking against those statements. */
#include "../rxe.h"

// ctest: no-system

static struct ibv_mr *reg_ex(struct ibv_pd *pd, uint64_t mask, void *addr, size_t len,
			     uint64_t iova, const char *what)
{
	struct ibv_mr_init_attr a = {
		.length = len,
		.access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE,
		.comp_mask = mask,
		.iova = iova,
		.addr = addr,
		.fd = -1,
	};
	struct ibv_mr *mr;

	errno = 0;
	mr = ibv_reg_mr_ex(pd, &a);
	printf("reg_mr_ex %s: %s", what, mr ? "ok" : "NULL");
	if (!mr)
		printf(" errno=%d", errno);
	putchar('\n');
	return mr;
}

int main(void)
{
	static const enum ibv_qp_type types[] = { IBV_QPT_RC, IBV_QPT_UC, IBV_QPT_UD };
	static const uint32_t flags[] = { 0, IBV_QUERY_QP_DATA_IN_ORDER_RETURN_CAPS,
					  IBV_QUERY_QP_DATA_IN_ORDER_DEVICE_ONLY,
					  IBV_QUERY_QP_DATA_IN_ORDER_RETURN_CAPS |
					  IBV_QUERY_QP_DATA_IN_ORDER_DEVICE_ONLY, 4, 0x80000000u };
	struct ibv_device_attr da;
	struct ibv_context *ctx;
	struct ibv_pd *pd, *pd2;
	struct ibv_mr *mr;
	struct ibv_buf *buf = NULL;
	struct ibv_port_attr pa;
	struct ibv_cq *cq;
	char *mem = aligned_alloc(4096, 8192);
	uint64_t speed = 77;
	void *p;
	int r, nonzero = 0, calls = 0;

	ctest_init();
	printf("sizeof(struct ibv_port_attr) = %zu\n", sizeof(struct ibv_port_attr));
	printf("ibv_event_type_str(IBV_EVENT_DEVICE_SPEED_CHANGE) = \"%s\"\n",
	       ibv_event_type_str(IBV_EVENT_DEVICE_SPEED_CHANGE));
	for (int op = 0; op <= IBV_WR_ATOMIC_WRITE + 1; op++) {
		const char *s = ibv_wr_opcode_str((enum ibv_wr_opcode)op);

		/* 12 and 13 name no opcode: rdma-core's table has NULL there,
		 * ours "unknown", as for any other number (COMPATIBILITY.md). */
		if (op == 12 || op == 13) {
			ctest_impl_line("ibv_wr_opcode_str(%d) = \"%s\"", op, s ? s : "(null)");
			if (ctest_ours())
				CHECK(s && strcmp(s, "unknown") == 0, "opcode %d: %s", op,
				      s ? s : "(null)");
		} else {
			printf("ibv_wr_opcode_str(%d) = \"%s\"\n", op, s ? s : "(null)");
		}
	}
	ctx = rxe_open(&da);
	if (!ctx)
		return ctest_finish();
	pd = ibv_alloc_pd(ctx);
	pd2 = ibv_alloc_pd(ctx);
	CHECK(pd && pd2, "alloc_pd errno %d", errno);

	/* ibv_query_port: 64's struct, active_speed_ex after port_cap_flags2. */
	memset(&pa, 0xaa, sizeof(pa));
	CHECK(ibv_query_port(ctx, 1, &pa) == 0, "query_port errno %d", errno);
	printf("query_port: state %s, active_speed_ex %s\n", ibv_port_state_str(pa.state),
	       pa.active_speed_ex == 0xaaaaaaaau ? "not written" : "written");
	CHECK(pa.active_speed_ex != 0xaaaaaaaau, "active_speed_ex not written");
	r = ibv_query_port_speed(ctx, 1, &speed);
	printf("query_port_speed: %d (%s), speed %s\n", r, r == EOPNOTSUPP ? "EOPNOTSUPP" : "?",
	       speed == 77 ? "untouched" : "written");
	CHECK(r == EOPNOTSUPP && speed == 77, "query_port_speed %d", r);

	/* ibv_reg_mr_ex */
	mr = reg_ex(pd, IBV_REG_MR_MASK_ADDR, mem, 8192, 0, "addr");
	CHECK(mr && mr->addr == mem && mr->length == 8192 && mr->pd == pd, "reg_mr_ex addr");
	if (mr)
		CHECK(ibv_dereg_mr(mr) == 0, "dereg %d", errno);
	mr = reg_ex(pd, IBV_REG_MR_MASK_ADDR | IBV_REG_MR_MASK_IOVA, mem, 4096, 0x10000,
		    "addr+iova");
	CHECK(mr && mr->addr == mem, "reg_mr_ex addr+iova");
	if (mr)
		CHECK(ibv_dereg_mr(mr) == 0, "dereg %d", errno);
	mr = reg_ex(pd, IBV_REG_MR_MASK_ADDR | IBV_REG_MR_MASK_DMAH, mem, 4096, 0, "dmah");
	CHECK(!mr && errno == EOPNOTSUPP, "dmah");
	mr = reg_ex(pd, IBV_REG_MR_MASK_ADDR | (1ull << 40), mem, 4096, 0, "unknown bit");
	CHECK(!mr && errno == EOPNOTSUPP, "unknown bit");
	mr = reg_ex(pd, IBV_REG_MR_MASK_IOVA, mem, 4096, 0, "no addr");
	CHECK(!mr && errno == EINVAL, "no addr");
	mr = reg_ex(pd, IBV_REG_MR_MASK_FD | IBV_REG_MR_MASK_IOVA, NULL, 4096, 0, "fd without offset");
	CHECK(!mr && errno == EINVAL, "fd without offset");

	/* ibv_alloc_buf / ibv_reg_buf_mr / ibv_free_buf */
	p = ibv_alloc_buf(pd, 3 * 4096, &buf);
	CHECK(p && buf && ((uintptr_t)p & 4095) == 0, "alloc_buf errno %d", errno);
	printf("alloc_buf: %s\n", p && ((uintptr_t)p & 4095) == 0 ? "page aligned" : "?");
	if (p) {
		memset(p, 1, 3 * 4096);
		errno = 0;
		mr = ibv_reg_buf_mr(pd, buf, p, 3 * 4096, IBV_ACCESS_LOCAL_WRITE);
		printf("reg_buf_mr whole: %s\n", mr ? "ok" : "NULL");
		CHECK(mr && mr->addr == p && mr->length == 3 * 4096, "reg_buf_mr errno %d", errno);
		if (mr)
			CHECK(ibv_dereg_mr(mr) == 0, "dereg %d", errno);
		mr = ibv_reg_buf_mr(pd, buf, (char *)p + 4096, 4096, IBV_ACCESS_LOCAL_WRITE);
		printf("reg_buf_mr inside: %s\n", mr ? "ok" : "NULL");
		CHECK(mr != NULL, "reg_buf_mr inside errno %d", errno);
		if (mr)
			CHECK(ibv_dereg_mr(mr) == 0, "dereg %d", errno);
		errno = 0;
		mr = ibv_reg_buf_mr(pd, buf, (char *)p + 4096, 3 * 4096, IBV_ACCESS_LOCAL_WRITE);
		printf("reg_buf_mr past the end: %s errno=%d\n", mr ? "ok" : "NULL", errno);
		CHECK(!mr && errno == EINVAL, "past the end");
		errno = 0;
		mr = ibv_reg_buf_mr(pd2, buf, p, 4096, IBV_ACCESS_LOCAL_WRITE);
		printf("reg_buf_mr other PD: %s errno=%d\n", mr ? "ok" : "NULL", errno);
		CHECK(!mr && errno == EINVAL, "other pd");
		ibv_free_buf(buf);
	}

	/* ibv_alloc_dmah */
	{
		struct ibv_dmah_init_attr da2 = { .comp_mask = IBV_DMAH_INIT_ATTR_MASK_CPU_ID };
		struct ibv_dmah *h;

		errno = 0;
		h = ibv_alloc_dmah(ctx, &da2);
		printf("alloc_dmah: %s errno=%d\n", h ? "ok" : "NULL", errno);
		CHECK(!h && errno == EOPNOTSUPP, "alloc_dmah");
	}

	/* ibv_query_qp_data_in_order: every opcode x flags x QP type. */
	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	for (unsigned t = 0; t < sizeof(types) / sizeof(types[0]); t++) {
		struct ibv_qp_init_attr a = {
			.send_cq = cq, .recv_cq = cq, .qp_type = types[t],
			.cap = { .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1,
				 .max_recv_sge = 1 },
		};
		struct ibv_qp *qp = ibv_create_qp(pd, &a);

		CHECK(qp != NULL, "create_qp type %d errno %d", types[t], errno);
		if (!qp)
			continue;
		for (int op = 0; op <= IBV_WR_ATOMIC_WRITE; op++)
			for (unsigned f = 0; f < sizeof(flags) / sizeof(flags[0]); f++) {
				r = ibv_query_qp_data_in_order(qp, (enum ibv_wr_opcode)op, flags[f]);
				calls++;
				nonzero += r != 0;
				/* RETURN_CAPS: a vector of WHOLE_MSG/ALIGNED_128_BYTES; else 0/1. */
				CHECK(flags[f] & IBV_QUERY_QP_DATA_IN_ORDER_RETURN_CAPS ?
				      (r & ~(IBV_QUERY_QP_DATA_IN_ORDER_WHOLE_MSG |
					     IBV_QUERY_QP_DATA_IN_ORDER_ALIGNED_128_BYTES)) == 0 :
				      (r == 0 || r == 1), "in_order op %d flags %x: %d", op, flags[f], r);
				CHECK(r == 0, "rxe in order op %d flags %x type %d: %d", op, flags[f],
				      types[t], r);
			}
		CHECK(ibv_destroy_qp(qp) == 0, "destroy_qp %d", errno);
	}
	printf("query_qp_data_in_order: %d calls, %d non-zero\n", calls, nonzero);
	CHECK(ibv_destroy_cq(cq) == 0, "destroy_cq %d", errno);
	CHECK(ibv_dealloc_pd(pd2) == 0 && ibv_dealloc_pd(pd) == 0, "dealloc_pd %d", errno);
	CHECK(ibv_close_device(ctx) == 0, "close %d", errno);
	free(mem);
	return ctest_finish();
}
