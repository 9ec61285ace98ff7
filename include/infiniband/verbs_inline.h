/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * <infiniband/verbs_inline.h> for libibverbs-rs.
 *
 * The part of the verbs API that rdma-core 44 provides as code in the
 * header rather than as library symbols: static inline wrappers and
 * function-like macros.  The generated <infiniband/verbs.h> holds every
 * type, constant and exported prototype and includes this file last.
 *
 * These wrappers are compiled into the application, so they are ABI: a
 * program built against this header and one built against Debian's must
 * reach the same provider op, through the same table, with the same
 * arguments, and report a missing op the same way.  Two tables exist:
 *  - struct ibv_context_ops (context->ops), the original fixed table;
 *  - struct verbs_context, which the library places in memory right before
 *    struct ibv_context.  Its ops are valid only when the context carries
 *    the "extended" sentinel in abi_compat and the op lies inside the part
 *    of the struct the provider declared with verbs_context->sz.
 * Error conventions are per function and deliberately not uniform:
 * int-returning calls return the errno value, pointer-returning calls set
 * errno and return NULL, a few legacy ops are called without any check.
 */
#ifndef INFINIBAND_VERBS_INLINE_H
#define INFINIBAND_VERBS_INLINE_H

#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>

#ifdef __cplusplus
/* extern "C++" keeps <limits> valid even if this file ends up included
 * inside the generated header's extern "C" block. */
