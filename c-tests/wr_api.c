/* The extended data path on rxe: ibv_qp_ex work-request builders (QPs from
 * ibv_create_qp_ex with IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) and ibv_cq_ex
 * polling (start/next/end_poll and the readers), on a loopback RC pair and
 * a UD pair. Run in the VM by `make vm-test`. */
#include "dp.h"

#define WC_FLAGS (IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_IMM | IBV_WC_EX_WITH_QP_NUM | \
		  IBV_WC_EX_WITH_SRC_QP | IBV_WC_EX_WITH_SLID | IBV_WC_EX_WITH_SL | \
		  IBV_WC_EX_WITH_DLID_PATH_BITS)

static struct ibv_cq_ex *cqx[2];
static struct ibv_qp_ex *qpx[2];

/* Replaces the pair's CQs and QPs with extended ones. */
static int ex_setup(struct dp *d, uint64_t ops)
{
	return dp_ex_setup(d, WC_FLAGS, ops, cqx, qpx);
}

/* Polls one batch with start/next/end_poll, up to 5 s for the first. */
static void ex_show(struct dp *d, const char *what, int side, int want)
{
	struct ibv_cq_ex *c = cqx[side];
	struct ibv_poll_cq_attr pa = {};
	double end = dp_now() + 5;
	int r, n = 0;

	while ((r = ibv_start_poll(c, &pa)) == ENOENT && dp_now() < end)
		;
	if (r) {
		printf("%s: start_poll %d\n", what, r);
		return;
	}
	do {
		uint32_t qpn = ibv_wc_read_qp_num(c);
		uint32_t src = ibv_wc_read_src_qp(c);
		unsigned int fl = ibv_wc_read_wc_flags(c);
		printf("%s: wr_id=%llu status=%d opcode=%d vendor_err=%u byte_len=%u imm=0x%08x flags=0x%x qp=%s src_qp=%s slid=%u sl=%u dlid_pb=%u\n",
		       what, (unsigned long long)c->wr_id, c->status, ibv_wc_read_opcode(c),
		       ibv_wc_read_vendor_err(c),
		       c->status == IBV_WC_SUCCESS ? ibv_wc_read_byte_len(c) : 0,
		       fl & IBV_WC_WITH_IMM ? ibv_wc_read_imm_data(c) : 0, fl,
		       qpn == d->qp[side]->qp_num ? "self" : "other",
		       src == 0 ? "0" : src == d->qp[1 - side]->qp_num ? "peer" : "?",
		       ibv_wc_read_slid(c), ibv_wc_read_sl(c), ibv_wc_read_dlid_path_bits(c));
		n++;
		if (n == want)
			break;
		end = dp_now() + 5;
		while ((r = ibv_next_poll(c)) == ENOENT && dp_now() < end)
			;
		/* next_poll's ENOENT has ended the poll */
		if (r) {
			printf("%s: next_poll %d after %d\n", what, r, n);
			return;
		}
	} while (1);
	ibv_end_poll(c);
	r = ibv_start_poll(c, &pa);
	printf("%s: %d polled, then start_poll %d\n", what, n, r);
	if (r == 0)
		ibv_end_poll(c);
}

