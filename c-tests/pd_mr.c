/* Protection domains, memory regions and memory windows on the first device
 * (rxe in the VM; on a machine without devices only the first line prints).
 *
 * Compared with Debian's libibverbs (untagged lines):
 *  - ibv_alloc_pd / ibv_dealloc_pd, EBUSY while an MR, MW or second use holds it;
 *  - ibv_reg_mr / ibv_reg_mr_iova / ibv_reg_mr_iova2: the ibv_mr fields, bad
 *    access flags, zero and huge lengths, NULL address;
 *  - ibv_rereg_mr: IBV_REREG_MR_ERR_* codes and errno (rxe has no rereg: the
 *    library's checks, then the command fails with EOPNOTSUPP);
 *  - ibv_reg_dmabuf_mr, ibv_import_pd/mr/dm (rxe: EOPNOTSUPP), ibv_unimport_pd
 *    of a PD that was not imported (nothing happens);
 *  - ibv_alloc_mw / ibv_dealloc_mw (type 1 and 2, bad type);
 *  - 1000 PD+MR create/destroy rounds: no fd, mapping or anonymous memory growth.
 * [ours] lines: what rdma-core would crash on (NULL and stale pointers, double
 * dereg/dealloc): ours reports EINVAL.
 */
#include "common.h"
#include "rxe.h"

#include <errno.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>
#include <dirent.h>

#define LEN 8192

static const char *err(int e)
{
	static char buf[32];

	switch (e) {
	case 0: return "0";
	case EINVAL: return "EINVAL";
	case EBUSY: return "EBUSY";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case EFAULT: return "EFAULT";
	case ENOMEM: return "ENOMEM";
	case EPERM: return "EPERM";
	case EACCES: return "EACCES";
	case ENOENT: return "ENOENT";
	case EPROTONOSUPPORT: return "EPROTONOSUPPORT";
	}
	snprintf(buf, sizeof(buf), "errno %d", e);
	return buf;
}

static void try_reg(struct ibv_pd *pd, const char *what, void *addr, size_t len, int access)
{
	struct ibv_mr *mr;

	errno = 0;
	mr = ibv_reg_mr(pd, addr, len, access);
	if (mr) {
		printf("reg_mr %s: ok, length %zu, addr ok %d, rkey %s\n", what, mr->length,
		       mr->addr == addr, mr->rkey == 0 ? "0" : mr->rkey == mr->lkey ? "lkey" : "other");
		printf("  dereg = %d\n", ibv_dereg_mr(mr));
	} else {
		printf("reg_mr %s: NULL, %s\n", what, err(errno));
	}
}

static void rereg(struct ibv_mr *mr, const char *what, int flags, struct ibv_pd *pd,
		  void *addr, size_t len, int access)
{
	int r;

	errno = 0;
	r = ibv_rereg_mr(mr, flags, pd, addr, len, access);
	printf("rereg_mr %s = %d, %s\n", what, r, err(r ? errno : 0));
}

static void leak_loop(struct ibv_context *ctx, void *buf)
{
	static struct rxe_mem m0, m1;
	long fds0 = 0, maps0 = 0, anon0 = -1, grew;
	int i, bad = 0;

	/* Touched now, so that filling them in adds nothing to the process. */
	rxe_mem_read(&m0);
	rxe_mem_read(&m1);
	/* One warm-up round so lazily allocated state exists before measuring. */
	for (i = 0; i < 1001; i++) {
		struct ibv_pd *pd = ibv_alloc_pd(ctx);
		struct ibv_mr *mr = pd ? ibv_reg_mr(pd, buf, LEN, IBV_ACCESS_LOCAL_WRITE) : NULL;

		if (!pd || !mr || ibv_dereg_mr(mr) || ibv_dealloc_pd(pd))
			bad++;
		if (i == 0) {
			fds0 = rxe_count_fds();
			maps0 = rxe_count_maps();
			rxe_mem_read(&m0);
			anon0 = m0.anon;
		}
	}
	/* Anonymous memory, counted exactly (see rxe_rollup_kb): what a leak
	 * grows; the library's code and data pages (file) are not its to grow. */
	grew = rxe_rollup_kb("Anonymous:") - anon0;
	printf("1000 PD+MR rounds: failures %d, fd delta %ld, maps delta %ld\n", bad,
	       rxe_count_fds() - fds0, rxe_count_maps() - maps0);
	CHECK(anon0 >= 0 && grew < 1024, "anonymous memory grew by %ld kB", grew);
	if (anon0 < 0 || grew >= 1024) {
		rxe_mem_read(&m1);
		rxe_mem_diff("pd_mr 1000 rounds", &m0, &m1);
	}
}