extern "C++" {
#include <limits>
}
extern "C" {
#endif

/* Object-like names rdma-core's verbs.h also defines; normally the
 * generated verbs.h has them already. */
#ifndef __VERBS_ABI_IS_EXTENDED
#ifdef __cplusplus
#define __VERBS_ABI_IS_EXTENDED ((void *)std::numeric_limits<uintptr_t>::max())
#else
#define __VERBS_ABI_IS_EXTENDED ((void *)UINTPTR_MAX)
#endif
#endif

/* Allocator callbacks of a parent domain may return this to ask for the
 * library's own allocation. */
#ifndef IBV_ALLOCATOR_USE_DEFAULT
#define IBV_ALLOCATOR_USE_DEFAULT ((void *)-1)
#endif

#ifndef ETHERNET_LL_SIZE
#define ETHERNET_LL_SIZE 6
#endif

#ifndef IB_ROCE_UDP_ENCAP_VALID_PORT_MIN
#define IB_ROCE_UDP_ENCAP_VALID_PORT_MIN (0xC000)
#endif

/* True when a struct of (provider-reported) size sz reaches field fld. */
#define vext_field_avail(type, fld, sz) (offsetof(type, fld) < (sz))

/* ------------------------------------------------------------------------
 * Extended context lookup
 */

/* The verbs_context wrapping ctx, or NULL for a context that predates it. */
static inline struct verbs_context *verbs_get_ctx(struct ibv_context *ctx)
{
	uint8_t *base;

	if (ctx->abi_compat == __VERBS_ABI_IS_EXTENDED) {
		/* struct ibv_context is the last member of verbs_context */
		base = (uint8_t *)ctx - offsetof(struct verbs_context, context);
		return (struct verbs_context *)base;
	}
	return NULL;
}

/*
 * The verbs_context of ctx if it has a usable entry `op`, else NULL.  The
 * op must fall within the first vctx->sz bytes counted back from the
 * embedded ibv_context (older providers allocated shorter structs), and
 * must be set.  A statement expression because `op` is a member name.
 */
#define verbs_get_ctx_op(ctx, op)                                              \
	({                                                                     \
		struct verbs_context *__ibv_vc = verbs_get_ctx(ctx);           \
		if (__ibv_vc &&                                                \
		    (__ibv_vc->sz < sizeof(*__ibv_vc) -                        \
				    offsetof(struct verbs_context, op) ||      \
		     !__ibv_vc->op))                                           \
			__ibv_vc = NULL;                                       \
		__ibv_vc;                                                      \
	})

/* ------------------------------------------------------------------------
 * Extended QP work request builders: direct calls into ibv_qp_ex.
 */

static inline void ibv_wr_atomic_cmp_swp(struct ibv_qp_ex *qp, uint32_t rkey,
					 uint64_t remote_addr,
					 uint64_t compare, uint64_t swap)
{
	qp->wr_atomic_cmp_swp(qp, rkey, remote_addr, compare, swap);
}

static inline void ibv_wr_atomic_fetch_add(struct ibv_qp_ex *qp,
					   uint32_t rkey,
					   uint64_t remote_addr, uint64_t add)
{
	qp->wr_atomic_fetch_add(qp, rkey, remote_addr, add);
}

static inline void ibv_wr_bind_mw(struct ibv_qp_ex *qp, struct ibv_mw *mw,
				  uint32_t rkey,
				  const struct ibv_mw_bind_info *bind_info)
{
	qp->wr_bind_mw(qp, mw, rkey, bind_info);
}

static inline void ibv_wr_local_inv(struct ibv_qp_ex *qp,
				    uint32_t invalidate_rkey)
{
	qp->wr_local_inv(qp, invalidate_rkey);
}

static inline void ibv_wr_rdma_read(struct ibv_qp_ex *qp, uint32_t rkey,
				    uint64_t remote_addr)
{
	qp->wr_rdma_read(qp, rkey, remote_addr);
}

static inline void ibv_wr_rdma_write(struct ibv_qp_ex *qp, uint32_t rkey,
				     uint64_t remote_addr)
{
	qp->wr_rdma_write(qp, rkey, remote_addr);
}

static inline void ibv_wr_rdma_write_imm(struct ibv_qp_ex *qp, uint32_t rkey,
					 uint64_t remote_addr, __be32 imm_data)
{
	qp->wr_rdma_write_imm(qp, rkey, remote_addr, imm_data);
}

static inline void ibv_wr_send(struct ibv_qp_ex *qp)
{
	qp->wr_send(qp);
}

static inline void ibv_wr_send_imm(struct ibv_qp_ex *qp, __be32 imm_data)
{
	qp->wr_send_imm(qp, imm_data);
}

static inline void ibv_wr_send_inv(struct ibv_qp_ex *qp,
				   uint32_t invalidate_rkey)
{
	qp->wr_send_inv(qp, invalidate_rkey);
}

static inline void ibv_wr_send_tso(struct ibv_qp_ex *qp, void *hdr,
				   uint16_t hdr_sz, uint16_t mss)
{
	qp->wr_send_tso(qp, hdr, hdr_sz, mss);
}

static inline void ibv_wr_set_ud_addr(struct ibv_qp_ex *qp, struct ibv_ah *ah,
				      uint32_t remote_qpn,
				      uint32_t remote_qkey)
{
	qp->wr_set_ud_addr(qp, ah, remote_qpn, remote_qkey);
}

static inline void ibv_wr_set_xrc_srqn(struct ibv_qp_ex *qp,
				       uint32_t remote_srqn)
{
	qp->wr_set_xrc_srqn(qp, remote_srqn);
}

static inline void ibv_wr_set_inline_data(struct ibv_qp_ex *qp, void *addr,
					  size_t length)
{
	qp->wr_set_inline_data(qp, addr, length);
}

static inline void
ibv_wr_set_inline_data_list(struct ibv_qp_ex *qp, size_t num_buf,
			    const struct ibv_data_buf *buf_list)
{
	qp->wr_set_inline_data_list(qp, num_buf, buf_list);
}

static inline void ibv_wr_set_sge(struct ibv_qp_ex *qp, uint32_t lkey,
				  uint64_t addr, uint32_t length)
{
	qp->wr_set_sge(qp, lkey, addr, length);
}

static inline void ibv_wr_set_sge_list(struct ibv_qp_ex *qp, size_t num_sge,
				       const struct ibv_sge *sg_list)
{
	qp->wr_set_sge_list(qp, num_sge, sg_list);
}

static inline void ibv_wr_start(struct ibv_qp_ex *qp)
{
	qp->wr_start(qp);
}

static inline int ibv_wr_complete(struct ibv_qp_ex *qp)
{
	return qp->wr_complete(qp);
}

static inline void ibv_wr_abort(struct ibv_qp_ex *qp)
{
	qp->wr_abort(qp);
}

static inline void ibv_wr_atomic_write(struct ibv_qp_ex *qp, uint32_t rkey,
				       uint64_t remote_addr,
				       const void *atomic_wr)
{
	qp->wr_atomic_write(qp, rkey, remote_addr, atomic_wr);
}

/* rdma-core 64: RDMA FLUSH (type: enum ibv_placement_type, level: enum
 * ibv_selectivity_level). */
static inline void ibv_wr_flush(struct ibv_qp_ex *qp, uint32_t rkey,
				uint64_t remote_addr, size_t len, uint8_t type,
				uint8_t level)
{
	qp->wr_flush(qp, rkey, remote_addr, len, type, level);
}

/* ------------------------------------------------------------------------
 * Extended CQ polling: direct calls into ibv_cq_ex.
 */

/* ibv_cq_ex starts with the members of ibv_cq, so the cast is valid. */
static inline struct ibv_cq *ibv_cq_ex_to_cq(struct ibv_cq_ex *cq)
{
	return (struct ibv_cq *)cq;
}

static inline int ibv_start_poll(struct ibv_cq_ex *cq,
				 struct ibv_poll_cq_attr *attr)
{
	return cq->start_poll(cq, attr);
}

static inline int ibv_next_poll(struct ibv_cq_ex *cq)
{
	return cq->next_poll(cq);
}

static inline void ibv_end_poll(struct ibv_cq_ex *cq)
{
	cq->end_poll(cq);
}

static inline enum ibv_wc_opcode ibv_wc_read_opcode(struct ibv_cq_ex *cq)
{
	return cq->read_opcode(cq);
}

static inline uint32_t ibv_wc_read_vendor_err(struct ibv_cq_ex *cq)
{
	return cq->read_vendor_err(cq);
}

static inline uint32_t ibv_wc_read_byte_len(struct ibv_cq_ex *cq)
{
	return cq->read_byte_len(cq);
}

static inline __be32 ibv_wc_read_imm_data(struct ibv_cq_ex *cq)
{
	return cq->read_imm_data(cq);
}

/* The invalidated rkey shares the immediate-data slot of the completion;
 * it is returned as is (no byte swap).  The cast only quiets sparse. */
static inline uint32_t ibv_wc_read_invalidated_rkey(struct ibv_cq_ex *cq)
{
	__be32 slot = cq->read_imm_data(cq);

#ifdef __CHECKER__
	return (__attribute__((force)) uint32_t)slot;
#else
	return slot;
#endif
}

static inline uint32_t ibv_wc_read_qp_num(struct ibv_cq_ex *cq)
{
	return cq->read_qp_num(cq);
}

static inline uint32_t ibv_wc_read_src_qp(struct ibv_cq_ex *cq)
{
	return cq->read_src_qp(cq);
}

static inline unsigned int ibv_wc_read_wc_flags(struct ibv_cq_ex *cq)
{
	return cq->read_wc_flags(cq);
}

static inline uint32_t ibv_wc_read_slid(struct ibv_cq_ex *cq)
{
	return cq->read_slid(cq);
}

static inline uint8_t ibv_wc_read_sl(struct ibv_cq_ex *cq)
{
	return cq->read_sl(cq);
}

static inline uint8_t ibv_wc_read_dlid_path_bits(struct ibv_cq_ex *cq)
{
	return cq->read_dlid_path_bits(cq);
}

static inline uint64_t ibv_wc_read_completion_ts(struct ibv_cq_ex *cq)
{
	return cq->read_completion_ts(cq);
}

static inline uint64_t
ibv_wc_read_completion_wallclock_ns(struct ibv_cq_ex *cq)
{
	return cq->read_completion_wallclock_ns(cq);
}

static inline uint16_t ibv_wc_read_cvlan(struct ibv_cq_ex *cq)
{
	return cq->read_cvlan(cq);
}

static inline uint32_t ibv_wc_read_flow_tag(struct ibv_cq_ex *cq)
{
	return cq->read_flow_tag(cq);
}

static inline void ibv_wc_read_tm_info(struct ibv_cq_ex *cq,
				       struct ibv_wc_tm_info *tm_info)
{
	cq->read_tm_info(cq, tm_info);
}

/* ------------------------------------------------------------------------
 * Data path through the legacy context->ops table (no NULL checks: these
 * ops are mandatory for every provider).
 */

static inline int ibv_post_wq_recv(struct ibv_wq *wq,
				   struct ibv_recv_wr *recv_wr,
				   struct ibv_recv_wr **bad_recv_wr)
{
	return wq->post_recv(wq, recv_wr, bad_recv_wr);
}

/*
 * NULL objects.  rdma-core's inlines dereference the object before the
 * library is reached, so a NULL CQ, QP or SRQ crashes the caller there and
 * no check inside the library can help.  These inlines check first and
 * answer with the call's own error convention (EINVAL): the libibverbs
 * promise of a clear error for bad input has to start in the header.  The
 * price is one compare of a pointer already in a register, predicted
 * not-taken, on paths of hundreds of instructions.  It only covers NULL: a
 * dangling or forged pointer is still dereferenced here (the library
 * checks what it is handed).  Programs built against Debian's header keep
 * Debian's behaviour.
 */
static inline int ibv_poll_cq(struct ibv_cq *cq, int num_entries,
			      struct ibv_wc *wc)
{
	if (cq == NULL) {
		errno = EINVAL;
		return -1;
	}
	return cq->context->ops.poll_cq(cq, num_entries, wc);
}

static inline int ibv_req_notify_cq(struct ibv_cq *cq, int solicited_only)
{
	if (cq == NULL)
		return EINVAL;
	return cq->context->ops.req_notify_cq(cq, solicited_only);
}

static inline int ibv_post_srq_recv(struct ibv_srq *srq,
				    struct ibv_recv_wr *recv_wr,
				    struct ibv_recv_wr **bad_recv_wr)
{
	if (srq == NULL) {
		if (bad_recv_wr)
			*bad_recv_wr = recv_wr;
		return EINVAL;
	}
	return srq->context->ops.post_srq_recv(srq, recv_wr, bad_recv_wr);
}

static inline int ibv_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
				struct ibv_send_wr **bad_wr)
{
	if (qp == NULL) {
		if (bad_wr)
			*bad_wr = wr;
		return EINVAL;
	}
	return qp->context->ops.post_send(qp, wr, bad_wr);
}