static void rc(void)
{
	struct dp d;
	struct ibv_qp_ex *q;
	uint64_t *atom;
	int r;

	printf("== RC wr_* builders\n");
	if (dp_setup(&d, IBV_QPT_RC, 7))
		return;
	if (ex_setup(&d, IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM |
			     IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |
			     IBV_QP_EX_WITH_RDMA_READ | IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |
			     IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD | IBV_QP_EX_WITH_LOCAL_INV |
			     IBV_QP_EX_WITH_BIND_MW | IBV_QP_EX_WITH_SEND_WITH_INV))
		goto out;
	q = qpx[0];
	for (int i = 0; i < 4; i++) {
		struct ibv_sge s = { (uintptr_t)d.buf[1] + i * 1024, 1024, d.mr[1]->lkey };
		struct ibv_recv_wr w = { .wr_id = 100 + i, .sg_list = &s, .num_sge = 1 }, *bad;
		CHECK(ibv_post_recv(d.qp[1], &w, &bad) == 0, "post_recv");
	}
	memset(d.buf[0], 0x5a, 256);
	atom = (uint64_t *)(d.buf[1] + 8192);
	*atom = 100;
	ibv_wr_start(q);
	q->wr_id = 1;
	q->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(q);
	ibv_wr_set_sge(q, d.mr[0]->lkey, (uintptr_t)d.buf[0], 10);
	q->wr_id = 2;
	ibv_wr_send_imm(q, htobe32(0xabcd));
	{
		/* equal lengths: rdma-core 44 sums the first entry's length
		 * num_sge times */
		struct ibv_sge l[2] = { { (uintptr_t)d.buf[0], 6, d.mr[0]->lkey },
					{ (uintptr_t)d.buf[0] + 100, 6, d.mr[0]->lkey } };
		ibv_wr_set_sge_list(q, 2, l);
	}
	q->wr_id = 3;
	/* rdma-core 44 needs IBV_SEND_INLINE in wr_flags for inline data */
	q->wr_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE;
	ibv_wr_send(q);
	ibv_wr_set_inline_data(q, d.buf[0], 20);
	q->wr_flags = IBV_SEND_SIGNALED;
	q->wr_id = 4;
	ibv_wr_rdma_write(q, d.mr[1]->rkey, (uintptr_t)d.buf[1] + 4096);
	ibv_wr_set_sge(q, d.mr[0]->lkey, (uintptr_t)d.buf[0], 64);
	q->wr_id = 5;
	ibv_wr_rdma_write_imm(q, d.mr[1]->rkey, (uintptr_t)d.buf[1] + 4096 + 64, htobe32(9));
	ibv_wr_set_sge(q, d.mr[0]->lkey, (uintptr_t)d.buf[0], 16);
	q->wr_id = 6;
	ibv_wr_rdma_read(q, d.mr[1]->rkey, (uintptr_t)d.buf[1] + 4096);
	ibv_wr_set_sge(q, d.mr[0]->lkey, (uintptr_t)d.buf[0] + 1024, 32);
	q->wr_id = 7;
	ibv_wr_atomic_fetch_add(q, d.mr[1]->rkey, (uintptr_t)atom, 5);
	ibv_wr_set_sge(q, d.mr[0]->lkey, (uintptr_t)d.buf[0] + 2048, 8);
	q->wr_id = 8;
	ibv_wr_atomic_cmp_swp(q, d.mr[1]->rkey, (uintptr_t)atom, 105, 1);
	ibv_wr_set_sge(q, d.mr[0]->lkey, (uintptr_t)d.buf[0] + 2056, 8);
	r = ibv_wr_complete(q);
	printf("wr_complete: %d\n", r);
	ex_show(&d, "rc: sender", 0, 8);
	ex_show(&d, "rc: receiver", 1, 4);
	printf("write: data %s\n", memcmp(d.buf[0], d.buf[1] + 4096, 64) ? "differs" : "ok");
	printf("read: data %s\n", memcmp(d.buf[1] + 4096, d.buf[0] + 1024, 32) ? "differs" : "ok");
	printf("atomics: fetch=%llu cmp=%llu now=%llu\n",
	       (unsigned long long)*(uint64_t *)(d.buf[0] + 2048),
	       (unsigned long long)*(uint64_t *)(d.buf[0] + 2056), (unsigned long long)*atom);

	/* abort: nothing sent */
	ibv_wr_start(q);
	q->wr_id = 9;
	ibv_wr_send(q);
	ibv_wr_abort(q);
	{
		struct ibv_poll_cq_attr pa = {};
		usleep(50000);
		printf("after abort: start_poll %d\n", ibv_start_poll(cqx[0], &pa));
	}
	/* too much inline: ENOSPC at complete */
	ibv_wr_start(q);
	q->wr_id = 10;
	ibv_wr_send(q);
	ibv_wr_set_inline_data(q, d.buf[0], 4096);
	printf("inline too long: wr_complete %d\n", ibv_wr_complete(q));
	/* too many SGEs: ENOSPC */
	{
		struct ibv_sge l[8];
		for (int i = 0; i < 8; i++)
			l[i] = (struct ibv_sge){ (uintptr_t)d.buf[0], 1, d.mr[0]->lkey };
		ibv_wr_start(q);
		ibv_wr_send(q);
		ibv_wr_set_sge_list(q, 8, l);
		printf("8 sges: wr_complete %d\n", ibv_wr_complete(q));
	}
	/* more WRs than the ring holds: ENOSPC */
	ibv_wr_start(q);
	q->wr_flags = 0;
	for (int i = 0; i < 200; i++) {
		ibv_wr_rdma_write(q, d.mr[1]->rkey, (uintptr_t)d.buf[1]);
		ibv_wr_set_sge(q, d.mr[0]->lkey, (uintptr_t)d.buf[0], 1);
	}
	printf("200 WRs: wr_complete %d\n", ibv_wr_complete(q));
	/* bad rkey through the builders: error completion */
	ibv_wr_start(q);
	q->wr_id = 11;
	q->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write(q, d.mr[1]->rkey ^ 0x3300, (uintptr_t)d.buf[1]);
	ibv_wr_set_sge(q, d.mr[0]->lkey, (uintptr_t)d.buf[0], 8);
	printf("bad rkey: wr_complete %d\n", ibv_wr_complete(q));
	ex_show(&d, "bad rkey: sender", 0, 1);
out:
	dp_teardown(&d);
}

