/* Leak check: 500 rounds creating and destroying every object type (context,
 * PD, MR, MW, completion channel, CQ with that channel, RC/UC/UD QPs, SRQ, AH)
 * must leave the descriptor count and the mapping count as they were, and
 * grow the resident set by less than 2 MB. Run on our library and Debian's. */
#include "rxe.h"

#include <arpa/inet.h>

#define ROUNDS 500

static char buf[8192] __attribute__((aligned(4096)));

static int round_trip(struct ibv_device *dev)
{
	struct ibv_context *ctx = ibv_open_device(dev);
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	struct ibv_mw *mw;
	struct ibv_comp_channel *ch;
	struct ibv_cq *cq;
	struct ibv_srq *srq;
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 4, .max_sge = 1 } };
	struct ibv_qp *qp[3];
	static const enum ibv_qp_type t[3] = { IBV_QPT_RC, IBV_QPT_UC, IBV_QPT_UD };
	struct ibv_ah_attr aa;
	struct ibv_ah *ah;
	int ok = 1;

	if (!ctx)
		return 0;
	pd = ibv_alloc_pd(ctx);
	mr = pd ? ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE |
			     IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_MW_BIND) : NULL;
	mw = pd ? ibv_alloc_mw(pd, IBV_MW_TYPE_1) : NULL;
	ch = ibv_create_comp_channel(ctx);
	cq = ch ? ibv_create_cq(ctx, 16, NULL, ch, 0) : NULL;
	srq = pd ? ibv_create_srq(pd, &sa) : NULL;
	for (int i = 0; i < 3; i++) {
		struct ibv_qp_init_attr qa = { .send_cq = cq, .recv_cq = cq, .qp_type = t[i],
					       .srq = t[i] == IBV_QPT_UC ? NULL : srq,
					       .cap = { 4, 4, 1, 1, 0 } };

		qp[i] = cq && srq ? ibv_create_qp(pd, &qa) : NULL;
		ok &= qp[i] != NULL;
	}
	memset(&aa, 0, sizeof(aa));
	aa.is_global = 1;
	aa.grh.dgid.raw[10] = aa.grh.dgid.raw[11] = 0xff;
	inet_pton(AF_INET, "10.0.0.1", &aa.grh.dgid.raw[12]);
	aa.grh.sgid_index = 1;
	aa.grh.hop_limit = 64;
	aa.port_num = 1;
	ah = pd ? ibv_create_ah(pd, &aa) : NULL;
	ok &= pd && mr && mw && ch && cq && srq && ah;

	if (ah)
		ok &= ibv_destroy_ah(ah) == 0;
	for (int i = 0; i < 3; i++)
		if (qp[i])
			ok &= ibv_destroy_qp(qp[i]) == 0;
	if (srq)
		ok &= ibv_destroy_srq(srq) == 0;
	if (cq)
		ok &= ibv_destroy_cq(cq) == 0;
	if (ch)
		ok &= ibv_destroy_comp_channel(ch) == 0;
	if (mw)
		ok &= ibv_dealloc_mw(mw) == 0;
	if (mr)
		ok &= ibv_dereg_mr(mr) == 0;
	if (pd)
		ok &= ibv_dealloc_pd(pd) == 0;
	ok &= ibv_close_device(ctx) == 0;
	return ok;
}

int main(void)
{
	struct ibv_device **list;
	long fds, maps, rss;
	int n = 0, good = 0;

	ctest_init();
	list = ibv_get_device_list(&n);
	if (!list || n == 0) {
		printf("skip: no RDMA device\n");
		if (list)
			ibv_free_device_list(list);
		return ctest_finish();
	}
	/* One warm-up round: first-use allocations are not leaks. */
	printf("warm-up round ok: %d\n", round_trip(list[0]));
	fds = rxe_count_fds();
	maps = rxe_count_maps();
	rss = rxe_rss_kb();
	for (int i = 0; i < ROUNDS; i++)
		good += round_trip(list[0]);
	printf("%d rounds, %d ok\n", ROUNDS, good);
	CHECK(good == ROUNDS, "%d of %d rounds failed", ROUNDS - good, ROUNDS);
	printf("fd count unchanged: %d\n", rxe_count_fds() == fds);
	printf("mapping count unchanged: %d\n", rxe_count_maps() == maps);
	printf("RSS growth under 2 MB: %d\n", rxe_rss_kb() - rss < 2048);
	CHECK(rxe_count_fds() == fds, "fds %ld -> %ld", fds, rxe_count_fds());
	CHECK(rxe_count_maps() == maps, "maps %ld -> %ld", maps, rxe_count_maps());
	CHECK(rxe_rss_kb() - rss < 2048, "RSS %ld kB -> %ld kB", rss, rxe_rss_kb());
	fprintf(stderr, "leak: fds %ld, maps %ld, RSS %ld -> %ld kB\n", fds, maps, rss,
		rxe_rss_kb());
	ibv_free_device_list(list);
	return ctest_finish();
}
