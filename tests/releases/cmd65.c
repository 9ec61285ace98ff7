/* rdma-core 65's new provider commands (IBVERBS_PRIVATE_65), called as a 65
 * plugin calls them, on a context and PD of sid's rxe plugin: on sid's own
 * library and on ours hosting that plugin (tests/releases/sid65.sh diffs the
 * two outputs). The 6.1/6.12 kernels have none of the new methods, so each
 * prints the kernel's errno as rdma-core passes it on; ibv_cmd_reg_mr_ex
 * falls back to the write() REG_MR for an address (a live MR) and refuses a
 * dma-buf there (EOPNOTSUPP). Built against sid's header. */
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

#define SYM(name) dlvsym(RTLD_DEFAULT, name, "IBVERBS_PRIVATE_65")

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
	CHECK(port_speed && cc_caps && cc_create && dmah_alloc && export_fd && reg_mr_ex && dereg,
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

	if (pd)
		CHECK(ibv_dealloc_pd(pd) == 0, "dealloc_pd");
	ibv_close_device(ctx);
	return ctest_finish();
}
