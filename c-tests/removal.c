/* Device removal under traffic, in the VM only: `rdma link delete
 * rxe0` while this process has rxe0 open and a thread runs RDMA WRITEs with
 * data checks on a loopback RC pair; then `rdma link add` puts it back.
 *
 * What the kernel does (6.1 and 6.12): rxe has no disassociate_ucontext, so
 * the delete does not revoke the open context. It unlists the device at once
 * (netlink, sysfs and the uverbs char device go) and then waits in
 * ib_uverbs_remove_one until every process has closed its uverbs fd. No
 * IBV_EVENT_DEVICE_FATAL is sent (the kernel sends it only on the
 * disassociate path) and the open context keeps working until it is closed.
 * So this test checks, on both libraries alike:
 *  - ibv_get_device_list no longer lists rxe0 while the process still has it
 *    open, and opening the stale ibv_device fails with an error;
 *  - no async event arrives, traffic and the control verbs on the open
 *    context go on, with correct data;
 *  - the delete finishes only once the process has destroyed everything and
 *    closed the device, and the close leaves no descriptor or mapping behind;
 *  - after `rdma link add rxe0` (rxe1 is re-added after it, so that the
 *    devices list in their original order for the cases that follow), a fresh
 *    open works and traffic runs with correct data.
 * It acts only on the VM's rxe0 on veth0, as root; elsewhere it prints a skip. */
#include "dp.h"
#include <poll.h>
#include <pthread.h>
#include <spawn.h>
#include <stdatomic.h>
#include <sys/wait.h>

extern char **environ;

static atomic_int stop;
static atomic_long ops_ok, ops_bad;

