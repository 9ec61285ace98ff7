/* The harness of the bad-input tests (c-tests/badinput.c, c-tests/v64/badinput64.c):
 * the lazily built fixture, the bad-object variants, the outcome strings and
 * the forked run of each case. Not a test program (run.sh builds *.c only). */
#ifndef CTEST_BADINPUT_H
#define CTEST_BADINPUT_H

/* Each test uses the getters and helpers it needs. */
#pragma GCC diagnostic ignored "-Wunused-function"

#include "common.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <sys/wait.h>
#include <unistd.h>

/* Exported, declared in infiniband/marshall.h (needs kern-abi.h) or nowhere. */
void ibv_copy_qp_attr_from_kern(void *dst, void *src);
void ibv_copy_ah_attr_from_kern(void *dst, void *src);
void ibv_copy_path_rec_from_kern(void *dst, void *src);
void ibv_copy_path_rec_to_kern(void *dst, void *src);
int ibv_dontfork_range(void *base, size_t size);
int ibv_dofork_range(void *base, size_t size);
int ibv_read_sysfs_file(const char *dir, const char *file, char *buf, size_t size);
#ifndef CTEST_OUR_HEADER /* ours declares it in verbs.h */
int ibv_resolve_eth_l2_from_gid(struct ibv_context *context, struct ibv_ah_attr *attr,
				uint8_t eth_mac[6], uint16_t *vid);
#endif

enum conv { K_PTR, K_NEG, K_POS, K_VOID, K_WC };
struct out {
	enum conv k;
	long ret;
	int err;
};

#define PTR(e) ({ errno = 0; const void *p_ = (const void *)(e); (struct out){ K_PTR, p_ != NULL, errno }; })
/* NULL without a defined errno (the verb's man page names none) */
#define PTR0(e) ({ const void *p_ = (const void *)(e); (struct out){ K_PTR, p_ != NULL, 0 }; })
#define NEG(e) ({ errno = 0; long r_ = (long)(e); (struct out){ K_NEG, r_, errno }; })
#define POS(e) ({ errno = 0; long r_ = (long)(e); (struct out){ K_POS, r_, errno }; })
#define VOID(e) ({ e; (struct out){ K_VOID, 0, 0 }; })

/* Under -fsanitize=address (make vm-asan): a crash must stay a signal. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "handle_segv=0:handle_sigbus=0:handle_sigfpe=0:handle_sigill=0:handle_abort=0";
}

/* ---- fixture: built lazily in each child ---------------------------------- */
enum var { V_NULL, V_FOREIGN, V_DESTROYED, V_CLOSED, V_FORGED, NVAR };
static const char *const var_name[NVAR] = { "NULL", "foreign", "destroyed", "closed", "forged" };

struct fx {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_comp_channel *ch;
	struct ibv_qp *qp; /* RC, RESET */
	struct ibv_qp *ud; /* UD, RTS */
	struct ibv_srq *srq;
	struct ibv_mr *mr;
	struct ibv_ah *ah;
	struct ibv_mw *mw;
	char *buf;
	union ibv_gid gid;
};
/* fx_main: the live objects; fx_other: a context closed by the case;
 * fx_dead: objects destroyed by the case (on fx_main's context, except a
 * destroyed context). */
static struct fx fx_main, fx_other, fx_dead;
static struct ibv_device **devs;
static int ndevs;
/* forged copies and foreign structs stay reachable (volatile: a static that
 * is only written would be optimised away, and memcheck saw them lost) */
static void *volatile keep[64];
static int nkeep;

static void die(const char *what)
{
	fprintf(stderr, "fixture: %s failed (errno %d)\n", what, errno);
	_exit(90);
}

static struct ibv_context *open_ctx(void)
{
	struct ibv_context *c;

	if (!devs)
		devs = ibv_get_device_list(&ndevs);
	if (!devs || ndevs < 1)
		die("ibv_get_device_list");
	c = ibv_open_device(devs[0]);
	if (!c)
		die("ibv_open_device");
	return c;
}