static void ud(void)
{
	struct dp d;
	struct ibv_ah_attr aa;
	struct ibv_ah *ah;
	struct ibv_qp_ex *q;

	printf("== UD wr_* builders\n");
	if (dp_setup(&d, IBV_QPT_UD, 7))
		return;
	if (ex_setup(&d, IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM))
		goto out;
	dp_ah_attr(&d, &aa);
	ah = ibv_create_ah(d.pd, &aa);
	CHECK(ah, "create_ah errno %d", errno);
	for (int i = 0; i < 2; i++) {
		struct ibv_sge s = { (uintptr_t)d.buf[1] + i * 1024, 1024, d.mr[1]->lkey };
		struct ibv_recv_wr w = { .wr_id = 200 + i, .sg_list = &s, .num_sge = 1 }, *bad;
		CHECK(ibv_post_recv(d.qp[1], &w, &bad) == 0, "post_recv");
	}
	q = qpx[0];
	ibv_wr_start(q);
	q->wr_id = 20;
	q->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send_imm(q, htobe32(0x55));
	ibv_wr_set_ud_addr(q, ah, d.qp[1]->qp_num, 0x11111111);
	ibv_wr_set_sge(q, d.mr[0]->lkey, (uintptr_t)d.buf[0], 33);
	q->wr_id = 21;
	q->wr_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE;
	ibv_wr_send(q);
	ibv_wr_set_ud_addr(q, ah, d.qp[1]->qp_num, 0x11111111);
	ibv_wr_set_inline_data(q, d.buf[0], 12);
	printf("ud: wr_complete %d\n", ibv_wr_complete(q));
	ex_show(&d, "ud: sender", 0, 2);
	ex_show(&d, "ud: receiver", 1, 2);
	ibv_destroy_ah(ah);
out:
	dp_teardown(&d);
}

/* Where rdma-core 44's builders are wrong (Debian's QP would go to error):
 * inline data without IBV_SEND_INLINE in wr_flags, SGE lists of unequal
 * lengths, inline data lists. Ours only, tagged lines. */
static void ours_fixed(void)
{
	struct dp d;
	struct ibv_qp_ex *q;
	struct ibv_wc wc;

	if (dp_setup(&d, IBV_QPT_RC, 7))
		return;
	if (!ctest_ours() || ex_setup(&d, IBV_QP_EX_WITH_SEND))
		goto out;
	for (int i = 0; i < 3; i++) {
		struct ibv_sge s = { (uintptr_t)d.buf[1] + i * 1024, 1024, d.mr[1]->lkey };
		struct ibv_recv_wr w = { .wr_id = 300 + i, .sg_list = &s, .num_sge = 1 }, *bad;
		CHECK(ibv_post_recv(d.qp[1], &w, &bad) == 0, "post_recv");
	}
	q = qpx[0];
	ibv_wr_start(q);
	q->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(q);
	ibv_wr_set_inline_data(q, d.buf[0], 20);
	ibv_wr_send(q);
	{
		struct ibv_sge l[2] = { { (uintptr_t)d.buf[0], 5, d.mr[0]->lkey },
					{ (uintptr_t)d.buf[0] + 100, 7, d.mr[0]->lkey } };
		ibv_wr_set_sge_list(q, 2, l);
	}
	ibv_wr_send(q);
	{
		struct ibv_data_buf b[2] = { { d.buf[0], 3 }, { d.buf[0] + 50, 4 } };
		ibv_wr_set_inline_data_list(q, 2, b);
	}
	ctest_impl_line("fixed builders: wr_complete %d", ibv_wr_complete(q));
	for (int i = 0; i < 3; i++) {
		struct ibv_poll_cq_attr pa = {};
		double end = dp_now() + 5;
		int r;
		while ((r = ibv_start_poll(cqx[1], &pa)) == ENOENT && dp_now() < end)
			;
		if (r) {
			ctest_impl_line("fixed builders: start_poll %d", r);
			break;
		}
		wc.status = cqx[1]->status;
		ctest_impl_line("fixed builders: receive %d status %d byte_len %u", i, wc.status,
				ibv_wc_read_byte_len(cqx[1]));
		ibv_end_poll(cqx[1]);
	}
out:
	dp_teardown(&d);
}

int main(void)
{
	ctest_init();
	rc();
	ud();
	ours_fixed();
	return ctest_finish();
}
