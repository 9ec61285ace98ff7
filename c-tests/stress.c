/* Concurrency stress: THREADS threads (default 8) each run OPS
 * operations (default 36) on a loopback RC pair of their own, cycling SEND,
 * RDMA WRITE and RDMA READ, every one signaled and its data checked: the
 * payload is a pattern of (thread, sequence number), verified at the receiver
 * (SEND), in the target buffer (WRITE) and in the local buffer after the READ.
 * Four phases, each with a create/destroy churn thread beside the traffic
 * (PD, MR, CQ, QP: created, moved INIT->RTR->RTS, destroyed, in a loop):
 *   own-cq     each thread with its own CQ, polled by it (ibv_poll_cq);
 *   shared-cq  every QP on one CQ that every thread polls (ibv_poll_cq),
 *              completions routed to their owner by wr_id;
 *   shared-cqx the same on one extended CQ (ibv_start_poll / ibv_next_poll /
 *              ibv_end_poll); on rdma-core 44's rxe, whose ibv_next_poll
 *              unlocks the CQ on ENOENT and ibv_end_poll again (the double
 *              unlock fixed in rdma-core 64), a batch is one entry long;
 *   destroy    (ours only) a thread posts and polls on a QP pair and CQ that
 *              the main thread destroys under it: it must get errors, never
 *              a crash or a hang; rdma-core 44 crashes there (use after free).
 * Every phase asserts 0 lost, 0 duplicated and 0 corrupted completions and
 * prints the figures. STRESS_THREADS / STRESS_OPS / STRESS_ROUNDS (destroy
 * rounds) override the counts: `make soak` runs a big count in the VM.
 * Debian's library must pass the same program (the destroy phase is skipped
 * there, with a tagged line). */
#include "dp.h"
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

#define MAX_THREADS 64
#define W 16		/* operations in flight per thread (one batch) */
#define SLOT 256	/* bytes per slot */
#define HANG_SECS 20	/* no progress this long: the rest counts as lost */

enum kind { K_SEND, K_WRITE, K_READ };
enum mode { M_OWN, M_SHARED, M_SHAREDX };

static struct dp g;	/* context, PD, GID; type RC */
static int nthreads = 8, nops = 36, nrounds = 8;
static enum mode mode;
static struct ibv_cq *shared_cq;
static struct ibv_cq_ex *shared_cqx;
static int big_batches;	/* ibv_next_poll batches (not on 44's rxe) */
static atomic_int stop_churn;
static atomic_long churn_rounds, churn_errs;

struct th {
	int id;
	struct ibv_cq *cq;		/* own-cq: both QPs' CQ */
	struct ibv_qp *qa, *qb;		/* qa posts; qb receives / is the target */
	struct ibv_mr *ma, *mb;
	char *a, *b;			/* slots: a = local, b = peer */
	/* completions per sequence number: [0] send queue, [1] receive queue */
	atomic_uchar *seen[2];
	atomic_long done[2];
	atomic_long lost, dup, corrupt, posted_recv;
	pthread_t t;
};
static struct th th[MAX_THREADS];

static uint64_t mk_id(int t, int rq, enum kind k, uint32_t seq)
{
	return (uint64_t)t << 48 | (uint64_t)rq << 47 | (uint64_t)k << 40 | seq;
}

static uint32_t op_len(uint32_t seq)
{
	return 16 + seq * 37 % (SLOT - 16);
}

static void fill(char *p, int t, uint32_t seq, uint32_t len)
{
	memcpy(p, &t, 4);
	memcpy(p + 4, &seq, 4);
	for (uint32_t k = 8; k < len; k++)
		p[k] = (char)(t * 131 + seq * 17 + k * 7 + 1);
}

static int check(const char *p, int t, uint32_t seq, uint32_t len)
{
	char want[SLOT];

	fill(want, t, seq, len);
	return memcmp(p, want, len) == 0;
}