static struct ibv_context *ctx_of(struct fx *f)
{
	if (!f->ctx) {
		f->ctx = open_ctx();
		if (ibv_query_gid(f->ctx, 1, 1, &f->gid))
			die("ibv_query_gid");
	}
	return f->ctx;
}
static struct ibv_pd *pd_of(struct fx *f)
{
	if (!f->pd && !(f->pd = ibv_alloc_pd(ctx_of(f))))
		die("ibv_alloc_pd");
	return f->pd;
}
static struct ibv_comp_channel *ch_of(struct fx *f)
{
	if (!f->ch && !(f->ch = ibv_create_comp_channel(ctx_of(f))))
		die("ibv_create_comp_channel");
	return f->ch;
}
static struct ibv_cq *cq_of(struct fx *f)
{
	if (!f->cq && !(f->cq = ibv_create_cq(ctx_of(f), 16, NULL, NULL, 0)))
		die("ibv_create_cq");
	return f->cq;
}
static struct ibv_qp *mkqp(struct fx *f, enum ibv_qp_type t, struct ibv_srq *srq)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = cq_of(f), .recv_cq = cq_of(f), .srq = srq, .qp_type = t,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8, .max_send_sge = 2,
			 .max_recv_sge = 2, .max_inline_data = 64 },
	};
	struct ibv_qp *q = ibv_create_qp(pd_of(f), &ia);

	if (!q)
		die("ibv_create_qp");
	return q;
}
static struct ibv_qp *qp_of(struct fx *f)
{
	if (!f->qp)
		f->qp = mkqp(f, IBV_QPT_RC, NULL);
	return f->qp;
}
static struct ibv_qp *ud_of(struct fx *f)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1, .qkey = 0x11111111 };

	if (f->ud)
		return f->ud;
	f->ud = mkqp(f, IBV_QPT_UD, NULL);
	if (ibv_modify_qp(f->ud, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY))
		die("UD to INIT");
	a.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(f->ud, &a, IBV_QP_STATE))
		die("UD to RTR");
	a.qp_state = IBV_QPS_RTS;
	if (ibv_modify_qp(f->ud, &a, IBV_QP_STATE | IBV_QP_SQ_PSN))
		die("UD to RTS");
	return f->ud;
}
static struct ibv_srq *srq_of(struct fx *f)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 8, .max_sge = 1 } };

	if (!f->srq && !(f->srq = ibv_create_srq(pd_of(f), &sa)))
		die("ibv_create_srq");
	return f->srq;
}
static char *buf_of(struct fx *f)
{
	if (!f->buf && !(f->buf = calloc(1, 65536)))
		die("calloc");
	return f->buf;
}
static struct ibv_mr *mr_of(struct fx *f)
{
	if (!f->mr &&
	    !(f->mr = ibv_reg_mr(pd_of(f), buf_of(f), 65536,
				 IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
					 IBV_ACCESS_REMOTE_READ | IBV_ACCESS_MW_BIND)))
		die("ibv_reg_mr");
	return f->mr;
}
static void ah_attr_of(struct fx *f, struct ibv_ah_attr *a)
{
	memset(a, 0, sizeof(*a));
	ctx_of(f);
	a->is_global = 1;
	a->grh.dgid = f->gid;
	a->grh.sgid_index = 1;
	a->grh.hop_limit = 64;
	a->port_num = 1;
}
static struct ibv_ah *ah_of(struct fx *f)
{
	struct ibv_ah_attr a;

	ah_attr_of(f, &a);
	if (!f->ah && !(f->ah = ibv_create_ah(pd_of(f), &a)))
		die("ibv_create_ah");
	return f->ah;
}
static struct ibv_mw *mw_of(struct fx *f)
{
	if (!f->mw && !(f->mw = ibv_alloc_mw(pd_of(f), IBV_MW_TYPE_1)))
		die("ibv_alloc_mw");
	return f->mw;
}

/* A struct the library never made: zeroed, its leading context field (every
 * object struct starts with it) set to the live context; the context's own
 * foreign twin has no context field and stays zero. */
