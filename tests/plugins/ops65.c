/* The public verbs of rdma-core 65 on a context of fake65.c, a 65 plugin
 * that sets their op slots: each verb must reach the plugin's op (its
 * "plugin:" lines), and a NULL, foreign or destroyed counter or DMA handle
 * must be EINVAL before the plugin sees it. Prints one line per call;
 * discovery.sh compares the whole output with the expected text. */
#define _GNU_SOURCE
#include <infiniband/verbs.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

int main(void)
{
	struct ibv_device **l = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;
	Dl_info info;

	setvbuf(stdout, NULL, _IONBF, 0);
	if (dladdr((void *)ibv_create_comp_cntr, &info))
		fprintf(stderr, "library: %s\n", info.dli_fname);
	for (int i = 0; l && l[i] && !ctx; i++)
		if (!strcmp(ibv_get_device_name(l[i]), "fake65_0"))
			ctx = ibv_open_device(l[i]);
	if (!ctx) {
		printf("open fake65_0: %s\n", strerror(errno));
		return 1;
	}

	uint64_t speed = 0;
	int r = ibv_query_port_speed(ctx, 1, &speed);
	printf("query_port_speed: %d %llu\n", r, (unsigned long long)speed);
	r = ibv_query_port_speed(ctx, 2, &speed);
	printf("query_port_speed port 2: %d\n", r);

	struct ibv_comp_cntr_caps caps = { 0 };
	r = _ibv_query_comp_cntr_caps(ctx, &caps, sizeof(caps));
	printf("query_comp_cntr_caps: %d max_counters %u\n", r, caps.max_counters);

	struct ibv_comp_cntr_init_attr ca = { 0 };
	struct ibv_comp_cntr *cc = ibv_create_comp_cntr(ctx, &ca);
	printf("create_comp_cntr: %s, context %s\n", cc ? "ok" : strerror(errno),
	       cc && cc->context == ctx ? "ours" : "other");
	if (!cc)
		return 1;
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

	/* Left for close: the plugin destroys them before its context. */
	cc = ibv_create_comp_cntr(ctx, NULL);
	d = ibv_alloc_dmah(ctx, NULL);
	printf("left: %s %s\n", cc ? "counter" : "-", d ? "dmah" : "-");
	printf("close: %d\n", ibv_close_device(ctx));
	ibv_free_device_list(l);
	return 0;
}
