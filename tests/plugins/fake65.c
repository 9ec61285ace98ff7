/* A test-only provider plugin of rdma-core 65's private ABI (never
 * installed): it registers with verbs_register_driver_65 for a fake device
 * (modalias fake65:*, a fake sysfs tree of discovery.sh), opens a context
 * without the kernel (no GET_CONTEXT) and sets only 65's new op slots: port
 * speed, completion counters and DMA handles. Each op prints its call, so
 * ops65.c's output shows which verbs reached the plugin. The entry points
 * are taken with dlvsym at their IBVERBS_PRIVATE_65 versions, as a plugin
 * built against rdma-core 65 binds them. Struct layouts from
 * tests/abi/private65/facts.txt. */
#define _GNU_SOURCE
#include <infiniband/verbs.h>
#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* struct verbs_context_ops of rdma-core 65: 93 slots, in its order. */
struct ops65 {
	void *advise_mr; void *alloc_buf; void *alloc_dm; void *alloc_dmah; void *alloc_mw;
	void *alloc_null_mr; void *alloc_parent_domain; void *alloc_pd; void *alloc_td;
	void *async_event; void *attach_counters_point_flow; void *attach_mcast; void *bind_mw;
	void *close_xrcd; void *cq_event; void *create_ah; void *create_comp_cntr;
	void *create_counters; void *create_cq; void *create_cq_ex; void *create_flow;
	void *create_flow_action_esp; void *create_qp; void *create_qp_ex; void *create_rwq_ind_table;
	void *create_srq; void *create_srq_ex; void *create_wq; void *dealloc_dmah; void *dealloc_mw;
	void *dealloc_pd; void *dealloc_td; void *dereg_mr; void *destroy_ah; void *destroy_comp_cntr;
	void *destroy_counters; void *destroy_cq; void *destroy_flow; void *destroy_flow_action;
	void *destroy_qp; void *destroy_rwq_ind_table; void *destroy_srq; void *destroy_wq;
	void *detach_mcast; void *dm_export_dmabuf_fd; void *free_buf; void *free_context;
	void *free_dm; void *get_srq_num; void *import_dm; void *import_mr; void *import_pd;
	void *inc_comp_cntr; void *inc_err_comp_cntr; void *modify_cq; void *modify_flow_action_esp;
	void *modify_qp; void *modify_qp_rate_limit; void *modify_srq; void *modify_wq; void *open_qp;
	void *open_xrcd; void *poll_cq; void *post_recv; void *post_send; void *post_srq_ops;
	void *post_srq_recv; void *qp_attach_comp_cntr; void *query_comp_cntr_caps;
	void *query_device_ex; void *query_ece; void *query_port; void *query_port_speed;
	void *query_qp; void *query_qp_data_in_order; void *query_rt_values; void *query_srq;
	void *read_comp_cntr; void *read_counters; void *read_err_comp_cntr; void *reg_dm_mr;
	void *reg_dmabuf_mr; void *reg_mr; void *reg_mr_ex; void *req_notify_cq; void *rereg_mr;
	void *resize_cq; void *set_comp_cntr; void *set_ece; void *set_err_comp_cntr;
	void *unimport_dm; void *unimport_mr; void *unimport_pd;
};
_Static_assert(sizeof(struct ops65) == 744, "verbs_context_ops (65)");

struct match_ent { void *driver_data; const char *modalias; uint16_t vendor, device; uint8_t kind; };
struct device_ops {
	const char *name;
	uint32_t min_abi, max_abi;
	const struct match_ent *match_table;
	void *static_providers, *match_device;
	struct verbs_context *(*alloc_context)(struct ibv_device *, int, void *);
	void *import_context;
	void *(*alloc_device)(void *sysfs_dev);
	void (*uninit_device)(void *vdev);
};
_Static_assert(sizeof(struct device_ops) == 72, "verbs_device_ops");
/* struct verbs_device: the ibv_device, then the library's fields. */
struct fake_device { struct ibv_device device; char rest[712 - sizeof(struct ibv_device)]; };

struct fake_ctx { struct verbs_context vctx; };
struct fake_cntr { struct ibv_comp_cntr cc; uint64_t value, err; };

static void *(*init_ctx)(struct ibv_device *, int, size_t, size_t, uint32_t);
static void (*uninit_ctx)(void *);
static void (*set_ops)(void *, const struct ops65 *);

#define SAY(...) (printf("plugin: " __VA_ARGS__), putchar('\n'))

static int query_port_speed(struct ibv_context *c, uint32_t port, uint64_t *speed)
{
	(void)c;
	SAY("query_port_speed port %u", port);
	if (port != 1)
		return EINVAL;
	*speed = 4000; /* 400 Gb/s in 100 Mb/s units */
	return 0;
}

static int query_comp_cntr_caps(struct ibv_context *c, struct ibv_comp_cntr_caps *caps, size_t size)
{
	(void)c;
	SAY("query_comp_cntr_caps size %zu", size);
	if (size < sizeof(*caps))
		return EINVAL;
	caps->max_value = UINT32_MAX;
	caps->max_counters = 7;
	caps->supported_qp_attach_ops = IBV_QP_ATTACH_COMP_CNTR_OP_SEND;
	return 0;
}