static void *foreign(size_t ctxfield)
{
	char *p = calloc(1, 8192);

	if (!p)
		die("calloc");
	keep[nkeep++] = p;
	p += 4096; /* readable memory on both sides */
	if (ctxfield)
		*(struct ibv_context **)p = ctx_of(&fx_main);
	return p;
}
static void *forge(const void *live, size_t size)
{
	char *p = calloc(1, 8192);

	if (!p)
		die("calloc");
	keep[nkeep++] = p;
	memcpy(p + 4096, live, size);
	return p + 4096;
}
static void close_other(void)
{
	if (ibv_close_device(fx_other.ctx))
		die("ibv_close_device");
}

/* Every live object exists before the case's bad one is made, so that no
 * object made afterwards can take a destroyed or closed one's memory (a stale
 * pointer to a live object of the same type is all C pointers can promise). */
static void warm(void)
{
	struct fx *f = &fx_main;

	ctx_of(f), pd_of(f), cq_of(f), ch_of(f), mr_of(f), qp_of(f), ud_of(f);
	srq_of(f), ah_of(f), mw_of(f);
}

/* One object of each kind in each variant. */
#define GETTER(T, name, of, destroy, ctxfield)                                 \
	static struct T *name(enum var v)                                      \
	{                                                                      \
		struct T *o;                                                   \
		switch (v) {                                                   \
		case V_NULL:                                                   \
			return NULL;                                           \
		case V_FOREIGN:                                                \
			return foreign(ctxfield);                              \
		case V_DESTROYED:                                              \
			warm();                                                \
			if (ctxfield) {                                        \
				fx_dead.ctx = ctx_of(&fx_main);                \
				fx_dead.gid = fx_main.gid;                     \
			}                                                      \
			o = of(&fx_dead);                                      \
			if (destroy)                                           \
				die(#destroy);                                 \
			return o;                                              \
		case V_CLOSED:                                                 \
			warm();                                                \
			o = of(&fx_other);                                     \
			close_other();                                         \
			return o;                                              \
		case V_FORGED:                                                 \
			return forge(of(&fx_main), sizeof(*o));                \
		default:                                                       \
			return of(&fx_main);                                   \
		}                                                              \
	}
GETTER(ibv_pd, PD, pd_of, ibv_dealloc_pd(o), 1)
GETTER(ibv_cq, CQ, cq_of, ibv_destroy_cq(o), 1)
GETTER(ibv_qp, QP, qp_of, ibv_destroy_qp(o), 1)
GETTER(ibv_qp, UD, ud_of, ibv_destroy_qp(o), 1)
GETTER(ibv_srq, SRQ, srq_of, ibv_destroy_srq(o), 1)
GETTER(ibv_mr, MR, mr_of, ibv_dereg_mr(o), 1)
GETTER(ibv_ah, AH, ah_of, ibv_destroy_ah(o), 1)
GETTER(ibv_mw, MW, mw_of, ibv_dealloc_mw(o), 1)
GETTER(ibv_comp_channel, CH, ch_of, ibv_destroy_comp_channel(o), 1)
GETTER(ibv_context, CTX, ctx_of, ibv_close_device(o), 0)

#define LIVE NVAR
#define C ctx_of(&fx_main)
#define P pd_of(&fx_main)

/* ---- the cases -------------------------------------------------------------- */
/* helpers for cases that need a few statements */
static struct out qp_create(struct ibv_pd *pd, struct ibv_cq *cq, struct ibv_srq *srq,
			    int type, uint32_t wr, uint32_t sge, uint32_t inl)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = cq, .recv_cq = cq, .srq = srq, .qp_type = type,
		.cap = { .max_send_wr = wr, .max_recv_wr = wr, .max_send_sge = sge,
			 .max_recv_sge = sge, .max_inline_data = inl },
	};
	return PTR(ibv_create_qp(pd, &ia));
}
static struct out qp_modify(struct ibv_qp *qp, int state, int mask, int port, int mtu)
{
	struct ibv_qp_attr a = { .qp_state = state, .port_num = port, .path_mtu = mtu,
				 .qp_access_flags = IBV_ACCESS_LOCAL_WRITE };
	return POS(ibv_modify_qp(qp, &a, mask));
}
static struct out qp_query(struct ibv_qp *qp, int mask)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;

	return POS(ibv_query_qp(qp, &a, mask, &ia));
}
static struct out srq_create(struct ibv_pd *pd, uint32_t wr, uint32_t sge, uint32_t limit)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = wr, .max_sge = sge, .srq_limit = limit } };

	return PTR(ibv_create_srq(pd, &sa));
}
static struct out srq_modify(struct ibv_srq *srq, uint32_t wr, uint32_t limit, int mask)
{
	struct ibv_srq_attr a = { .max_wr = wr, .srq_limit = limit };