static inline int ibv_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr,
				struct ibv_recv_wr **bad_wr)
{
	if (qp == NULL) {
		if (bad_wr)
			*bad_wr = wr;
		return EINVAL;
	}
	return qp->context->ops.post_recv(qp, wr, bad_wr);
}

/* ------------------------------------------------------------------------
 * Device, port and GID queries
 */

/*
 * ibv_query_port() is a macro so that a program's sizeof(struct
 * ibv_port_attr) travels with the call.  Contexts without the extended op
 * fall back to the exported ibv_query_port() symbol, which only knows the
 * older, shorter struct: zero the whole struct first so the newer tail
 * reads as 0.  (The exported name is called here before the macro exists.)
 */
static inline int ___ibv_query_port(struct ibv_context *context,
				    uint8_t port_num,
				    struct ibv_port_attr *port_attr)
{
	struct verbs_context *vctx;

	/* rdma-core would crash on these; a clear error is cheap here. */
	if (context == NULL || port_attr == NULL)
		return EINVAL;
	vctx = verbs_get_ctx_op(context, query_port);
	if (vctx)
		return vctx->query_port(context, port_num, port_attr,
					sizeof(*port_attr));

	memset(port_attr, 0, sizeof(*port_attr));
	return ibv_query_port(context, port_num,
			      (struct _compat_ibv_port_attr *)port_attr);
}

