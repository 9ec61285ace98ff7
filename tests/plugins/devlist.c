/* Lists the devices ibv_get_device_list finds, with what each is and which
 * provider plugin drives it (the name in its verbs_device_ops, reached the
 * way rdma-core's own direct-verbs libraries do: the ibv_device is the head
 * of a struct verbs_device, whose ops pointer follows it). Run on Debian's
 * libibverbs and on ours from the same fake sysfs tree (discovery.sh). */
#define _GNU_SOURCE
#include <infiniband/verbs.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

struct ops_head { const char *name; }; /* verbs_device_ops starts with its name */

int main(void)
{
	int n = -1;
	struct ibv_device **l = ibv_get_device_list(&n);
	Dl_info info;

	if (dladdr((void *)ibv_get_device_list, &info))
		fprintf(stderr, "library: %s\n", info.dli_fname);
	if (!l) {
		printf("ibv_get_device_list: NULL (%s)\n", strerror(errno));
		return 0;
	}
	printf("%d devices\n", n);
	for (int i = 0; l[i]; i++) {
		struct ibv_device *d = l[i];
		const struct ops_head *ops =
			*(const struct ops_head **)((char *)d + sizeof(*d));
		printf("%s %s %s %s node=%d transport=%d guid=%016llx plugin=%s\n",
		       ibv_get_device_name(d), d->dev_name, d->dev_path, d->ibdev_path,
		       d->node_type, d->transport_type,
		       (unsigned long long)ibv_get_device_guid(d),
		       ops && ops->name ? ops->name : "(none)");
	}
	ibv_free_device_list(l);
	return 0;
}
