/* The programs of the test-only plugins: each says on stderr which library
 * defines `sym` (discovery.sh checks it is ours), then opens the plugin's
 * fake device `name`. */
#ifndef OPEN_FAKE_H
#define OPEN_FAKE_H
#define _GNU_SOURCE
#include <infiniband/verbs.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

/* The open context, or NULL (said on stdout). */
static struct ibv_context *open_fake(const char *name, void *sym)
{
	struct ibv_device **l = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;
	Dl_info info;

	setvbuf(stdout, NULL, _IONBF, 0);
	if (dladdr(sym, &info))
		fprintf(stderr, "library: %s\n", info.dli_fname);
	for (int i = 0; l && l[i] && !ctx; i++)
		if (!strcmp(ibv_get_device_name(l[i]), name))
			ctx = ibv_open_device(l[i]);
	if (!ctx)
		printf("open %s: %s\n", name, strerror(errno));
	if (l)
		ibv_free_device_list(l);
	return ctx;
}
#endif
