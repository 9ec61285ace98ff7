/* The public verbs of rdma-core 65 on a context of fake65.c, a 65 plugin
 * that sets their op slots: each verb must reach the plugin's op (its
 * "plugin:" lines) with the arguments rdma-core 65 gives it, and a NULL,
 * foreign or destroyed counter, DMA handle, QP, DM, MR or buffer must be
 * EINVAL before the plugin sees it (an MR, or a QP or parent domain of
 * verbs.h's inline calls, is destroyed once, then EINVAL). With
 * FAKE65_NO_OPS the plugin has 34's ops only: then rdma-core's answers
 * (its defaults, or EOPNOTSUPP). Prints one line per call; discovery.sh
 * compares the whole output with the expected text of each run. */
#include "open_fake.h"
#include <sys/mman.h>
#include <unistd.h>

int main(void)
{
	struct ibv_context *ctx = open_fake("fake65_0", (void *)ibv_create_comp_cntr);

	if (!ctx)
		return 1;

	uint64_t speed = 0;
	int r = ibv_query_port_speed(ctx, 1, &speed);
	printf("query_port_speed: %d %llu\n", r, (unsigned long long)speed);
	r = ibv_query_port_speed(ctx, 2, &speed);
	printf("query_port_speed port 2: %d\n", r);

	struct ibv_comp_cntr_caps caps = { 0 };
	r = _ibv_query_comp_cntr_caps(ctx, &caps, sizeof(caps));
	printf("query_comp_cntr_caps: %d max_counters %u\n", r, caps.max_counters);

	/* The plugin's own objects the 65 verbs act on: a PD, a QP on it. */
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	printf("alloc_pd: %s\n", pd ? "ok" : strerror(errno));
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1, .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp *qp = ibv_create_qp(pd, &qa);
	printf("create_qp: %s\n", qp ? "ok" : strerror(errno));
	if (!pd || !qp)
		return 1;

	struct ibv_comp_cntr_init_attr ca = { 0 };
	struct ibv_comp_cntr *cc = ibv_create_comp_cntr(ctx, &ca);
	printf("create_comp_cntr: %s, context %s\n", cc ? "ok" : strerror(errno),
	       cc && cc->context == ctx ? "ours" : "other");
	uint64_t v = 0, e = 0;
	printf("set: %d\n", ibv_set_comp_cntr(cc, 5));
	printf("inc: %d\n", ibv_inc_comp_cntr(cc, 3));
	printf("set_err: %d\n", ibv_set_err_comp_cntr(cc, 1));
	printf("inc_err: %d\n", ibv_inc_err_comp_cntr(cc, 1));
	r = ibv_read_comp_cntr(cc, &v);
	printf("read: %d %llu\n", r, (unsigned long long)v);
	r = ibv_read_err_comp_cntr(cc, &e);
	printf("read_err: %d %llu\n", r, (unsigned long long)e);
	printf("read NULL value: %d\n", ibv_read_comp_cntr(cc, NULL));

	struct ibv_comp_cntr fake = { .context = ctx, .handle = 42 };
	printf("set foreign: %d\n", ibv_set_comp_cntr(&fake, 1));
	printf("read NULL: %d\n", ibv_read_comp_cntr(NULL, &v));
	struct ibv_qp_attach_comp_cntr_attr aa = { .op_mask = IBV_QP_ATTACH_COMP_CNTR_OP_SEND };
	printf("qp_attach_comp_cntr: %d\n", ibv_qp_attach_comp_cntr(qp, cc, &aa));
	printf("qp_attach_comp_cntr NULL QP: %d\n", ibv_qp_attach_comp_cntr(NULL, cc, &aa));
	struct ibv_qp fake_qp = { .context = ctx, .pd = pd, .qp_num = 65 };
	printf("qp_attach_comp_cntr foreign QP: %d\n", ibv_qp_attach_comp_cntr(&fake_qp, cc, &aa));
	printf("qp_attach_comp_cntr foreign counter: %d\n", ibv_qp_attach_comp_cntr(qp, &fake, &aa));
	printf("qp_attach_comp_cntr NULL counter: %d\n", ibv_qp_attach_comp_cntr(qp, NULL, &aa));
	printf("destroy: %d\n", ibv_destroy_comp_cntr(cc));
	printf("inc destroyed: %d\n", ibv_inc_comp_cntr(cc, 1));
	printf("destroy again: %d\n", ibv_destroy_comp_cntr(cc));

	struct ibv_dmah_init_attr da = { .cpu_id = 3 };
	struct ibv_dmah *d = ibv_alloc_dmah(ctx, &da);
	printf("alloc_dmah: %s, context %s\n", d ? "ok" : strerror(errno),
	       d && d->context == ctx ? "ours" : "other");
	printf("dealloc_dmah: %d\n", d ? ibv_dealloc_dmah(d) : -1);
	printf("dealloc_dmah again: %d\n", ibv_dealloc_dmah(d));
	printf("dealloc_dmah NULL: %d\n", ibv_dealloc_dmah(NULL));

	/* Device memory (inline ibv_alloc_dm) and its dma-buf. */
	struct ibv_alloc_dm_attr dma = { .length = 4096 };
	struct ibv_dm *dm = ibv_alloc_dm(ctx, &dma);
	printf("alloc_dm: %s\n", dm ? "ok" : strerror(errno));
	int fd = dm ? ibv_dm_export_dmabuf_fd(dm) : -1;
	printf("dm_export_dmabuf_fd: %s\n", fd >= 0 ? "fd" : strerror(errno));
	if (fd >= 0)
		close(fd);
	struct ibv_dm fake_dm = { .context = ctx, .handle = 7 };
	errno = 0;
	fd = ibv_dm_export_dmabuf_fd(&fake_dm);
	printf("dm_export_dmabuf_fd foreign: %d %s\n", fd, strerror(errno));
	errno = 0;
	fd = ibv_dm_export_dmabuf_fd(NULL);
	printf("dm_export_dmabuf_fd NULL: %d %s\n", fd, strerror(errno));
	/* An MR on the DM (inline ibv_reg_dm_mr): ours to dereg, once. */
	int zb = IBV_ACCESS_ZERO_BASED;
	struct ibv_mr *dmr = dm ? ibv_reg_dm_mr(pd, dm, 0, 4096, zb) : NULL;
	printf("reg_dm_mr: %s\n", dmr ? "ok" : strerror(errno));
	printf("dereg_mr of the DM's: %d\n", dmr ? ibv_dereg_mr(dmr) : -1);
	printf("dereg_mr of the DM's again: %d\n", ibv_dereg_mr(dmr));
	errno = 0;
	printf("reg_dm_mr foreign DM: %s\n", ibv_reg_dm_mr(pd, &fake_dm, 0, 4096, zb) ? "ok" : strerror(errno));
	errno = 0;
	printf("reg_dm_mr NULL DM: %s\n", ibv_reg_dm_mr(pd, NULL, 0, 4096, zb) ? "ok" : strerror(errno));
	printf("free_dm: %d\n", dm ? ibv_free_dm(dm) : -1);

	/* Buffers: heap (4 KiB) and dma-buf backed (8 KiB) ones of the plugin. */
	struct ibv_buf *b0 = NULL, *b1 = NULL;
	char *p0 = ibv_alloc_buf(pd, 4096, &b0);
	printf("alloc_buf 4096: %s\n", p0 && b0 ? "ok" : strerror(errno));
	char *p1 = ibv_alloc_buf(pd, 8192, &b1);
	printf("alloc_buf 8192: %s\n", p1 && b1 ? "ok" : strerror(errno));
	if (!p0 || !p1)
		return 1;
	errno = 0;
	fd = ibv_export_buf_dmabuf_fd(b0);
	printf("export_buf_dmabuf_fd 4096: %d %s\n", fd, strerror(errno));
	errno = 0;
	fd = ibv_export_buf_dmabuf_fd(b1);
	printf("export_buf_dmabuf_fd 8192: %s\n", fd >= 0 ? "fd" : strerror(errno));
	if (fd >= 0)
		close(fd);
	errno = 0;
	fd = ibv_export_buf_dmabuf_fd((struct ibv_buf *)p0);
	printf("export_buf_dmabuf_fd foreign: %d %s\n", fd, strerror(errno));
	int acc = IBV_ACCESS_LOCAL_WRITE;
	struct ibv_mr *m0 = ibv_reg_buf_mr(pd, b0, p0 + 1024, 2048, acc);
	printf("reg_buf_mr 4096: %s addr %s length %zu\n", m0 ? "ok" : strerror(errno),
	       m0 && m0->addr == p0 + 1024 ? "given" : "other", m0 ? m0->length : 0);
	struct ibv_mr *m1 = ibv_reg_buf_mr(pd, b1, p1 + 4096, 4096, acc);
	printf("reg_buf_mr 8192: %s addr %s\n", m1 ? "ok" : strerror(errno),
	       m1 && m1->addr == (void *)4096 ? "fd offset" : m1 && m1->addr == p1 + 4096 ? "given" : "other");
	errno = 0;
	printf("reg_buf_mr past the end: %s\n", ibv_reg_buf_mr(pd, b0, p0 + 4096, 1, acc) ? "ok" : strerror(errno));
	errno = 0;
	printf("reg_buf_mr foreign: %s\n", ibv_reg_buf_mr(pd, (struct ibv_buf *)p0, p0, 1, acc) ? "ok" : strerror(errno));
	errno = 0;
	printf("reg_buf_mr NULL: %s\n", ibv_reg_buf_mr(pd, NULL, p0, 1, acc) ? "ok" : strerror(errno));
	struct ibv_mr_init_attr ra = {
		.length = 512, .access = acc, .addr = p0, .iova = 0x1000,
		.comp_mask = IBV_REG_MR_MASK_ADDR | IBV_REG_MR_MASK_IOVA,
		.fd = 99, .fd_offset = 5, /* not in the mask: the plugin sees 0 */
	};
	struct ibv_mr *m2 = ibv_reg_mr_ex(pd, &ra);
	printf("reg_mr_ex addr+iova: %s\n", m2 ? "ok" : strerror(errno));
	struct ibv_dmah *dh = ibv_alloc_dmah(ctx, NULL);
	ra.comp_mask = IBV_REG_MR_MASK_ADDR | IBV_REG_MR_MASK_DMAH;
	ra.dmah = dh;
	struct ibv_mr *m3 = ibv_reg_mr_ex(pd, &ra);
	printf("reg_mr_ex dmah: %s\n", m3 ? "ok" : strerror(errno));
	errno = 0;
	printf("reg_mr_ex NULL PD: %s\n", ibv_reg_mr_ex(NULL, &ra) ? "ok" : strerror(errno));
	struct ibv_dmah fake_dh = { .context = ctx };
	ra.dmah = &fake_dh;
	errno = 0;
	printf("reg_mr_ex foreign dmah: %s\n", ibv_reg_mr_ex(pd, &ra) ? "ok" : strerror(errno));
	ra.dmah = NULL;
	errno = 0;
	printf("reg_mr_ex NULL dmah: %s\n", ibv_reg_mr_ex(pd, &ra) ? "ok" : strerror(errno));
	/* 34's other ways to an MR: each one is ours to dereg, once. */
	struct ibv_mr *nm = ibv_alloc_null_mr(pd);
	printf("alloc_null_mr: %s\n", nm ? "ok" : strerror(errno));
	/* Only a plain MR is reregistered: bad input, as rdma-core answers. */
	int ca_flag = IBV_REREG_MR_CHANGE_ACCESS, lw = IBV_ACCESS_LOCAL_WRITE;
	errno = 0;
	r = nm ? ibv_rereg_mr(nm, ca_flag, NULL, NULL, 0, lw) : 0;
	printf("rereg_mr of the null MR: %d %s\n", r, strerror(errno));
	printf("dereg_mr of the null MR: %d\n", nm ? ibv_dereg_mr(nm) : -1);
	printf("dereg_mr of the null MR again: %d\n", ibv_dereg_mr(nm));
	int mfd = memfd_create("ops65", MFD_CLOEXEC);
	struct ibv_mr *bm = ibv_reg_dmabuf_mr(pd, 0, 4096, 0x2000, mfd, acc);
	printf("reg_dmabuf_mr: %s\n", bm ? "ok" : strerror(errno));
	errno = 0;
	r = bm ? ibv_rereg_mr(bm, ca_flag, NULL, NULL, 0, lw) : 0;
	printf("rereg_mr of the dma-buf's: %d %s\n", r, strerror(errno));
	close(mfd);
	printf("dereg_mr of the dma-buf's: %d\n", bm ? ibv_dereg_mr(bm) : -1);
	printf("dereg_mr of the dma-buf's again: %d\n", ibv_dereg_mr(bm));
	struct ibv_mr *rm = ibv_reg_mr(pd, p0, 1024, acc);
	printf("reg_mr: %s\n", rm ? "ok" : strerror(errno));
	errno = 0;
	r = rm ? ibv_rereg_mr(rm, IBV_REREG_MR_CHANGE_TRANSLATION, NULL, p0 + 1024, 512, 0) : -1;
	printf("rereg_mr: %d %s, addr %s length %zu\n", r, strerror(errno),
	       rm && rm->addr == p0 + 1024 ? "new" : "old", rm ? rm->length : 0);
	printf("dereg_mr of the reregistered: %d\n", rm ? ibv_dereg_mr(rm) : -1);
	printf("dereg_mr of the reregistered again: %d\n", ibv_dereg_mr(rm));
	struct ibv_mr *mrs[] = { m0, m1, m2, m3 };
	for (int i = 0; i < 4; i++)
		if (mrs[i])
			printf("dereg_mr: %d\n", ibv_dereg_mr(mrs[i]));
	if (dh)
		ibv_dealloc_dmah(dh);
	ibv_free_buf(b0);
	ibv_free_buf(b1);
	errno = 0;
	ibv_free_buf(b1);
	printf("free_buf again: %s\n", strerror(errno));
	errno = 0;
	ibv_free_buf(NULL);
	printf("free_buf NULL: %s\n", strerror(errno));
	printf("destroy_qp: %d\n", ibv_destroy_qp(qp));

	/* verbs.h's inline ibv_open_qp: the QP is ours to destroy, once. */
	struct ibv_qp_open_attr oa = {
		.comp_mask = IBV_QP_OPEN_ATTR_NUM | IBV_QP_OPEN_ATTR_TYPE,
		.qp_num = 66,
		.qp_type = IBV_QPT_XRC_RECV,
	};
	struct ibv_qp *oq = ibv_open_qp(ctx, &oa);
	printf("open_qp: %s\n", oq ? "ok" : strerror(errno));
	printf("destroy_qp of the opened: %d\n", oq ? ibv_destroy_qp(oq) : -1);
	printf("destroy_qp of the opened again: %d\n", ibv_destroy_qp(oq));
	errno = 0;
	printf("open_qp NULL attr: %s\n", ibv_open_qp(ctx, NULL) ? "ok" : strerror(errno));

	/* verbs.h's inline ibv_alloc_parent_domain: a PD like the others. */
	static char area[4096];
	struct ibv_parent_domain_init_attr pa = { .pd = pd };
	struct ibv_pd *ppd = ibv_alloc_parent_domain(ctx, &pa);
	printf("alloc_parent_domain: %s\n", ppd ? "ok" : strerror(errno));
	struct ibv_mr *pm = ppd ? ibv_reg_mr(ppd, area, 64, IBV_ACCESS_LOCAL_WRITE) : NULL;
	printf("reg_mr on the parent domain: %s\n", pm ? "ok" : strerror(errno));
	if (pm)
		printf("dereg_mr: %d\n", ibv_dereg_mr(pm));
	struct ibv_qp *pq = ppd ? ibv_create_qp(ppd, &qa) : NULL;
	printf("create_qp on the parent domain: %s\n", pq ? "ok" : strerror(errno));
	if (pq)
		printf("destroy_qp: %d\n", ibv_destroy_qp(pq));
	struct ibv_buf *pb = NULL;
	void *pp = ppd ? ibv_alloc_buf(ppd, 4096, &pb) : NULL;
	printf("alloc_buf on the parent domain: %s\n", pp ? "ok" : strerror(errno));
	if (pp)
		ibv_free_buf(pb);
	printf("dealloc_pd of the PD under it: %d\n", ibv_dealloc_pd(pd));
	printf("dealloc_pd of the parent domain: %d\n", ppd ? ibv_dealloc_pd(ppd) : -1);
	printf("dealloc_pd of the parent domain again: %d\n", ibv_dealloc_pd(ppd));
	errno = 0;
	printf("alloc_parent_domain NULL attr: %s\n",
	       ibv_alloc_parent_domain(ctx, NULL) ? "ok" : strerror(errno));
	pa.pd = NULL;
	errno = 0;
	printf("alloc_parent_domain NULL PD: %s\n",
	       ibv_alloc_parent_domain(ctx, &pa) ? "ok" : strerror(errno));
	struct ibv_pd fake_pd = { .context = ctx };
	pa.pd = &fake_pd;
	errno = 0;
	printf("alloc_parent_domain foreign PD: %s\n",
	       ibv_alloc_parent_domain(ctx, &pa) ? "ok" : strerror(errno));

	/* Left for close: the plugin destroys them before its context (the
	 * parent domain before the PD under it). */
	cc = ibv_create_comp_cntr(ctx, NULL);
	d = ibv_alloc_dmah(ctx, NULL);
	dm = ibv_alloc_dm(ctx, &dma);
	pa.pd = pd;
	ppd = ibv_alloc_parent_domain(ctx, &pa);
	printf("left: %s %s %s %s pd\n", cc ? "counter" : "-", d ? "dmah" : "-", dm ? "dm" : "-",
	       ppd ? "parent-domain" : "-");
	printf("close: %d\n", ibv_close_device(ctx));
	return 0;
}
