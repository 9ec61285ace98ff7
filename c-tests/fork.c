/* fork() with registered memory, in five processes of their own
 * (fork protection is per process and must come before any registration):
 *   plain         no fork protection; ibv_fork_init after a registration is
 *                 too late (EINVAL), unless the library skips it (below);
 *   fork_init     ibv_fork_init() first;
 *   RDMAV_FORK_SAFE=1, IBV_FORK_SAFE=1   the library calls it when it loads;
 *   RDMAV_FORK_SAFE=0                    set but not true: no protection.
 * Each sets up a loopback RC pair over two mmap'd MRs, checks an RDMA WRITE,
 * then forks. The parent at once writes new data into its MR and RDMA-writes
 * and RDMA-reads it (the pages are its own: the kernel copies pinned pages for
 * the child at fork, and with fork protection the child gets none of them);
 * the child then reads the MR (the data as of the fork) and writes it, and
 * exits, or dies of SIGSEGV where the pages are MADV_DONTFORK. The parent's
 * data must be untouched by the child's writes, its MRs keep working.
 * Where the kernel copies pinned pages, rdma-core 52 and later (and ours)
 * skip ibv_fork_init, 44 does not (c-tests/fork.h): ibv_fork_init's late
 * answer and the child's fate are checked against the loaded library's
 * rules and printed tagged; ibv_is_fork_initialized's value before and
 * after, and the rest, compared with Debian's library line for line. */
#include "dp.h"
#include "fork.h"
#include <signal.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/wait.h>

extern char **environ;

static void pattern(char *p, int v, int len)
{
	for (int k = 0; k < len; k++)
		p[k] = (char)(v * 29 + k);
}

static int is_pattern(const char *p, int v, int len)
{
	for (int k = 0; k < len; k++)
		if (p[k] != (char)(v * 29 + k))
			return 0;
	return 1;
}

/* One signaled RDMA op of 256 bytes between side 0's buffer at `lo` and side
 * 1's at `ro`; 1 when it completed successfully. */
