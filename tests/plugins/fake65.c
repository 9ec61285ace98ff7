/* A test-only provider plugin of rdma-core 65's private ABI (never
 * installed): it registers with verbs_register_driver_65 for a fake device
 * (modalias fake65:*, a fake sysfs tree of discovery.sh), opens a context
 * without the kernel (no GET_CONTEXT) and sets 65's new op slots (port
 * speed, completion counters, DMA handles, buffers, reg_mr_ex, DM export),
 * and the older ones that make the objects they act on (PD, QP, DM, MR),
 * and import and unimport of PDs, MRs and DMs (handle 0 is unknown).
 * Each op prints its call, so ops65.c's output shows which verbs reached
 * the plugin. The entry points are taken with dlvsym at their
 * IBVERBS_PRIVATE_65 versions, as a plugin built against rdma-core 65 binds
 * them. Struct layouts from tests/abi/private65/facts.txt. */
#define _GNU_SOURCE
#include <infiniband/verbs.h>
#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

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

/* driver.h's struct ibv_buf (opaque in verbs.h). */
struct ibv_buf { void *addr; size_t size; struct ibv_pd *pd; int dmabuf_fd; };

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

/* A PD, or a parent domain over one: as mlx5's, the PD under a parent
 * domain is busy until the parent domain goes. `mrs`: the imported MRs
 * on an imported PD. */
struct fake_pd { struct ibv_pd pd; struct fake_pd *under; int parents, imported, mrs; };

static struct ibv_pd *alloc_pd(struct ibv_context *c)
{
	struct fake_pd *f = calloc(1, sizeof(*f));

	SAY("alloc_pd");
	if (!f)
		return NULL;
	f->pd.context = c;
	return &f->pd;
}

static struct ibv_pd *alloc_parent_domain(struct ibv_context *c,
					  struct ibv_parent_domain_init_attr *a)
{
	struct fake_pd *f = calloc(1, sizeof(*f));

	SAY("alloc_parent_domain");
	if (!f)
		return NULL;
	f->pd.context = c;
	f->under = (struct fake_pd *)a->pd;
	f->under->parents++;
	return &f->pd;
}

static struct ibv_pd *import_pd(struct ibv_context *c, uint32_t handle)
{
	struct fake_pd *f;

	SAY("import_pd handle %u", handle);
	if (!handle) {
		errno = ENOENT;
		return NULL;
	}
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->pd.context = c;
	f->pd.handle = handle;
	f->imported = 1;
	return &f->pd;
}

/* What still uses the PD is named: close must unimport users first. */
static void unimport_pd(struct ibv_pd *pd)
{
	struct fake_pd *f = (struct fake_pd *)pd;

	SAY("unimport_pd %u%s, %d parent domain(s), %d imported MR(s) on it", pd->handle,
	    f->imported ? "" : " (not imported)", f->parents, f->mrs);
	free(f);
}

static int dealloc_pd(struct ibv_pd *pd)
{
	struct fake_pd *f = (struct fake_pd *)pd;

	if (f->parents) {
		SAY("dealloc_pd: busy, %d parent domain(s) on it", f->parents);
		return EBUSY;
	}
	if (f->imported)
		SAY("dealloc_pd of imported %u", pd->handle);
	else
		SAY("dealloc_pd%s", f->under ? " of a parent domain" : "");
	if (f->under)
		f->under->parents--;
	free(f);
	return 0;
}

/* Room for 65's struct verbs_qp (the QP at its head, zeroed comp_mask). */
static struct ibv_qp *create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *a)
{
	struct ibv_qp *qp = calloc(1, 1024);

	SAY("create_qp type %d", a->qp_type);
	if (!qp)
		return NULL;
	qp->context = pd->context;
	qp->pd = pd;
	qp->qp_num = 65;
	qp->qp_type = a->qp_type;
	return qp;
}

/* An XRC target QP opened by number: no PD. */
static struct ibv_qp *open_qp(struct ibv_context *c, struct ibv_qp_open_attr *a)
{
	struct ibv_qp *qp = calloc(1, 1024);