#define ibv_query_port(context, port_num, port_attr)                           \
	___ibv_query_port(context, port_num, port_attr)

/* Both pass the caller's entry size so the library can grow the struct. */
static inline int ibv_query_gid_ex(struct ibv_context *context,
				   uint32_t port_num, uint32_t gid_index,
				   struct ibv_gid_entry *entry, uint32_t flags)
{
	return _ibv_query_gid_ex(context, port_num, gid_index, entry, flags,
				 sizeof(*entry));
}

static inline ssize_t ibv_query_gid_table(struct ibv_context *context,
					  struct ibv_gid_entry *entries,
					  size_t max_entries, uint32_t flags)
{
	return _ibv_query_gid_table(context, entries, max_entries, flags,
				    sizeof(*entries));
}

/*
 * Input comp_mask bits are all reserved: any set bit is EINVAL.  If the
 * provider has no extended query, or says it cannot do it (EOPNOTSUPP or
 * ENOSYS), answer with the basic attributes and a zeroed extension.
 */
static inline int
ibv_query_device_ex(struct ibv_context *context,
		    const struct ibv_query_device_ex_input *input,
		    struct ibv_device_attr_ex *attr)
{
	struct verbs_context *vctx;
	int rc;

	if (input != NULL && input->comp_mask != 0)
		return EINVAL;
	/* rdma-core would crash on these; a clear error is cheap here. */
	if (context == NULL || attr == NULL)
		return EINVAL;

	vctx = verbs_get_ctx_op(context, query_device_ex);
	if (vctx) {
		rc = vctx->query_device_ex(context, input, attr,
					   sizeof(*attr));
		if (rc != EOPNOTSUPP && rc != ENOSYS)
			return rc;
	}

	memset(attr, 0, sizeof(*attr));
	return ibv_query_device(context, &attr->orig_attr);
}

static inline int ibv_query_rt_values_ex(struct ibv_context *context,
					 struct ibv_values_ex *values)
{
	struct verbs_context *vctx = verbs_get_ctx_op(context, query_rt_values);

	return vctx ? vctx->query_rt_values(context, values) : EOPNOTSUPP;
}

/* ------------------------------------------------------------------------
 * Flow steering and flow actions
 */

static inline struct ibv_flow *ibv_create_flow(struct ibv_qp *qp,
					       struct ibv_flow_attr *flow)
{
	struct verbs_context *vctx =
		verbs_get_ctx_op(qp->context, ibv_create_flow);

	if (vctx)
		return vctx->ibv_create_flow(qp, flow);
	errno = EOPNOTSUPP;
	return NULL;
}

static inline int ibv_destroy_flow(struct ibv_flow *flow_id)
{
	struct verbs_context *vctx =
		verbs_get_ctx_op(flow_id->context, ibv_destroy_flow);

	return vctx ? vctx->ibv_destroy_flow(flow_id) : EOPNOTSUPP;
}

static inline struct ibv_flow_action *
ibv_create_flow_action_esp(struct ibv_context *ctx,
			   struct ibv_flow_action_esp_attr *esp)
{
	struct verbs_context *vctx =
		verbs_get_ctx_op(ctx, create_flow_action_esp);

	if (vctx)
		return vctx->create_flow_action_esp(ctx, esp);
	errno = EOPNOTSUPP;
	return NULL;
}

static inline int
ibv_modify_flow_action_esp(struct ibv_flow_action *action,
			   struct ibv_flow_action_esp_attr *esp)
{
	struct verbs_context *vctx =
		verbs_get_ctx_op(action->context, modify_flow_action_esp);

	return vctx ? vctx->modify_flow_action_esp(action, esp) : EOPNOTSUPP;
}

static inline int ibv_destroy_flow_action(struct ibv_flow_action *action)
{
	struct verbs_context *vctx =
		verbs_get_ctx_op(action->context, destroy_flow_action);

	return vctx ? vctx->destroy_flow_action(action) : EOPNOTSUPP;
}

/* ------------------------------------------------------------------------
 * XRC domains
 */

static inline struct ibv_xrcd *
ibv_open_xrcd(struct ibv_context *context,
	      struct ibv_xrcd_init_attr *xrcd_init_attr)
{
	struct verbs_context *vctx = verbs_get_ctx_op(context, open_xrcd);

	if (vctx)
		return vctx->open_xrcd(context, xrcd_init_attr);
	errno = EOPNOTSUPP;
	return NULL;
}

