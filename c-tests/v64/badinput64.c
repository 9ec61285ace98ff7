/* Bad input to rdma-core 64's verbs (IBVERBS_1.15-1.17), with the harness of
 * c-tests/badinput.c (one table line per case, each in a forked child; see
 * there). Debian's 44 has none of these verbs: this test runs on ours only and
 * checks itself, so every Debian column is "=". rxe on 6.1 makes no DMA
 * handles and no port-speed query: those verbs return EOPNOTSUPP once their
 * objects are checked, before their values. */
#include "badinput.h"

static struct out dmah(struct ibv_context *c, uint32_t mask, int null_attr)
{
	struct ibv_dmah_init_attr a = { .comp_mask = mask };

	return PTR(ibv_alloc_dmah(c, null_attr ? NULL : &a));
}
static struct out reg_ex(struct ibv_pd *pd, uint64_t mask, size_t len, int access, int null_attr)
{
	struct ibv_mr_init_attr a = { .length = len, .access = access, .comp_mask = mask,
				      .addr = buf_of(&fx_main) };

	return PTR(ibv_reg_mr_ex(pd, null_attr ? NULL : &a));
}
static struct out port_speed(struct ibv_context *c, uint32_t port, int null_out)
{
	uint64_t speed;

	return POS(ibv_query_port_speed(c, port, null_out ? NULL : &speed));
}
static struct out alloc_buf(struct ibv_pd *pd, size_t size, int null_out)
{
	struct ibv_buf *b;

	return PTR(ibv_alloc_buf(pd, size, null_out ? NULL : &b));
}
/* A buffer of the live PD, then registered with another PD, another range, or
 * after it was freed. */
static struct out buf_mr(int v, int how)
{
	struct ibv_buf *b = NULL;
	void *p = ibv_alloc_buf(pd_of(&fx_main), 8192, &b);
	struct ibv_pd *pd = v == LIVE ? pd_of(&fx_main) : PD(v);

	if (!p)
		die("ibv_alloc_buf");
	switch (how) {
	case 0: /* a foreign buffer handle */
		return PTR(ibv_reg_buf_mr(pd, foreign(0), p, 4096, IBV_ACCESS_LOCAL_WRITE));
	case 1: /* freed */
		ibv_free_buf(b);
		return PTR(ibv_reg_buf_mr(pd, b, p, 4096, IBV_ACCESS_LOCAL_WRITE));
	case 2: /* NULL buffer */
		return PTR(ibv_reg_buf_mr(pd, NULL, p, 4096, IBV_ACCESS_LOCAL_WRITE));
	case 3: /* a range before the buffer */
		return PTR(ibv_reg_buf_mr(pd, b, (char *)p - 4096, 4096, IBV_ACCESS_LOCAL_WRITE));
	case 4: /* a huge length */
		return PTR(ibv_reg_buf_mr(pd, b, p, SIZE_MAX, IBV_ACCESS_LOCAL_WRITE));
	case 5: /* bad access bits */
		return PTR(ibv_reg_buf_mr(pd, b, p, 4096, 1 << 30));
	default: /* the buffer's own range */
		return PTR(ibv_reg_buf_mr(pd, b, p, 4096, IBV_ACCESS_LOCAL_WRITE));
	}
}
static struct out free_buf(int how)
{
	struct ibv_buf *b = NULL;

	if (how == 0)
		return VOID(ibv_free_buf(NULL));
	if (how == 1)
		return VOID(ibv_free_buf(foreign(0)));
	if (!ibv_alloc_buf(pd_of(&fx_main), 4096, &b))
		die("ibv_alloc_buf");
	ibv_free_buf(b);
	return VOID(ibv_free_buf(b)); /* twice */
}