static int rdma(struct dp *d, enum ibv_wr_opcode op, int lo, int ro)
{
	struct ibv_sge s = { (uintptr_t)d->buf[0] + lo, 256, d->mr[0]->lkey };
	struct ibv_send_wr w = { .wr_id = 1, .sg_list = &s, .num_sge = 1, .opcode = op,
				 .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct ibv_wc wc;

	w.wr.rdma.remote_addr = (uintptr_t)d->buf[1] + ro;
	w.wr.rdma.rkey = d->mr[1]->rkey;
	return ibv_post_send(d->qp[0], &w, &bad) == 0 && dp_poll1(d->cq[0], &wc) &&
	       wc.status == IBV_WC_SUCCESS;
}

static const char *status_str(enum ibv_fork_status s)
{
	return s == IBV_FORK_DISABLED ? "DISABLED" : s == IBV_FORK_ENABLED ? "ENABLED" :
	       s == IBV_FORK_UNNEEDED ? "UNNEEDED" : "?";
}

static int worker(const char *mode)
{
	int early = strcmp(mode, "fork_init") == 0;
	int asked = early || strcmp(mode, "RDMAV_FORK_SAFE=1") == 0 ||
		    strcmp(mode, "IBV_FORK_SAFE=1") == 0;
	/* what ibv_is_fork_initialized must say before and after the library's
	 * initialisation (the variables take effect at ibv_get_device_list) */
	enum ibv_fork_status want_before = fork_kernel_copies() ? IBV_FORK_UNNEEDED :
					   early ? IBV_FORK_ENABLED : IBV_FORK_DISABLED;
	enum ibv_fork_status want_after = fork_kernel_copies() ? IBV_FORK_UNNEEDED :
					  asked ? IBV_FORK_ENABLED : IBV_FORK_DISABLED;
	/* the MR pages are MADV_DONTFORK: the child dies touching them */
	int protected = asked && !fork_init_skipped();
	struct ibv_device_attr da;
	struct ibv_context *ctx;
	enum ibv_fork_status fs;
	struct dp d;
	char *b0, *b1;
	int go[2], st, r;
	pid_t pid;

	if (early) {
		r = ibv_fork_init();
		printf("%s: ibv_fork_init = %d\n", mode, r);
		CHECK(r == 0, "ibv_fork_init first = %d", r);
	}
	fs = ibv_is_fork_initialized();
	printf("%s: ibv_is_fork_initialized before = %s\n", mode, status_str(fs));
	CHECK(fs == want_before, "status before %s, want %s", status_str(fs), status_str(want_before));
	ctx = rxe_open(&da);
	if (!ctx)
		return ctest_finish();
	b0 = mmap(NULL, DP_BUF, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	b1 = mmap(NULL, DP_BUF, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(dp_pair_on(&d, ctx, b0, b1) == 0, "setup errno %d", errno);
	if (strcmp(mode, "plain") == 0) {
		int want = fork_init_skipped() ? 0 : EINVAL;

		r = ibv_fork_init();
		fork_line("%s: ibv_fork_init after a registration = %d", mode, r);
		CHECK(r == want, "ibv_fork_init after a registration = %d, want %d", r, want);
	}
	fs = ibv_is_fork_initialized();
	printf("%s: ibv_is_fork_initialized after = %s\n", mode, status_str(fs));
	CHECK(fs == want_after, "status after %s, want %s", status_str(fs), status_str(want_after));
	pattern(b0, 1, 256);
	CHECK(rdma(&d, IBV_WR_RDMA_WRITE, 0, 0) && is_pattern(b1, 1, 256), "write before fork");

	CHECK(pipe(go) == 0, "pipe");
	pid = fork();
	if (pid == 0) {
		char c;
		int ok;

		/* The child: no verbs; waits for the parent's RDMA, then reads
		 * and writes the registered memory. */
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(3);
		ok = is_pattern(b1, 1, 256) && is_pattern(b0, 1, 256);
		memset(b0, 0xee, DP_BUF);
		memset(b1, 0xee, DP_BUF);
		_exit(ok ? 0 : 1);
	}
	close(go[0]);
	/* The parent writes its MR at once (a copy-on-write hazard were the
	 * pages shared) and uses both MRs while the child lives. */
	pattern(b0, 2, 256);
	printf("%s: parent RDMA write after fork: %s\n", mode,
	       rdma(&d, IBV_WR_RDMA_WRITE, 0, 0) && is_pattern(b1, 2, 256) ?
	       "data correct" : "WRONG");
	pattern(b1 + 4096, 3, 256);
	printf("%s: parent RDMA read after fork: %s\n", mode,
	       rdma(&d, IBV_WR_RDMA_READ, 8192, 4096) && is_pattern(b0 + 8192, 3, 256) ?
	       "data correct" : "WRONG");
	CHECK(write(go[1], "g", 1) == 1, "pipe write");
	close(go[1]);
	CHECK(waitpid(pid, &st, 0) == pid, "waitpid");
	if (WIFEXITED(st))
		fork_line("%s: child %s", mode, WEXITSTATUS(st) == 0 ?
			  "read the data as of the fork, wrote its copy, exit 0" : "saw wrong data");
	else
		fork_line("%s: child killed by signal %d (%s)", mode, WTERMSIG(st),
			  WTERMSIG(st) == SIGSEGV ? "the MR pages are not inherited" : "?");
	if (protected)
		CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV,
		      "child status %#x, want SIGSEGV (MR pages MADV_DONTFORK)", st);
	else
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		      "child status %#x, want exit 0 (MR pages inherited)", st);
	printf("%s: parent data after the child's writes: %s\n", mode,
	       is_pattern(b0, 2, 256) && is_pattern(b1, 2, 256) ? "unchanged" : "CHANGED");
	pattern(b0 + 512, 4, 256);
	printf("%s: parent RDMA write after the child exited: %s\n", mode,
	       rdma(&d, IBV_WR_RDMA_WRITE, 512, 512) && is_pattern(b1 + 512, 4, 256) ?
	       "data correct" : "WRONG");
	CHECK(is_pattern(b0, 2, 256) && is_pattern(b1, 2, 256) && is_pattern(b1 + 512, 4, 256) &&
	      is_pattern(b0 + 8192, 3, 256), "parent data");
	d.buf[0] = d.buf[1] = NULL; /* mmap'd: unmapped here, not freed */
	dp_teardown(&d);
	munmap(b0, DP_BUF);
	munmap(b1, DP_BUF);
	return ctest_finish();
}

int main(int argc, char **argv)
{
	static const char *modes[][2] = {
		{ "plain", NULL }, { "fork_init", NULL }, { "RDMAV_FORK_SAFE=1", "RDMAV_FORK_SAFE=1" },
		{ "IBV_FORK_SAFE=1", "IBV_FORK_SAFE=1" }, { "RDMAV_FORK_SAFE=0", "RDMAV_FORK_SAFE=0" },
	};
	struct ibv_device **list;
	int fails = 0;

	ctest_init();
	if (argc > 1)
		return worker(argv[1]);
	fork_print_rules();
	/* The providers load in this process too, as in the workers (the
	 * release tests check that each process loaded the intended plugin). */
	list = ibv_get_device_list(NULL);
	if (list)
		ibv_free_device_list(list);
	for (unsigned i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		/* A fresh process per mode: the library reads the variables once. */
		char *av[] = { argv[0], (char *)modes[i][0], NULL };
		char *env[256];
		int n = 0, st;
		pid_t pid;

		for (char **e = environ; *e && n < 250; e++)
			if (strncmp(*e, "RDMAV_FORK_SAFE=", 16) && strncmp(*e, "IBV_FORK_SAFE=", 14))
				env[n++] = *e;
		if (modes[i][1])
			env[n++] = (char *)modes[i][1];
		env[n] = NULL;
		fflush(stdout);
		if (posix_spawn(&pid, "/proc/self/exe", NULL, NULL, av, env) != 0 ||
		    waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
			fprintf(stderr, "FAIL: mode %s\n", modes[i][0]);
			fails++;
		}
	}
	CHECK(fails == 0, "%d modes failed", fails);
	return ctest_finish();
}