/* An XRCD exists only if open_xrcd worked, so the op is not re-checked. */
static inline int ibv_close_xrcd(struct ibv_xrcd *xrcd)
{
	return verbs_get_ctx(xrcd->context)->close_xrcd(xrcd);
}

/* ------------------------------------------------------------------------
 * Memory registration
 *
 * ibv_reg_mr()/ibv_reg_mr_iova() are macros.  When the access flags are a
 * compile-time constant with no optional bit, the call goes to the classic
 * exported function; otherwise (optional bits, or flags only known at run
 * time) it goes to ibv_reg_mr_iova2(), which knows how to drop optional
 * bits an old kernel rejects.  ibv_reg_mr() uses the buffer address as iova.
 */

__attribute__((__always_inline__)) static inline struct ibv_mr *
__ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
	     unsigned int access, int is_access_const)
{
	int classic = is_access_const &&
		      (access & IBV_ACCESS_OPTIONAL_RANGE) == 0;

	if (!classic)
		return ibv_reg_mr_iova2(pd, addr, length, (uintptr_t)addr,
					access);
	return ibv_reg_mr(pd, addr, length, (int)access);
}

__attribute__((__always_inline__)) static inline struct ibv_mr *
__ibv_reg_mr_iova(struct ibv_pd *pd, void *addr, size_t length,
		  uint64_t iova, unsigned int access, int is_access_const)
{
	int classic = is_access_const &&
		      (access & IBV_ACCESS_OPTIONAL_RANGE) == 0;

	if (!classic)
		return ibv_reg_mr_iova2(pd, addr, length, iova, access);
	return ibv_reg_mr_iova(pd, addr, length, iova, (int)access);
}

/* "Constant" means the optional-bits test folds at compile time. */
#define ibv_reg_mr(pd, addr, length, access)                                   \
	__ibv_reg_mr(pd, addr, length, access,                                 \
		     __builtin_constant_p(((access) &                          \
					   IBV_ACCESS_OPTIONAL_RANGE) == 0))

#define ibv_reg_mr_iova(pd, addr, length, iova, access)                        \
	__ibv_reg_mr_iova(pd, addr, length, iova, access,                      \
			  __builtin_constant_p(((access) &                     \
						IBV_ACCESS_OPTIONAL_RANGE) == 0))

static inline struct ibv_mr *ibv_alloc_null_mr(struct ibv_pd *pd)
{
	struct verbs_context *vctx =
		verbs_get_ctx_op(pd->context, alloc_null_mr);

	if (vctx)
		return vctx->alloc_null_mr(pd);
	errno = EOPNOTSUPP;
	return NULL;
}

static inline int ibv_advise_mr(struct ibv_pd *pd,
				enum ibv_advise_mr_advice advice,
				uint32_t flags, struct ibv_sge *sg_list,
				uint32_t num_sge)
{
	struct verbs_context *vctx = verbs_get_ctx_op(pd->context, advise_mr);

	if (!vctx)
		return EOPNOTSUPP;
	return vctx->advise_mr(pd, advice, flags, sg_list, num_sge);
}

/* ------------------------------------------------------------------------
 * Memory windows (legacy ops table)
 */

static inline struct ibv_mw *ibv_alloc_mw(struct ibv_pd *pd,
					  enum ibv_mw_type type)
{
	/* A NULL PD: see ibv_poll_cq. */
	if (pd == NULL) {
		errno = EINVAL;
		return NULL;
	}
	if (pd->context->ops.alloc_mw == NULL) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	return pd->context->ops.alloc_mw(pd, type);
}

static inline int ibv_dealloc_mw(struct ibv_mw *mw)
{
	return mw->context->ops.dealloc_mw(mw);
}

/* Bump the 8-bit key portion (low byte) of an rkey, wrapping at 0xff,
 * leaving the 24-bit index untouched. */
static inline uint32_t ibv_inc_rkey(uint32_t rkey)
{
	uint32_t key = (rkey + 1) & 0xffu;

	return (rkey & 0xffffff00u) | key;
}

/*
 * Type 1 windows only (type 2 are bound with a work request).  Without an
 * MR the bind means "unbind" and must describe an empty range; with one,
 * the MR must belong to the window's PD.
 */
static inline int ibv_bind_mw(struct ibv_qp *qp, struct ibv_mw *mw,
			      struct ibv_mw_bind *mw_bind)
{
	const struct ibv_mw_bind_info *info = &mw_bind->bind_info;

	if (mw->type != IBV_MW_TYPE_1)
		return EINVAL;
	if (info->mr == NULL) {
		if (info->addr != 0 || info->length != 0)
			return EINVAL;
	} else if (info->mr->pd != mw->pd) {
		return EPERM;
	}
	return mw->context->ops.bind_mw(qp, mw, mw_bind);
}

/* ------------------------------------------------------------------------
 * Device memory
 */

static inline struct ibv_dm *ibv_alloc_dm(struct ibv_context *context,
					  struct ibv_alloc_dm_attr *attr)
{
	struct verbs_context *vctx = verbs_get_ctx_op(context, alloc_dm);