/* One completion, from whichever thread polled it: routed by wr_id. */
static void account(uint64_t wr_id, int status, int opcode, uint32_t byte_len)
{
	int t = (int)(wr_id >> 48), rq = (int)(wr_id >> 47 & 1);
	enum kind k = (enum kind)(wr_id >> 40 & 0x7f);
	uint32_t seq = (uint32_t)(wr_id & 0xffffffffffULL);
	static const int sq_op[] = { IBV_WC_SEND, IBV_WC_RDMA_WRITE, IBV_WC_RDMA_READ };
	struct th *h;

	if (t >= nthreads || seq >= (uint32_t)nops || k > K_READ) {
		fprintf(stderr, "completion with a foreign wr_id 0x%llx\n",
			(unsigned long long)wr_id);
		atomic_fetch_add(&th[0].corrupt, 1);
		return;
	}
	h = &th[t];
	if (status != IBV_WC_SUCCESS || opcode != (rq ? IBV_WC_RECV : sq_op[k]) ||
	    (rq && byte_len != op_len(seq))) {
		fprintf(stderr, "thread %d seq %u: status %d opcode %d byte_len %u\n", t, seq,
			status, opcode, byte_len);
		atomic_fetch_add(&h->corrupt, 1);
	}
	if (atomic_fetch_add(&h->seen[rq][seq], 1) != 0)
		atomic_fetch_add(&h->dup, 1);
	atomic_fetch_add(&h->done[rq], 1);
}

/* Polls `cq` (own or shared) once; returns how many completions it took. */
static int poll_some(struct ibv_cq *cq)
{
	struct ibv_wc wc[8];
	struct ibv_poll_cq_attr pa = {};
	int n = 0;

	if (mode != M_SHAREDX) {
		n = ibv_poll_cq(cq, 8, wc);
		if (n < 0) {
			fprintf(stderr, "poll_cq %d\n", n);
			atomic_fetch_add(&th[0].corrupt, 1);
			return 0;
		}
		for (int i = 0; i < n; i++)
			account(wc[i].wr_id, wc[i].status, wc[i].opcode, wc[i].byte_len);
		return n;
	}
	int r = ibv_start_poll(shared_cqx, &pa);
	if (r == ENOENT)
		return 0;
	if (r) {
		fprintf(stderr, "start_poll %d\n", r);
		atomic_fetch_add(&th[0].corrupt, 1);
		return 0;
	}
	do {
		account(shared_cqx->wr_id, shared_cqx->status, ibv_wc_read_opcode(shared_cqx),
			ibv_wc_read_byte_len(shared_cqx));
		n++;
	} while (big_batches && n < 16 && (r = ibv_next_poll(shared_cqx)) == 0);
	if (big_batches && r != 0 && r != ENOENT) {
		fprintf(stderr, "next_poll %d\n", r);
		atomic_fetch_add(&th[0].corrupt, 1);
	}
	ibv_end_poll(shared_cqx);
	return n;
}

static void post_op(struct th *h, uint32_t seq, int slot)
{
	enum kind k = (enum kind)(seq % 3);
	uint32_t len = op_len(seq);
	char *la = h->a + slot * SLOT, *lb = h->b + slot * SLOT;
	struct ibv_sge s = { (uintptr_t)la, len, h->ma->lkey };
	struct ibv_send_wr w = { .wr_id = mk_id(h->id, 0, k, seq), .sg_list = &s, .num_sge = 1,
				 .send_flags = IBV_SEND_SIGNALED }, *bad;

	if (k == K_READ) {
		memset(la, 0, SLOT);
		fill(lb, h->id, seq, len);
		w.opcode = IBV_WR_RDMA_READ;
	} else {
		fill(la, h->id, seq, len);
		memset(lb, 0, SLOT);
		w.opcode = k == K_SEND ? IBV_WR_SEND : IBV_WR_RDMA_WRITE;
	}
	if (k != K_SEND) {
		w.wr.rdma.remote_addr = (uintptr_t)lb;
		w.wr.rdma.rkey = h->mb->rkey;
	} else {
		struct ibv_sge rs = { (uintptr_t)lb, SLOT, h->mb->lkey };
		struct ibv_recv_wr rw = { .wr_id = mk_id(h->id, 1, k, seq), .sg_list = &rs,
					  .num_sge = 1 }, *rbad;
		int r = ibv_post_recv(h->qb, &rw, &rbad);
		CHECK(r == 0, "thread %d post_recv %d", h->id, r);
		atomic_fetch_add(&h->posted_recv, 1);
	}
	int r = ibv_post_send(h->qa, &w, &bad);
	CHECK(r == 0, "thread %d post_send %d", h->id, r);
}