#define CASES(X, OBJ)                                                                                   \
	OBJ(dmah, NEEDDEV, "ibv_alloc_dmah", NOCLOSED, "NULL EINVAL", "=", "NULL EINVAL", dmah(CTX(v), 0, 0)) \
	X(dmah_nodev, NODEV, "ibv_alloc_dmah(NULL, NULL)", "NULL EINVAL", "=", dmah(NULL, 0, 1)) \
	X(dmah_attr, NEEDDEV, "ibv_alloc_dmah(attr NULL)", "NULL EOPNOTSUPP", "=", dmah(C, 0, 1)) \
	X(dmah_mask, NEEDDEV, "ibv_alloc_dmah(comp_mask 1<<30)", "NULL EOPNOTSUPP", "=", dmah(C, 1u << 30, 0)) \
	X(dealloc_dmah_null, NODEV, "ibv_dealloc_dmah(NULL)", "EINVAL", "=", POS(ibv_dealloc_dmah(NULL))) \
	X(dealloc_dmah_foreign, NEEDDEV, "ibv_dealloc_dmah(foreign)", "EINVAL", "=", POS(ibv_dealloc_dmah(foreign(1)))) \
	OBJ(regex, NEEDDEV, "ibv_reg_mr_ex", ALL, "NULL EINVAL", "=", "NULL EINVAL", reg_ex(PD(v), IBV_REG_MR_MASK_ADDR, 4096, IBV_ACCESS_LOCAL_WRITE, 0)) \
	X(regex_attr, NEEDDEV, "ibv_reg_mr_ex(attr NULL)", "NULL EINVAL", "=", reg_ex(P, 0, 4096, 0, 1)) \
	X(regex_mask, NEEDDEV, "ibv_reg_mr_ex(comp_mask 1<<40)", "NULL EOPNOTSUPP", "=", reg_ex(P, IBV_REG_MR_MASK_ADDR | (1ull << 40), 4096, IBV_ACCESS_LOCAL_WRITE, 0)) \
	X(regex_len, NEEDDEV, "ibv_reg_mr_ex(length SIZE_MAX)", "NULL EINVAL", "=", reg_ex(P, IBV_REG_MR_MASK_ADDR, SIZE_MAX, IBV_ACCESS_LOCAL_WRITE, 0)) \
	X(regex_access, NEEDDEV, "ibv_reg_mr_ex(access 1<<30)", "NULL EINVAL", "=", reg_ex(P, IBV_REG_MR_MASK_ADDR, 4096, 1 << 30, 0)) \
	X(dmexp_null, NODEV, "ibv_dm_export_dmabuf_fd(NULL)", "-1 EINVAL", "=", NEG(ibv_dm_export_dmabuf_fd(NULL))) \
	X(dmexp_foreign, NEEDDEV, "ibv_dm_export_dmabuf_fd(foreign)", "-1 EINVAL", "=", NEG(ibv_dm_export_dmabuf_fd(foreign(1)))) \
	OBJ(pspeed, NEEDDEV, "ibv_query_port_speed", NOCLOSED, "EINVAL", "=", "EINVAL", port_speed(CTX(v), 1, 0)) \
	X(pspeed_0, NEEDDEV, "ibv_query_port_speed(port 0)", "EOPNOTSUPP", "=", port_speed(C, 0, 0)) \
	X(pspeed_255, NEEDDEV, "ibv_query_port_speed(port 255)", "EOPNOTSUPP", "=", port_speed(C, 255, 0)) \
	X(pspeed_out, NEEDDEV, "ibv_query_port_speed(port_speed NULL)", "EOPNOTSUPP", "=", port_speed(C, 1, 1)) \
	OBJ(abuf, NEEDDEV, "ibv_alloc_buf", ALL, "NULL EINVAL", "=", "NULL EINVAL", alloc_buf(PD(v), 4096, 0)) \
	X(abuf_0, NEEDDEV, "ibv_alloc_buf(size 0)", "ok", "=", alloc_buf(P, 0, 0)) \
	X(abuf_huge, NEEDDEV, "ibv_alloc_buf(size SIZE_MAX)", "NULL ENOMEM", "=", alloc_buf(P, SIZE_MAX, 0)) \
	X(abuf_out, NEEDDEV, "ibv_alloc_buf(buf NULL)", "NULL EINVAL", "=", alloc_buf(P, 4096, 1)) \
	X(fbuf_null, NODEV, "ibv_free_buf(NULL)", "void", "=", free_buf(0)) \
	X(fbuf_foreign, NODEV, "ibv_free_buf(foreign)", "void", "=", free_buf(1)) \
	X(fbuf_twice, NEEDDEV, "ibv_free_buf(freed)", "void", "=", free_buf(2)) \
	OBJ(bufmr, NEEDDEV, "ibv_reg_buf_mr(pd)", ALL, "NULL EINVAL", "=", "NULL EINVAL", buf_mr(v, 6)) \
	X(bufmr_foreign, NEEDDEV, "ibv_reg_buf_mr(foreign buf)", "NULL EINVAL", "=", buf_mr(LIVE, 0)) \
	X(bufmr_freed, NEEDDEV, "ibv_reg_buf_mr(freed buf)", "NULL EINVAL", "=", buf_mr(LIVE, 1)) \
	X(bufmr_null, NEEDDEV, "ibv_reg_buf_mr(buf NULL)", "NULL EINVAL", "=", buf_mr(LIVE, 2)) \
	X(bufmr_range, NEEDDEV, "ibv_reg_buf_mr(range before buf)", "NULL EINVAL", "=", buf_mr(LIVE, 3)) \
	X(bufmr_len, NEEDDEV, "ibv_reg_buf_mr(length SIZE_MAX)", "NULL EINVAL", "=", buf_mr(LIVE, 4)) \
	X(bufmr_access, NEEDDEV, "ibv_reg_buf_mr(access 1<<30)", "NULL EINVAL", "=", buf_mr(LIVE, 5))

CASES(FN_X, FN_OBJ)
static const struct bcase cases[] = { CASES(ROW_X, ROW_OBJ) };

int main(void)
{
	return badinput_main(cases, (int)(sizeof(cases) / sizeof(cases[0])));
}
