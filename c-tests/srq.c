/* ibv_create_srq / _ex, ibv_modify_srq (resize), ibv_query_srq, ibv_destroy_srq on rxe. */
#include "rxe.h"

static void q(struct ibv_srq *s, const char *what)
{
	struct ibv_srq_attr a;
	int r;

	memset(&a, 0xab, sizeof(a));
	r = ibv_query_srq(s, &a);
	printf("query %s: %d max_wr=%u max_sge=%u limit=%u\n", what, r, a.max_wr, a.max_sge,
	       a.srq_limit);
}

static struct ibv_srq *mk(struct ibv_pd *pd, uint32_t wr, uint32_t sge, uint32_t lim,
			  const char *what)
{
	struct ibv_srq_init_attr a = { .srq_context = (void *)0x77,
				       .attr = { .max_wr = wr, .max_sge = sge, .srq_limit = lim } };
	struct ibv_srq *s;

	errno = 0;
	s = ibv_create_srq(pd, &a);
	if (s)
		printf("%s: ok max_wr=%u max_sge=%u limit=%u ctx=%p pd_ok=%d\n", what, a.attr.max_wr,
		       a.attr.max_sge, a.attr.srq_limit, s->srq_context, s->pd == pd);
	else
		printf("%s: NULL errno=%d\n", what, errno);
	return s;
}

static struct ibv_srq *mkx(struct ibv_context *ctx, struct ibv_srq_init_attr_ex *x,
			   const char *what)
{
	struct ibv_srq *s;

	errno = 0;
	s = ibv_create_srq_ex(ctx, x);
	if (s)
		printf("%s: ok max_wr=%u max_sge=%u\n", what, x->attr.max_wr, x->attr.max_sge);
	else
		printf("%s: NULL errno=%d\n", what, errno);
	return s;
}

int main(void)
{
	struct ibv_device_attr da;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_srq *s, *t;
	struct ibv_srq_attr a;

	ctest_init();
	ctx = rxe_open(&da);
	if (!ctx)
		return ctest_finish();
	printf("max_srq_wr=%d max_srq_sge=%d\n", da.max_srq_wr, da.max_srq_sge);
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	CHECK(pd && cq, "pd/cq");
	if (!pd || !cq)
		return ctest_finish();

	s = mk(pd, 100, 2, 0, "srq 100/2");
	t = mk(pd, 1, 1, 0, "srq 1/1");
	if (t)
		ibv_destroy_srq(t);
	t = mk(pd, 0, 0, 0, "srq 0/0");
	if (t)
		ibv_destroy_srq(t);
	t = mk(pd, da.max_srq_wr, da.max_srq_sge, 0, "srq at max");
	if (t)
		ibv_destroy_srq(t);
	t = mk(pd, da.max_srq_wr + 1, 1, 0, "srq wr max+1");
	if (t)
		ibv_destroy_srq(t);
	t = mk(pd, 1, da.max_srq_sge + 1, 0, "srq sge max+1");
	if (t)
		ibv_destroy_srq(t);
	t = mk(pd, 10, 1, 20, "srq limit > wr");
	if (t)
		ibv_destroy_srq(t);
	if (!s)
		return ctest_finish();
	q(s, "new");
	memset(&a, 0, sizeof(a));
	a.srq_limit = 10;
	printf("modify limit 10: %d\n", ibv_modify_srq(s, &a, IBV_SRQ_LIMIT));
	q(s, "limit");
	a.srq_limit = 1000;
	printf("modify limit 1000: %d\n", ibv_modify_srq(s, &a, IBV_SRQ_LIMIT));
	a.max_wr = 300;
	printf("modify max_wr 300: %d\n", ibv_modify_srq(s, &a, IBV_SRQ_MAX_WR));
	q(s, "resized");
	a.max_wr = da.max_srq_wr + 1;
	printf("modify max_wr max+1: %d\n", ibv_modify_srq(s, &a, IBV_SRQ_MAX_WR));
	a.max_wr = 50;
	a.srq_limit = 5;
	printf("modify max_wr 50 + limit 5: %d\n",
	       ibv_modify_srq(s, &a, IBV_SRQ_MAX_WR | IBV_SRQ_LIMIT));
	q(s, "after");
	printf("modify mask 0: %d\n", ibv_modify_srq(s, &a, 0));
	printf("modify mask 0x10: %d\n", ibv_modify_srq(s, &a, 0x10));

	/* create_srq_ex */
	{
		struct ibv_srq_init_attr_ex x = { .attr = { 20, 1, 0 }, .pd = pd, .cq = cq,
						  .comp_mask = IBV_SRQ_INIT_ATTR_PD };

		t = mkx(ctx, &x, "srq_ex pd");
		if (t)
			ibv_destroy_srq(t);
		x.comp_mask = IBV_SRQ_INIT_ATTR_PD | IBV_SRQ_INIT_ATTR_CQ;
		t = mkx(ctx, &x, "srq_ex pd+cq basic");
		if (t) {
			q(t, "srq_ex");
			printf("destroy srq_ex: %d\n", ibv_destroy_srq(t));
		}
		x.comp_mask = IBV_SRQ_INIT_ATTR_PD | IBV_SRQ_INIT_ATTR_TYPE;
		x.srq_type = IBV_SRQT_XRC;
		t = mkx(ctx, &x, "srq_ex xrc no xrcd");
		x.srq_type = IBV_SRQT_TM;
		t = mkx(ctx, &x, "srq_ex tm no cq");
		x.comp_mask = IBV_SRQ_INIT_ATTR_PD | IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_CQ |
			      IBV_SRQ_INIT_ATTR_TM;
		x.tm_cap.max_num_tags = 0;
		t = mkx(ctx, &x, "srq_ex tm no tags");
		x.tm_cap.max_num_tags = 4;
		x.tm_cap.max_ops = 4;
		t = mkx(ctx, &x, "srq_ex tm");
		if (t)
			ibv_destroy_srq(t);
		x.comp_mask = IBV_SRQ_INIT_ATTR_CQ;
		x.srq_type = IBV_SRQT_BASIC;
		t = mkx(ctx, &x, "srq_ex no pd");
		x.comp_mask = IBV_SRQ_INIT_ATTR_PD | IBV_SRQ_INIT_ATTR_RESERVED;
		t = mkx(ctx, &x, "srq_ex reserved");
		x.comp_mask = IBV_SRQ_INIT_ATTR_PD | IBV_SRQ_INIT_ATTR_TYPE;
		x.srq_type = 9;
		t = mkx(ctx, &x, "srq_ex type 9");
		if (t)
			ibv_destroy_srq(t);
	}

	printf("dealloc pd in use: %d\n", ibv_dealloc_pd(pd));
	printf("destroy srq: %d\n", ibv_destroy_srq(s));
	if (ctest_ours()) {
		ctest_impl_line("destroy srq again: %d", ibv_destroy_srq(s));
		ctest_impl_line("query destroyed srq: %d", ibv_query_srq(s, &a));
		ctest_impl_line("modify NULL srq: %d", ibv_modify_srq(NULL, &a, 0));
		errno = 0;
		t = ibv_create_srq(pd, NULL);
		ctest_impl_line("create srq NULL attr: %s errno=%d", t ? "ok" : "NULL", errno);
	}
	printf("destroy cq: %d\n", ibv_destroy_cq(cq));
	printf("dealloc pd: %d\n", ibv_dealloc_pd(pd));
	CHECK(ibv_close_device(ctx) == 0, "close");
	return ctest_finish();
}
