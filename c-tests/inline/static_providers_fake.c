/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * Link-time stand-ins for the RDMA_STATIC_PROVIDERS part of
 * inline_diff.c: the provider descriptor objects (their real type is
 * private to rdma-core, any object will do for taking an address),
 * ibv_static_providers() and ibv_get_device_list().  Deliberately does
 * not include verbs.h.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define PROVIDERS(X)                                                           \
	X(bnxt_re) X(cxgb4) X(efa) X(erdma) X(hfi1verbs) X(hns) X(ipathverbs)  \
	X(irdma) X(mana) X(mlx4) X(mlx5) X(mthca) X(ocrdma) X(qedr) X(rxe)     \
	X(siw) X(vmw_pvrdma) X(all) X(none)

#define DEFINE(n) char verbs_provider_##n[8];
PROVIDERS(DEFINE)

static const char *name_of(const void *p)
{
#define MATCH(n)                                                               \
	if (p == (const void *)verbs_provider_##n)                             \
		return #n;
	PROVIDERS(MATCH)
	return p ? "?" : "NULL";
}

void ibv_static_providers(void *unused, ...)
{
	va_list ap;
	const void *p;

	printf("ibv_static_providers(%s", unused ? "?" : "NULL");
	va_start(ap, unused);
	while ((p = va_arg(ap, const void *)) != NULL)
		printf(",%s", name_of(p));
	va_end(ap);
	printf(",NULL)->");
}

void **ibv_get_device_list(int *num_devices)
{
	printf("ibv_get_device_list(%s)->", num_devices ? "ptr" : "NULL");
	if (num_devices)
		*num_devices = 3;
	return NULL;
}