	SAY("open_qp num %u type %d", a->qp_num, a->qp_type);
	if (!qp)
		return NULL;
	qp->context = c;
	qp->qp_num = a->qp_num;
	qp->qp_type = a->qp_type;
	return qp;
}

static int destroy_qp(struct ibv_qp *qp)
{
	SAY("destroy_qp %u", qp->qp_num);
	free(qp);
	return 0;
}

static int qp_attach_comp_cntr(struct ibv_qp *qp, struct ibv_comp_cntr *cc,
			       struct ibv_qp_attach_comp_cntr_attr *a)
{
	SAY("qp_attach_comp_cntr qp %u counter %u ops %u", qp->qp_num, cc->handle,
	    a ? a->op_mask : 0);
	return 0;
}

static struct ibv_dm *alloc_dm(struct ibv_context *c, struct ibv_alloc_dm_attr *a)
{
	struct ibv_dm *dm = calloc(1, sizeof(*dm));

	SAY("alloc_dm length %zu", a->length);
	if (!dm)
		return NULL;
	dm->context = c;
	dm->handle = 7;
	return dm;
}

static struct ibv_dm *import_dm(struct ibv_context *c, uint32_t handle)
{
	struct ibv_dm *dm;

	SAY("import_dm handle %u", handle);
	if (!handle) {
		errno = ENOENT;
		return NULL;
	}
	dm = calloc(1, sizeof(*dm));
	if (!dm)
		return NULL;
	dm->context = c;
	dm->handle = handle;
	return dm;
}

static void unimport_dm(struct ibv_dm *dm)
{
	SAY("unimport_dm %u", dm->handle);
	free(dm);
}

static int free_dm(struct ibv_dm *dm)
{
	SAY("free_dm %u", dm->handle);
	free(dm);
	return 0;
}

static int dm_export_dmabuf_fd(struct ibv_dm *dm)
{
	SAY("dm_export_dmabuf_fd %u", dm->handle);
	return memfd_create("fake65-dm", MFD_CLOEXEC);
}

/* Buffers of 8 KiB and more are "dma-buf" backed (a memfd stands in),
 * smaller ones heap memory, as rdma-core's default. Up to 4 are named in
 * reg_mr_ex's lines by their number and an offset. */
static struct ibv_buf *bufs[4];

static void *alloc_buf(struct ibv_pd *pd, size_t size, struct ibv_buf **out)
{
	struct ibv_buf *b = calloc(1, sizeof(*b));
	int fd = -1;
	void *p = NULL;

	SAY("alloc_buf size %zu", size);
	if (!b)
		return NULL;
	if (size >= 8192) {
		fd = memfd_create("fake65-buf", MFD_CLOEXEC);
		if (fd < 0 || ftruncate(fd, size) ||
		    (p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)) == MAP_FAILED)
			p = NULL;
	} else if (posix_memalign(&p, 4096, size)) {
		p = NULL;
	}
	if (!p) {
		free(b);
		errno = ENOMEM;
		return NULL;
	}
	*b = (struct ibv_buf){ .addr = p, .size = size, .pd = pd, .dmabuf_fd = fd };
	for (int i = 0; i < 4; i++)
		if (!bufs[i]) {
			bufs[i] = b;
			break;
		}
	*out = b;
	return p;
}

static void free_buf(struct ibv_buf *b)
{
	SAY("free_buf size %zu%s", b->size, b->dmabuf_fd >= 0 ? " dma-buf" : "");
	for (int i = 0; i < 4; i++)
		if (bufs[i] == b)
			bufs[i] = NULL;
	if (b->dmabuf_fd >= 0) {
		munmap(b->addr, b->size);
		close(b->dmabuf_fd);
	} else {
		free(b->addr);
	}
	free(b);
}

/* Where an address is: "bufN+offset" in a buffer of ours, the small
 * number a test gave, or "other". */
