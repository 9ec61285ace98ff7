/* Device helpers and rate conversions, compared with Debian's library:
 * ibv_get_device_guid / ibv_get_device_index / ibv_get_device_name for every
 * device, ibv_get_sysfs_path, ibv_read_sysfs_file (existing, missing, short
 * buffer, empty buffer), ibv_mult_to_rate / ibv_mbps_to_rate over their whole
 * input range and back.
 * [ours] lines: NULL device (rdma-core crashes). */
#include "common.h"

#include <endian.h>
#include <errno.h>

/* Exported (IBVERBS_1.0) but declared only in rdma-core's driver.h. */
const char *ibv_get_sysfs_path(void);
int ibv_read_sysfs_file(const char *dir, const char *file, char *buf, size_t size);

int main(void)
{
	struct ibv_device **list;
	char path[512], buf[64];
	const char *sys;
	int n = 0, r;

	ctest_init();
	sys = ibv_get_sysfs_path();
	printf("sysfs path: %s\n", sys ? sys : "(null)");
	list = ibv_get_device_list(&n);
	printf("devices: %d\n", n);
	for (int i = 0; list && i < n; i++) {
		struct ibv_context *ctx = ibv_open_device(list[i]);
		struct ibv_device_attr da;
		uint64_t guid = be64toh(ibv_get_device_guid(list[i]));
		FILE *f;
		unsigned long long sg = 0;
		unsigned short g[4];

		printf("%s: index %d guid %016llx\n", ibv_get_device_name(list[i]),
		       ibv_get_device_index(list[i]), (unsigned long long)guid);
		if (ctx && ibv_query_device(ctx, &da) == 0)
			printf("  query_device node_guid same: %d\n",
			       da.node_guid == ibv_get_device_guid(list[i]));
		if (ctx)
			ibv_close_device(ctx);
		snprintf(path, sizeof(path), "/sys/class/infiniband/%s/node_guid",
			 ibv_get_device_name(list[i]));
		f = fopen(path, "r");
		if (f && fscanf(f, "%hx:%hx:%hx:%hx", &g[0], &g[1], &g[2], &g[3]) == 4)
			sg = (unsigned long long)g[0] << 48 | (unsigned long long)g[1] << 32 |
			     (unsigned long long)g[2] << 16 | g[3];
		if (f)
			fclose(f);
		printf("  guid == sysfs node_guid: %d\n", sg == guid);
		snprintf(path, sizeof(path), "%s/class/infiniband/%s", sys,
			 ibv_get_device_name(list[i]));
		memset(buf, 0x55, sizeof(buf));
		r = ibv_read_sysfs_file(path, "node_type", buf, sizeof(buf));
		printf("  read node_type = %d \"%s\"\n", r, r >= 0 ? buf : "");
		memset(buf, 0x55, sizeof(buf));
		r = ibv_read_sysfs_file(path, "node_type", buf, 3);
		printf("  read node_type size 3 = %d \"%.*s\" nul %d\n", r, r > 0 ? r : 0, buf,
		       r > 0 ? buf[r < 3 ? r : 2] == 0 : -1);
		errno = 0;
		r = ibv_read_sysfs_file(path, "no_such_file", buf, sizeof(buf));
		printf("  read no_such_file = %d errno %d\n", r, errno);
		errno = 0;
		r = ibv_read_sysfs_file("/nonexistent", "node_type", buf, sizeof(buf));
		printf("  read from /nonexistent = %d errno %d\n", r, errno);
		r = ibv_read_sysfs_file(path, "ports/1/state", buf, sizeof(buf));
		printf("  read ports/1/state = %d \"%s\"\n", r, r >= 0 ? buf : "");
	}
	if (list)
		ibv_free_device_list(list);

	for (int m = -2; m <= 600; m++) {
		enum ibv_rate rt = mult_to_ibv_rate(m);

		if (rt != IBV_RATE_MAX || m <= 2)
			printf("mult_to_rate(%d) = %d, back %d\n", m, rt, ibv_rate_to_mult(rt));
	}
	for (int mbps = -1; mbps <= 2000000; mbps += (mbps < 1000 ? 1 : 125)) {
		enum ibv_rate rt = mbps_to_ibv_rate(mbps);

		if (rt != IBV_RATE_MAX)
			printf("mbps_to_rate(%d) = %d, back %d\n", mbps, rt, ibv_rate_to_mbps(rt));
	}
	for (int rt = -1; rt <= 24; rt++)
		printf("rate %d: mult %d mbps %d\n", rt, ibv_rate_to_mult(rt), ibv_rate_to_mbps(rt));

	if (ctest_ours()) {
		errno = 0;
		ctest_impl_line("get_device_guid(NULL) = %llx errno %d",
				(unsigned long long)ibv_get_device_guid(NULL), errno);
		errno = 0;
		ctest_impl_line("get_device_index(NULL) = %d errno %d", ibv_get_device_index(NULL),
				errno);
		errno = 0;
		ctest_impl_line("get_device_name(NULL) = %s errno %d",
				ibv_get_device_name(NULL) ? "name" : "NULL", errno);
		errno = 0;
		ctest_impl_line("read_sysfs_file(NULL dir) = %d errno %d",
				ibv_read_sysfs_file(NULL, "x", buf, sizeof(buf)), errno);
	}
	return ctest_finish();
}