	if (vctx)
		return vctx->alloc_dm(context, attr);
	errno = EOPNOTSUPP;
	return NULL;
}

static inline int ibv_free_dm(struct ibv_dm *dm)
{
	struct verbs_context *vctx = verbs_get_ctx_op(dm->context, free_dm);

	return vctx ? vctx->free_dm(dm) : EOPNOTSUPP;
}

static inline int ibv_memcpy_to_dm(struct ibv_dm *dm, uint64_t dm_offset,
				   const void *host_addr, size_t length)
{
	return dm->memcpy_to_dm(dm, dm_offset, host_addr, length);
}

static inline int ibv_memcpy_from_dm(void *host_addr, struct ibv_dm *dm,
				     uint64_t dm_offset, size_t length)
{
	return dm->memcpy_from_dm(host_addr, dm, dm_offset, length);
}

static inline struct ibv_mr *ibv_reg_dm_mr(struct ibv_pd *pd,
					   struct ibv_dm *dm,
					   uint64_t dm_offset, size_t length,
					   unsigned int access)
{
	struct verbs_context *vctx = verbs_get_ctx_op(pd->context, reg_dm_mr);

	if (vctx)
		return vctx->reg_dm_mr(pd, dm, dm_offset, length, access);
	errno = EOPNOTSUPP;
	return NULL;
}

/* ------------------------------------------------------------------------
 * CQs, SRQs, QPs
 */

static inline struct ibv_cq_ex *
ibv_create_cq_ex(struct ibv_context *context,
		 struct ibv_cq_init_attr_ex *cq_attr)
{
	struct verbs_context *vctx = verbs_get_ctx_op(context, create_cq_ex);

	if (vctx)
		return vctx->create_cq_ex(context, cq_attr);
	errno = EOPNOTSUPP;
	return NULL;
}

static inline int ibv_modify_cq(struct ibv_cq *cq,
				struct ibv_modify_cq_attr *attr)
{
	struct verbs_context *vctx = verbs_get_ctx_op(cq->context, modify_cq);

	return vctx ? vctx->modify_cq(cq, attr) : EOPNOTSUPP;
}

/* The caller's struct size goes with the call, so a newer struct is zeroed whole. */
static inline int ibv_query_comp_cntr_caps(struct ibv_context *context,
					   struct ibv_comp_cntr_caps *caps)
{
	return _ibv_query_comp_cntr_caps(context, caps, sizeof(*caps));
}

/*
 * A request that only names the PD (and at most says "basic SRQ") is a
 * plain ibv_create_srq(); the leading members of the _ex attr line up with
 * struct ibv_srq_init_attr.  Anything else needs the extended op.
 */
static inline struct ibv_srq *
ibv_create_srq_ex(struct ibv_context *context,
		  struct ibv_srq_init_attr_ex *srq_init_attr_ex)
{
	const uint32_t plain_bits =
		(uint32_t)(IBV_SRQ_INIT_ATTR_PD | IBV_SRQ_INIT_ATTR_TYPE);
	uint32_t mask = srq_init_attr_ex->comp_mask;
	struct verbs_context *vctx;
	int plain;

	plain = (mask & ~plain_bits) == 0 && (mask & IBV_SRQ_INIT_ATTR_PD) &&
		(!(mask & IBV_SRQ_INIT_ATTR_TYPE) ||
		 srq_init_attr_ex->srq_type == IBV_SRQT_BASIC);
	if (plain)
		return ibv_create_srq(
			srq_init_attr_ex->pd,
			(struct ibv_srq_init_attr *)srq_init_attr_ex);

	vctx = verbs_get_ctx_op(context, create_srq_ex);
	if (vctx)
		return vctx->create_srq_ex(context, srq_init_attr_ex);
	errno = EOPNOTSUPP;
	return NULL;
}

static inline int ibv_get_srq_num(struct ibv_srq *srq, uint32_t *srq_num)
{
	struct verbs_context *vctx =
		verbs_get_ctx_op(srq->context, get_srq_num);

	return vctx ? vctx->get_srq_num(srq, srq_num) : EOPNOTSUPP;
}

/* On failure the first op is reported as the bad one. */
static inline int ibv_post_srq_ops(struct ibv_srq *srq, struct ibv_ops_wr *op,
				   struct ibv_ops_wr **bad_op)
{
	struct verbs_context *vctx =
		verbs_get_ctx_op(srq->context, post_srq_ops);

	if (vctx)
		return vctx->post_srq_ops(srq, op, bad_op);
	*bad_op = op;
	return EOPNOTSUPP;
}

/* comp_mask == PD exactly is a plain ibv_create_qp() (the attr prefix of
 * the _ex struct is struct ibv_qp_init_attr). */
static inline struct ibv_qp *
ibv_create_qp_ex(struct ibv_context *context,
		 struct ibv_qp_init_attr_ex *qp_init_attr_ex)
{
	struct verbs_context *vctx;

	if (qp_init_attr_ex->comp_mask == IBV_QP_INIT_ATTR_PD)
		return ibv_create_qp(
			qp_init_attr_ex->pd,
			(struct ibv_qp_init_attr *)qp_init_attr_ex);

