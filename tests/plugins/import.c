/* ibv_import_pd/mr/dm and ibv_unimport_* on a context of fake65.c, whose
 * import ops fake the kernel (handle 0 is unknown): each import reaches the
 * plugin's op and hands back the object it filled; a NULL, foreign or
 * destroyed context or PD is EINVAL before the plugin sees it; an unimport
 * reaches the plugin's unimport once, for an imported object only;
 * ibv_dealloc_pd/dereg_mr/free_dm of an imported object reach the plugin's
 * destroy, as in rdma-core. Imported objects left at ibv_close_device must
 * be unimported there, never destroyed, users first. With
 * FAKE65_NO_IMPORT the plugin has no import ops: EOPNOTSUPP, as rdma-core
 * answers. `import fork`: with ibv_fork_init's tracking, deregistering an
 * imported MR whose address is a range of ours registered too must leave
 * that range kept from fork (rdma-core only gives plain MRs' ranges back),
 * as must deregistering an on-demand MR on it (its range was never kept).
 * One line per call; discovery.sh compares the whole output. */
#include "open_fake.h"
#include <stdlib.h>
#include <sys/mman.h>

static const char *res(const void *p)
{
	return p ? "ok" : strerror(errno);
}

static const char *is(int c)
{
	return c ? "yes" : "NO";
}

/* Whether the mapping that starts at `p` is kept from fork (VmFlags dc). */
static const char *kept(void *p)
{
	char line[512], start[32];
	FILE *f = fopen("/proc/self/smaps", "r");
	int in = 0;
	const char *r = "no mapping";

	snprintf(start, sizeof(start), "%lx-", (unsigned long)p);
	while (f && fgets(line, sizeof(line), f)) {
		if (strchr(line, '-') && strchr(line, '-') < strchr(line, ' '))
			in = !strncmp(line, start, strlen(start));
		else if (in && !strncmp(line, "VmFlags:", 8))
			r = strstr(line, " dc") ? "yes" : "no";
	}
	if (f)
		fclose(f);
	return r;
}

static int fork_case(struct ibv_context *ctx)
{
	if (ibv_fork_init() || ibv_is_fork_initialized() != IBV_FORK_ENABLED) {
		printf("fork: not tracked on this kernel\n");
		return 0;
	}
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct ibv_mr *mr = pd && p != MAP_FAILED ?
		ibv_reg_mr(pd, p, 4096, IBV_ACCESS_LOCAL_WRITE) : NULL;
	printf("reg_mr: %s, kept from fork %s\n", res(mr), mr ? kept(p) : "-");
	if (!mr)
		return 1;
	/* An on-demand MR on the same range: its range was never kept from
	 * fork, so its dereg must not give the plain MR's back. */
	struct ibv_mr *odp = ibv_reg_mr(pd, p, 4096, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_ON_DEMAND);
	printf("reg_mr on demand: %s\n", res(odp));
	if (odp) {
		int d = ibv_dereg_mr(odp);

		printf("dereg_mr of the on-demand MR: %d, range kept from fork %s\n", d, kept(p));
	}
	char a[32];
	snprintf(a, sizeof(a), "%#lx", (unsigned long)p);
	setenv("FAKE65_IMPORT_ADDR", a, 1);
	struct ibv_mr *imr = ibv_import_mr(pd, 24);
	printf("import_mr at its address: %s\n", imr && imr->addr == p ? "ok" : strerror(errno));
	/* Each dereg before its look at the range (argument order is not). */
	int r;
	if (imr) {
		r = ibv_dereg_mr(imr);
		printf("dereg_mr of the imported MR: %d, range kept from fork %s\n", r, kept(p));
	}
	r = ibv_dereg_mr(mr);
	printf("dereg_mr: %d, range kept from fork %s\n", r, kept(p));
	printf("dealloc_pd: %d\n", ibv_dealloc_pd(pd));
	printf("close: %d\n", ibv_close_device(ctx));
	return 0;
}