/* The netdev of an rxe device, from `rdma link show NAME/1`, or "". */
static void netdev_of(const char *dev, char *out, size_t n)
{
	char cmd[128], line[512], *p;
	FILE *f;

	out[0] = 0;
	snprintf(cmd, sizeof(cmd), "rdma link show %s/1 2>/dev/null", dev);
	f = popen(cmd, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if ((p = strstr(line, " netdev ")) && sscanf(p + 8, "%63s", out) == 1 && strlen(out) < n)
			break;
	pclose(f);
}

static double t0;
static void stage(const char *what)
{
	fprintf(stderr, "removal: %5.1f s %s\n", dp_now() - t0, what);
}

static int listed(const char *name)
{
	int n = 0, found = 0;
	struct ibv_device **l = ibv_get_device_list(&n);

	for (int i = 0; l && i < n; i++)
		found |= strcmp(ibv_get_device_name(l[i]), name) == 0;
	if (l)
		ibv_free_device_list(l);
	return found;
}

static struct ibv_context *open_by_name(const char *name)
{
	int n = 0;
	struct ibv_device **l = ibv_get_device_list(&n);
	struct ibv_context *ctx = NULL;

	for (int i = 0; l && i < n; i++)
		if (strcmp(ibv_get_device_name(l[i]), name) == 0)
			ctx = ibv_open_device(l[i]);
	if (l)
		ibv_free_device_list(l);
	return ctx;
}

/* A loopback RC pair on ctx, over fresh buffers (freed by pair_teardown). */
static int pair_setup(struct dp *d, struct ibv_context *ctx)
{
	char *b0 = aligned_alloc(4096, DP_BUF), *b1 = aligned_alloc(4096, DP_BUF);

	memset(b0, 0, DP_BUF);
	memset(b1, 0, DP_BUF);
	return dp_pair_on(d, ctx, b0, b1);
}

/* One RDMA WRITE of a pattern of `seq` from side 0 to side 1, checked. */
static int write_once(struct dp *d, uint32_t seq)
{
	struct ibv_sge s = { (uintptr_t)d->buf[0], 128, d->mr[0]->lkey };
	struct ibv_send_wr w = { .wr_id = seq, .sg_list = &s, .num_sge = 1,
				 .opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED },
		*bad;
	struct ibv_wc wc;

	for (int k = 0; k < 128; k++)
		d->buf[0][k] = (char)(seq * 13 + k);
	w.wr.rdma.remote_addr = (uintptr_t)d->buf[1];
	w.wr.rdma.rkey = d->mr[1]->rkey;
	if (ibv_post_send(d->qp[0], &w, &bad))
		return 0;
	if (!dp_poll1(d->cq[0], &wc) || wc.status != IBV_WC_SUCCESS || wc.wr_id != seq)
		return 0;
	return memcmp(d->buf[0], d->buf[1], 128) == 0;
}

static void *traffic(void *arg)
{
	struct dp *d = arg;

	if (!d)
		return NULL;
	for (uint32_t seq = 1; !atomic_load(&stop); seq++) {
		if (write_once(d, seq))
			atomic_fetch_add(&ops_ok, 1);
		else
			atomic_fetch_add(&ops_bad, 1);
	}
	return NULL;
}

static void pair_teardown(struct dp *d)
{
	for (int i = 0; i < 2; i++) {
		CHECK(!d->qp[i] || ibv_destroy_qp(d->qp[i]) == 0, "destroy_qp errno %d", errno);
		CHECK(!d->cq[i] || ibv_destroy_cq(d->cq[i]) == 0, "destroy_cq errno %d", errno);
		CHECK(!d->mr[i] || ibv_dereg_mr(d->mr[i]) == 0, "dereg_mr errno %d", errno);
		free(d->buf[i]);
	}
	CHECK(!d->pd || ibv_dealloc_pd(d->pd) == 0, "dealloc_pd errno %d", errno);
}

static int wait_until(int (*cond)(void), double secs)
{
	double end = dp_now() + secs;

	while (!cond() && dp_now() < end)
		usleep(20000);
	return cond();
}

/* Unlisted, and its uverbs char device gone: the kernel unlists the device
 * first, then removes the char device (ib_uverbs_remove_one), then waits. */
static char cdev_path[128];
static int rxe0_gone(void)
{
	return !listed("rxe0") && access(cdev_path, F_OK) != 0;
}

static int rxe0_ready(void)
{
	char g[128] = "";
	FILE *f = fopen("/sys/class/infiniband/rxe0/ports/1/gids/1", "r");

	if (f) {
		if (!fgets(g, sizeof(g), f))
			g[0] = 0;
		fclose(f);
	}
	return strstr(g, ":0a00:") && listed("rxe0");
}

static pid_t del_pid;
static int del_finished, del_status = -1;
static int del_done(void)
{
	int st;

	if (!del_finished && waitpid(del_pid, &st, WNOHANG) == del_pid) {
		del_finished = 1;
		del_status = st;
	}
	return del_finished;
}

int main(void)
{
	char nd0[64], nd1[64], cmd[256];
	struct ibv_device **stale;
	struct ibv_context *ctx, *c2;
	struct ibv_device_attr da;
	struct ibv_port_attr pa;
	struct dp d;
	pthread_t t;
	long fds, maps, before;
	int n = 0;

	ctest_init();
	t0 = dp_now();
	/* The rdma(8) children load no libibverbs: keep them out of the
	 * harness's LD_DEBUG proof that every process ran the library under test. */
	unsetenv("LD_DEBUG");
	unsetenv("LD_DEBUG_OUTPUT");
	netdev_of("rxe0", nd0, sizeof(nd0));
	netdev_of("rxe1", nd1, sizeof(nd1));
	if (geteuid() != 0 || strcmp(nd0, "veth0") != 0) {
		printf("skip: not the VM's rxe0 on veth0 (as root)\n");
		return ctest_finish();
	}
	/* Warm-up open, objects and close, and a thread (glibc keeps its stack
	 * for the next one): first-use allocations are not leaks. Our library
	 * maps a type-stable slab per object type at its first object and keeps
	 * it while loaded (a stale pointer must find our memory), so the
	 * warm-up makes the test's objects once before the counts are taken. */
	ctx = open_by_name("rxe0");
	CHECK(ctx, "open rxe0 errno %d", errno);
	if (!ctx)
		return ctest_finish();
	CHECK(pair_setup(&d, ctx) == 0, "warm-up setup errno %d", errno);
	pair_teardown(&d);
	{
		struct ibv_cq *cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);

		CHECK(cq && ibv_destroy_cq(cq) == 0, "warm-up cq errno %d", errno);
	}
	ibv_close_device(ctx);
	pthread_create(&t, NULL, traffic, NULL);
	pthread_join(t, NULL);
	fds = rxe_count_fds();
	maps = rxe_count_maps();

	stale = ibv_get_device_list(&n);
	for (int i = 0; stale && i < n; i++)
		if (strcmp(ibv_get_device_name(stale[i]), "rxe0") == 0)
			snprintf(cdev_path, sizeof(cdev_path), "/dev/infiniband/%s",
				 stale[i]->dev_name);
	ctx = open_by_name("rxe0");
	CHECK(ctx && pair_setup(&d, ctx) == 0, "setup errno %d", errno);
	if (!ctx)
		return ctest_finish();
	pthread_create(&t, NULL, traffic, &d);
	while (atomic_load(&ops_ok) < 20 && atomic_load(&ops_bad) == 0)
		usleep(10000);
	printf("traffic before the delete: %s\n", atomic_load(&ops_bad) ? "errors" : "ok");

	{
		char *argv[] = { "rdma", "link", "delete", "rxe0", NULL };
		CHECK(posix_spawnp(&del_pid, "rdma", NULL, NULL, argv, environ) == 0, "spawn rdma");
	}
	stage("delete started");
	printf("device list without rxe0, and its uverbs device gone, while it is open: %s\n",
	       wait_until(rxe0_gone, 20) ? "yes" : "no");
	CHECK(rxe0_gone(), "rxe0 still listed");
	{
		struct ibv_device *old = NULL;
		for (int i = 0; stale && i < n; i++)
			if (strcmp(ibv_get_device_name(stale[i]), "rxe0") == 0)
				old = stale[i];
		c2 = old ? ibv_open_device(old) : NULL;
		printf("open of the removed device from an old list: %s\n", c2 ? "opened" : "fails");
		CHECK(!c2, "the removed device opened");
		if (c2)
			ibv_close_device(c2);
		ibv_free_device_list(stale);
	}
	stage("unlisted");
	{
		struct pollfd p = { .fd = ctx->async_fd, .events = POLLIN };
		int r = poll(&p, 1, 1000);
		struct ibv_async_event ev;

		if (r > 0 && ibv_get_async_event(ctx, &ev) == 0) {
			printf("async event: %s\n", ibv_event_type_str(ev.event_type));
			ibv_ack_async_event(&ev);
		} else {
			printf("async event: none (rxe cannot disassociate: the kernel waits for the close)\n");
		}
	}
	before = atomic_load(&ops_ok);
	while (atomic_load(&ops_ok) < before + 20 && atomic_load(&ops_bad) == 0)
		usleep(10000);
	printf("traffic on the open context after the delete: %s\n",
	       atomic_load(&ops_bad) ? "errors" : "goes on, data correct");
	CHECK(atomic_load(&ops_bad) == 0, "%ld bad operations", atomic_load(&ops_bad));
	printf("query_device %d, query_port %d\n", ibv_query_device(ctx, &da),
	       ibv_query_port(ctx, 1, &pa));
	{
		struct ibv_cq *cq = ibv_create_cq(ctx, 8, NULL, NULL, 0);
		printf("create_cq after the delete: %s\n", cq ? "ok" : "fails");
		if (cq)
			ibv_destroy_cq(cq);
	}
	printf("rdma link delete still waiting for the close: %s\n", del_done() ? "no" : "yes");
	atomic_store(&stop, 1);
	pthread_join(t, NULL);
	pair_teardown(&d);
	CHECK(ibv_close_device(ctx) == 0, "close errno %d", errno);
	stage("closed");
	printf("rdma link delete done after the close: %s\n", wait_until(del_done, 30) ? "yes" : "no");
	CHECK(del_finished && WIFEXITED(del_status) && WEXITSTATUS(del_status) == 0,
	      "rdma link delete status %d", del_status);
	printf("fd count back: %d, mapping count back: %d\n", rxe_count_fds() == fds,
	       rxe_count_maps() == maps);
	CHECK(rxe_count_fds() == fds, "fds %ld -> %ld", fds, rxe_count_fds());
	CHECK(rxe_count_maps() == maps, "maps %ld -> %ld", maps, rxe_count_maps());

	stage("delete done");
	/* Put the devices back in their order: rxe0, then rxe1. */
	if (nd1[0]) {
		snprintf(cmd, sizeof(cmd), "rdma link delete rxe1");
		CHECK(system(cmd) == 0, "%s", cmd);
	}
	snprintf(cmd, sizeof(cmd), "rdma link add rxe0 type rxe netdev %s", nd0);
	CHECK(system(cmd) == 0, "%s", cmd);
	if (nd1[0]) {
		snprintf(cmd, sizeof(cmd), "rdma link add rxe1 type rxe netdev %s", nd1);
		CHECK(system(cmd) == 0, "%s", cmd);
	}
	stage("re-added");
	printf("rxe0 re-added and listed with its address GID: %s\n",
	       wait_until(rxe0_ready, 20) ? "yes" : "no");
	stage("ready");
	ctx = open_by_name("rxe0");
	CHECK(ctx && pair_setup(&d, ctx) == 0, "fresh open and setup errno %d", errno);
	if (ctx) {
		int good = 0;
		for (uint32_t seq = 1; seq <= 100; seq++)
			good += write_once(&d, seq);
		printf("fresh open after the re-add: 100 writes, %d with correct data\n", good);
		CHECK(good == 100, "%d of 100", good);
		pair_teardown(&d);
		CHECK(ibv_close_device(ctx) == 0, "close errno %d", errno);
	}
	return ctest_finish();
}