	vctx = verbs_get_ctx_op(context, create_qp_ex);
	if (vctx)
		return vctx->create_qp_ex(context, qp_init_attr_ex);
	errno = EOPNOTSUPP;
	return NULL;
}

static inline struct ibv_qp *ibv_open_qp(struct ibv_context *context,
					 struct ibv_qp_open_attr *qp_open_attr)
{
	struct verbs_context *vctx = verbs_get_ctx_op(context, open_qp);

	if (vctx)
		return vctx->open_qp(context, qp_open_attr);
	errno = EOPNOTSUPP;
	return NULL;
}

static inline int ibv_modify_qp_rate_limit(struct ibv_qp *qp,
					   struct ibv_qp_rate_limit_attr *attr)
{
	struct verbs_context *vctx =
		verbs_get_ctx_op(qp->context, modify_qp_rate_limit);

	return vctx ? vctx->modify_qp_rate_limit(qp, attr) : EOPNOTSUPP;
}

/* caps holds one bit per enum ibv_qp_type value. */
static inline int ibv_is_qpt_supported(uint32_t caps, enum ibv_qp_type qpt)
{
	return (caps & (1 << qpt)) != 0;
}

/* ------------------------------------------------------------------------
 * Thread domains and parent domains
 */

static inline struct ibv_td *ibv_alloc_td(struct ibv_context *context,
					  struct ibv_td_init_attr *init_attr)
{
	struct verbs_context *vctx = verbs_get_ctx_op(context, alloc_td);

	if (vctx)
		return vctx->alloc_td(context, init_attr);
	errno = EOPNOTSUPP;
	return NULL;
}

static inline int ibv_dealloc_td(struct ibv_td *td)
{
	struct verbs_context *vctx = verbs_get_ctx_op(td->context, dealloc_td);

	return vctx ? vctx->dealloc_td(td) : EOPNOTSUPP;
}

static inline struct ibv_pd *
ibv_alloc_parent_domain(struct ibv_context *context,
			struct ibv_parent_domain_init_attr *attr)
{
	struct verbs_context *vctx =
		verbs_get_ctx_op(context, alloc_parent_domain);

	if (vctx)
		return vctx->alloc_parent_domain(context, attr);
	errno = EOPNOTSUPP;
	return NULL;
}

/* ------------------------------------------------------------------------
 * Work queues and RSS indirection tables
 */

/*
 * The provider builds the WQ; the library-owned fields (user cookie,
 * async-event bookkeeping and its lock) are set up here, as the exported
 * CQ/QP/SRQ constructors do for their objects.
 */
static inline struct ibv_wq *ibv_create_wq(struct ibv_context *context,
					   struct ibv_wq_init_attr *wq_init_attr)
{
	struct verbs_context *vctx = verbs_get_ctx_op(context, create_wq);
	struct ibv_wq *wq;

	if (!vctx) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	wq = vctx->create_wq(context, wq_init_attr);
	if (wq == NULL)
		return NULL;
	wq->wq_context = wq_init_attr->wq_context;
	wq->events_completed = 0;
	pthread_mutex_init(&wq->mutex, NULL);
	pthread_cond_init(&wq->cond, NULL);
	return wq;
}

static inline int ibv_modify_wq(struct ibv_wq *wq, struct ibv_wq_attr *wq_attr)
{
	struct verbs_context *vctx = verbs_get_ctx_op(wq->context, modify_wq);

	return vctx ? vctx->modify_wq(wq, wq_attr) : EOPNOTSUPP;
}

static inline int ibv_destroy_wq(struct ibv_wq *wq)
{
	struct verbs_context *vctx = verbs_get_ctx_op(wq->context, destroy_wq);

	return vctx ? vctx->destroy_wq(wq) : EOPNOTSUPP;
}

static inline struct ibv_rwq_ind_table *
ibv_create_rwq_ind_table(struct ibv_context *context,
			 struct ibv_rwq_ind_table_init_attr *init_attr)
{
	struct verbs_context *vctx =
		verbs_get_ctx_op(context, create_rwq_ind_table);

	if (vctx)
		return vctx->create_rwq_ind_table(context, init_attr);
	errno = EOPNOTSUPP;
	return NULL;
}

static inline int
ibv_destroy_rwq_ind_table(struct ibv_rwq_ind_table *rwq_ind_table)
{
	struct verbs_context *vctx =
		verbs_get_ctx_op(rwq_ind_table->context, destroy_rwq_ind_table);

	return vctx ? vctx->destroy_rwq_ind_table(rwq_ind_table) : EOPNOTSUPP;
}

/* ------------------------------------------------------------------------
 * Flow counters
 */

static inline struct ibv_counters *
ibv_create_counters(struct ibv_context *context,
		    struct ibv_counters_init_attr *init_attr)
{
	struct verbs_context *vctx = verbs_get_ctx_op(context, create_counters);

	if (vctx)
		return vctx->create_counters(context, init_attr);
	errno = EOPNOTSUPP;
	return NULL;
}