static const char *where(uintptr_t a)
{
	static char s[3][32];
	static int n;
	char *w = s[n++ % 3];

	snprintf(w, 32, a < 0x100000 ? "%#lx" : "other", (unsigned long)a);
	for (int i = 0; i < 4; i++) {
		struct ibv_buf *b = bufs[i];
		if (b && a >= (uintptr_t)b->addr && a < (uintptr_t)b->addr + b->size)
			snprintf(w, 32, "buf%d+%zu", i, (size_t)(a - (uintptr_t)b->addr));
	}
	return w;
}

/* An fd: "bufN" for a buffer's dma-buf, else its number. */
static const char *fd_name(int fd)
{
	static char w[32];

	snprintf(w, 32, "%d", fd);
	for (int i = 0; i < 4; i++)
		if (bufs[i] && fd >= 0 && fd == bufs[i]->dmabuf_fd)
			snprintf(w, 32, "buf%d", i);
	return w;
}

/* driver.h's struct verbs_mr and its types (a plain MR is 0). */
struct fake_mr { struct ibv_mr mr; int mr_type; int access; };
enum { FAKE_NULL_MR = 1, FAKE_IMPORTED_MR = 2, FAKE_DMABUF_MR = 3 };

static struct ibv_mr *mr_of(struct ibv_pd *pd)
{
	struct fake_mr *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->mr.context = pd->context;
	f->mr.lkey = f->mr.rkey = 0x65;
	return &f->mr;
}

static struct ibv_mr *mr_typed(struct ibv_pd *pd, int type)
{
	struct ibv_mr *mr = mr_of(pd);

	if (mr)
		((struct fake_mr *)mr)->mr_type = type;
	return mr;
}

static struct ibv_mr *reg_mr_ex(struct ibv_pd *pd, struct ibv_mr_init_attr *a)
{
	SAY("reg_mr_ex mask %#llx length %zu access %#x addr %s iova %s fd %s fd_offset %llu dmah %s",
	    (unsigned long long)a->comp_mask, a->length, a->access,
	    where((uintptr_t)a->addr), where(a->iova), fd_name(a->fd),
	    (unsigned long long)a->fd_offset, a->dmah ? "given" : "NULL");
	return mr_of(pd);
}

/* 34's registration: what rdma-core's default reg_mr_ex turns into. */
static struct ibv_mr *reg_mr(struct ibv_pd *pd, void *addr, size_t len, uint64_t iova, int access)
{
	struct ibv_mr *mr = mr_of(pd);

	SAY("reg_mr length %zu access %#x iova %s", len, access,
	    iova == (uintptr_t)addr ? "= addr" : where(iova));
	/* as ibv_cmd_reg_mr records them */
	if (mr)
		((struct fake_mr *)mr)->access = access;
	return mr;
}

/* 34's other ways to hand over an MR: each one must be ours to dereg. */
static struct ibv_mr *reg_dm_mr(struct ibv_pd *pd, struct ibv_dm *dm, uint64_t off, size_t len,
				unsigned int access)
{
	SAY("reg_dm_mr dm %u offset %llu length %zu access %#x", dm->handle,
	    (unsigned long long)off, len, access);
	return mr_of(pd);
}

static struct ibv_mr *alloc_null_mr(struct ibv_pd *pd)
{
	SAY("alloc_null_mr");
	return mr_typed(pd, FAKE_NULL_MR);
}

static struct ibv_mr *reg_dmabuf_mr(struct ibv_pd *pd, uint64_t off, size_t len, uint64_t iova,
				    int fd, int access)
{
	SAY("reg_dmabuf_mr offset %llu length %zu iova %s fd %s access %#x",
	    (unsigned long long)off, len, where(iova), fd >= 0 ? "given" : "none", access);
	return mr_typed(pd, FAKE_DMABUF_MR);
}

/* struct verbs_mr starts with the ibv_mr. */
static int rereg_mr(struct ibv_mr *mr, int flags, struct ibv_pd *pd, void *addr, size_t len,
		    int access)
{
	SAY("rereg_mr flags %#x pd %s addr %s length %zu access %#x", flags,
	    pd == mr->pd ? "same" : pd ? "other" : "NULL", where((uintptr_t)addr), len, access);
	return 0;
}

