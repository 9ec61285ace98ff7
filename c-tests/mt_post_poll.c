/* Thread safety of the data path: on a loopback RC pair, two threads post
 * 100000 SENDs in total on one QP, one thread keeps receives posted on the
 * other, and two threads poll each CQ, all at once. Every send and every
 * receive must complete exactly once, successfully. Run in the VM by
 * `make vm-test`. */
#include "dp.h"
#include <pthread.h>
#include <stdatomic.h>
#include <sched.h>

#define TOTAL 100000
#define SENDERS 2
#define POLLERS 2 /* per CQ */
#define SQ_MAX 200
#define RQ_MAX 200

static struct dp d;
static atomic_int next_send;	/* next wr_id to post */
static atomic_int sq_inflight, rq_posted_ahead;
static atomic_int done[2], errors, dups, post_errs;
static atomic_uchar seen[2][TOTAL];
static atomic_int stop;

static void *sender(void *arg)
{
	struct ibv_sge s = { (uintptr_t)d.buf[0], 64, d.mr[0]->lkey };

	(void)arg;
	for (;;) {
		if (atomic_fetch_add(&sq_inflight, 1) >= SQ_MAX) {
			atomic_fetch_sub(&sq_inflight, 1);
			if (atomic_load(&stop))
				return NULL;
			sched_yield();
			continue;
		}
		int id = atomic_fetch_add(&next_send, 1);
		if (id >= TOTAL) {
			atomic_fetch_sub(&sq_inflight, 1);
			return NULL;
		}
		struct ibv_send_wr wr = { .wr_id = id, .sg_list = &s, .num_sge = 1,
					  .opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED },
			*bad;
		if (id % 3 == 0) { /* some inline, some with immediate data */
			wr.send_flags |= IBV_SEND_INLINE;
			wr.opcode = IBV_WR_SEND_WITH_IMM;
			wr.imm_data = htobe32(id);
		}
		if (ibv_post_send(d.qp[0], &wr, &bad)) {
			atomic_fetch_add(&post_errs, 1);
			atomic_fetch_sub(&sq_inflight, 1);
		}
	}
}

static void *receiver(void *arg)
{
	int posted = 0;

	(void)arg;
	while (posted < TOTAL && !atomic_load(&stop)) {
		if (atomic_load(&rq_posted_ahead) >= RQ_MAX) {
			sched_yield();
			continue;
		}
		struct ibv_sge s = { (uintptr_t)d.buf[1] + (posted % 16) * 128, 128,
				     d.mr[1]->lkey };
		struct ibv_recv_wr wr = { .wr_id = posted, .sg_list = &s, .num_sge = 1 }, *bad;
		if (ibv_post_recv(d.qp[1], &wr, &bad)) {
			atomic_fetch_add(&post_errs, 1);
			continue;
		}
		atomic_fetch_add(&rq_posted_ahead, 1);
		posted++;
	}
	return NULL;
}

static void *poller(void *arg)
{
	int side = (int)(intptr_t)arg;
	struct ibv_wc wc[16];

	while (atomic_load(&done[side]) < TOTAL && !atomic_load(&stop)) {
		int n = ibv_poll_cq(d.cq[side], 16, wc);
		if (n < 0) {
			atomic_fetch_add(&errors, 1);
			return NULL;
		}
		for (int i = 0; i < n; i++) {
			if (wc[i].status != IBV_WC_SUCCESS || wc[i].wr_id >= TOTAL) {
				if (atomic_fetch_add(&errors, 1) < 5)
					fprintf(stderr, "side %d: wr_id %llu status %d\n", side,
						(unsigned long long)wc[i].wr_id, wc[i].status);
				continue;
			}
			if (atomic_exchange(&seen[side][wc[i].wr_id], 1))
				atomic_fetch_add(&dups, 1);
		}
		if (n) {
			atomic_fetch_add(&done[side], n);
			atomic_fetch_sub(side ? &rq_posted_ahead : &sq_inflight, n);
		} else {
			sched_yield();
		}
	}
	return NULL;
}

int main(void)
{
	pthread_t t[SENDERS + 1 + 2 * POLLERS];
	int nt = 0;
	double t0, end;

	ctest_init();
	if (dp_setup(&d, IBV_QPT_RC, 7))
		return ctest_finish();
	t0 = dp_now();
	for (int i = 0; i < 2 * POLLERS; i++)
		pthread_create(&t[nt++], NULL, poller, (void *)(intptr_t)(i % 2));
	pthread_create(&t[nt++], NULL, receiver, NULL);
	for (int i = 0; i < SENDERS; i++)
		pthread_create(&t[nt++], NULL, sender, NULL);
	end = t0 + 120;
	while ((atomic_load(&done[0]) < TOTAL || atomic_load(&done[1]) < TOTAL) &&
	       dp_now() < end && atomic_load(&errors) == 0)
		usleep(10000);
	atomic_store(&stop, 1);
	for (int i = 0; i < nt; i++)
		pthread_join(t[i], NULL);
	int missing[2] = { 0, 0 };
	for (int s = 0; s < 2; s++)
		for (int i = 0; i < TOTAL; i++)
			missing[s] += !atomic_load(&seen[s][i]);
	printf("sends posted %d, send completions %d, receive completions %d\n",
	       atomic_load(&next_send) > TOTAL ? TOTAL : atomic_load(&next_send),
	       atomic_load(&done[0]), atomic_load(&done[1]));
	printf("missing send %d recv %d, duplicates %d, errors %d, post errors %d\n",
	       missing[0], missing[1], atomic_load(&dups), atomic_load(&errors),
	       atomic_load(&post_errs));
	CHECK(missing[0] == 0 && missing[1] == 0 && atomic_load(&dups) == 0 &&
	      atomic_load(&errors) == 0, "lost or duplicated completions");
	ctest_impl_line("%.0f operations/s", 2.0 * TOTAL / (dp_now() - t0));
	dp_teardown(&d);
	return ctest_finish();
}
