/* RDMA FLUSH and ATOMIC WRITE through rdma-core 64's ibv_wr_* API, built
 * against our (rdma-core 64) header, on a loopback RC pair of rxe0.
 * Kernels from 6.2 on (the 6.12 backports VM) carry both in rxe: the data
 * written atomically must land, FLUSH must complete with IBV_WC_FLUSH, and a
 * persistent flush of an MR without persistent-flush access must fail.
 * Older kernels (6.1) refuse the FLUSH access bits at registration (EINVAL)
 * and complete both operations in error, which is what rdma-core 64 gives
 * there too (its rxe encodes the WQE and the kernel judges it).
 * Self-checking: every expectation is a CHECK; the printed lines say which
 * kernel behaviour was seen. */
#include "../dp.h"
#include <sys/utsname.h>

// ctest: no-system

static int kernel_has_flush(void)
{
	struct utsname u;
	int maj = 0, min = 0;

	uname(&u);
	sscanf(u.release, "%d.%d", &maj, &min);
	return maj > 6 || (maj == 6 && min >= 2);
}

static struct ibv_qp *qp_ex(struct dp *d, int side)
{
	struct ibv_qp_init_attr_ex a = {
		.send_cq = d->cq[side],
		.recv_cq = d->cq[side],
		.cap = { .max_send_wr = 16, .max_recv_wr = 16, .max_send_sge = 1,
			 .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = d->pd,
		.send_ops_flags = IBV_QP_EX_WITH_FLUSH | IBV_QP_EX_WITH_ATOMIC_WRITE |
				  IBV_QP_EX_WITH_RDMA_WRITE,
	};

	return ibv_create_qp_ex(d->ctx, &a);
}

static int newk;

/* RESET -> INIT; the responder executes FLUSH only for a QP whose access
 * flags allow it (as rdma-core's own tests set them), where the kernel knows
 * the bits. */
static int to_init(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC,
	};

	if (newk)
		a.qp_access_flags |= IBV_ACCESS_FLUSH_GLOBAL | IBV_ACCESS_FLUSH_PERSISTENT;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
					  IBV_QP_ACCESS_FLAGS);
}

/* A fresh connected pair (an error completion moves a QP to the error state). */
static int pair(struct dp *d)
{
	for (int i = 0; i < 2; i++) {
		if (d->qp[i])
			CHECK(ibv_destroy_qp(d->qp[i]) == 0, "destroy_qp %d", errno);
		d->qp[i] = qp_ex(d, i);
		CHECK(d->qp[i], "create_qp_ex errno %d", errno);
		if (!d->qp[i])
			return -1;
	}
	for (int i = 0; i < 2; i++) {
		CHECK(to_init(d->qp[i]) == 0, "init errno %d", errno);
		CHECK(dp_connect(d, d->qp[i], d->qp[1 - i]->qp_num, 7) == 0, "connect errno %d",
		      errno);
	}
	return 0;
}

static int post_one(struct dp *d, int what, struct ibv_mr *mr, uint64_t off, uint8_t type)
{
	struct ibv_qp_ex *q = ibv_qp_to_qp_ex(d->qp[0]);
	uint64_t v = 0x1122334455667788ULL;

	ibv_wr_start(q);
	q->wr_id = what;
	q->wr_flags = IBV_SEND_SIGNALED;
	if (what == 1)
		ibv_wr_atomic_write(q, mr->rkey, (uintptr_t)mr->addr + off, &v);
	else
		ibv_wr_flush(q, mr->rkey, (uintptr_t)mr->addr + off, 64, type, IBV_FLUSH_RANGE);
	return ibv_wr_complete(q);
}

