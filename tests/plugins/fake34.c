/* A test-only provider plugin of rdma-core 45..56's IBVERBS_PRIVATE_34
 * (never installed): 45 appended wr_flush to struct ibv_qp_ex without a new
 * private ABI, so such a plugin's verbs_qp has comp_mask 8 bytes later than
 * 44's. It registers with verbs_register_driver_34 for a fake device
 * (modalias fake34:*), opens a context without the kernel and makes its
 * extended QPs as rxe 56.1 does: wr_flush set, then VERBS_QP_EX in its own
 * comp_mask. discovery.sh installs it where a libibverbs.so.1.14.56.1 (or
 * none) sits in the plugin directory's parent; qp34.c then asks the host
 * for the QP's ibv_qp_ex. Offsets from rdma-core 56.1's verbs.h/driver.h. */
#define _GNU_SOURCE
#include <infiniband/verbs.h>
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* struct verbs_context_ops of rdma-core 34..56: 76 slots, in its order. */
struct ops34 {
	void *advise_mr; void *alloc_dm; void *alloc_mw; void *alloc_null_mr;
	void *alloc_parent_domain; void *alloc_pd; void *alloc_td; void *async_event;
	void *attach_counters_point_flow; void *attach_mcast; void *bind_mw; void *close_xrcd;
	void *cq_event; void *create_ah; void *create_counters; void *create_cq; void *create_cq_ex;
	void *create_flow; void *create_flow_action_esp; void *create_qp; void *create_qp_ex;
	void *create_rwq_ind_table; void *create_srq; void *create_srq_ex; void *create_wq;
	void *dealloc_mw; void *dealloc_pd; void *dealloc_td; void *dereg_mr; void *destroy_ah;
	void *destroy_counters; void *destroy_cq; void *destroy_flow; void *destroy_flow_action;
	void *destroy_qp; void *destroy_rwq_ind_table; void *destroy_srq; void *destroy_wq;
	void *detach_mcast; void *free_context; void *free_dm; void *get_srq_num; void *import_dm;
	void *import_mr; void *import_pd; void *modify_cq; void *modify_flow_action_esp;
	void *modify_qp; void *modify_qp_rate_limit; void *modify_srq; void *modify_wq; void *open_qp;
	void *open_xrcd; void *poll_cq; void *post_recv; void *post_send; void *post_srq_ops;
	void *post_srq_recv; void *query_device_ex; void *query_ece; void *query_port; void *query_qp;
	void *query_qp_data_in_order; void *query_rt_values; void *query_srq; void *read_counters;
	void *reg_dm_mr; void *reg_dmabuf_mr; void *reg_mr; void *req_notify_cq; void *rereg_mr;
	void *resize_cq; void *set_ece; void *unimport_dm; void *unimport_mr; void *unimport_pd;
};
_Static_assert(sizeof(struct ops34) == 76 * 8, "verbs_context_ops (34)");

struct match_ent { void *driver_data; const char *modalias; uint16_t vendor, device; uint8_t kind; };
struct device_ops {
	const char *name;
	uint32_t min_abi, max_abi;
	const struct match_ent *match_table;
	void *static_providers, *match_device;
	void *(*alloc_context)(struct ibv_device *, int, void *);
	void *import_context;
	void *(*alloc_device)(void *sysfs_dev);
	void (*uninit_device)(void *vdev);
};
_Static_assert(sizeof(struct device_ops) == 72, "verbs_device_ops");
struct fake_device { struct ibv_device device; char rest[712 - sizeof(struct ibv_device)]; };

/* 45..56's struct verbs_qp: ibv_qp_ex (with wr_flush) is 360 bytes. */
enum { WR_FLUSH = 352, COMP_MASK = 360, VERBS_QP_EX = 1 << 1 };

/* Room for 34's verbs_context, the host's (it checks the size). */
struct fake_ctx { char vctx[4096]; };

static void *(*init_ctx)(struct ibv_device *, int, size_t, size_t, uint32_t);
static void (*uninit_ctx)(void *);
static void (*set_ops)(void *, const struct ops34 *);
static struct fake_ctx *the_ctx;