static inline int ibv_destroy_counters(struct ibv_counters *counters)
{
	struct verbs_context *vctx =
		verbs_get_ctx_op(counters->context, destroy_counters);

	return vctx ? vctx->destroy_counters(counters) : EOPNOTSUPP;
}

static inline int
ibv_attach_counters_point_flow(struct ibv_counters *counters,
			       struct ibv_counter_attach_attr *attr,
			       struct ibv_flow *flow)
{
	struct verbs_context *vctx =
		verbs_get_ctx_op(counters->context, attach_counters_point_flow);

	if (!vctx)
		return EOPNOTSUPP;
	return vctx->attach_counters_point_flow(counters, attr, flow);
}

static inline int ibv_read_counters(struct ibv_counters *counters,
				    uint64_t *counters_value,
				    uint32_t ncounters, uint32_t flags)
{
	struct verbs_context *vctx =
		verbs_get_ctx_op(counters->context, read_counters);

	if (!vctx)
		return EOPNOTSUPP;
	return vctx->read_counters(counters, counters_value, ncounters, flags);
}

/* ------------------------------------------------------------------------
 * RoCE v2 helpers
 */

/*
 * Derive a UDP source port from a 20-bit flow label: fold the top six bits
 * onto the low fourteen and place the result in the 0xC000-0xFFFF range
 * the RoCE v2 spec reserves for this.
 */
static inline uint16_t ibv_flow_label_to_udp_sport(uint32_t fl)
{
	uint32_t low14 = fl & 0x03FFFu;
	uint32_t top6 = (fl & 0xFC000u) >> 14;

	return (uint16_t)((low14 ^ top6) | IB_ROCE_UDP_ENCAP_VALID_PORT_MIN);
}

/* ------------------------------------------------------------------------
 * Static linking: with -DRDMA_STATIC_PROVIDERS=name[,name...] (up to 19
 * names, or "all"), ibv_get_device_list() first registers those providers'
 * descriptors so the linker pulls them in.  Only meaningful with a static
 * libibverbs; a shared libibverbs has no such symbols and the link fails,
 * exactly as with rdma-core.
 */
#ifdef RDMA_STATIC_PROVIDERS
/* Take the first 19 names of the list (padded with "none") and turn each
 * into the address of its provider descriptor. */
#define _RDMA_STATIC_PREFIX_(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11,     \
			     _12, _13, _14, _15, _16, _17, _18, _19, ...)      \
	&verbs_provider_##_1, &verbs_provider_##_2, &verbs_provider_##_3,      \
	&verbs_provider_##_4, &verbs_provider_##_5, &verbs_provider_##_6,      \
	&verbs_provider_##_7, &verbs_provider_##_8, &verbs_provider_##_9,      \
	&verbs_provider_##_10, &verbs_provider_##_11, &verbs_provider_##_12,   \
	&verbs_provider_##_13, &verbs_provider_##_14, &verbs_provider_##_15,   \
	&verbs_provider_##_16, &verbs_provider_##_17, &verbs_provider_##_18,   \
	&verbs_provider_##_19
#define _RDMA_STATIC_PREFIX(arg)                                               \
	_RDMA_STATIC_PREFIX_(arg, none, none, none, none, none, none, none,    \
			     none, none, none, none, none, none, none, none,   \
			     none, none, none)

struct verbs_devices_ops;
struct verbs_device_ops;
extern const struct verbs_device_ops verbs_provider_bnxt_re;
extern const struct verbs_device_ops verbs_provider_cxgb4;
extern const struct verbs_device_ops verbs_provider_efa;
extern const struct verbs_device_ops verbs_provider_erdma;
extern const struct verbs_device_ops verbs_provider_hfi1verbs;
extern const struct verbs_device_ops verbs_provider_hns;
extern const struct verbs_device_ops verbs_provider_ipathverbs;
extern const struct verbs_device_ops verbs_provider_irdma;
extern const struct verbs_device_ops verbs_provider_mana;
extern const struct verbs_device_ops verbs_provider_mlx4;
extern const struct verbs_device_ops verbs_provider_mlx5;
extern const struct verbs_device_ops verbs_provider_mthca;
extern const struct verbs_device_ops verbs_provider_ocrdma;
extern const struct verbs_device_ops verbs_provider_qedr;
extern const struct verbs_device_ops verbs_provider_rxe;
extern const struct verbs_device_ops verbs_provider_siw;
extern const struct verbs_device_ops verbs_provider_vmw_pvrdma;
extern const struct verbs_device_ops verbs_provider_all;
extern const struct verbs_device_ops verbs_provider_none;
void ibv_static_providers(void *unused, ...);

static inline struct ibv_device **__ibv_get_device_list(int *num_devices)
{
	ibv_static_providers(NULL, _RDMA_STATIC_PREFIX(RDMA_STATIC_PROVIDERS),
			     NULL);
	return ibv_get_device_list(num_devices);
}
#define ibv_get_device_list(num_devices) __ibv_get_device_list(num_devices)
#endif /* RDMA_STATIC_PROVIDERS */

#ifdef __cplusplus
}
#endif

#endif /* INFINIBAND_VERBS_INLINE_H */