int main(void)
{
	struct ibv_device **list;
	struct ibv_context *ctx;
	struct ibv_pd *pd, *pd2;
	struct ibv_mr *mr;
	struct ibv_mw *mw;
	char *buf;
	void *p;
	int n, r;

	ctest_init();
	list = ibv_get_device_list(&n);
	if (!list || n == 0) {
		printf("no RDMA device\n");
		return ctest_finish();
	}
	ctx = ibv_open_device(list[0]);
	CHECK(ctx, "open %s", ibv_get_device_name(list[0]));
	if (!ctx)
		return ctest_finish();
	buf = mmap(NULL, LEN * 4, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	memset(buf, 1, LEN * 4);

	/* PD */
	pd = ibv_alloc_pd(ctx);
	CHECK(pd, "alloc_pd");
	printf("alloc_pd: context ok %d, handle %u\n", pd->context == ctx, pd->handle);
	pd2 = ibv_alloc_pd(ctx);
	printf("alloc_pd 2: handle %u\n", pd2->handle);

	/* MR fields */
	mr = ibv_reg_mr(pd, buf, LEN, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			IBV_ACCESS_REMOTE_READ);
	CHECK(mr, "reg_mr: %s", err(errno));
	printf("reg_mr: context ok %d, pd ok %d, addr ok %d, length %zu, handle %u, rkey==lkey %d, lkey!=0 %d\n",
	       mr->context == ctx, mr->pd == pd, mr->addr == buf, mr->length, mr->handle,
	       mr->rkey == mr->lkey, mr->lkey != 0);
	errno = 0;
	r = ibv_dealloc_pd(pd);
	printf("dealloc_pd with MR = %s\n", err(r));

	/* rereg: the library's checks, then rxe's missing command */
	rereg(mr, "flags 0", 0, NULL, NULL, 0, 0);
	rereg(mr, "flags 8", 8, NULL, NULL, 0, 0);
	rereg(mr, "flags -1", -1, NULL, NULL, 0, 0);
	rereg(mr, "translation len 0", IBV_REREG_MR_CHANGE_TRANSLATION, NULL, buf, 0, 0);
	rereg(mr, "translation addr NULL", IBV_REREG_MR_CHANGE_TRANSLATION, NULL, NULL, LEN, 0);
	rereg(mr, "access without flag", IBV_REREG_MR_CHANGE_PD, pd2, NULL, 0,
	      IBV_ACCESS_LOCAL_WRITE);
	rereg(mr, "change access", IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0, IBV_ACCESS_LOCAL_WRITE);
	rereg(mr, "change pd", IBV_REREG_MR_CHANGE_PD, pd2, NULL, 0, 0);
	rereg(mr, "change translation", IBV_REREG_MR_CHANGE_TRANSLATION, NULL, buf + LEN, LEN, 0);
	rereg(mr, "all", IBV_REREG_MR_FLAGS_SUPPORTED, pd2, buf + LEN, LEN, IBV_ACCESS_LOCAL_WRITE);
	printf("after rereg: pd ok %d, addr ok %d, length %zu\n", mr->pd == pd, mr->addr == buf,
	       mr->length);

	/* import: rxe has none */
	errno = 0;
	p = ibv_import_pd(ctx, pd->handle);
	printf("import_pd = %s, %s\n", p ? "obj" : "NULL", err(errno));
	errno = 0;
	p = ibv_import_mr(pd, mr->handle);
	printf("import_mr = %s, %s\n", p ? "obj" : "NULL", err(errno));
	errno = 0;
	p = ibv_import_dm(ctx, 0);
	printf("import_dm = %s, %s\n", p ? "obj" : "NULL", err(errno));
	errno = 0;
	p = ibv_reg_dmabuf_mr(pd, 0, LEN, 0, 0, IBV_ACCESS_LOCAL_WRITE);
	printf("reg_dmabuf_mr = %s, %s\n", p ? "obj" : "NULL", err(errno));
	ibv_unimport_pd(pd2);
	ibv_unimport_mr(mr);
	printf("after unimport: pd2 handle %u, mr handle %u\n", pd2->handle, mr->handle);

	printf("dereg_mr = %s\n", err(ibv_dereg_mr(mr)));
	if (ctest_ours())
		ctest_impl_line("dereg_mr again = %s", err(ibv_dereg_mr(mr)));

	/* reg variants and bad input */
	mr = ibv_reg_mr_iova(pd, buf, LEN, 0x100000, IBV_ACCESS_LOCAL_WRITE);
	printf("reg_mr_iova: %s, addr ok %d, length %zu\n", mr ? "ok" : err(errno),
	       mr && mr->addr == buf, mr ? mr->length : 0);
	if (mr)
		ibv_dereg_mr(mr);
	mr = ibv_reg_mr_iova2(pd, buf + 100, 1000, 0, IBV_ACCESS_LOCAL_WRITE |
			      IBV_ACCESS_RELAXED_ORDERING);
	printf("reg_mr_iova2 relaxed ordering: %s, addr ok %d, length %zu\n", mr ? "ok" : err(errno),
	       mr && mr->addr == buf + 100, mr ? mr->length : 0);
	if (mr)
		ibv_dereg_mr(mr);
	try_reg(pd, "local write", buf, LEN, IBV_ACCESS_LOCAL_WRITE);
	try_reg(pd, "no access", buf, LEN, 0);
	try_reg(pd, "remote write without local write", buf, LEN, IBV_ACCESS_REMOTE_WRITE);
	try_reg(pd, "remote atomic without local write", buf, LEN, IBV_ACCESS_REMOTE_ATOMIC);
	try_reg(pd, "mw bind", buf, LEN, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND);
	try_reg(pd, "zero based", buf, LEN, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_ZERO_BASED);
	try_reg(pd, "on demand", buf, LEN, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_ON_DEMAND);
	try_reg(pd, "unknown bit 0x8000", buf, LEN, 0x8000);
	try_reg(pd, "optional bit 0x200000", buf, LEN, IBV_ACCESS_LOCAL_WRITE | 0x200000);
	try_reg(pd, "length 0", buf, 0, IBV_ACCESS_LOCAL_WRITE);
	try_reg(pd, "length 1", buf + 5, 1, IBV_ACCESS_LOCAL_WRITE);
	try_reg(pd, "huge length", buf, SIZE_MAX / 2, IBV_ACCESS_LOCAL_WRITE);
	try_reg(pd, "unmapped", (void *)0x1000, LEN, IBV_ACCESS_LOCAL_WRITE);
	try_reg(pd, "NULL addr", NULL, LEN, IBV_ACCESS_LOCAL_WRITE);
	try_reg(pd2, "other pd", buf, LEN, IBV_ACCESS_LOCAL_WRITE);

	/* memory windows */
	for (int t = 0; t <= 3; t++) {
		errno = 0;
		mw = ibv_alloc_mw(pd, (enum ibv_mw_type)t);
		if (mw) {
			printf("alloc_mw type %d: context ok %d, pd ok %d, type %d, handle %u, rkey!=0 %d\n",
			       t, mw->context == ctx, mw->pd == pd, mw->type, mw->handle, mw->rkey != 0);
			printf("  dealloc_pd with MW = %s\n", err(ibv_dealloc_pd(pd)));
			printf("  dealloc_mw = %s\n", err(ibv_dealloc_mw(mw)));
		} else {
			printf("alloc_mw type %d: NULL, %s\n", t, err(errno));
		}
	}
	mw = ibv_alloc_mw(pd, (enum ibv_mw_type)(256 + IBV_MW_TYPE_2));
	printf("alloc_mw type 258: %s\n", mw ? "ok" : err(errno));
	if (mw) {
		printf("  type %d\n", mw->type);
		ibv_dealloc_mw(mw);
	}

	/* teardown */
	printf("dealloc_pd = %s\n", err(ibv_dealloc_pd(pd)));
	printf("dealloc_pd 2 = %s\n", err(ibv_dealloc_pd(pd2)));
	if (ctest_ours()) {
		errno = 0;
		ctest_impl_line("dealloc_pd again = %s", err(ibv_dealloc_pd(pd)));
		errno = 0;
		mr = ibv_reg_mr(pd, buf, LEN, IBV_ACCESS_LOCAL_WRITE);
		ctest_impl_line("reg_mr on freed pd = %s, %s", mr ? "obj" : "NULL", err(errno));
		errno = 0;
		mr = ibv_reg_mr(NULL, buf, LEN, IBV_ACCESS_LOCAL_WRITE);
		ctest_impl_line("reg_mr NULL pd = %s, %s", mr ? "obj" : "NULL", err(errno));
		ctest_impl_line("dereg_mr NULL = %s", err(ibv_dereg_mr(NULL)));
		ctest_impl_line("dealloc_pd NULL = %s", err(ibv_dealloc_pd(NULL)));
		errno = 0;
		r = ibv_rereg_mr(NULL, 0, NULL, NULL, 0, 0);
		ctest_impl_line("rereg_mr NULL = %d, %s", r, err(errno));
		errno = 0;
		p = ibv_import_pd(NULL, 0);
		ctest_impl_line("import_pd NULL ctx = %s, %s", p ? "obj" : "NULL", err(errno));
		ibv_unimport_pd(NULL);
		ibv_unimport_mr(NULL);
		ibv_unimport_dm(NULL);
		errno = 0;
		p = ibv_alloc_pd(NULL);
		ctest_impl_line("alloc_pd NULL = %s, %s", p ? "obj" : "NULL", err(errno));
	}

	leak_loop(ctx, buf);

	CHECK(ibv_close_device(ctx) == 0, "close");
	ibv_free_device_list(list);
	return ctest_finish();
}