static void *traffic(void *arg)
{
	struct th *h = arg;

	for (uint32_t base = 0; base < (uint32_t)nops; base += W) {
		uint32_t end = base + W < (uint32_t)nops ? base + W : (uint32_t)nops;
		long want_sq = end, want_rq = 0;
		double last = dp_now();
		long seen_before = -1;

		for (uint32_t seq = base; seq < end; seq++)
			post_op(h, seq, (int)(seq - base));
		want_rq = atomic_load(&h->posted_recv);
		while (atomic_load(&h->done[0]) < want_sq || atomic_load(&h->done[1]) < want_rq) {
			long now_seen = atomic_load(&h->done[0]) + atomic_load(&h->done[1]);
			poll_some(mode == M_OWN ? h->cq : shared_cq);
			if (now_seen != seen_before) {
				seen_before = now_seen;
				last = dp_now();
			} else if (dp_now() - last > HANG_SECS) {
				break; /* counted as lost below */
			}
		}
		for (uint32_t seq = base; seq < end; seq++) {
			enum kind k = (enum kind)(seq % 3);
			const char *p = (k == K_READ ? h->a : h->b) + (seq - base) * SLOT;
			int got_sq = atomic_load(&h->seen[0][seq]) > 0;
			int got_rq = k != K_SEND || atomic_load(&h->seen[1][seq]) > 0;

			if (!got_sq || !got_rq) {
				atomic_fetch_add(&h->lost, !got_sq + !got_rq);
				continue;
			}
			if (!check(p, h->id, seq, op_len(seq))) {
				fprintf(stderr, "thread %d seq %u kind %d: data differs\n", h->id, seq, k);
				atomic_fetch_add(&h->corrupt, 1);
			}
		}
		if (atomic_load(&h->lost))
			break;
	}
	/* Shared CQs: keep polling for the others until all are done. */
	return NULL;
}

static void *churn(void *arg)
{
	static char cbuf[4096] __attribute__((aligned(4096)));
	long n = 0;

	(void)arg;
	while (!atomic_load(&stop_churn) || n < 3) {
		struct ibv_pd *pd = ibv_alloc_pd(g.ctx);
		struct ibv_mr *mr = pd ? ibv_reg_mr(pd, cbuf, sizeof(cbuf),
						    IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE) : NULL;
		struct ibv_cq *cq = ibv_create_cq(g.ctx, 8, NULL, NULL, 0);
		struct ibv_qp_init_attr ia = { .send_cq = cq, .recv_cq = cq,
					       .cap = { 4, 4, 1, 1, 0 }, .qp_type = IBV_QPT_RC };
		struct ibv_qp *qp = pd && cq ? ibv_create_qp(pd, &ia) : NULL;
		int ok = pd && mr && cq && qp;

		if (qp)
			ok &= dp_to_init(&g, qp) == 0 && dp_connect(&g, qp, qp->qp_num, 7) == 0;
		if (qp)
			ok &= ibv_destroy_qp(qp) == 0;
		if (cq)
			ok &= ibv_destroy_cq(cq) == 0;
		if (mr)
			ok &= ibv_dereg_mr(mr) == 0;
		if (pd)
			ok &= ibv_dealloc_pd(pd) == 0;
		if (!ok) {
			fprintf(stderr, "churn round %ld failed (errno %d)\n", n, errno);
			atomic_fetch_add(&churn_errs, 1);
		}
		n++;
	}
	atomic_store(&churn_rounds, n);
	return NULL;
}