static struct ibv_comp_cntr *create_comp_cntr(struct ibv_context *c, struct ibv_comp_cntr_init_attr *a)
{
	struct fake_cntr *f = calloc(1, sizeof(*f));

	SAY("create_comp_cntr attr %s", a ? "given" : "NULL");
	if (!f) {
		errno = ENOMEM;
		return NULL;
	}
	f->cc.context = c;
	f->cc.handle = 42;
	return &f->cc;
}

static int destroy_comp_cntr(struct ibv_comp_cntr *cc)
{
	SAY("destroy_comp_cntr handle %u", cc->handle);
	free(cc);
	return 0;
}

#define CNTR_OP(name, field, expr) \
	static int name(struct ibv_comp_cntr *cc, uint64_t v) \
	{ \
		struct fake_cntr *f = (struct fake_cntr *)cc; \
		SAY(#name " %llu", (unsigned long long)v); \
		f->field = expr; \
		return 0; \
	}
CNTR_OP(set_comp_cntr, value, v)
CNTR_OP(set_err_comp_cntr, err, v)
CNTR_OP(inc_comp_cntr, value, f->value + v)
CNTR_OP(inc_err_comp_cntr, err, f->err + v)

static int read_comp_cntr(struct ibv_comp_cntr *cc, uint64_t *v)
{
	SAY("read_comp_cntr");
	*v = ((struct fake_cntr *)cc)->value;
	return 0;
}

static int read_err_comp_cntr(struct ibv_comp_cntr *cc, uint64_t *v)
{
	SAY("read_err_comp_cntr");
	*v = ((struct fake_cntr *)cc)->err;
	return 0;
}

static struct ibv_dmah *alloc_dmah(struct ibv_context *c, struct ibv_dmah_init_attr *a)
{
	struct ibv_dmah *d = calloc(1, sizeof(*d));

	SAY("alloc_dmah cpu %u", a ? a->cpu_id : 0);
	if (!d) {
		errno = ENOMEM;
		return NULL;
	}
	d->context = c;
	return d;
}

static int dealloc_dmah(struct ibv_dmah *d)
{
	SAY("dealloc_dmah");
	free(d);
	return 0;
}

static void free_context(struct ibv_context *c)
{
	struct fake_ctx *f = (struct fake_ctx *)((char *)c - offsetof(struct verbs_context, context));

	SAY("free_context");
	uninit_ctx(&f->vctx);
	free(f);
}

static const struct ops65 ops = {
	.query_port_speed = query_port_speed,
	.query_comp_cntr_caps = query_comp_cntr_caps,
	.create_comp_cntr = create_comp_cntr,
	.destroy_comp_cntr = destroy_comp_cntr,
	.set_comp_cntr = set_comp_cntr,
	.set_err_comp_cntr = set_err_comp_cntr,
	.inc_comp_cntr = inc_comp_cntr,
	.inc_err_comp_cntr = inc_err_comp_cntr,
	.read_comp_cntr = read_comp_cntr,
	.read_err_comp_cntr = read_err_comp_cntr,
	.alloc_dmah = alloc_dmah,
	.dealloc_dmah = dealloc_dmah,
	.free_context = free_context,
};

static struct verbs_context *alloc_context(struct ibv_device *dev, int fd, void *priv)
{
	struct fake_ctx *f;

	(void)priv;
	f = init_ctx(dev, fd, sizeof(*f), offsetof(struct fake_ctx, vctx), 0);
	if (!f)
		return NULL;
	/* FAKE65_NO_OPS: a plugin without these slots (the negative control). */
	if (!getenv("FAKE65_NO_OPS"))
		set_ops(&f->vctx, &ops);
	else
		set_ops(&f->vctx, &(struct ops65){ .free_context = free_context });
	return &f->vctx;
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
	{ .modalias = "fake65:*", .kind = 2 /* VERBS_MATCH_MODALIAS */ },
	{ 0 },
};

static const struct device_ops dev_ops = {
	.name = "fake65",
	.min_abi = 1,
	.max_abi = 1,
	.match_table = match,
	.alloc_context = alloc_context,
	.alloc_device = alloc_device,
	.uninit_device = uninit_device,
};

#define PRIVATE "IBVERBS_PRIVATE_65"

static void __attribute__((constructor)) reg(void)
{
	void (*reg65)(const struct device_ops *) = dlvsym(RTLD_DEFAULT, "verbs_register_driver_65", PRIVATE);

	init_ctx = dlvsym(RTLD_DEFAULT, "_verbs_init_and_alloc_context", PRIVATE);
	uninit_ctx = dlvsym(RTLD_DEFAULT, "verbs_uninit_context", PRIVATE);
	set_ops = dlvsym(RTLD_DEFAULT, "verbs_set_ops", PRIVATE);
	if (reg65 && init_ctx && uninit_ctx && set_ops)
		reg65(&dev_ops);
	else
		fprintf(stderr, "fake65: no " PRIVATE " in this libibverbs\n");
}
