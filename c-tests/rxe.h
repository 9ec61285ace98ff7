/* Helpers of the C tests that need an rxe device (cq.c, qp.c, srq.c). On a
 * host without one they print a skip line and pass; in the VM, run them with
 * c-tests/vm-diff.sh, which diffs Debian's run and ours in one boot. */
#ifndef CTEST_RXE_H
#define CTEST_RXE_H

#include "common.h"
#include <errno.h>
#include <unistd.h>
#include <dirent.h>

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

static inline long rxe_rss_kb(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long kb = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %ld", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

#endif