#define SAY(...) (printf("plugin: " __VA_ARGS__), putchar('\n'))

static struct ibv_pd *alloc_pd(struct ibv_context *c)
{
	struct ibv_pd *pd = calloc(1, sizeof(*pd));

	if (pd)
		pd->context = c;
	return pd;
}

static int dealloc_pd(struct ibv_pd *pd)
{
	free(pd);
	return 0;
}

/* Aligned so its address has bit 1 clear: read as 44's comp_mask, it
 * shows no VERBS_QP_EX (the control). */
__attribute__((aligned(16))) static void wr_flush(struct ibv_qp_ex *q, uint32_t rkey,
						  uint64_t addr, size_t len, uint8_t type,
						  uint8_t level)
{
	(void)q;
	SAY("wr_flush rkey %u addr %llu len %zu type %u level %u", rkey, (unsigned long long)addr,
	    len, type, level);
}

static struct ibv_qp *create_qp_ex(struct ibv_context *c, struct ibv_qp_init_attr_ex *a)
{
	char *v = calloc(1, 1024);
	struct ibv_qp *qp = (struct ibv_qp *)v;
	void (*f)(struct ibv_qp_ex *, uint32_t, uint64_t, size_t, uint8_t, uint8_t) = wr_flush;

	if (!qp)
		return NULL;
	SAY("create_qp_ex type %d", a->qp_type);
	qp->context = c;
	qp->pd = a->pd;
	qp->qp_num = 34;
	qp->qp_type = a->qp_type;
	memcpy(v + WR_FLUSH, &f, sizeof(f));
	*(uint32_t *)(v + COMP_MASK) |= VERBS_QP_EX;
	return qp;
}

static int destroy_qp(struct ibv_qp *qp)
{
	free(qp);
	return 0;
}

static void free_context(struct ibv_context *c)
{
	(void)c;
	uninit_ctx(the_ctx->vctx);
	free(the_ctx);
	the_ctx = NULL;
}

static const struct ops34 ops = {
	.alloc_pd = alloc_pd, .dealloc_pd = dealloc_pd, .create_qp_ex = create_qp_ex,
	.destroy_qp = destroy_qp, .free_context = free_context,
};

static void *alloc_context(struct ibv_device *dev, int fd, void *priv)
{
	struct fake_ctx *f;

	(void)priv;
	f = init_ctx(dev, fd, sizeof(*f), offsetof(struct fake_ctx, vctx), 0);
	if (!f)
		return NULL;
	the_ctx = f;
	set_ops(f->vctx, &ops);
	return f->vctx;
}

static void *alloc_device(void *sysfs_dev)
{
	(void)sysfs_dev;
	return calloc(1, sizeof(struct fake_device));
}

static void uninit_device(void *vdev)
{
	free(vdev);
}

static const struct match_ent match[] = {
	{ .modalias = "fake34:*", .kind = 2 /* VERBS_MATCH_MODALIAS */ },
	{ 0 },
};

static const struct device_ops dev_ops = {
	.name = "fake34",
	.min_abi = 1,
	.max_abi = 1,
	.match_table = match,
	.alloc_context = alloc_context,
	.alloc_device = alloc_device,
	.uninit_device = uninit_device,
};

#define PRIVATE "IBVERBS_PRIVATE_34"

static void __attribute__((constructor)) reg(void)
{
	void (*reg34)(const struct device_ops *) = dlvsym(RTLD_DEFAULT, "verbs_register_driver_34", PRIVATE);

	init_ctx = dlvsym(RTLD_DEFAULT, "_verbs_init_and_alloc_context", PRIVATE);
	uninit_ctx = dlvsym(RTLD_DEFAULT, "verbs_uninit_context", PRIVATE);
	set_ops = dlvsym(RTLD_DEFAULT, "verbs_set_ops", PRIVATE);
	if (reg34 && init_ctx && uninit_ctx && set_ops)
		reg34(&dev_ops);
	else
		fprintf(stderr, "fake34: no " PRIVATE " in this libibverbs\n");
}