/* As rdma-core's ibv_cmd_query_mr fills an imported MR. */
static struct ibv_mr *import_mr(struct ibv_pd *pd, uint32_t handle)
{
	struct fake_mr *f;

	SAY("import_mr pd %u handle %u", pd->handle, handle);
	if (!handle) {
		errno = ENOENT;
		return NULL;
	}
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	/* FAKE65_IMPORT_ADDR: the exporter's address, as the caller sets it. */
	const char *a = getenv("FAKE65_IMPORT_ADDR");
	f->mr = (struct ibv_mr){ .context = pd->context, .pd = pd,
				 .addr = a ? (void *)strtoul(a, NULL, 0) : (void *)0x10000,
				 .length = 4096, .handle = handle, .lkey = 0x100 + handle,
				 .rkey = 0x200 + handle };
	f->mr_type = FAKE_IMPORTED_MR;
	((struct fake_pd *)pd)->mrs++;
	return &f->mr;
}

static void imported_mr_gone(struct ibv_mr *mr)
{
	if (((struct fake_mr *)mr)->mr_type == FAKE_IMPORTED_MR)
		((struct fake_pd *)mr->pd)->mrs--;
}

static void unimport_mr(struct ibv_mr *mr)
{
	SAY("unimport_mr %u", mr->handle);
	imported_mr_gone(mr);
	free(mr);
}

static int dereg_mr(struct ibv_mr *mr)
{
	if (((struct fake_mr *)mr)->mr_type == FAKE_IMPORTED_MR)
		SAY("dereg_mr of imported %u", mr->handle);
	else
		SAY("dereg_mr");
	imported_mr_gone(mr);
	free(mr);
	return 0;
}

static void free_context(struct ibv_context *c)
{
	struct fake_ctx *f = (struct fake_ctx *)((char *)c - offsetof(struct verbs_context, context));

	SAY("free_context");
	uninit_ctx(&f->vctx);
	free(f);
}

#define OPS34 \
	.alloc_pd = alloc_pd, .dealloc_pd = dealloc_pd, .create_qp = create_qp, \
	.destroy_qp = destroy_qp, .alloc_dm = alloc_dm, .free_dm = free_dm, \
	.reg_mr = reg_mr, .dereg_mr = dereg_mr, .free_context = free_context, \
	.reg_dm_mr = reg_dm_mr, .alloc_null_mr = alloc_null_mr, .reg_dmabuf_mr = reg_dmabuf_mr, \
	.rereg_mr = rereg_mr, .open_qp = open_qp, .alloc_parent_domain = alloc_parent_domain, \
	.import_pd = import_pd, .import_mr = import_mr, .import_dm = import_dm, \
	.unimport_pd = unimport_pd, .unimport_mr = unimport_mr, .unimport_dm = unimport_dm,

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
	.qp_attach_comp_cntr = qp_attach_comp_cntr,
	.dm_export_dmabuf_fd = dm_export_dmabuf_fd,
	.alloc_buf = alloc_buf,
	.free_buf = free_buf,
	.reg_mr_ex = reg_mr_ex,
	OPS34
};

/* The negative control: only the ops 34 had (none of 65's new ones). */
static const struct ops65 ops34 = { OPS34 };

static struct verbs_context *alloc_context(struct ibv_device *dev, int fd, void *priv)
{
	struct fake_ctx *f;

	(void)priv;
	f = init_ctx(dev, fd, sizeof(*f), offsetof(struct fake_ctx, vctx), 0);
	if (!f)
		return NULL;
	/* FAKE65_NO_OPS: a plugin without 65's new slots (the negative control);
	 * FAKE65_NO_IMPORT: without import and unimport (as rxe). */
	static struct ops65 t;
	t = getenv("FAKE65_NO_OPS") ? ops34 : ops;
	if (getenv("FAKE65_NO_IMPORT"))
		t.import_pd = t.import_mr = t.import_dm = t.unimport_pd = t.unimport_mr =
			t.unimport_dm = NULL;
	set_ops(&f->vctx, &t);
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
