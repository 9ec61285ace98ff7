/* Helpers of the C tests that need an rxe device (cq.c, qp.c, srq.c). On a
 * host without one they print a skip line and pass; in the VM, run them with
 * c-tests/vm-diff.sh, which diffs Debian's run and ours in one boot. */
#ifndef CTEST_RXE_H
#define CTEST_RXE_H

#include "common.h"
#include <errno.h>
#include <unistd.h>
#include <dirent.h>

/* Whether there is an RDMA device; prints the skip line if not (for tests
 * whose devices are opened later, in threads or child processes). */
static inline int rxe_any_device(void)
{
	int n = 0;
	struct ibv_device **l = ibv_get_device_list(&n);

	if (l)
		ibv_free_device_list(l);
	if (n == 0)
		printf("skip: no RDMA device\n");
	return n > 0;
}

/* Opens the first device, or prints the skip line and returns NULL. */
static inline struct ibv_context *rxe_open(struct ibv_device_attr *dattr)
{
	int n = 0;
	struct ibv_device **l = ibv_get_device_list(&n);
	struct ibv_context *ctx;

	if (!l || n == 0) {
		printf("skip: no RDMA device\n");
		if (l)
			ibv_free_device_list(l);
		return NULL;
	}
	ctx = ibv_open_device(l[0]);
	ibv_free_device_list(l);
	CHECK(ctx != NULL, "open: errno %d", errno);
	if (ctx && ibv_query_device(ctx, dattr) != 0) {
		/* Until ibv_query_device is merged in: rxe's limits (kernel 6.1). */
		ctest_impl_line("query_device failed (errno %d): using rxe's limits", errno);
		memset(dattr, 0, sizeof(*dattr));
		dattr->max_cqe = 32767;
		dattr->max_qp_wr = 1048576;
		dattr->max_sge = 32;
		dattr->max_srq_wr = 1048576;
		dattr->max_srq_sge = 27;
	}
	return ctx;
}

/* "ptr" or "NULL errno=N" for a create verb's result. */
#define SHOW_PTR(what, p, e) \
	printf("%s: %s", what, (p) ? "ok" : "NULL"), \
	(p) ? (void)putchar('\n') : (void)printf(" errno=%d\n", e)

static inline long rxe_count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	long n = 0;

	if (!d)
		return -1;
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

static inline long rxe_count_maps(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	long n = 0;
	int c;

	if (!f)
		return -1;
	while ((c = fgetc(f)) != EOF)
		n += c == '\n';
	fclose(f);
	return n;
}

/* A total of /proc/self/smaps_rollup in kB ("Rss:", "Anonymous:"), or -1.
 * Not statm's or status's VmRSS/RssAnon: those are the kernel's mm counters,
 * which lag before Linux 6.2 (each thread keeps its page-count changes to
 * itself and adds them in every 64 page faults), so a read can miss hundreds
 * of kB that a later fault then adds with nothing allocated (c-tests/pd_mr
 * once saw 1632 kB so). smaps_rollup counts the page tables: exact. */
static inline long rxe_rollup_kb(const char *key)
{
	FILE *f = fopen("/proc/self/smaps_rollup", "r");
	size_t n = strlen(key);
	char line[256];
	long kb = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, key, n) == 0 && sscanf(line + n, "%ld", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

static inline long rxe_rss_kb(void)
{
	return rxe_rollup_kb("Rss:");
}

/* What the process's memory is made of, to tell which grew when a leak check
 * fails: smaps_rollup's Rss, Anonymous and AnonHugePages, status's (lagging)
 * RssAnon/RssFile/RssShmem, and each mapping's Rss (/proc/self/smaps). */
#define RXE_MEM_MAPS 512
struct rxe_mem_map {
	unsigned long start, end;
	long rss, thp;
	char name[64];
};
struct rxe_mem {
	long rss, anon, thp, st_anon, st_file, st_shmem;
	int n;
	struct rxe_mem_map map[RXE_MEM_MAPS];
};

static inline void rxe_mem_read(struct rxe_mem *m)
{
	FILE *f = fopen("/proc/self/status", "r");
	struct rxe_mem_map *cur = NULL;
	char line[512];
	long kb;
	int at;

	m->st_anon = m->st_file = m->st_shmem = -1;
	m->n = 0;
	while (f && fgets(line, sizeof(line), f)) {
		sscanf(line, "RssAnon: %ld", &m->st_anon);
		sscanf(line, "RssFile: %ld", &m->st_file);
		sscanf(line, "RssShmem: %ld", &m->st_shmem);
	}
	if (f)
		fclose(f);
	m->rss = rxe_rollup_kb("Rss:");
	m->anon = rxe_rollup_kb("Anonymous:");
	m->thp = rxe_rollup_kb("AnonHugePages:");
	f = fopen("/proc/self/smaps", "r");
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long a, b;

		at = 0;
		if (sscanf(line, "%lx-%lx %*s %*s %*s %*s%n", &a, &b, &at) == 2 && at) {
			cur = m->n < RXE_MEM_MAPS ? &m->map[m->n++] : NULL;
			if (!cur)
				continue;
			cur->start = a;
			cur->end = b;
			cur->rss = cur->thp = 0;
			while (line[at] == ' ')
				at++;
			line[strcspn(line, "\n")] = 0;
			snprintf(cur->name, sizeof(cur->name), "%s", line + at);
		} else if (cur && sscanf(line, "Rss: %ld", &kb) == 1) {
			cur->rss = kb;
		} else if (cur && sscanf(line, "AnonHugePages: %ld", &kb) == 1) {
			cur->thp = kb;
		}
	}
	if (f)
		fclose(f);
}

/* Prints (stderr) how each kind grew from a to b, and the mappings whose Rss
 * grew by at least 64 kB. */
static inline void rxe_mem_diff(const char *what, const struct rxe_mem *a,
				const struct rxe_mem *b)
{
	char thp[64] = "?";
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");

	if (f && !fgets(thp, sizeof(thp), f))
		thp[0] = 0;
	if (f)
		fclose(f);
	thp[strcspn(thp, "\n")] = 0;
	fprintf(stderr, "%s: Rss %ld -> %ld, Anonymous %ld -> %ld, AnonHugePages %ld -> %ld kB "
		"(THP %s); status RssAnon %ld -> %ld, RssFile %ld -> %ld, RssShmem %ld -> %ld kB\n",
		what, a->rss, b->rss, a->anon, b->anon, a->thp, b->thp, thp, a->st_anon,
		b->st_anon, a->st_file, b->st_file, a->st_shmem, b->st_shmem);
	for (int i = 0; i < b->n; i++) {
		const struct rxe_mem_map *y = &b->map[i];
		long before = 0, thp0 = 0;

		for (int j = 0; j < a->n; j++)
			if (a->map[j].start == y->start) {
				before = a->map[j].rss;
				thp0 = a->map[j].thp;
				break;
			}
		if (y->rss - before >= 64)
			fprintf(stderr, "  %lx-%lx (%lu kB) %s: Rss %ld -> %ld kB, AnonHugePages %ld -> %ld kB\n",
				y->start, y->end, (y->end - y->start) / 1024,
				y->name[0] ? y->name : "[anon]", before, y->rss, thp0, y->thp);
	}
}

#endif