	return POS(ibv_modify_srq(srq, &a, mask));
}
static struct out srq_query(struct ibv_srq *srq)
{
	struct ibv_srq_attr a;

	return POS(ibv_query_srq(srq, &a));
}
static struct out ah_create(struct ibv_pd *pd, int port, int sgid, int global)
{
	struct ibv_ah_attr a;

	ah_attr_of(&fx_main, &a);
	a.port_num = port;
	a.grh.sgid_index = sgid;
	a.is_global = global;
	return PTR(ibv_create_ah(pd, &a));
}
static struct out send1(struct ibv_qp *qp, int opcode, int nsge, int flags, uint32_t len,
			struct ibv_ah *ah, uint32_t lkey)
{
	struct ibv_sge s[8];
	struct ibv_send_wr wr = { .wr_id = 1, .sg_list = s, .num_sge = nsge, .opcode = opcode,
				  .send_flags = flags },
			   *bad = NULL;
	struct ibv_mr *mr = mr_of(&fx_main);
	int i;

	for (i = 0; i < 8; i++)
		s[i] = (struct ibv_sge){ (uintptr_t)mr->addr, len, lkey ? lkey : mr->lkey };
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = ud_of(&fx_main)->qp_num;
	wr.wr.ud.remote_qkey = 0x11111111;
	return POS(ibv_post_send(qp, &wr, &bad));
}
/* Posts one signalled send and returns the status of its completion ("wc N"),
 * or the post's error. */
static struct out send_wc(struct ibv_qp *qp, int opcode, uint32_t len, struct ibv_ah *ah,
			  uint32_t lkey)
{
	struct out o = send1(qp, opcode, 1, IBV_SEND_SIGNALED, len, ah, lkey);
	struct ibv_wc wc;
	int n, tries = 0;

	if (o.ret)
		return o;
	while ((n = ibv_poll_cq(cq_of(&fx_main), 1, &wc)) == 0 && tries++ < 2000000)
		;
	if (n != 1)
		return (struct out){ K_NEG, n, errno };
	return (struct out){ K_WC, wc.status, 0 };
}
static struct out recv1(struct ibv_qp *qp, struct ibv_srq *srq, int nsge)
{
	struct ibv_sge s[8];
	struct ibv_recv_wr wr = { .wr_id = 1, .sg_list = s, .num_sge = nsge }, *bad = NULL;
	struct ibv_mr *mr = mr_of(&fx_main);
	int i;

	for (i = 0; i < 8; i++)
		s[i] = (struct ibv_sge){ (uintptr_t)mr->addr, 64, mr->lkey };
	if (srq)
		return POS(ibv_post_srq_recv(srq, &wr, &bad));
	return POS(ibv_post_recv(qp, &wr, &bad));
}
static struct out poll1(struct ibv_cq *cq, int n)
{
	struct ibv_wc wc[4];

	return NEG(ibv_poll_cq(cq, n, wc));
}
static struct out bind1(struct ibv_qp *qp, struct ibv_mw *mw, struct ibv_mr *mr, uint64_t len,
			int access)
{
	struct ibv_mw_bind b = { .wr_id = 1, .send_flags = IBV_SEND_SIGNALED,
				 .bind_info = { .mr = mr, .addr = (uintptr_t)buf_of(&fx_main),
						.length = len, .mw_access_flags = access } };

	return POS(ibv_bind_mw(qp, mw, &b));
}
static struct out mcast(struct ibv_qp *qp, int attach, int mc)
{
	union ibv_gid g = { .raw = { 0xff, 0x12, 0x60, 0x1b, [15] = 1 } };

	if (!mc)
		g = fx_main.gid;
	return POS(attach ? ibv_attach_mcast(qp, &g, 0) : ibv_detach_mcast(qp, &g, 0));
}
/* No event is pending: a forged copy's fd (the live one) is made non-blocking,
 * where Debian's library reads it. */