int main(int argc, char **argv)
{
	struct ibv_context *ctx = open_fake("fake65_0", (void *)ibv_import_mr);

	if (!ctx)
		return 1;

	if (argc > 1 && !strcmp(argv[1], "fork"))
		return fork_case(ctx);

	/* PDs: the plugin fills the imported one. */
	struct ibv_pd *pd = ibv_import_pd(ctx, 11);
	printf("import_pd 11: %s\n", res(pd));
	if (pd)
		printf("  context ours %s, handle %u\n", is(pd->context == ctx), pd->handle);
	printf("import_pd 0: %s\n", res(ibv_import_pd(ctx, 0)));
	printf("import_pd NULL context: %s\n", res(ibv_import_pd(NULL, 11)));
	struct ibv_context foreign_ctx = { .device = ctx->device, .cmd_fd = ctx->cmd_fd };
	printf("import_pd foreign context: %s\n", res(ibv_import_pd(&foreign_ctx, 11)));

	/* A PD of our own, for what follows in both runs. */
	struct ibv_pd *apd = ibv_alloc_pd(ctx);
	printf("alloc_pd: %s\n", res(apd));
	if (!apd)
		return 1;

	/* MRs, on the imported PD (else on ours). */
	struct ibv_pd *on = pd ? pd : apd;
	struct ibv_mr *mr = ibv_import_mr(on, 21);
	printf("import_mr 21: %s\n", res(mr));
	if (mr)
		printf("  context ours %s, pd %s, handle %u, lkey %#x, rkey %#x, addr %p, length %zu\n",
		       is(mr->context == ctx), mr->pd == on ? "given" : "other", mr->handle,
		       mr->lkey, mr->rkey, mr->addr, mr->length);
	printf("import_mr 0: %s\n", res(ibv_import_mr(on, 0)));
	printf("import_mr NULL PD: %s\n", res(ibv_import_mr(NULL, 21)));
	struct ibv_pd foreign_pd = { .context = ctx, .handle = 11 };
	printf("import_mr foreign PD: %s\n", res(ibv_import_mr(&foreign_pd, 21)));
	struct ibv_pd *gone = ibv_alloc_pd(ctx);
	printf("alloc_pd, dealloc_pd: %d\n", gone ? ibv_dealloc_pd(gone) : -1);
	/* Right away: nothing allocated since, so the address names nothing. */
	printf("import_mr destroyed PD: %s\n", res(ibv_import_mr(gone, 21)));

	/* DMs. */
	struct ibv_dm *dm = ibv_import_dm(ctx, 31);
	printf("import_dm 31: %s\n", res(dm));
	if (dm)
		printf("  context ours %s, handle %u\n", is(dm->context == ctx), dm->handle);
	printf("import_dm 0: %s\n", res(ibv_import_dm(ctx, 0)));
	printf("import_dm NULL context: %s\n", res(ibv_import_dm(NULL, 31)));
	printf("import_dm foreign context: %s\n", res(ibv_import_dm(&foreign_ctx, 31)));

	/* Unimport: once, then the object is no longer ours. */
	if (mr) {
		ibv_unimport_mr(mr);
		printf("unimport_mr 21 done\n");
		/* Right away, as above. */
		ibv_unimport_mr(mr);
		printf("unimport_mr 21 again done\n");
		printf("dereg_mr of the unimported MR: %d\n", ibv_dereg_mr(mr));
	}
	struct ibv_dm *dm3 = ibv_import_dm(ctx, 33);
	if (dm3) {
		ibv_unimport_dm(dm3);
		printf("unimport_dm 33 done\n");
	}
	struct ibv_pd *pd4 = ibv_import_pd(ctx, 14);
	if (pd4) {
		ibv_unimport_pd(pd4);
		printf("unimport_pd 14 done\n");
	}
	/* A PD not imported: unimport does nothing (rdma-core's default); it
	 * is still ours to deallocate. */
	ibv_unimport_pd(apd);
	printf("unimport_pd of an allocated PD done\n");
	ibv_unimport_pd(NULL);
	printf("unimport_pd NULL done\n");

	/* Destroying an imported object is the plugin's destroy, and the
	 * object is no longer imported: a new one of its kind (malloc gives it
	 * the address just freed) is not unimported, but destroyed. */
	char buf[64];
	struct ibv_mr *mr2 = ibv_import_mr(apd, 22);
	if (mr2) {
		printf("dereg_mr of imported 22: %d\n", ibv_dereg_mr(mr2));
		mr2 = ibv_reg_mr(apd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
		printf("reg_mr: %s\n", res(mr2));
		ibv_unimport_mr(mr2);
		printf("unimport_mr of a registered MR done\n");
		printf("dereg_mr: %d\n", ibv_dereg_mr(mr2));
	}
	struct ibv_dm *dm2 = ibv_import_dm(ctx, 32);
	if (dm2) {
		printf("free_dm of imported 32: %d\n", ibv_free_dm(dm2));
		struct ibv_alloc_dm_attr da = { .length = 4096 };
		dm2 = ibv_alloc_dm(ctx, &da);
		printf("alloc_dm: %s\n", res(dm2));
		ibv_unimport_dm(dm2);
		printf("unimport_dm of an allocated DM done\n");
		printf("free_dm: %d\n", ibv_free_dm(dm2));
	}
	struct ibv_pd *pd2 = ibv_import_pd(ctx, 12);
	if (pd2) {
		printf("dealloc_pd of imported 12: %d\n", ibv_dealloc_pd(pd2));
		pd2 = ibv_alloc_pd(ctx);
		printf("alloc_pd: %s\n", res(pd2));
		ibv_unimport_pd(pd2);
		printf("unimport_pd of an allocated PD done\n");
		printf("dealloc_pd: %d\n", ibv_dealloc_pd(pd2));
	}
	printf("dealloc_pd of the allocated PD: %d\n", ibv_dealloc_pd(apd));

	/* Left for close: an imported MR and DM, a parent domain over the
	 * imported PD, the imported PD. The plugin names what still uses the
	 * PD when it unimports it. */
	struct ibv_mr *mr3 = pd ? ibv_import_mr(pd, 23) : NULL;
	struct ibv_pd *ppd = NULL;
	if (pd) {
		struct ibv_parent_domain_init_attr pa = { .pd = pd };
		ppd = ibv_alloc_parent_domain(ctx, &pa);
	}
	printf("left: %s %s %s %s\n", mr3 ? "mr" : "-", dm ? "dm" : "-",
	       ppd ? "parent-domain" : "-", pd ? "pd" : "-");
	printf("close: %d\n", ibv_close_device(ctx));
	return 0;
}
