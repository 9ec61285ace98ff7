/* rdma-core 65's new provider commands (IBVERBS_PRIVATE_65), called as a 65
 * plugin calls them, on a context and PD of sid's rxe plugin: on sid's own
 * library and on ours hosting that plugin (tests/releases/sid65.sh diffs the
 * two outputs). The 6.1/6.12 kernels have none of the new methods, so each
 * prints the kernel's errno as rdma-core passes it on; ibv_cmd_reg_mr_ex
 * falls back to the write() REG_MR for an address (a live MR) and refuses a
 * dma-buf there (EOPNOTSUPP); ibv_cmd_create_cq_ex2 with the provider's CQ
 * buffer (at an address or in a dma-buf) needs CQ_CREATE's buffer
 * attributes, which neither kernel has: EOPNOTSUPP, no write() fallback;
 * without a buffer it creates the CQ. Built against sid's header. */
#include "../rxe.h"
#include <errno.h>

struct verbs_mr65 {
	struct ibv_mr ibv_mr;
	uint32_t mr_type;
	int access;
};

struct verbs_dmah65 {
	struct ibv_dmah dmah;
	uint32_t handle;
};

/* driver.h's, not installed: the provider's CQ buffer (65) */
struct cq_prov_attr65 {
	struct {
		uint64_t length;
		union {
			uint8_t *ptr;
			struct {
				uint64_t offset;
				int fd;
			} dmabuf;
		};
	} buffer;
};

enum { CQ_WITH_MEM_VA = 1 << 1, CQ_WITH_MEM_DMABUF = 1 << 2 };

/* ibv_create_cq_ex (the extended header and ib_uverbs_ex_create_cq) and its
 * response with rxe's driver part (the queue's mmap offset and size) */
struct cq_cmd65 {
	uint32_t hdr[6];
	uint64_t user_handle;
	uint32_t cqe, comp_vector, comp_channel, comp_mask, flags, reserved;
};
struct cq_resp65 {
	uint32_t cq_handle, cqe, comp_mask, response_length;
	uint64_t mmap_offset;
	uint32_t mmap_size, pad;
};

#define SYM(name) dlvsym(RTLD_DEFAULT, name, "IBVERBS_PRIVATE_65")

typedef int cq_ex2_fn(struct ibv_context *, const struct ibv_cq_init_attr_ex *, struct cq_prov_attr65 *,
		      struct ibv_cq_ex *, struct cq_cmd65 *, size_t, struct cq_resp65 *, size_t, uint32_t,
		      void *);

/* One ibv_cmd_create_cq_ex2 (a CQ it creates is destroyed at once). */
static void cq_ex2_one(struct ibv_context *ctx, cq_ex2_fn *cq_ex2, int (*destroy_cq)(struct ibv_cq *),
		       const char *what, struct cq_prov_attr65 *prov, uint32_t cmd_flags)
{
	struct ibv_cq_init_attr_ex a = { .cqe = 16, .wc_flags = IBV_WC_STANDARD_FLAGS };
	struct ibv_cq_ex cq;
	struct cq_cmd65 cmd;
	struct cq_resp65 resp;
	int r;

	memset(&cq, 0, sizeof(cq));
	memset(&cmd, 0, sizeof(cmd));
	memset(&resp, 0, sizeof(resp));
	r = cq_ex2(ctx, &a, prov, &cq, &cmd, sizeof(cmd), &resp, sizeof(resp), cmd_flags, NULL);
	printf("create_cq_ex2(%s): %d", what, r);
	if (r == 0)
		printf(" cqe>=16:%d destroy=%d", cq.cqe >= 16, destroy_cq(ibv_cq_ex_to_cq(&cq)));
	putchar('\n');
}

static void cq_ex2_cases(struct ibv_context *ctx, cq_ex2_fn *cq_ex2, int (*destroy_cq)(struct ibv_cq *))
{
	static char cqbuf[65536] __attribute__((aligned(4096)));
	struct cq_prov_attr65 va = { .buffer = { .length = sizeof(cqbuf), .ptr = (uint8_t *)cqbuf } };
	struct cq_prov_attr65 dmabuf = { .buffer = { .length = 4096, .dmabuf = { .offset = 0, .fd = 0 } } };

	cq_ex2_one(ctx, cq_ex2, destroy_cq, "no buffer", NULL, 0);
	cq_ex2_one(ctx, cq_ex2, destroy_cq, "buffer va", &va, CQ_WITH_MEM_VA);
	cq_ex2_one(ctx, cq_ex2, destroy_cq, "buffer dmabuf", &dmabuf, CQ_WITH_MEM_DMABUF);
	cq_ex2_one(ctx, cq_ex2, destroy_cq, "buffer va, no attr", NULL, CQ_WITH_MEM_VA);
	/* rdma-core then sends CQ_CREATE by write() on this context */
	cq_ex2_one(ctx, cq_ex2, destroy_cq, "no buffer, after", NULL, 0);
}