static void nonblock(int fd)
{
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}
static struct out cq_event(int v)
{
	struct ibv_cq *cq;
	void *cctx;
	struct ibv_comp_channel *ch = CH(v);

	if (v == V_FORGED)
		nonblock(fx_main.ch->fd);
	return NEG(ibv_get_cq_event(ch, &cq, &cctx));
}
static struct out async_event(int v)
{
	struct ibv_async_event ev;
	struct ibv_context *c = CTX(v);

	if (v == V_FORGED)
		nonblock(fx_main.ctx->async_fd);
	return NEG(ibv_get_async_event(c, &ev));
}
static struct out query_port(struct ibv_context *c, int port)
{
	struct ibv_port_attr a;

	return POS(ibv_query_port(c, port, &a));
}
static struct out query_device(struct ibv_context *c)
{
	struct ibv_device_attr a;

	return POS(ibv_query_device(c, &a));
}
static struct out query_gid(struct ibv_context *c, int port, int idx)
{
	union ibv_gid g;

	return NEG(ibv_query_gid(c, port, idx, &g));
}
static struct out query_pkey(struct ibv_context *c, int port, int idx)
{
	uint16_t k;

	return NEG(ibv_query_pkey(c, port, idx, &k));
}
static struct out query_gid_ex(struct ibv_context *c, int port, int idx, int flags)
{
	struct ibv_gid_entry e;

	return POS(ibv_query_gid_ex(c, port, idx, &e, flags));
}
static struct out query_gid_table(struct ibv_context *c, size_t n, int flags)
{
	struct ibv_gid_entry e[64];

	return POS(ibv_query_gid_table(c, e, n, flags));
}
static struct out reg_mr(struct ibv_pd *pd, void *addr, size_t len, int access)
{
	return PTR(ibv_reg_mr(pd, addr, len, access));
}
static struct out rereg(struct ibv_mr *mr, int flags, struct ibv_pd *pd, int access)
{
	return NEG(ibv_rereg_mr(mr, flags, pd, NULL, 0, access));
}
static struct out cq_create(struct ibv_context *c, int cqe, struct ibv_comp_channel *ch, int vec)
{
	return PTR(ibv_create_cq(c, cqe, NULL, ch, vec));
}
static struct out from_wc(struct ibv_pd *pd, int port, int grh)
{
	struct ibv_wc wc = { .wc_flags = grh ? IBV_WC_GRH : 0 };
	struct ibv_grh g;

	memset(&g, 0, sizeof(g));
	return PTR(ibv_create_ah_from_wc(pd, &wc, &g, port));
}
static struct out init_from_wc(struct ibv_context *c, int port, int grh)
{
	struct ibv_wc wc = { .wc_flags = grh ? IBV_WC_GRH : 0 };
	struct ibv_grh g;
	struct ibv_ah_attr a;

	memset(&g, 0, sizeof(g));
	return NEG(ibv_init_ah_from_wc(c, port, &wc, &g, &a));
}
static struct out ece(struct ibv_qp *qp, int set)
{
	struct ibv_ece e = { .vendor_id = 1 };

	return POS(set ? ibv_set_ece(qp, &e) : ibv_query_ece(qp, &e));
}
static struct out async_ack(void)
{
	struct ibv_async_event ev = { .event_type = IBV_EVENT_QP_FATAL, .element.qp = QP(V_FOREIGN) };

	return VOID(ibv_ack_async_event(&ev));
}
static struct out eth_l2(struct ibv_context *c)
{
	struct ibv_ah_attr a;
	uint8_t mac[6];
	uint16_t vid;

	memset(&a, 0, sizeof(a));
	a.is_global = 1;
	a.port_num = 1;
	return NEG(ibv_resolve_eth_l2_from_gid(c, &a, mac, &vid));
}
static struct out devname(struct ibv_device *d)
{
	return PTR(ibv_get_device_name(d));
}
static struct ibv_device *DEVICE(enum var v)
{
	if (v == V_NULL)
		return NULL;
	if (v == V_FOREIGN)
		return foreign(0);
	if (!devs)
		devs = ibv_get_device_list(&ndevs);
	if (!devs || ndevs < 1)
		die("ibv_get_device_list");
	return forge(devs[0], sizeof(struct ibv_device));
}