int main(void)
{
	struct dp d;
	struct ibv_device_attr da;
	struct ibv_wc wc;
	struct ibv_mr *mr;
	int fl = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_FLUSH_GLOBAL;
	uint64_t got;

	ctest_init();
	newk = kernel_has_flush();
	memset(&d, 0, sizeof(d));
	d.type = IBV_QPT_RC;
	d.ctx = rxe_open(&da);
	if (!d.ctx)
		return ctest_finish();
	dp_gid(d.ctx, &d.gid);
	d.pd = ibv_alloc_pd(d.ctx);
	for (int i = 0; i < 2; i++) {
		d.buf[i] = aligned_alloc(4096, DP_BUF);
		memset(d.buf[i], 0, DP_BUF);
		d.cq[i] = ibv_create_cq(d.ctx, 64, NULL, NULL, 0);
	}
	printf("kernel with FLUSH/ATOMIC WRITE in rxe: %s\n", newk ? "yes" : "no");

	/* rdma-core's C rxe provider learnt ibv_wr_flush in 45: 44's (Debian 12's,
	 * the data path under IBV_PROVIDERS=plugin) refuses the QP's send ops. The
	 * providers of 45 and later encode both and leave them to the kernel, as
	 * ours does. */
	if (!ctest_ours_dp() && ctest_rxe_plugin_release() < 45) {
		d.qp[0] = qp_ex(&d, 0);
		CHECK(!d.qp[0] && errno == EOPNOTSUPP, "44 plugin: create_qp_ex %p errno %d",
		      (void *)d.qp[0], errno);
		printf("hosted rdma-core 44 plugin: FLUSH/ATOMIC WRITE QPs refused\n");
		if (d.qp[0])
			ibv_destroy_qp(d.qp[0]);
		for (int i = 0; i < 2; i++) {
			ibv_destroy_cq(d.cq[i]);
			free(d.buf[i]);
		}
		ibv_dealloc_pd(d.pd);
		ibv_close_device(d.ctx);
		return ctest_finish();
	}

	/* The target MR, with global-flush access. */
	errno = 0;
	mr = ibv_reg_mr(d.pd, d.buf[1], DP_BUF, fl);
	if (newk) {
		CHECK(mr != NULL, "reg_mr FLUSH_GLOBAL errno %d", errno);
	} else {
		CHECK(mr == NULL && errno == EINVAL, "reg_mr FLUSH_GLOBAL on 6.1: %p errno %d",
		      (void *)mr, errno);
		printf("reg_mr FLUSH_GLOBAL: NULL errno=%d\n", errno);
		mr = ibv_reg_mr(d.pd, d.buf[1], DP_BUF, fl & ~IBV_ACCESS_FLUSH_GLOBAL);
		CHECK(mr != NULL, "reg_mr errno %d", errno);
	}
	if (!mr || pair(&d))
		return ctest_finish();

	/* ATOMIC WRITE: 8 bytes, at an 8-byte aligned address. */
	CHECK(post_one(&d, 1, mr, 64, 0) == 0, "wr_complete errno %d", errno);
	CHECK(dp_poll1(d.cq[0], &wc), "atomic write: no completion");
	memcpy(&got, d.buf[1] + 64, 8);
	printf("atomic write: wr_id=%llu status=%s opcode=%s\n", (unsigned long long)wc.wr_id,
	       ibv_wc_status_str(wc.status),
	       wc.status == IBV_WC_SUCCESS ? (wc.opcode == IBV_WC_ATOMIC_WRITE ? "ATOMIC_WRITE" : "?") : "-");
	if (newk) {
		CHECK(wc.status == IBV_WC_SUCCESS && wc.opcode == IBV_WC_ATOMIC_WRITE,
		      "atomic write status %d opcode %d", wc.status, wc.opcode);
		CHECK(got == 0x1122334455667788ULL, "atomic write data %llx", (unsigned long long)got);
		printf("atomic write data at the target: %s\n",
		       got == 0x1122334455667788ULL ? "as written" : "WRONG");
	} else {
		CHECK(wc.status != IBV_WC_SUCCESS, "atomic write succeeded on an old kernel");
		CHECK(got == 0, "atomic write data %llx on an old kernel", (unsigned long long)got);
	}

	/* FLUSH (global placement) of a range of the MR. */
	if (!newk)
		CHECK(pair(&d) == 0, "pair");
	CHECK(post_one(&d, 2, mr, 0, IBV_FLUSH_GLOBAL) == 0, "wr_complete errno %d", errno);
	CHECK(dp_poll1(d.cq[0], &wc), "flush: no completion");
	printf("flush global: wr_id=%llu status=%s opcode=%s\n", (unsigned long long)wc.wr_id,
	       ibv_wc_status_str(wc.status),
	       wc.status == IBV_WC_SUCCESS ? (wc.opcode == IBV_WC_FLUSH ? "FLUSH" : "?") : "-");
	if (newk)
		CHECK(wc.status == IBV_WC_SUCCESS && wc.opcode == IBV_WC_FLUSH,
		      "flush status %d opcode %d", wc.status, wc.opcode);
	else
		CHECK(wc.status != IBV_WC_SUCCESS, "flush succeeded on an old kernel");

	/* FLUSH (persistent) where the MR only allows global flushes: refused. */
	if (newk) {
		CHECK(post_one(&d, 3, mr, 0, IBV_FLUSH_PERSISTENT) == 0, "wr_complete errno %d", errno);
		CHECK(dp_poll1(d.cq[0], &wc), "flush persistent: no completion");
		printf("flush persistent without access: %s\n",
		       wc.status == IBV_WC_SUCCESS ? "success" : "error completion");
		CHECK(wc.status != IBV_WC_SUCCESS, "persistent flush without access succeeded");
	}

	d.mr[1] = mr;
	dp_teardown(&d);
	return ctest_finish();
}
