/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * Differential test of the header-inline part of the verbs API.
 *
 * Build this file twice, once against Debian's <infiniband/verbs.h> and
 * once against ours, run both and diff the output: it must be identical.
 * Nothing is linked from any libibverbs: every exported function an inline
 * may fall back to (ibv_query_port, ibv_query_device, ibv_create_qp, ...)
 * is defined below as a recorder, and all objects are fakes whose op
 * tables point at recorders.  Each recorder prints its name and arguments
 * (pointers as offsets into one static arena, so runs are comparable).
 *
 * For every op reached through struct verbs_context the call is repeated
 * in five set-ups: op present; op NULL; verbs_context->sz just covering
 * the op; sz one byte short of it; context not marked extended.
 *
 * Valid C (gnu11) and C++ (gnu++11 and later).
 */
#include <infiniband/verbs.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- arena */

static struct arena {
	struct verbs_context vctx; /* W.vctx.context is the ibv_context */
	struct ibv_pd pd, pd2;
	struct ibv_cq cq;
	struct ibv_cq_ex cqx;
	struct ibv_qp qp;
	struct ibv_qp_ex qpx;
	struct ibv_srq srq;
	struct ibv_wq wq;
	struct ibv_mw mw;
	struct ibv_mr mr, mr2;
	struct ibv_dm dm;
	struct ibv_xrcd xrcd;
	struct ibv_flow flow;
	struct ibv_flow_action fa;
	struct ibv_td td;
	struct ibv_counters counters;
	struct ibv_rwq_ind_table rwq;
	struct ibv_ah ah;
	struct ibv_port_attr port_attr;
	struct ibv_device_attr_ex dattr;
	struct ibv_query_device_ex_input qin;
	struct ibv_gid_entry gid[4];
	struct ibv_srq_init_attr_ex srq_attr;
	struct ibv_qp_init_attr_ex qp_attr;
	struct ibv_wq_init_attr wq_attr;
	struct ibv_mw_bind mw_bind;
	struct ibv_send_wr swr;
	struct ibv_recv_wr rwr;
	struct ibv_ops_wr opwr;
	struct ibv_wc wc[2];
	struct ibv_sge sge[2];
	struct ibv_data_buf dbuf[2];
	struct ibv_mw_bind_info bind_info;
	struct ibv_poll_cq_attr poll_attr;
	struct ibv_wc_tm_info tm_info;
	char misc[256];  /* generic attr / buffer target */
	char tok[64];    /* returned "objects" */
	char buf[4096];  /* registered memory */
} W;

#define CTX (&W.vctx.context)

static const char *P(const void *p)
{
	static char ring[8][48];
	static int next;
	char *s = ring[next++ & 7];
	const char *a = (const char *)&W, *c = (const char *)p;

	if (p == NULL)
		return "NULL";
	/* By member, not by byte offset: rdma-core 64's header grew some of these
	 * structs, and the offsets inside W must not make the outputs differ. */
#define F(m) { #m, (size_t)((const char *)&W.m - a), sizeof(W.m) }
	const struct { const char *n; size_t off, len; } f[] = {
	F(vctx.context), /* before vctx: 64's verbs_context has more in front of it */
	F(vctx),
	F(pd),
	F(pd2),
	F(cq),
	F(cqx),
	F(qp),
	F(qpx),
	F(srq),
	F(wq),
	F(mw),
	F(mr),
	F(mr2),
	F(dm),
	F(xrcd),
	F(flow),
	F(fa),
	F(td),
	F(counters),
	F(rwq),
	F(ah),
	F(port_attr),
	F(dattr),
	F(qin),
	F(gid),
	F(srq_attr),
	F(qp_attr),
	F(wq_attr),
	F(mw_bind),
	F(swr),
	F(rwr),
	F(opwr),
	F(wc),
	F(sge),
	F(dbuf),
	F(bind_info),
	F(poll_attr),
	F(tm_info),
	F(misc),
	F(tok),
	F(buf),
	};
#undef F
	size_t i;

	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		if (c >= a + f[i].off && c < a + f[i].off + f[i].len) {
			snprintf(s, 48, "W.%s+%ld", f[i].n, (long)(c - a - f[i].off));
			return s;
		}
	if (c >= a && c < a + sizeof(W))
		snprintf(s, 32, "W+%ld", (long)(c - a));
	else
		snprintf(s, 32, "<foreign>");
	return s;
}

#define TOK(n) ((void *)&W.tok[n])

/* Value returned by int recorders; tests change it. */
static int g_ret = 42;

static void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
}

/* Simple checksum so "was the struct zeroed" is visible in the output. */
static unsigned long sum(const void *p, size_t n)
{
	const unsigned char *b = (const unsigned char *)p;
	unsigned long s = 0;
	size_t i;

	for (i = 0; i < n; i++)
		s = s * 31 + b[i];
	return s;
}

/* ---------------------------------------------- exported-function fakes */

/*
 * Declared by verbs.h (some behind a same-named macro, hence the
 * parenthesised names).
 */
int(ibv_query_port)(struct ibv_context *context, uint8_t port_num,
		    struct _compat_ibv_port_attr *port_attr)
{
	say("ibv_query_port(%s,%u,%s) sum=%lu->", P(context), port_num,
	    P(port_attr), sum(&W.port_attr, sizeof(W.port_attr)));
	return g_ret;
}

int ibv_query_device(struct ibv_context *context,
		     struct ibv_device_attr *device_attr)
{
	say("ibv_query_device(%s,%s) sum=%lu->", P(context), P(device_attr),
	    sum(&W.dattr, sizeof(W.dattr)));
	return g_ret;
}

struct ibv_srq *ibv_create_srq(struct ibv_pd *pd,
			       struct ibv_srq_init_attr *srq_init_attr)
{
	say("ibv_create_srq(%s,%s)->", P(pd), P(srq_init_attr));
	return (struct ibv_srq *)TOK(1);
}

struct ibv_qp *ibv_create_qp(struct ibv_pd *pd,
			     struct ibv_qp_init_attr *qp_init_attr)
{
	say("ibv_create_qp(%s,%s)->", P(pd), P(qp_init_attr));
	return (struct ibv_qp *)TOK(2);
}

int _ibv_query_gid_ex(struct ibv_context *context, uint32_t port_num,
		      uint32_t gid_index, struct ibv_gid_entry *entry,
		      uint32_t flags, size_t entry_size)
{
	say("_ibv_query_gid_ex(%s,%u,%u,%s,%u,%zu)->", P(context), port_num,
	    gid_index, P(entry), flags, entry_size);
	return g_ret;
}

ssize_t _ibv_query_gid_table(struct ibv_context *context,
			     struct ibv_gid_entry *entries, size_t max_entries,
			     uint32_t flags, size_t entry_size)
{
	say("_ibv_query_gid_table(%s,%s,%zu,%u,%zu)->", P(context), P(entries),
	    max_entries, flags, entry_size);
	return (ssize_t)g_ret + 1000000000000LL;
}

struct ibv_mr *(ibv_reg_mr)(struct ibv_pd *pd, void *addr, size_t length,
			    int access)
{
	say("ibv_reg_mr(%s,%s,%zu,0x%x)->", P(pd), P(addr), length, access);
	return (struct ibv_mr *)TOK(3);
}

struct ibv_mr *(ibv_reg_mr_iova)(struct ibv_pd *pd, void *addr, size_t length,
				 uint64_t iova, int access)
{
	say("ibv_reg_mr_iova(%s,%s,%zu,iova=%s,0x%x)->", P(pd), P(addr),
	    length, P((const void *)(uintptr_t)iova), access);
	return (struct ibv_mr *)TOK(4);
}