/* X(id, dev, verb and what, ours, debian, expr)
 * OBJ(id, dev, verb, variants-mask, ours NULL, Debian NULL, ours bad, expr of v)
 * ours/Debian: the outcome string; Debian "=" is "as ours", "UB" undefined. */
#define ALL ((1 << NVAR) - 1)
#define NONULL (ALL & ~(1 << V_NULL))
#define NOCLOSED (ALL & ~(1 << V_CLOSED))
#define NODEV 0
#define NEEDDEV 1
/* Debian's header: the verb is an inline that dereferences the object itself
 * (in the caller's code, whichever library): with our header it checks first. */
#ifdef CTEST_OUR_HEADER
#define INL_NULL(ours) ours
#else
#define INL_NULL(ours) "SIGSEGV"
#endif


struct bcase {
	const char *name;
	int dev;
	int var; /* -1: a value case; else the object variant */
	const char *ours, *deb;
	struct out (*fn)(int v);
};

#define FN_X(id, dev, name, ours, deb, expr) \
	static struct out f_##id(int v) { (void)v; return expr; }
#define FN_OBJ(id, dev, name, mask, on, dn, ob, expr) \
	static struct out f_##id(int v) { return expr; }

#define ROW_X(id, dev, name, ours, deb, expr) { name, dev, -1, ours, deb, f_##id },
#define ROW_OBJ(id, dev, name, mask, on, dn, ob, expr)                                             \
	{ name, dev, ((mask) & 1) ? V_NULL : -2, on, dn, f_##id },                                 \
	{ name, dev, ((mask) & 2) ? V_FOREIGN : -2, ob, "UB", f_##id },                            \
	{ name, dev, ((mask) & 4) ? V_DESTROYED : -2, ob, "UB", f_##id },                          \
	{ name, dev, ((mask) & 8) ? V_CLOSED : -2, ob, "UB", f_##id },                             \
	{ name, dev, ((mask) & 16) ? V_FORGED : -2, ob, "UB", f_##id },

/* ---- the harness ------------------------------------------------------------- */
static void fmt(char *s, size_t n, const struct out *o)
{
	const char *e = o->err ? strerrorname_np(o->err) : "errno 0";

	e = e ? e : "errno ?";
	switch (o->k) {
	case K_PTR:
		snprintf(s, n, o->ret ? "ok" : "NULL %s", e);
		break;
	case K_NEG:
		if (o->ret >= 0)
			snprintf(s, n, "%ld", o->ret);
		else
			snprintf(s, n, "%ld %s", o->ret, e);
		break;
	case K_POS:
		if (o->ret > 0 && strerrorname_np(o->ret))
			snprintf(s, n, "%s", strerrorname_np(o->ret));
		else if (o->ret < 0 && strerrorname_np(-o->ret))
			snprintf(s, n, "-%s", strerrorname_np(-o->ret));
		else
			snprintf(s, n, "%ld", o->ret);
		break;
	case K_VOID:
		snprintf(s, n, "void");
		break;
	case K_WC:
		snprintf(s, n, "wc %ld", o->ret);
		break;
	}
}

/* Runs case c (variant v) in a child; the outcome, or how the child died. */
static void run_one(const struct bcase *c, int v, char *res, size_t n)
{
	int fd[2], st;
	pid_t pid;
	struct out o;
	ssize_t got;

	if (pipe(fd))
		abort();
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		close(fd[0]);
		/* a hang: 3 s (TCG), 120 s under valgrind (make vm-memcheck) */
		alarm(strstr(getenv("LD_PRELOAD") ? getenv("LD_PRELOAD") : "", "valgrind") ? 120 : 3);
		struct out r = c->fn(v);

		/* field by field into zeroed bytes: the padding is sent too */
		memset(&o, 0, sizeof(o));
		o.k = r.k;
		o.ret = r.ret;
		o.err = r.err;
		if (write(fd[1], &o, sizeof(o)) != sizeof(o))
			_exit(91);
		_exit(0);
	}
	close(fd[1]);
	got = read(fd[0], &o, sizeof(o));
	close(fd[0]);
	waitpid(pid, &st, 0);
	if (WIFSIGNALED(st) && WTERMSIG(st) != SIGALRM) {
		char sig[32];

		snprintf(sig, sizeof(sig), "SIG%s", sigabbrev_np(WTERMSIG(st)));
		snprintf(res, n, "%s", sig);
	} else if (WIFSIGNALED(st)) {
		snprintf(res, n, "hang");
	} else if (got != sizeof(o)) {
		snprintf(res, n, "exit %d", WEXITSTATUS(st));
	} else if (WEXITSTATUS(st) != 0) {
		/* e.g. 97: valgrind found errors in the child */
		snprintf(res, n, "child exit %d", WEXITSTATUS(st));
	} else {
		fmt(res, n, &o);
	}
}

/* Verbs whose code, under IBV_PROVIDERS=plugin, is the hosted C provider's
 * (Debian's librxe: the data path, memory windows) or reads its context
 * (verbs.h's ibv_query_port): there a bad object does what it does on Debian. */
static int hosted_code(const char *name)
{
	static const char *const p[] = { "ibv_poll_cq", "ibv_req_notify_cq", "ibv_post_",
					 "ibv_alloc_mw", "ibv_dealloc_mw", "ibv_bind_mw",
					 "ibv_query_port" };
	size_t i;

	for (i = 0; i < sizeof(p) / sizeof(p[0]); i++)
		if (strncmp(name, p[i], strlen(p[i])) == 0)
			return 1;
	return 0;
}

static int crashed(const char *res)
{
	return strncmp(res, "SIG", 3) == 0 || strcmp(res, "hang") == 0;
}

static int badinput_main(const struct bcase *cases, int ncases)
{
	int have_dev, i, total = 0, skipped = 0, wins = 0, ub = 0;
	struct ibv_device **l;
	const char *only = getenv("BADINPUT_ONLY");
	/* BADINPUT_EVERY=N: one case in N (the 1st, N+1st, ...), for slow runs
	 * such as memcheck under TCG; both libraries pick the same cases. */
	const char *every_s = getenv("BADINPUT_EVERY");
	int every = every_s ? atoi(every_s) : 1, seen = 0;

	ctest_init();
	l = ibv_get_device_list(&ndevs);
	have_dev = l && ndevs > 0;
	if (l)
		ibv_free_device_list(l);
	ndevs = 0;
	for (i = 0; i < ncases; i++) {
		const struct bcase *c = &cases[i];
		char res[64], what[160];
		const char *want;
		int same;

		if (c->var == -2)
			continue;
		if (c->var >= 0)
			snprintf(what, sizeof(what), "%s(%s)", c->name, var_name[c->var]);
		else
			snprintf(what, sizeof(what), "%s", c->name);
		if (only && !strstr(what, only))
			continue;
		if (every > 1 && seen++ % every != 0)
			continue;
		total++;
		if (c->dev && !have_dev) {
			skipped++;
			continue;
		}
		run_one(c, c->var, res, sizeof(res));
		same = strcmp(c->deb, "=") == 0 || strcmp(c->deb, c->ours) == 0;
		want = ctest_ours() || same ? c->ours : c->deb;
		if (same) {
			printf("%s: %s\n", what, res);
		} else if (ctest_ours() && !ctest_ours_dp() && hosted_code(c->name)) {
			ctest_impl_line("%s: %s (the hosted C provider's code)", what, res);
			continue;
		} else if (ctest_ours()) {
			ctest_impl_line("%s: %s", what, res);
		} else {
			int win = crashed(res) && !crashed(c->ours);

			wins += win;
			ub += strcmp(c->deb, "UB") == 0;
			ctest_impl_line("%s: %s%s", what, res,
					win ? " (a win: ours survives)" :
					strcmp(c->deb, "UB") == 0 ? " (undefined behaviour)" : "");
		}
		if (strcmp(want, "UB") != 0)
			CHECK(strcmp(res, want) == 0, "%s: got %s, want %s", what, res, want);
	}
	printf("badinput: %d cases, %d skipped (no device)\n", total, skipped);
	if (!ctest_ours())
		ctest_impl_line("badinput: %d cases where Debian crashes or hangs and ours returns an error, %d undefined", wins, ub);
	return ctest_finish();
}

#endif