static struct ibv_qp *mk_qp(struct ibv_cq *cq)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = cq, .recv_cq = cq,
		.cap = { .max_send_wr = W, .max_recv_wr = W, .max_send_sge = 1,
			 .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
	struct ibv_qp *qp = ibv_create_qp(g.pd, &ia);

	CHECK(qp, "create_qp errno %d", errno);
	return qp;
}

static int phase(enum mode m, const char *name)
{
	long lost = 0, dup = 0, corrupt = 0, comps = 0, sends = 0;
	pthread_t ct;
	int ok = 1;

	mode = m;
	big_batches = ctest_ours_dp();
	if (m == M_SHARED) {
		shared_cq = ibv_create_cq(g.ctx, nthreads * 2 * W + 16, NULL, NULL, 0);
		CHECK(shared_cq, "create shared cq errno %d", errno);
	} else if (m == M_SHAREDX) {
		struct ibv_cq_init_attr_ex ca = { .cqe = nthreads * 2 * W + 16,
						  .wc_flags = IBV_WC_EX_WITH_BYTE_LEN };
		shared_cqx = ibv_create_cq_ex(g.ctx, &ca);
		CHECK(shared_cqx, "create shared cq_ex errno %d", errno);
		shared_cq = shared_cqx ? ibv_cq_ex_to_cq(shared_cqx) : NULL;
	}
	if (m != M_OWN && !shared_cq)
		return 0;
	for (int i = 0; i < nthreads; i++) {
		struct th *h = &th[i];

		memset(h, 0, sizeof(*h));
		h->id = i;
		h->cq = m == M_OWN ? ibv_create_cq(g.ctx, 2 * W + 16, NULL, NULL, 0) : shared_cq;
		CHECK(h->cq, "create cq errno %d", errno);
		h->a = aligned_alloc(4096, W * SLOT);
		h->b = aligned_alloc(4096, W * SLOT);
		int acc = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
		h->ma = ibv_reg_mr(g.pd, h->a, W * SLOT, acc);
		h->mb = ibv_reg_mr(g.pd, h->b, W * SLOT, acc);
		CHECK(h->ma && h->mb, "reg_mr errno %d", errno);
		h->qa = h->cq ? mk_qp(h->cq) : NULL;
		h->qb = h->cq ? mk_qp(h->cq) : NULL;
		h->seen[0] = calloc(nops, 1);
		h->seen[1] = calloc(nops, 1);
		if (!h->qa || !h->qb || !h->ma || !h->mb)
			return 0;
		CHECK(dp_to_init(&g, h->qa) == 0 && dp_to_init(&g, h->qb) == 0, "init %d", errno);
		CHECK(dp_connect(&g, h->qa, h->qb->qp_num, 7) == 0 &&
		      dp_connect(&g, h->qb, h->qa->qp_num, 7) == 0, "connect %d", errno);
	}
	atomic_store(&stop_churn, 0);
	atomic_store(&churn_errs, 0);
	pthread_create(&ct, NULL, churn, NULL);
	for (int i = 0; i < nthreads; i++)
		pthread_create(&th[i].t, NULL, traffic, &th[i]);
	for (int i = 0; i < nthreads; i++)
		pthread_join(th[i].t, NULL);
	atomic_store(&stop_churn, 1);
	pthread_join(ct, NULL);
	for (int i = 0; i < nthreads; i++) {
		struct th *h = &th[i];

		lost += atomic_load(&h->lost);
		dup += atomic_load(&h->dup);
		corrupt += atomic_load(&h->corrupt);
		comps += atomic_load(&h->done[0]) + atomic_load(&h->done[1]);
		sends += atomic_load(&h->posted_recv);
		CHECK(ibv_destroy_qp(h->qa) == 0 && ibv_destroy_qp(h->qb) == 0, "destroy_qp %d", errno);
		if (m == M_OWN)
			CHECK(ibv_destroy_cq(h->cq) == 0, "destroy_cq %d", errno);
		CHECK(ibv_dereg_mr(h->ma) == 0 && ibv_dereg_mr(h->mb) == 0, "dereg %d", errno);
		free(h->a);
		free(h->b);
		free(h->seen[0]);
		free(h->seen[1]);
	}
	if (m != M_OWN)
		CHECK(ibv_destroy_cq(shared_cq) == 0, "destroy shared cq %d", errno);
	shared_cq = NULL;
	shared_cqx = NULL;
	printf("%s: %d threads x %d ops (send, write, read; %ld sends), completions %ld of %ld, "
	       "lost %ld, duplicated %ld, corrupted %ld\n", name, nthreads, nops, sends, comps,
	       (long)nthreads * nops + sends, lost, dup, corrupt);
	printf("%s: churn beside it: %s\n", name,
	       atomic_load(&churn_errs) ? "FAILED" : "every create/modify/destroy round ok");
	ctest_impl_line("%s: churn rounds %ld", name, atomic_load(&churn_rounds));
	CHECK(lost == 0 && dup == 0 && corrupt == 0, "%s: lost %ld dup %ld corrupt %ld", name,
	      lost, dup, corrupt);
	CHECK(comps == (long)nthreads * nops + sends, "%s: %ld completions", name, comps);
	CHECK(atomic_load(&churn_errs) == 0, "%s: churn failed", name);
	return ok;
}