struct ibv_mr *ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr, size_t length,
				uint64_t iova, unsigned int access)
{
	say("ibv_reg_mr_iova2(%s,%s,%zu,iova=%s,0x%x)->", P(pd), P(addr),
	    length, P((const void *)(uintptr_t)iova), access);
	return (struct ibv_mr *)TOK(5);
}

/* ---------------------------------------------- verbs_context recorders */

static int r_query_port(struct ibv_context *c, uint8_t port,
			struct ibv_port_attr *a, size_t len)
{
	/* The whole struct of the header it was built with (52 bytes in 44, 56 in
	 * 64, which added active_speed_ex). */
	if (len == sizeof(*a))
		say("vctx.query_port(%s,%u,%s,sizeof)->", P(c), port, P(a));
	else
		say("vctx.query_port(%s,%u,%s,%zu)->", P(c), port, P(a), len);
	return g_ret;
}
static int r_advise_mr(struct ibv_pd *pd, enum ibv_advise_mr_advice advice,
		       uint32_t flags, struct ibv_sge *sg, uint32_t n)
{
	say("vctx.advise_mr(%s,%d,%u,%s,%u)->", P(pd), (int)advice, flags, P(sg),
	    n);
	return g_ret;
}
static struct ibv_mr *r_alloc_null_mr(struct ibv_pd *pd)
{
	say("vctx.alloc_null_mr(%s)->", P(pd));
	return (struct ibv_mr *)TOK(10);
}
static int r_read_counters(struct ibv_counters *c, uint64_t *v, uint32_t n,
			   uint32_t flags)
{
	say("vctx.read_counters(%s,%s,%u,%u)->", P(c), P(v), n, flags);
	return g_ret;
}
static int r_attach_counters_point_flow(struct ibv_counters *c,
					struct ibv_counter_attach_attr *a,
					struct ibv_flow *f)
{
	say("vctx.attach_counters_point_flow(%s,%s,%s)->", P(c), P(a), P(f));
	return g_ret;
}
static struct ibv_counters *r_create_counters(struct ibv_context *c,
					      struct ibv_counters_init_attr *a)
{
	say("vctx.create_counters(%s,%s)->", P(c), P(a));
	return (struct ibv_counters *)TOK(11);
}
static int r_destroy_counters(struct ibv_counters *c)
{
	say("vctx.destroy_counters(%s)->", P(c));
	return g_ret;
}
static struct ibv_mr *r_reg_dm_mr(struct ibv_pd *pd, struct ibv_dm *dm,
				  uint64_t off, size_t len, unsigned int access)
{
	say("vctx.reg_dm_mr(%s,%s,%llu,%zu,0x%x)->", P(pd), P(dm),
	    (unsigned long long)off, len, access);
	return (struct ibv_mr *)TOK(12);
}
static struct ibv_dm *r_alloc_dm(struct ibv_context *c,
				 struct ibv_alloc_dm_attr *a)
{
	say("vctx.alloc_dm(%s,%s)->", P(c), P(a));
	return (struct ibv_dm *)TOK(13);
}
static int r_free_dm(struct ibv_dm *dm)
{
	say("vctx.free_dm(%s)->", P(dm));
	return g_ret;
}
static int r_modify_flow_action_esp(struct ibv_flow_action *fa,
				    struct ibv_flow_action_esp_attr *a)
{
	say("vctx.modify_flow_action_esp(%s,%s)->", P(fa), P(a));
	return g_ret;
}
static int r_destroy_flow_action(struct ibv_flow_action *fa)
{
	say("vctx.destroy_flow_action(%s)->", P(fa));
	return g_ret;
}
static struct ibv_flow_action *
r_create_flow_action_esp(struct ibv_context *c,
			 struct ibv_flow_action_esp_attr *a)
{
	say("vctx.create_flow_action_esp(%s,%s)->", P(c), P(a));
	return (struct ibv_flow_action *)TOK(14);
}
static int r_modify_qp_rate_limit(struct ibv_qp *qp,
				  struct ibv_qp_rate_limit_attr *a)
{
	say("vctx.modify_qp_rate_limit(%s,%s)->", P(qp), P(a));
	return g_ret;
}
static struct ibv_pd *r_alloc_parent_domain(struct ibv_context *c,
					    struct ibv_parent_domain_init_attr *a)
{
	say("vctx.alloc_parent_domain(%s,%s)->", P(c), P(a));
	return (struct ibv_pd *)TOK(15);
}
static int r_dealloc_td(struct ibv_td *td)
{
	say("vctx.dealloc_td(%s)->", P(td));
	return g_ret;
}
static struct ibv_td *r_alloc_td(struct ibv_context *c,
				 struct ibv_td_init_attr *a)
{
	say("vctx.alloc_td(%s,%s)->", P(c), P(a));
	return (struct ibv_td *)TOK(16);
}
static int r_modify_cq(struct ibv_cq *cq, struct ibv_modify_cq_attr *a)
{
	say("vctx.modify_cq(%s,%s)->", P(cq), P(a));
	return g_ret;
}
static int r_post_srq_ops(struct ibv_srq *srq, struct ibv_ops_wr *op,
			  struct ibv_ops_wr **bad)
{
	say("vctx.post_srq_ops(%s,%s,%s)->", P(srq), P(op), P(bad));
	return g_ret;
}
static int r_destroy_rwq_ind_table(struct ibv_rwq_ind_table *t)
{
	say("vctx.destroy_rwq_ind_table(%s)->", P(t));
	return g_ret;
}
static struct ibv_rwq_ind_table *
r_create_rwq_ind_table(struct ibv_context *c,
		       struct ibv_rwq_ind_table_init_attr *a)
{
	say("vctx.create_rwq_ind_table(%s,%s)->", P(c), P(a));
	return (struct ibv_rwq_ind_table *)TOK(17);
}
static int r_destroy_wq(struct ibv_wq *wq)
{
	say("vctx.destroy_wq(%s)->", P(wq));
	return g_ret;
}
static int r_modify_wq(struct ibv_wq *wq, struct ibv_wq_attr *a)
{
	say("vctx.modify_wq(%s,%s)->", P(wq), P(a));
	return g_ret;
}
/* Returns W.wq (prefilled with 0xAA) unless g_ret == -1 (then NULL). */
static struct ibv_wq *r_create_wq(struct ibv_context *c,
				  struct ibv_wq_init_attr *a)
{
	say("vctx.create_wq(%s,%s)->", P(c), P(a));
	return g_ret == -1 ? NULL : &W.wq;
}
static int r_query_rt_values(struct ibv_context *c, struct ibv_values_ex *v)
{
	say("vctx.query_rt_values(%s,%s)->", P(c), P(v));
	return g_ret;
}
static struct ibv_cq_ex *r_create_cq_ex(struct ibv_context *c,
					struct ibv_cq_init_attr_ex *a)
{
	say("vctx.create_cq_ex(%s,%s)->", P(c), P(a));
	return (struct ibv_cq_ex *)TOK(18);
}
static int r_query_device_ex(struct ibv_context *c,
			     const struct ibv_query_device_ex_input *in,
			     struct ibv_device_attr_ex *a, size_t len)
{
	say("vctx.query_device_ex(%s,%s,%s,%zu)->", P(c), P(in), P(a), len);
	return g_ret;
}
static int r_ibv_destroy_flow(struct ibv_flow *f)
{
	say("vctx.ibv_destroy_flow(%s)->", P(f));
	return g_ret;
}
static struct ibv_flow *r_ibv_create_flow(struct ibv_qp *qp,
					  struct ibv_flow_attr *a)
{
	say("vctx.ibv_create_flow(%s,%s)->", P(qp), P(a));
	return (struct ibv_flow *)TOK(19);
}
static struct ibv_qp *r_open_qp(struct ibv_context *c,
				struct ibv_qp_open_attr *a)
{
	say("vctx.open_qp(%s,%s)->", P(c), P(a));
	return (struct ibv_qp *)TOK(20);
}
static struct ibv_qp *r_create_qp_ex(struct ibv_context *c,
				     struct ibv_qp_init_attr_ex *a)
{
	say("vctx.create_qp_ex(%s,%s)->", P(c), P(a));
	return (struct ibv_qp *)TOK(21);
}
static int r_get_srq_num(struct ibv_srq *srq, uint32_t *n)
{
	say("vctx.get_srq_num(%s,%s)->", P(srq), P(n));
	return g_ret;
}
static struct ibv_srq *r_create_srq_ex(struct ibv_context *c,
				       struct ibv_srq_init_attr_ex *a)
{
	say("vctx.create_srq_ex(%s,%s)->", P(c), P(a));
	return (struct ibv_srq *)TOK(22);
}
static struct ibv_xrcd *r_open_xrcd(struct ibv_context *c,
				    struct ibv_xrcd_init_attr *a)
{
	say("vctx.open_xrcd(%s,%s)->", P(c), P(a));
	return (struct ibv_xrcd *)TOK(23);
}
static int r_close_xrcd(struct ibv_xrcd *x)
{
	say("vctx.close_xrcd(%s)->", P(x));
	return g_ret;
}