int main(void)
{
	int (*port_speed)(struct ibv_context *, uint32_t, uint64_t *) = SYM("ibv_cmd_query_port_speed");
	int (*cc_caps)(struct ibv_context *, struct ibv_comp_cntr_caps *, size_t) =
		SYM("ibv_cmd_query_comp_cntr_caps");
	int (*cc_create)(struct ibv_context *, struct ibv_comp_cntr *, void *) =
		SYM("ibv_cmd_create_comp_cntr");
	int (*dmah_alloc)(struct ibv_context *, struct verbs_dmah65 *, struct ibv_dmah_init_attr *) =
		SYM("ibv_cmd_alloc_dmah");
	int (*export_fd)(struct ibv_context *, off_t) = SYM("ibv_cmd_export_dmabuf_fd");
	int (*reg_mr_ex)(struct ibv_pd *, struct verbs_mr65 *, struct ibv_mr_init_attr *) =
		SYM("ibv_cmd_reg_mr_ex");
	int (*dereg)(struct verbs_mr65 *) = SYM("ibv_cmd_dereg_mr");
	cq_ex2_fn *cq_ex2 = SYM("ibv_cmd_create_cq_ex2");
	int (*destroy_cq)(struct ibv_cq *) = SYM("ibv_cmd_destroy_cq");
	struct ibv_dmah_init_attr da = { .comp_mask = IBV_DMAH_INIT_ATTR_MASK_CPU_ID };
	struct ibv_comp_cntr cc = { 0 };
	struct ibv_comp_cntr_caps caps;
	struct verbs_dmah65 vd = { 0 };
	struct verbs_mr65 vmr = { 0 };
	struct ibv_mr_init_attr ma;
	struct ibv_device_attr dattr;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	static char buf[8192];
	uint64_t speed = 0;
	int r;

	ctest_init();
	CHECK(port_speed && cc_caps && cc_create && dmah_alloc && export_fd && reg_mr_ex && dereg &&
		      cq_ex2 && destroy_cq,
	      "IBVERBS_PRIVATE_65 names missing");
	ctx = rxe_open(&dattr);
	if (!ctx || !reg_mr_ex)
		return ctest_finish();
	pd = ibv_alloc_pd(ctx);
	CHECK(pd, "alloc_pd errno %d", errno);

	printf("query_port_speed: %d\n", port_speed(ctx, 1, &speed));
	printf("query_comp_cntr_caps: %d\n", cc_caps(ctx, &caps, sizeof(caps)));
	printf("query_comp_cntr_caps(short): %d\n", cc_caps(ctx, &caps, 8));
	printf("create_comp_cntr: %d\n", cc_create(ctx, &cc, NULL));
	printf("alloc_dmah: %d\n", dmah_alloc(ctx, &vd, &da));
	errno = 0;
	r = export_fd(ctx, 0);
	printf("export_dmabuf_fd: %d errno=%d\n", r, errno);

	memset(&ma, 0, sizeof(ma));
	ma.comp_mask = IBV_REG_MR_MASK_ADDR;
	ma.addr = buf;
	ma.length = sizeof(buf);
	ma.access = IBV_ACCESS_LOCAL_WRITE;
	r = pd ? reg_mr_ex(pd, &vmr, &ma) : -1;
	printf("reg_mr_ex(addr): %d type=%u access=%d keys=%s\n", r, vmr.mr_type, vmr.access,
	       vmr.ibv_mr.lkey ? "set" : "none");
	CHECK(r == 0 && vmr.ibv_mr.lkey, "reg_mr_ex %d", r);
	if (r == 0)
		CHECK(dereg(&vmr) == 0, "dereg");
	ma.comp_mask = IBV_REG_MR_MASK_ADDR | IBV_REG_MR_MASK_FD_OFFSET;
	printf("reg_mr_ex(addr+fd_offset): %d\n", pd ? reg_mr_ex(pd, &vmr, &ma) : -1);
	memset(&ma, 0, sizeof(ma));
	ma.comp_mask = IBV_REG_MR_MASK_FD | IBV_REG_MR_MASK_FD_OFFSET | IBV_REG_MR_MASK_IOVA;
	ma.fd = 0;
	ma.length = 4096;
	printf("reg_mr_ex(fd): %d\n", pd ? reg_mr_ex(pd, &vmr, &ma) : -1);

	if (cq_ex2 && destroy_cq)
		cq_ex2_cases(ctx, cq_ex2, destroy_cq);

	if (pd)
		CHECK(ibv_dealloc_pd(pd) == 0, "dealloc_pd");
	ibv_close_device(ctx);
	return ctest_finish();
}
