/* fork() protection of registered memory after ibv_fork_init (a process of its
 * own: ibv_fork_init must come before any registration).
 *
 * Where the library tracks registrations (rdma-core 44 everywhere; 52 and
 * later, and ours, only on a kernel that does not copy pinned pages at
 * fork, see c-tests/fork.h): ibv_reg_mr marks the pages MADV_DONTFORK
 * (VmFlags "dc" in /proc/self/smaps), overlapping MRs keep them marked until
 * the last one is deregistered, a failed registration or ibv_rereg_mr (rxe has
 * no rereg command) leaves no mark behind, and an on-demand-paging MR is never
 * marked. Where it skips ibv_fork_init, no page is ever marked, not even by
 * ibv_dontfork_range. Each step's marks are checked against the loaded
 * library's rules (and printed tagged where releases differ); the rest is
 * compared with Debian's library.
 */
#include "common.h"
#include "fork.h"

#include <errno.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

/* Exported by libibverbs, declared in infiniband/driver.h. */
int ibv_dontfork_range(void *base, size_t size);
int ibv_dofork_range(void *base, size_t size);

/* "dc" (dontcopy) for each of the `pages` pages at p, e.g. "DD.." */
static const char *marks(char *p, int pages)
{
	static char out[64];
	char line[512];
	long ps = sysconf(_SC_PAGESIZE);

	for (int i = 0; i < pages; i++) {
		uintptr_t a = (uintptr_t)p + i * ps, lo = 0, hi = 0;
		FILE *f = fopen("/proc/self/smaps", "r");
		int in = 0;

		out[i] = '?';
		while (f && fgets(line, sizeof(line), f)) {
			unsigned long s, e;

			if (sscanf(line, "%lx-%lx ", &s, &e) == 2) {
				in = a >= s && a < e;
				lo = s;
				hi = e;
				continue;
			}
			if (in && strncmp(line, "VmFlags:", 8) == 0) {
				out[i] = strstr(line, " dc") ? 'D' : '.';
				in = 0;
			}
		}
		(void)lo;
		(void)hi;
		if (f)
			fclose(f);
	}
	out[pages] = 0;
	return out;
}

/* Prints and checks the marks after a step: `tracked` is what the pages
 * must show where the library tracks registrations, else none. */
static void step(char *p, const char *what, const char *tracked)
{
	const char *m = marks(p, 8);
	const char *want = fork_init_skipped() ? "........" : tracked;

	fork_line("%s: %s", what, m);
	CHECK(strcmp(m, want) == 0, "%s: marks %s, want %s", what, m, want);
}

int main(void)
{
	struct ibv_device **list;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_mr *a, *b, *c;
	long ps = sysconf(_SC_PAGESIZE);
	char *buf;
	int n, r;

	ctest_init();
	fork_print_rules();
	r = ibv_fork_init();
	printf("ibv_fork_init = %d\n", r);
	CHECK(r == 0, "ibv_fork_init = %d", r);
	list = ibv_get_device_list(&n);
	if (!list || n == 0) {
		printf("no RDMA device\n");
		return ctest_finish();
	}
	ctx = ibv_open_device(list[0]);
	pd = ctx ? ibv_alloc_pd(ctx) : NULL;
	CHECK(pd, "open and alloc_pd");
	if (!pd)
		return ctest_finish();
	buf = mmap(NULL, 8 * ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	memset(buf, 0, 8 * ps);
	step(buf, "before", "........");
	a = ibv_reg_mr(pd, buf + ps + 10, 2 * ps, IBV_ACCESS_LOCAL_WRITE);
	printf("MR a (pages 1-3): %s\n", a ? "obj" : "NULL");
	step(buf, "marks", ".DDD....");
	b = ibv_reg_mr(pd, buf + 2 * ps, 3 * ps, IBV_ACCESS_LOCAL_WRITE);
	printf("+ MR b (pages 2-4): %s\n", b ? "obj" : "NULL");
	step(buf, "marks", ".DDDD...");
	c = ibv_reg_mr(pd, buf + 6 * ps, ps, IBV_ACCESS_REMOTE_WRITE);
	printf("failed MR c (page 6): %s\n", c ? "obj" : "NULL");
	step(buf, "marks", ".DDDD...");
	r = ibv_rereg_mr(a, IBV_REREG_MR_CHANGE_TRANSLATION, NULL, buf + 6 * ps, ps, 0);
	printf("rereg a to page 6 = %d\n", r);
	step(buf, "marks", ".DDDD...");
	c = ibv_reg_mr(pd, buf + 7 * ps, ps, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_ON_DEMAND);
	printf("ODP MR (page 7): %s\n", c ? "obj" : "NULL");
	step(buf, "marks", ".DDDD...");
	if (c)
		ibv_dereg_mr(c);
	r = ibv_dereg_mr(a);
	printf("dereg a = %d\n", r);
	step(buf, "marks", "..DDD...");
	r = ibv_dereg_mr(b);
	printf("dereg b = %d\n", r);
	step(buf, "marks", "........");
	r = ibv_dontfork_range(buf, ps);
	printf("dontfork_range = %d\n", r);
	step(buf, "marks", "D.......");
	r = ibv_dofork_range(buf, ps);
	printf("dofork_range = %d\n", r);
	step(buf, "marks", "........");
	r = ibv_is_fork_initialized();
	printf("fork status %d\n", r);
	CHECK(r == (fork_kernel_copies() ? IBV_FORK_UNNEEDED : IBV_FORK_ENABLED), "fork status %d", r);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	ibv_free_device_list(list);
	return ctest_finish();
}