/* ------------------------------------------------ legacy ops recorders */

static struct ibv_mw *o_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type t)
{
	say("ops.alloc_mw(%s,%d)->", P(pd), (int)t);
	return (struct ibv_mw *)TOK(30);
}
static int o_bind_mw(struct ibv_qp *qp, struct ibv_mw *mw,
		     struct ibv_mw_bind *b)
{
	say("ops.bind_mw(%s,%s,%s)->", P(qp), P(mw), P(b));
	return g_ret;
}
static int o_dealloc_mw(struct ibv_mw *mw)
{
	say("ops.dealloc_mw(%s)->", P(mw));
	return g_ret;
}
static int o_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
	say("ops.poll_cq(%s,%d,%s)->", P(cq), n, P(wc));
	return g_ret;
}
static int o_req_notify_cq(struct ibv_cq *cq, int solicited)
{
	say("ops.req_notify_cq(%s,%d)->", P(cq), solicited);
	return g_ret;
}
static int o_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
			   struct ibv_recv_wr **bad)
{
	say("ops.post_srq_recv(%s,%s,%s)->", P(srq), P(wr), P(bad));
	return g_ret;
}
static int o_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
		       struct ibv_send_wr **bad)
{
	say("ops.post_send(%s,%s,%s)->", P(qp), P(wr), P(bad));
	return g_ret;
}
static int o_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr,
		       struct ibv_recv_wr **bad)
{
	say("ops.post_recv(%s,%s,%s)->", P(qp), P(wr), P(bad));
	return g_ret;
}

/* -------------------------------------------- object-embedded recorders */

static int d_memcpy_to_dm(struct ibv_dm *dm, uint64_t off, const void *h,
			  size_t len)
{
	say("dm.memcpy_to_dm(%s,%llu,%s,%zu)->", P(dm), (unsigned long long)off,
	    P(h), len);
	return g_ret;
}
static int d_memcpy_from_dm(void *h, struct ibv_dm *dm, uint64_t off,
			    size_t len)
{
	say("dm.memcpy_from_dm(%s,%s,%llu,%zu)->", P(h), P(dm),
	    (unsigned long long)off, len);
	return g_ret;
}
static int w_post_recv(struct ibv_wq *wq, struct ibv_recv_wr *wr,
		       struct ibv_recv_wr **bad)
{
	say("wq.post_recv(%s,%s,%s)->", P(wq), P(wr), P(bad));
	return g_ret;
}

#define QX(name, ...) say("qpx." #name "(" __VA_ARGS__)
static void q_atomic_cmp_swp(struct ibv_qp_ex *qp, uint32_t rkey,
			     uint64_t ra, uint64_t cmp, uint64_t swp)
{
	QX(wr_atomic_cmp_swp, "%s,%u,%llu,%llu,%llu)", P(qp), rkey,
	   (unsigned long long)ra, (unsigned long long)cmp,
	   (unsigned long long)swp);
}
static void q_atomic_fetch_add(struct ibv_qp_ex *qp, uint32_t rkey,
			       uint64_t ra, uint64_t add)
{
	QX(wr_atomic_fetch_add, "%s,%u,%llu,%llu)", P(qp), rkey,
	   (unsigned long long)ra, (unsigned long long)add);
}
static void q_bind_mw(struct ibv_qp_ex *qp, struct ibv_mw *mw, uint32_t rkey,
		      const struct ibv_mw_bind_info *bi)
{
	QX(wr_bind_mw, "%s,%s,%u,%s)", P(qp), P(mw), rkey, P(bi));
}
static void q_local_inv(struct ibv_qp_ex *qp, uint32_t rkey)
{
	QX(wr_local_inv, "%s,%u)", P(qp), rkey);
}
static void q_rdma_read(struct ibv_qp_ex *qp, uint32_t rkey, uint64_t ra)
{
	QX(wr_rdma_read, "%s,%u,%llu)", P(qp), rkey, (unsigned long long)ra);
}
static void q_rdma_write(struct ibv_qp_ex *qp, uint32_t rkey, uint64_t ra)
{
	QX(wr_rdma_write, "%s,%u,%llu)", P(qp), rkey, (unsigned long long)ra);
}
static void q_rdma_write_imm(struct ibv_qp_ex *qp, uint32_t rkey, uint64_t ra,
			     __be32 imm)
{
	QX(wr_rdma_write_imm, "%s,%u,%llu,%u)", P(qp), rkey,
	   (unsigned long long)ra, (unsigned)imm);
}
static void q_send(struct ibv_qp_ex *qp)
{
	QX(wr_send, "%s)", P(qp));
}
static void q_send_imm(struct ibv_qp_ex *qp, __be32 imm)
{
	QX(wr_send_imm, "%s,%u)", P(qp), (unsigned)imm);
}
static void q_send_inv(struct ibv_qp_ex *qp, uint32_t rkey)
{
	QX(wr_send_inv, "%s,%u)", P(qp), rkey);
}
static void q_send_tso(struct ibv_qp_ex *qp, void *hdr, uint16_t hsz,
		       uint16_t mss)
{
	QX(wr_send_tso, "%s,%s,%u,%u)", P(qp), P(hdr), hsz, mss);
}
static void q_set_ud_addr(struct ibv_qp_ex *qp, struct ibv_ah *ah,
			  uint32_t qpn, uint32_t qkey)
{
	QX(wr_set_ud_addr, "%s,%s,%u,%u)", P(qp), P(ah), qpn, qkey);
}
static void q_set_xrc_srqn(struct ibv_qp_ex *qp, uint32_t srqn)
{
	QX(wr_set_xrc_srqn, "%s,%u)", P(qp), srqn);
}
static void q_set_inline_data(struct ibv_qp_ex *qp, void *addr, size_t len)
{
	QX(wr_set_inline_data, "%s,%s,%zu)", P(qp), P(addr), len);
}
static void q_set_inline_data_list(struct ibv_qp_ex *qp, size_t n,
				   const struct ibv_data_buf *l)
{
	QX(wr_set_inline_data_list, "%s,%zu,%s)", P(qp), n, P(l));
}
static void q_set_sge(struct ibv_qp_ex *qp, uint32_t lkey, uint64_t addr,
		      uint32_t len)
{
	QX(wr_set_sge, "%s,%u,%llu,%u)", P(qp), lkey, (unsigned long long)addr,
	   len);
}
static void q_set_sge_list(struct ibv_qp_ex *qp, size_t n,
			   const struct ibv_sge *l)
{
	QX(wr_set_sge_list, "%s,%zu,%s)", P(qp), n, P(l));
}
static void q_start(struct ibv_qp_ex *qp)
{
	QX(wr_start, "%s)", P(qp));
}
static int q_complete(struct ibv_qp_ex *qp)
{
	QX(wr_complete, "%s)->", P(qp));
	return g_ret;
}
static void q_abort(struct ibv_qp_ex *qp)
{
	QX(wr_abort, "%s)", P(qp));
}
static void q_atomic_write(struct ibv_qp_ex *qp, uint32_t rkey, uint64_t ra,
			   const void *data)
{
	QX(wr_atomic_write, "%s,%u,%llu,%s)", P(qp), rkey,
	   (unsigned long long)ra, P(data));
}