/* Destroy under use (ours only): a user thread posts sends and receives on a
 * connected pair and polls its CQ while the main thread destroys both QPs and
 * the CQ. Before the destroy its calls succeed (or see the destroy under way);
 * after it every call is an error; the thread never crashes nor hangs. */
static struct ibv_qp *v_qa, *v_qb;
static struct ibv_cq *v_cq;
static struct ibv_mr *v_mr;
static char *v_buf;
static atomic_int v_dead, v_stop;
static atomic_long v_live_ok, v_after, v_after_err, v_odd;

static void *victim(void *arg)
{
	(void)arg;
	while (!atomic_load(&v_stop)) {
		int dead = atomic_load(&v_dead);
		struct ibv_sge s = { (uintptr_t)v_buf, 32, v_mr->lkey };
		struct ibv_recv_wr rw = { .wr_id = 1, .sg_list = &s, .num_sge = 1 }, *rbad;
		struct ibv_send_wr sw = { .wr_id = 2, .sg_list = &s, .num_sge = 1,
					  .opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED },
			*sbad;
		struct ibv_wc wc[4];
		int q = ibv_post_recv(v_qb, &rw, &rbad);
		int p = ibv_post_send(v_qa, &sw, &sbad);
		int n = ibv_poll_cq(v_cq, 4, wc);

		if (dead) {
			atomic_fetch_add(&v_after, 1);
			if (q != 0 && p != 0 && n < 0)
				atomic_fetch_add(&v_after_err, 1);
			else
				atomic_fetch_add(&v_odd, 1);
		} else if (q == 0 && n >= 0 && (p == 0 || p == ENOMEM)) {
			atomic_fetch_add(&v_live_ok, 1);
		}
	}
	return NULL;
}

/* The kernel answers EBUSY to a destroy that races a command on the same
 * object (rxe's send doorbell is a command): the object is still alive, and
 * the destroy is tried again, as an application would. */
static int destroy_retry(struct ibv_qp *qp, struct ibv_cq *cq, long *busy)
{
	double end = dp_now() + HANG_SECS;
	int r;

	while ((r = qp ? ibv_destroy_qp(qp) : ibv_destroy_cq(cq)) == EBUSY && dp_now() < end) {
		(*busy)++;
		sched_yield();
	}
	return r;
}

