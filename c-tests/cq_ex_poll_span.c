/* ibv_cq_ex polling spans on rxe (rdma-core 5e7aa4102 and b78b414e0, between
 * 44 and 64): after ibv_next_poll returns ENOENT the span stays open until
 * ibv_end_poll, as the man page says (ibv_end_poll must be called even after
 * ENOENT). So a second thread's ibv_start_poll waits for the first thread's
 * ibv_end_poll ([ours] line, checked: rdma-core 44 released the CQ lock at
 * ENOENT and unlocked it again in end_poll), and the consumer index moves past
 * each completion exactly once ([ours] lines, checked: with the second poller
 * in between, Debian's 44 moves it twice and then reports a stale slot, the
 * overrun rdma-core fixed in b78b414e0). */
#include "dp.h"
#include <pthread.h>

// ctest: libs -lpthread

static struct ibv_cq_ex *cqx;
static volatile int ended;
static int seen_ended = -1, second_rc = -1;

static void *second_poller(void *arg)
{
	struct ibv_poll_cq_attr pa = {};

	(void)arg;
	second_rc = ibv_start_poll(cqx, &pa);
	seen_ended = ended;
	if (second_rc == 0)
		ibv_end_poll(cqx);
	return NULL;
}

static int write_one(struct dp *d, uint64_t wr_id)
{
	struct ibv_sge sge = { .addr = (uintptr_t)d->buf[0], .length = 64,
			       .lkey = d->mr[0]->lkey };
	struct ibv_send_wr wr = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED,
	}, *bad;

	wr.wr.rdma.remote_addr = (uintptr_t)d->buf[1];
	wr.wr.rdma.rkey = d->mr[1]->rkey;
	return ibv_post_send(d->qp[0], &wr, &bad);
}

/* Opens a span on the first completion (up to 5 s); returns start_poll's value. */
static int start(void)
{
	struct ibv_poll_cq_attr pa = {};
	double end = dp_now() + 5;
	int r;

	while ((r = ibv_start_poll(cqx, &pa)) == ENOENT && dp_now() < end)
		;
	return r;
}

int main(void)
{
	struct ibv_cq_init_attr_ex ca = { .cqe = 64, .wc_flags = IBV_WC_EX_WITH_BYTE_LEN };
	struct ibv_poll_cq_attr pa = {};
	struct ibv_device_attr da;
	struct dp d;
	pthread_t t;
	int r;

	ctest_init();
	memset(&d, 0, sizeof(d));
	d.type = IBV_QPT_RC;
	d.ctx = rxe_open(&da);
	if (!d.ctx)
		return ctest_finish();
	dp_gid(d.ctx, &d.gid);
	d.pd = ibv_alloc_pd(d.ctx);
	cqx = ibv_create_cq_ex(d.ctx, &ca);
	CHECK(d.pd && cqx, "pd/cq_ex errno %d", errno);
	if (!d.pd || !cqx)
		return ctest_finish();
	for (int i = 0; i < 2; i++) {
		d.buf[i] = aligned_alloc(4096, DP_BUF);
		memset(d.buf[i], i, DP_BUF);
		d.mr[i] = ibv_reg_mr(d.pd, d.buf[i], DP_BUF,
				     IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
		d.cq[i] = ibv_cq_ex_to_cq(cqx);
		d.qp[i] = dp_qp(&d, i, NULL);
		CHECK(d.mr[i] && d.qp[i], "mr/qp errno %d", errno);
	}
	for (int i = 0; i < 2; i++) {
		CHECK(dp_to_init(&d, d.qp[i]) == 0, "init errno %d", errno);
		CHECK(dp_connect(&d, d.qp[i], d.qp[1 - i]->qp_num, 7) == 0, "connect errno %d",
		      errno);
	}

	/* One completion: start_poll finds it, next_poll finds nothing. */
	CHECK(write_one(&d, 1) == 0, "post errno %d", errno);
	r = start();
	printf("start_poll: %d wr_id=%llu status=%d\n", r, (unsigned long long)cqx->wr_id,
	       cqx->status);
	if (r != 0)
		return ctest_finish();
	r = ibv_next_poll(cqx);
	printf("next_poll: %d\n", r);

	/* Another thread polls while this span is still open. */
	ended = 0;
	CHECK(pthread_create(&t, NULL, second_poller, NULL) == 0, "pthread_create");
	usleep(200000);
	ended = 1;
	ibv_end_poll(cqx);
	pthread_join(t, NULL);
	ctest_impl_line("second poller's start_poll returned %d, %s the first end_poll", second_rc,
			seen_ended ? "after" : "before");
	if (ctest_ours_dp())
		CHECK(seen_ended == 1, "the second poller got in before ibv_end_poll");

	/* The consumer index moved once: the next completion is wr_id 2, then nothing. */
	CHECK(write_one(&d, 2) == 0, "post errno %d", errno);
	r = start();
	ctest_impl_line("start_poll: %d wr_id=%llu status=%d", r, (unsigned long long)cqx->wr_id,
			cqx->status);
	if (ctest_ours_dp())
		CHECK(r == 0 && cqx->wr_id == 2, "second completion: %d wr_id %llu", r,
		      (unsigned long long)cqx->wr_id);
	if (r == 0) {
		r = ibv_next_poll(cqx);
		ctest_impl_line("next_poll: %d", r);
		if (ctest_ours_dp())
			CHECK(r == ENOENT, "next_poll after the last completion: %d", r);
		ibv_end_poll(cqx);
	}
	r = ibv_start_poll(cqx, &pa);
	ctest_impl_line("start_poll on an empty CQ: %d", r);
	if (ctest_ours_dp())
		CHECK(r == ENOENT, "start_poll on an empty CQ: %d", r);
	if (r == 0)
		ibv_end_poll(cqx);

	d.cq[1] = NULL;
	d.cq[0] = NULL;
	for (int i = 0; i < 2; i++) {
		CHECK(ibv_destroy_qp(d.qp[i]) == 0, "destroy_qp %d", errno);
		d.qp[i] = NULL;
	}
	CHECK(ibv_destroy_cq(ibv_cq_ex_to_cq(cqx)) == 0, "destroy_cq %d", errno);
	dp_teardown(&d);
	return ctest_finish();
}