static int c_start_poll(struct ibv_cq_ex *cq, struct ibv_poll_cq_attr *a)
{
	say("cqx.start_poll(%s,%s)->", P(cq), P(a));
	return g_ret;
}
static int c_next_poll(struct ibv_cq_ex *cq)
{
	say("cqx.next_poll(%s)->", P(cq));
	return g_ret + 1;
}
static void c_end_poll(struct ibv_cq_ex *cq)
{
	say("cqx.end_poll(%s)", P(cq));
}
static enum ibv_wc_opcode c_read_opcode(struct ibv_cq_ex *cq)
{
	say("cqx.read_opcode(%s)->", P(cq));
	return IBV_WC_RECV_RDMA_WITH_IMM;
}
/* All scalar readers return a value with high bits set so truncation or
 * widening differences would show. */
#define CREAD(fn, T, v)                                                        \
	static T c_##fn(struct ibv_cq_ex *cq)                                  \
	{                                                                      \
		say("cqx." #fn "(%s)->", P(cq));                               \
		return (T)(v);                                                 \
	}
CREAD(read_vendor_err, uint32_t, 0xdeadbeefu)
CREAD(read_byte_len, uint32_t, 0xfffffff0u)
CREAD(read_imm_data, __be32, 0x80000001u)
CREAD(read_qp_num, uint32_t, 0x00abcdefu)
CREAD(read_src_qp, uint32_t, 0x00fedcbau)
CREAD(read_wc_flags, unsigned int, 0x8000007fu)
CREAD(read_slid, uint32_t, 0xffff1234u)
CREAD(read_sl, uint8_t, 0xf3)
CREAD(read_dlid_path_bits, uint8_t, 0x81)
CREAD(read_completion_ts, uint64_t, 0xfedcba9876543210ull)
CREAD(read_completion_wallclock_ns, uint64_t, 0x8000000000000001ull)
CREAD(read_cvlan, uint16_t, 0xfffe)
CREAD(read_flow_tag, uint32_t, 0x90000009u)
static void c_read_tm_info(struct ibv_cq_ex *cq, struct ibv_wc_tm_info *t)
{
	say("cqx.read_tm_info(%s,%s)", P(cq), P(t));
}

/* ------------------------------------------------------------- set-ups */

enum { M_FULL, M_NULLOP, M_SZ_EXACT, M_SZ_SHORT, M_NOEXT, M_COUNT };
static const char *const mode_name[] = { "full", "op=NULL", "sz=exact",
					 "sz=short", "not-extended" };

static void setup(void)
{
	struct verbs_context *v = &W.vctx;
	struct ibv_context_ops *o = &W.vctx.context.ops;

	memset(&W, 0, sizeof(W));
	v->sz = sizeof(*v);
	v->context.abi_compat = __VERBS_ABI_IS_EXTENDED;

	v->query_port = r_query_port;
	v->advise_mr = r_advise_mr;
	v->alloc_null_mr = r_alloc_null_mr;
	v->read_counters = r_read_counters;
	v->attach_counters_point_flow = r_attach_counters_point_flow;
	v->create_counters = r_create_counters;
	v->destroy_counters = r_destroy_counters;
	v->reg_dm_mr = r_reg_dm_mr;
	v->alloc_dm = r_alloc_dm;
	v->free_dm = r_free_dm;
	v->modify_flow_action_esp = r_modify_flow_action_esp;
	v->destroy_flow_action = r_destroy_flow_action;
	v->create_flow_action_esp = r_create_flow_action_esp;
	v->modify_qp_rate_limit = r_modify_qp_rate_limit;
	v->alloc_parent_domain = r_alloc_parent_domain;
	v->dealloc_td = r_dealloc_td;
	v->alloc_td = r_alloc_td;
	v->modify_cq = r_modify_cq;
	v->post_srq_ops = r_post_srq_ops;
	v->destroy_rwq_ind_table = r_destroy_rwq_ind_table;
	v->create_rwq_ind_table = r_create_rwq_ind_table;
	v->destroy_wq = r_destroy_wq;
	v->modify_wq = r_modify_wq;
	v->create_wq = r_create_wq;
	v->query_rt_values = r_query_rt_values;
	v->create_cq_ex = r_create_cq_ex;
	v->query_device_ex = r_query_device_ex;
	v->ibv_destroy_flow = r_ibv_destroy_flow;
	v->ibv_create_flow = r_ibv_create_flow;
	v->open_qp = r_open_qp;
	v->create_qp_ex = r_create_qp_ex;
	v->get_srq_num = r_get_srq_num;
	v->create_srq_ex = r_create_srq_ex;
	v->open_xrcd = r_open_xrcd;
	v->close_xrcd = r_close_xrcd;

	o->alloc_mw = o_alloc_mw;
	o->bind_mw = o_bind_mw;
	o->dealloc_mw = o_dealloc_mw;
	o->poll_cq = o_poll_cq;
	o->req_notify_cq = o_req_notify_cq;
	o->post_srq_recv = o_post_srq_recv;
	o->post_send = o_post_send;
	o->post_recv = o_post_recv;

	W.pd.context = W.pd2.context = CTX;
	W.cq.context = CTX;
	W.qp.context = CTX;
	W.srq.context = CTX;
	W.wq.context = CTX;
	W.wq.post_recv = w_post_recv;
	W.mw.context = CTX;
	W.mw.pd = &W.pd;
	W.mr.context = W.mr2.context = CTX;
	W.mr.pd = &W.pd;
	W.mr2.pd = &W.pd2;
	W.dm.context = CTX;
	W.dm.memcpy_to_dm = d_memcpy_to_dm;
	W.dm.memcpy_from_dm = d_memcpy_from_dm;
	W.xrcd.context = CTX;
	W.flow.context = CTX;
	W.fa.context = CTX;
	W.td.context = CTX;
	W.counters.context = CTX;
	W.rwq.context = CTX;

	W.qpx.wr_atomic_cmp_swp = q_atomic_cmp_swp;
	W.qpx.wr_atomic_fetch_add = q_atomic_fetch_add;
	W.qpx.wr_bind_mw = q_bind_mw;
	W.qpx.wr_local_inv = q_local_inv;
	W.qpx.wr_rdma_read = q_rdma_read;
	W.qpx.wr_rdma_write = q_rdma_write;
	W.qpx.wr_rdma_write_imm = q_rdma_write_imm;
	W.qpx.wr_send = q_send;
	W.qpx.wr_send_imm = q_send_imm;
	W.qpx.wr_send_inv = q_send_inv;
	W.qpx.wr_send_tso = q_send_tso;
	W.qpx.wr_set_ud_addr = q_set_ud_addr;
	W.qpx.wr_set_xrc_srqn = q_set_xrc_srqn;
	W.qpx.wr_set_inline_data = q_set_inline_data;
	W.qpx.wr_set_inline_data_list = q_set_inline_data_list;
	W.qpx.wr_set_sge = q_set_sge;
	W.qpx.wr_set_sge_list = q_set_sge_list;
	W.qpx.wr_start = q_start;
	W.qpx.wr_complete = q_complete;
	W.qpx.wr_abort = q_abort;
	W.qpx.wr_atomic_write = q_atomic_write;

	W.cqx.start_poll = c_start_poll;
	W.cqx.next_poll = c_next_poll;
	W.cqx.end_poll = c_end_poll;
	W.cqx.read_opcode = c_read_opcode;
	W.cqx.read_vendor_err = c_read_vendor_err;
	W.cqx.read_byte_len = c_read_byte_len;
	W.cqx.read_imm_data = c_read_imm_data;
	W.cqx.read_qp_num = c_read_qp_num;
	W.cqx.read_src_qp = c_read_src_qp;
	W.cqx.read_wc_flags = c_read_wc_flags;
	W.cqx.read_slid = c_read_slid;
	W.cqx.read_sl = c_read_sl;
	W.cqx.read_dlid_path_bits = c_read_dlid_path_bits;
	W.cqx.read_completion_ts = c_read_completion_ts;
	W.cqx.read_completion_wallclock_ns = c_read_completion_wallclock_ns;
	W.cqx.read_cvlan = c_read_cvlan;
	W.cqx.read_flow_tag = c_read_flow_tag;
	W.cqx.read_tm_info = c_read_tm_info;

	g_ret = 42;
	errno = 9999;
}

static void apply_mode(int m, size_t op_off)
{
	size_t reach = sizeof(struct verbs_context) - op_off;

	switch (m) {
	case M_SZ_EXACT:
		W.vctx.sz = reach;
		break;
	case M_SZ_SHORT:
		W.vctx.sz = reach - 1;
		break;
	case M_NOEXT:
		W.vctx.context.abi_compat = NULL;
		break;
	}
}

/* Result printers. */
#define RI(expr) say(" => %d errno=%d\n", (int)(expr), errno)
#define RL(expr) say(" => %lld errno=%d\n", (long long)(expr), errno)
#define RP(expr) say(" => %s errno=%d\n", P((const void *)(expr)), errno)
#define RV(stmt) (stmt, say(" => void\n"))

/* Run `check` (an R* printer around the call) under all five set-ups of
 * verbs_context op `op`.  `pre` may adjust the arena after setup(). */
#define VOP(label, op, pre, check)                                             \
	do {                                                                   \
		int m_;                                                        \
		for (m_ = 0; m_ < M_COUNT; m_++) {                             \
			setup();                                               \
			apply_mode(m_, offsetof(struct verbs_context, op));    \
			if (m_ == M_NULLOP)                                    \
				W.vctx.op = NULL;                              \
			pre;                                                   \
			errno = 9999;                                          \
			say("%s [%s]: ", label, mode_name[m_]);                \
			check;                                                 \
		}                                                              \
	} while (0)

/* A single call with the default set-up. */
#define ONE(label, pre, check)                                                 \
	do {                                                                   \
		setup();                                                       \
		pre;                                                           \
		errno = 9999;                                                  \
		say("%s: ", label);                                            \
		check;                                                         \
	} while (0)

#define FN(name) say("## %s\n", name)

/* ---------------------------------------------------------------- tests */

static void t_wr(void)
{
	struct ibv_qp_ex *q = &W.qpx;

	FN("ibv_wr_*");
	ONE("ibv_wr_atomic_cmp_swp", , RV(ibv_wr_atomic_cmp_swp(q, 7, 0xffffffffffULL, 3, 4)));
	ONE("ibv_wr_atomic_fetch_add", , RV(ibv_wr_atomic_fetch_add(q, 7, 8, 0x8000000000000000ULL)));
	ONE("ibv_wr_bind_mw", , RV(ibv_wr_bind_mw(q, &W.mw, 0xabcd, &W.bind_info)));
	ONE("ibv_wr_local_inv", , RV(ibv_wr_local_inv(q, 0xffffffffu)));
	ONE("ibv_wr_rdma_read", , RV(ibv_wr_rdma_read(q, 1, 2)));
	ONE("ibv_wr_rdma_write", , RV(ibv_wr_rdma_write(q, 3, 4)));
	ONE("ibv_wr_rdma_write_imm", , RV(ibv_wr_rdma_write_imm(q, 5, 6, 0x01020304)));
	ONE("ibv_wr_send", , RV(ibv_wr_send(q)));
	ONE("ibv_wr_send_imm", , RV(ibv_wr_send_imm(q, 0xf0000000u)));
	ONE("ibv_wr_send_inv", , RV(ibv_wr_send_inv(q, 99)));
	ONE("ibv_wr_send_tso", , RV(ibv_wr_send_tso(q, W.misc, 0xffff, 1460)));
	ONE("ibv_wr_set_ud_addr", , RV(ibv_wr_set_ud_addr(q, &W.ah, 0xffffff, 0x80000000u)));
	ONE("ibv_wr_set_xrc_srqn", , RV(ibv_wr_set_xrc_srqn(q, 17)));
	ONE("ibv_wr_set_inline_data", , RV(ibv_wr_set_inline_data(q, W.buf, 100)));
	ONE("ibv_wr_set_inline_data_list", , RV(ibv_wr_set_inline_data_list(q, 2, W.dbuf)));
	ONE("ibv_wr_set_sge", , RV(ibv_wr_set_sge(q, 11, 0x1234567890ULL, 4096)));
	ONE("ibv_wr_set_sge_list", , RV(ibv_wr_set_sge_list(q, 2, W.sge)));
	ONE("ibv_wr_start", , RV(ibv_wr_start(q)));
	ONE("ibv_wr_complete", g_ret = -5, RI(ibv_wr_complete(q)));
	ONE("ibv_wr_abort", , RV(ibv_wr_abort(q)));
	ONE("ibv_wr_atomic_write", , RV(ibv_wr_atomic_write(q, 1, 2, W.misc)));
}

static void t_cq_ex(void)
{
	struct ibv_cq_ex *c = &W.cqx;

	FN("ibv_cq_ex polling");
	ONE("ibv_cq_ex_to_cq", , RP(ibv_cq_ex_to_cq(c)));
	ONE("ibv_start_poll", g_ret = ENOENT, RI(ibv_start_poll(c, &W.poll_attr)));
	ONE("ibv_next_poll", , RI(ibv_next_poll(c)));
	ONE("ibv_end_poll", , RV(ibv_end_poll(c)));
	ONE("ibv_wc_read_opcode", , RI(ibv_wc_read_opcode(c)));
	ONE("ibv_wc_read_vendor_err", , RL(ibv_wc_read_vendor_err(c)));
	ONE("ibv_wc_read_byte_len", , RL(ibv_wc_read_byte_len(c)));
	ONE("ibv_wc_read_imm_data", , RL(ibv_wc_read_imm_data(c)));
	ONE("ibv_wc_read_invalidated_rkey", , RL(ibv_wc_read_invalidated_rkey(c)));
	ONE("ibv_wc_read_qp_num", , RL(ibv_wc_read_qp_num(c)));
	ONE("ibv_wc_read_src_qp", , RL(ibv_wc_read_src_qp(c)));
	ONE("ibv_wc_read_wc_flags", , RL(ibv_wc_read_wc_flags(c)));
	ONE("ibv_wc_read_slid", , RL(ibv_wc_read_slid(c)));
	ONE("ibv_wc_read_sl", , RL(ibv_wc_read_sl(c)));
	ONE("ibv_wc_read_dlid_path_bits", , RL(ibv_wc_read_dlid_path_bits(c)));
	ONE("ibv_wc_read_completion_ts", , RL(ibv_wc_read_completion_ts(c)));
	ONE("ibv_wc_read_completion_wallclock_ns", , RL(ibv_wc_read_completion_wallclock_ns(c)));
	ONE("ibv_wc_read_cvlan", , RL(ibv_wc_read_cvlan(c)));
	ONE("ibv_wc_read_flow_tag", , RL(ibv_wc_read_flow_tag(c)));
	ONE("ibv_wc_read_tm_info", , RV(ibv_wc_read_tm_info(c, &W.tm_info)));
	/* type of each reader's result, as the program sees it */
	say("sizes: %zu %zu %zu %zu %zu %zu %zu %zu\n",
	    sizeof(ibv_wc_read_sl(c)), sizeof(ibv_wc_read_cvlan(c)),
	    sizeof(ibv_wc_read_completion_ts(c)),
	    sizeof(ibv_wc_read_wc_flags(c)),
	    sizeof(ibv_wc_read_invalidated_rkey(c)),
	    sizeof(ibv_wc_read_opcode(c)), sizeof(ibv_query_gid_table(CTX, W.gid, 1, 0)),
	    sizeof(ibv_flow_label_to_udp_sport(1)));
}

static void t_legacy_ops(void)
{
	struct ibv_send_wr *bs = NULL;
	struct ibv_recv_wr *br = NULL;

	FN("ibv_post_send");
	ONE("ibv_post_send", g_ret = ENOMEM, RI(ibv_post_send(&W.qp, &W.swr, &bs)));
	FN("ibv_post_recv");
	ONE("ibv_post_recv", , RI(ibv_post_recv(&W.qp, &W.rwr, &br)));
	FN("ibv_post_srq_recv");
	ONE("ibv_post_srq_recv", , RI(ibv_post_srq_recv(&W.srq, &W.rwr, &br)));
	FN("ibv_post_wq_recv");
	ONE("ibv_post_wq_recv", , RI(ibv_post_wq_recv(&W.wq, &W.rwr, &br)));
	FN("ibv_poll_cq");
	ONE("ibv_poll_cq", g_ret = -1, RI(ibv_poll_cq(&W.cq, 16, W.wc)));
	FN("ibv_req_notify_cq");
	ONE("ibv_req_notify_cq", , RI(ibv_req_notify_cq(&W.cq, 1)));
	FN("ibv_alloc_mw");
	ONE("ibv_alloc_mw", , RP(ibv_alloc_mw(&W.pd, IBV_MW_TYPE_2)));
	ONE("ibv_alloc_mw no op", W.vctx.context.ops.alloc_mw = NULL,
	    RP(ibv_alloc_mw(&W.pd, IBV_MW_TYPE_1)));
	ONE("ibv_alloc_mw not-extended (legacy table still used)",
	    W.vctx.context.abi_compat = NULL,
	    RP(ibv_alloc_mw(&W.pd, IBV_MW_TYPE_1)));
	FN("ibv_dealloc_mw");
	ONE("ibv_dealloc_mw", , RI(ibv_dealloc_mw(&W.mw)));
}

static void t_bind_mw(void)
{
	int type, hasmr, addr, len, samepd;
	char label[128];

	FN("ibv_bind_mw");
	for (type = 1; type <= 2; type++)
		for (hasmr = 0; hasmr <= 1; hasmr++)
			for (addr = 0; addr <= 1; addr++)
				for (len = 0; len <= 1; len++)
					for (samepd = 0; samepd <= 1; samepd++) {
						snprintf(label, sizeof(label),
							 "ibv_bind_mw type=%d mr=%d addr=%d len=%d samepd=%d",
							 type, hasmr, addr, len, samepd);
						ONE(label,
						    W.mw.type = (enum ibv_mw_type)type;
						    W.mw_bind.bind_info.mr = hasmr ? (samepd ? &W.mr : &W.mr2) : NULL;
						    W.mw_bind.bind_info.addr = (uint64_t)addr;
						    W.mw_bind.bind_info.length = (uint64_t)len,
						    RI(ibv_bind_mw(&W.qp, &W.mw, &W.mw_bind)));
					}
}

static void t_scalars(void)
{
	static const uint32_t rk[] = { 0, 1, 0xfe, 0xff, 0x100, 0x1ff, 0xabcdef12,
				       0xffffffff, 0xffffff00, 0x7fffffff };
	static const uint32_t fl[] = { 0, 1, 0x3fff, 0x4000, 0xfc000, 0xfffff,
				       0x12345, 0xabcde, 0xffffffff, 0x100000 };
	unsigned i, q;

	FN("ibv_inc_rkey");
	for (i = 0; i < sizeof(rk) / sizeof(rk[0]); i++)
		say("ibv_inc_rkey(0x%x) = 0x%x\n", rk[i], ibv_inc_rkey(rk[i]));
	FN("ibv_flow_label_to_udp_sport");
	for (i = 0; i < sizeof(fl) / sizeof(fl[0]); i++)
		say("ibv_flow_label_to_udp_sport(0x%x) = 0x%x\n", fl[i],
		    ibv_flow_label_to_udp_sport(fl[i]));
	FN("ibv_is_qpt_supported");
	for (q = 0; q < 12; q++)
		say("ibv_is_qpt_supported(0x%x,%u) = %d / %d\n", 0x114u, q,
		    ibv_is_qpt_supported(0x114u, (enum ibv_qp_type)q),
		    ibv_is_qpt_supported(0xffffffffu, (enum ibv_qp_type)q));
	say("ETHERNET_LL_SIZE=%d IB_ROCE_UDP_ENCAP_VALID_PORT_MIN=0x%x\n",
	    (int)ETHERNET_LL_SIZE, (unsigned)IB_ROCE_UDP_ENCAP_VALID_PORT_MIN);
	say("vext_field_avail: %d %d %d\n",
	    (int)vext_field_avail(struct verbs_context, close_xrcd, 0),
	    (int)vext_field_avail(struct ibv_wq, comp_mask,
				  offsetof(struct ibv_wq, comp_mask)),
	    (int)vext_field_avail(struct ibv_wq, comp_mask,
				  offsetof(struct ibv_wq, comp_mask) + 1));
	say("extended sentinel: %d\n",
	    __VERBS_ABI_IS_EXTENDED == (void *)(uintptr_t)-1);
}

static void t_ctx(void)
{
	struct verbs_context *v;

	FN("verbs_get_ctx");
	ONE("verbs_get_ctx", , RP(verbs_get_ctx(CTX)));
	ONE("verbs_get_ctx not-extended", W.vctx.context.abi_compat = NULL,
	    RP(verbs_get_ctx(CTX)));
	ONE("verbs_get_ctx abi_compat=other", W.vctx.context.abi_compat = W.misc,
	    RP(verbs_get_ctx(CTX)));
	FN("verbs_get_ctx_op (macro)");
	VOP("verbs_get_ctx_op(query_port)", query_port, ,
	    RP(verbs_get_ctx_op(CTX, query_port)));
	VOP("verbs_get_ctx_op(close_xrcd)", close_xrcd, ,
	    RP(verbs_get_ctx_op(CTX, close_xrcd)));
	VOP("verbs_get_ctx_op(query_device_ex)", query_device_ex, ,
	    RP(verbs_get_ctx_op(CTX, query_device_ex)));
	/* sz = 0 means nothing is available */
	ONE("verbs_get_ctx_op sz=0", W.vctx.sz = 0,
	    RP(verbs_get_ctx_op(CTX, close_xrcd)));
	/* ctx expression evaluated once */
	{
		struct ibv_context *arr[2] = { CTX, NULL };
		int k = 0;

		setup();
		v = verbs_get_ctx_op(arr[k++], open_qp);
		say("verbs_get_ctx_op side effects: k=%d v=%s\n", k, P(v));
	}
}

static void t_query(void)
{
	int rc;
	static const int codes[] = { 0, EOPNOTSUPP, ENOSYS, EINVAL, -1 };
	unsigned i;

	FN("___ibv_query_port / ibv_query_port (macro)");
	VOP("ibv_query_port", query_port,
	    memset(&W.port_attr, 0xAA, sizeof(W.port_attr)); g_ret = 7,
	    RI(ibv_query_port(CTX, 3, &W.port_attr)));
	VOP("___ibv_query_port", query_port,
	    memset(&W.port_attr, 0xAA, sizeof(W.port_attr)),
	    RI(___ibv_query_port(CTX, 255, &W.port_attr)));

	FN("ibv_query_gid_ex");
	ONE("ibv_query_gid_ex", , RI(ibv_query_gid_ex(CTX, 0xffffffffu, 5, &W.gid[1], 0x80000000u)));
	FN("ibv_query_gid_table");
	ONE("ibv_query_gid_table", , RL(ibv_query_gid_table(CTX, W.gid, 4, 1)));

	FN("ibv_query_device_ex");
	for (i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
		VOP("ibv_query_device_ex input=NULL", query_device_ex,
		    g_ret = codes[i]; memset(&W.dattr, 0xAA, sizeof(W.dattr)),
		    (rc = ibv_query_device_ex(CTX, NULL, &W.dattr),
		     say(" sum=%lu", sum(&W.dattr, sizeof(W.dattr))), RI(rc)));
		VOP("ibv_query_device_ex input.comp_mask=0", query_device_ex,
		    g_ret = codes[i]; memset(&W.dattr, 0xAA, sizeof(W.dattr)),
		    (rc = ibv_query_device_ex(CTX, &W.qin, &W.dattr),
		     say(" sum=%lu", sum(&W.dattr, sizeof(W.dattr))), RI(rc)));
	}
	VOP("ibv_query_device_ex input.comp_mask=1", query_device_ex,
	    W.qin.comp_mask = 1; memset(&W.dattr, 0xAA, sizeof(W.dattr)),
	    (rc = ibv_query_device_ex(CTX, &W.qin, &W.dattr),
	     say(" sum=%lu", sum(&W.dattr, sizeof(W.dattr))), RI(rc)));
	VOP("ibv_query_device_ex input.comp_mask=0x80000000", query_device_ex,
	    W.qin.comp_mask = 0x80000000u,
	    RI(ibv_query_device_ex(CTX, &W.qin, &W.dattr)));

	FN("ibv_query_rt_values_ex");
	VOP("ibv_query_rt_values_ex", query_rt_values, ,
	    RI(ibv_query_rt_values_ex(CTX, (struct ibv_values_ex *)W.misc)));
}

static void t_vops(void)
{
	struct ibv_ops_wr *bad_op = NULL;
	void *a = W.misc;

	FN("ibv_create_flow");
	VOP("ibv_create_flow", ibv_create_flow, , RP(ibv_create_flow(&W.qp, (struct ibv_flow_attr *)a)));
	FN("ibv_destroy_flow");
	VOP("ibv_destroy_flow", ibv_destroy_flow, , RI(ibv_destroy_flow(&W.flow)));
	FN("ibv_create_flow_action_esp");
	VOP("ibv_create_flow_action_esp", create_flow_action_esp, ,
	    RP(ibv_create_flow_action_esp(CTX, (struct ibv_flow_action_esp_attr *)a)));
	FN("ibv_modify_flow_action_esp");
	VOP("ibv_modify_flow_action_esp", modify_flow_action_esp, ,
	    RI(ibv_modify_flow_action_esp(&W.fa, (struct ibv_flow_action_esp_attr *)a)));
	FN("ibv_destroy_flow_action");
	VOP("ibv_destroy_flow_action", destroy_flow_action, , RI(ibv_destroy_flow_action(&W.fa)));
	FN("ibv_open_xrcd");
	VOP("ibv_open_xrcd", open_xrcd, , RP(ibv_open_xrcd(CTX, (struct ibv_xrcd_init_attr *)a)));
	FN("ibv_close_xrcd");
	ONE("ibv_close_xrcd", g_ret = 3, RI(ibv_close_xrcd(&W.xrcd)));
	ONE("ibv_close_xrcd sz=0 (not checked)", W.vctx.sz = 0, RI(ibv_close_xrcd(&W.xrcd)));
	FN("ibv_advise_mr");
	VOP("ibv_advise_mr", advise_mr, ,
	    RI(ibv_advise_mr(&W.pd, IBV_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT,
			     IBV_ADVISE_MR_FLAG_FLUSH, W.sge, 2)));
	FN("ibv_alloc_dm");
	VOP("ibv_alloc_dm", alloc_dm, , RP(ibv_alloc_dm(CTX, (struct ibv_alloc_dm_attr *)a)));
	FN("ibv_free_dm");
	VOP("ibv_free_dm", free_dm, , RI(ibv_free_dm(&W.dm)));
	FN("ibv_memcpy_to_dm");
	ONE("ibv_memcpy_to_dm", , RI(ibv_memcpy_to_dm(&W.dm, 0xffffffffffULL, W.buf, 77)));
	FN("ibv_memcpy_from_dm");
	ONE("ibv_memcpy_from_dm", , RI(ibv_memcpy_from_dm(W.buf, &W.dm, 5, 1ULL << 40)));
	FN("ibv_alloc_null_mr");
	VOP("ibv_alloc_null_mr", alloc_null_mr, , RP(ibv_alloc_null_mr(&W.pd)));
	FN("ibv_reg_dm_mr");
	VOP("ibv_reg_dm_mr", reg_dm_mr, ,
	    RP(ibv_reg_dm_mr(&W.pd, &W.dm, 9, 4096, IBV_ACCESS_ZERO_BASED | IBV_ACCESS_LOCAL_WRITE)));
	FN("ibv_create_cq_ex");
	VOP("ibv_create_cq_ex", create_cq_ex, , RP(ibv_create_cq_ex(CTX, (struct ibv_cq_init_attr_ex *)a)));
	FN("ibv_modify_cq");
	VOP("ibv_modify_cq", modify_cq, , RI(ibv_modify_cq(&W.cq, (struct ibv_modify_cq_attr *)a)));
	FN("ibv_get_srq_num");
	VOP("ibv_get_srq_num", get_srq_num, , RI(ibv_get_srq_num(&W.srq, (uint32_t *)a)));
	FN("ibv_post_srq_ops");
	VOP("ibv_post_srq_ops", post_srq_ops, bad_op = NULL,
	    (RI(ibv_post_srq_ops(&W.srq, &W.opwr, &bad_op)), say("  bad_op=%s\n", P(bad_op))));
	FN("ibv_alloc_td");
	VOP("ibv_alloc_td", alloc_td, , RP(ibv_alloc_td(CTX, (struct ibv_td_init_attr *)a)));
	FN("ibv_dealloc_td");
	VOP("ibv_dealloc_td", dealloc_td, , RI(ibv_dealloc_td(&W.td)));
	FN("ibv_alloc_parent_domain");
	VOP("ibv_alloc_parent_domain", alloc_parent_domain, ,
	    RP(ibv_alloc_parent_domain(CTX, (struct ibv_parent_domain_init_attr *)a)));
	FN("ibv_open_qp");
	VOP("ibv_open_qp", open_qp, , RP(ibv_open_qp(CTX, (struct ibv_qp_open_attr *)a)));
	FN("ibv_modify_qp_rate_limit");
	VOP("ibv_modify_qp_rate_limit", modify_qp_rate_limit, ,
	    RI(ibv_modify_qp_rate_limit(&W.qp, (struct ibv_qp_rate_limit_attr *)a)));
	FN("ibv_modify_wq");
	VOP("ibv_modify_wq", modify_wq, , RI(ibv_modify_wq(&W.wq, (struct ibv_wq_attr *)a)));
	FN("ibv_destroy_wq");
	VOP("ibv_destroy_wq", destroy_wq, , RI(ibv_destroy_wq(&W.wq)));
	FN("ibv_create_rwq_ind_table");
	VOP("ibv_create_rwq_ind_table", create_rwq_ind_table, ,
	    RP(ibv_create_rwq_ind_table(CTX, (struct ibv_rwq_ind_table_init_attr *)a)));
	FN("ibv_destroy_rwq_ind_table");
	VOP("ibv_destroy_rwq_ind_table", destroy_rwq_ind_table, ,
	    RI(ibv_destroy_rwq_ind_table(&W.rwq)));
	FN("ibv_create_counters");
	VOP("ibv_create_counters", create_counters, ,
	    RP(ibv_create_counters(CTX, (struct ibv_counters_init_attr *)a)));
	FN("ibv_destroy_counters");
	VOP("ibv_destroy_counters", destroy_counters, , RI(ibv_destroy_counters(&W.counters)));
	FN("ibv_attach_counters_point_flow");
	VOP("ibv_attach_counters_point_flow", attach_counters_point_flow, ,
	    RI(ibv_attach_counters_point_flow(&W.counters, (struct ibv_counter_attach_attr *)a, &W.flow)));
	FN("ibv_read_counters");
	VOP("ibv_read_counters", read_counters, ,
	    RI(ibv_read_counters(&W.counters, (uint64_t *)a, 3, IBV_READ_COUNTERS_ATTR_PREFER_CACHED)));
}

static void t_create_wq(void)
{
	FN("ibv_create_wq");
	VOP("ibv_create_wq", create_wq,
	    memset(&W.wq, 0xAA, sizeof(W.wq)); W.wq_attr.wq_context = W.misc + 3,
	    (RP(ibv_create_wq(CTX, &W.wq_attr)),
	     say("  wq_context=%s events_completed=%u mutex=%lu cond=%lu context=%s\n",
		 P(W.wq.wq_context), W.wq.events_completed,
		 sum(&W.wq.mutex, sizeof(W.wq.mutex)),
		 sum(&W.wq.cond, sizeof(W.wq.cond)), P(W.wq.context))));
	ONE("ibv_create_wq provider fails",
	    memset(&W.wq, 0xAA, sizeof(W.wq)); g_ret = -1,
	    (RP(ibv_create_wq(CTX, &W.wq_attr)),
	     say("  sum=%lu\n", sum(&W.wq, sizeof(W.wq)))));
}

static void t_create_srq_qp_ex(void)
{
	uint32_t mask;
	int t;
	char label[96];

	FN("ibv_create_srq_ex");
	for (mask = 0; mask < 64; mask++)
		for (t = 0; t < 3; t++) {
			snprintf(label, sizeof(label),
				 "ibv_create_srq_ex mask=0x%x type=%d", mask, t);
			VOP(label, create_srq_ex,
			    W.srq_attr.comp_mask = mask;
			    W.srq_attr.srq_type = (enum ibv_srq_type)t;
			    W.srq_attr.pd = &W.pd2,
			    RP(ibv_create_srq_ex(CTX, &W.srq_attr)));
		}
	ONE("ibv_create_srq_ex mask=0x80000001", W.srq_attr.comp_mask = 0x80000001u;
	    W.srq_attr.pd = &W.pd, RP(ibv_create_srq_ex(CTX, &W.srq_attr)));

	FN("ibv_create_qp_ex");
	for (mask = 0; mask < 0x800; mask = mask ? mask << 1 : 1) {
		uint32_t extra;

		for (extra = 0; extra < 2; extra++) {
			snprintf(label, sizeof(label),
				 "ibv_create_qp_ex mask=0x%x", mask | extra);
			VOP(label, create_qp_ex,
			    W.qp_attr.comp_mask = mask | extra;
			    W.qp_attr.pd = &W.pd2,
			    RP(ibv_create_qp_ex(CTX, &W.qp_attr)));
		}
	}
}

/* Flags only known at run time: must take the ibv_reg_mr_iova2 path. */
static unsigned int runtime_access(unsigned int a)
{
	volatile unsigned int v = a;

	return v;
}

static void t_reg_mr(void)
{
	unsigned int acc;

	FN("ibv_reg_mr (macro) / __ibv_reg_mr");
	ONE("ibv_reg_mr const plain", ,
	    RP(ibv_reg_mr(&W.pd, W.buf, 4096, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ)));
	ONE("ibv_reg_mr const 0", , RP(ibv_reg_mr(&W.pd, W.buf + 8, 1, 0)));
	ONE("ibv_reg_mr const optional", ,
	    RP(ibv_reg_mr(&W.pd, W.buf, 4096, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_RELAXED_ORDERING)));
	ONE("ibv_reg_mr const bit29", , RP(ibv_reg_mr(&W.pd, W.buf, 4096, 1 << 29)));
	ONE("ibv_reg_mr const bit30", , RP(ibv_reg_mr(&W.pd, W.buf, 4096, 1 << 30)));
	acc = runtime_access(IBV_ACCESS_LOCAL_WRITE);
	ONE("ibv_reg_mr runtime plain", , RP(ibv_reg_mr(&W.pd, W.buf, 64, acc)));
	acc = runtime_access(IBV_ACCESS_RELAXED_ORDERING);
	ONE("ibv_reg_mr runtime optional", , RP(ibv_reg_mr(&W.pd, W.buf, 64, acc)));
	ONE("__ibv_reg_mr is_const=1", , RP(__ibv_reg_mr(&W.pd, W.buf, 5, 0x7, 1)));
	ONE("__ibv_reg_mr is_const=0", , RP(__ibv_reg_mr(&W.pd, W.buf, 5, 0x7, 0)));
	ONE("__ibv_reg_mr is_const=1 optional", , RP(__ibv_reg_mr(&W.pd, W.buf, 5, 0x100007, 1)));
	ONE("__ibv_reg_mr is_const=2", , RP(__ibv_reg_mr(&W.pd, W.buf, 5, 0x7, 2)));

	FN("ibv_reg_mr_iova (macro) / __ibv_reg_mr_iova");
	ONE("ibv_reg_mr_iova const plain", ,
	    RP(ibv_reg_mr_iova(&W.pd, W.buf, 4096, (uintptr_t)W.buf + 0x100, IBV_ACCESS_REMOTE_WRITE)));
	ONE("ibv_reg_mr_iova const optional", ,
	    RP(ibv_reg_mr_iova(&W.pd, W.buf, 4096, (uintptr_t)&W, IBV_ACCESS_RELAXED_ORDERING)));
	acc = runtime_access(0);
	ONE("ibv_reg_mr_iova runtime", ,
	    RP(ibv_reg_mr_iova(&W.pd, W.buf, 4096, (uintptr_t)&W + 5, acc)));
	ONE("__ibv_reg_mr_iova is_const=1", ,
	    RP(__ibv_reg_mr_iova(&W.pd, W.buf, 3, (uintptr_t)&W + 1, 0x1, 1)));
	ONE("__ibv_reg_mr_iova is_const=0", ,
	    RP(__ibv_reg_mr_iova(&W.pd, W.buf, 3, (uintptr_t)&W + 1, 0x1, 0)));
	ONE("__ibv_reg_mr_iova is_const=1 optional", ,
	    RP(__ibv_reg_mr_iova(&W.pd, W.buf, 3, (uintptr_t)&W + 1, 0x20000001, 1)));
}

#ifdef RDMA_STATIC_PROVIDERS
static void t_static_providers(void)
{
	int n = 0;

	FN("__ibv_get_device_list / ibv_get_device_list (macro)");
	ONE("ibv_get_device_list", , RP(ibv_get_device_list(&n)));
	say("n=%d\n", n);
	ONE("__ibv_get_device_list", , RP(__ibv_get_device_list(NULL)));
}
#endif

int main(void)
{
	setvbuf(stdout, NULL, _IOFBF, 1 << 16);
	t_wr();
	t_cq_ex();
	t_legacy_ops();
	t_bind_mw();
	t_scalars();
	t_ctx();
	t_query();
	t_vops();
	t_create_wq();
	t_create_srq_qp_ex();
	t_reg_mr();
#ifdef RDMA_STATIC_PROVIDERS
	t_static_providers();
#endif
	return 0;
}