static void destroy_phase(void)
{
	long bad_rounds = 0, after = 0, odd = 0, busy = 0;

	v_buf = aligned_alloc(4096, 4096);
	v_mr = ibv_reg_mr(g.pd, v_buf, 4096, IBV_ACCESS_LOCAL_WRITE);
	CHECK(v_mr, "reg_mr %d", errno);
	if (!v_mr)
		return;
	for (int r = 0; r < nrounds; r++) {
		pthread_t t;
		double end;
		int d1, d2, d3;

		v_cq = ibv_create_cq(g.ctx, 64, NULL, NULL, 0);
		v_qa = v_cq ? mk_qp(v_cq) : NULL;
		v_qb = v_cq ? mk_qp(v_cq) : NULL;
		if (!v_qa || !v_qb) {
			bad_rounds++;
			break;
		}
		dp_to_init(&g, v_qa);
		dp_to_init(&g, v_qb);
		dp_connect(&g, v_qa, v_qb->qp_num, 7);
		dp_connect(&g, v_qb, v_qa->qp_num, 7);
		atomic_store(&v_dead, 0);
		atomic_store(&v_stop, 0);
		atomic_store(&v_live_ok, 0);
		atomic_store(&v_after, 0);
		atomic_store(&v_after_err, 0);
		pthread_create(&t, NULL, victim, NULL);
		end = dp_now() + HANG_SECS;
		while (atomic_load(&v_live_ok) < 20 + r * 7 % 50 && dp_now() < end)
			usleep(100);
		d1 = destroy_retry(v_qa, NULL, &busy);
		d2 = destroy_retry(v_qb, NULL, &busy);
		d3 = destroy_retry(NULL, v_cq, &busy);
		atomic_store(&v_dead, 1);
		end = dp_now() + HANG_SECS;
		while (atomic_load(&v_after) < 200 && dp_now() < end)
			usleep(100);
		atomic_store(&v_stop, 1);
		pthread_join(t, NULL);
		after += atomic_load(&v_after);
		odd += atomic_load(&v_odd);
		if (d1 || d2 || d3 || atomic_load(&v_after) < 200 ||
		    atomic_load(&v_after_err) != atomic_load(&v_after)) {
			fprintf(stderr, "destroy round %d: destroy %d %d %d, after %ld, errors %ld\n",
				r, d1, d2, d3, atomic_load(&v_after), atomic_load(&v_after_err));
			bad_rounds++;
		}
	}
	ibv_dereg_mr(v_mr);
	free(v_buf);
	ctest_impl_line("destroy: %d rounds of destroy QPs + CQ under a posting and polling thread: "
			"%ld bad rounds, every call after the destroy an error: %s",
			nrounds, bad_rounds, odd == 0 && after > 0 ? "yes" : "no");
	fprintf(stderr, "destroy: %ld EBUSY answers retried, %ld calls after the destroys\n",
		busy, after);
	CHECK(bad_rounds == 0 && odd == 0, "destroy phase: %ld bad rounds, %ld odd results",
	      bad_rounds, odd);
}

static int env_int(const char *name, int def, int max)
{
	const char *v = getenv(name);
	int n = v ? atoi(v) : def;

	return n < 1 ? def : n > max ? max : n;
}

int main(void)
{
	struct ibv_device_attr da;

	ctest_init();
	nthreads = env_int("STRESS_THREADS", 8, MAX_THREADS);
	nops = env_int("STRESS_OPS", 36, 1 << 30);
	nrounds = env_int("STRESS_ROUNDS", 8, 1 << 20);
	memset(&g, 0, sizeof(g));
	g.type = IBV_QPT_RC;
	g.ctx = rxe_open(&da);
	if (!g.ctx)
		return ctest_finish();
	dp_gid(g.ctx, &g.gid);
	g.pd = ibv_alloc_pd(g.ctx);
	CHECK(g.pd, "alloc_pd %d", errno);
	if (!g.pd)
		return ctest_finish();
	phase(M_OWN, "own-cq");
	phase(M_SHARED, "shared-cq");
	phase(M_SHAREDX, "shared-cqx");
	if (ctest_ours_dp())
		destroy_phase();
	else
		ctest_impl_line("destroy: not run (rdma-core 44 reads freed memory and crashes there)");
	CHECK(ibv_dealloc_pd(g.pd) == 0, "dealloc_pd %d", errno);
	CHECK(ibv_close_device(g.ctx) == 0, "close %d", errno);
	return ctest_finish();
}
