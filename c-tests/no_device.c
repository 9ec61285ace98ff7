/* What libibverbs does on a machine without any RDMA device, and the pure
 * helpers: string tables and rate conversions must print exactly what Debian's
 * libibverbs prints (run.sh diffs the untagged lines against the system
 * library's output).
 *
 *  - ibv_get_device_list: both return NULL (errno ENOSYS) when the kernel has
 *    no uverbs support (no /sys/class/infiniband_verbs), else a list of the
 *    devices a provider supports.
 * Implementation-specific lines are tagged "[ours]"/"[system]" (see common.h):
 *  - NULL arguments: rdma-core crashes (NULL dereference); ours must not, and
 *    reports EINVAL the way each verb reports errors (man pages):
 *      ibv_query_device, ibv_query_port, ibv_query_device_ex,
 *      ibv_query_gid_ex, ibv_dealloc_pd, ibv_dereg_mr, ibv_destroy_cq
 *                                         return EINVAL
 *      ibv_query_gid, ibv_query_pkey      return -1, errno EINVAL
 *      ibv_query_gid_table                returns -EINVAL
 *      ibv_open_device, ibv_get_device_name, ibv_alloc_pd,
 *      ibv_create_comp_channel            return NULL, errno EINVAL
 *    These run only against our library; ibv_query_port and ibv_query_device_ex
 *    are inline in Debian's header (they dereference the context before any
 *    library call), so they run only when built with our header
 *    (CTEST_OUR_HEADER, set by run.sh). So do the NULL-object checks of our
 *    header's data-path inlines (ibv_poll_cq, ibv_req_notify_cq,
 *    ibv_post_send/recv/srq_recv, ibv_alloc_mw).
 */
#include "common.h"

#include <errno.h>
#include <string.h>

static void strings(void)
{
	int v;

	for (v = -2; v <= IBV_WC_TM_RNDV_INCOMPLETE + 2; v++)
		printf("ibv_wc_status_str(%d) = \"%s\"\n", v, ibv_wc_status_str((enum ibv_wc_status)v));
	for (v = -2; v <= IBV_EVENT_WQ_FATAL + 2; v++) {
		/* 20 is rdma-core 64's IBV_EVENT_DEVICE_SPEED_CHANGE: 44 says "unknown",
		 * we (a 64 superset) name it as 64 does. */
		if (v == 20)
			ctest_impl_line("ibv_event_type_str(20) = \"%s\"",
					ibv_event_type_str((enum ibv_event_type)v));
		else
			printf("ibv_event_type_str(%d) = \"%s\"\n", v,
			       ibv_event_type_str((enum ibv_event_type)v));
	}
	for (v = -2; v <= IBV_PORT_ACTIVE_DEFER + 2; v++)
		printf("ibv_port_state_str(%d) = \"%s\"\n", v, ibv_port_state_str((enum ibv_port_state)v));
	for (v = -2; v <= IBV_NODE_UNSPECIFIED + 2; v++)
		printf("ibv_node_type_str(%d) = \"%s\"\n", v, ibv_node_type_str((enum ibv_node_type)v));
	printf("ibv_wc_status_str(INT_MAX) = \"%s\"\n", ibv_wc_status_str((enum ibv_wc_status)INT_MAX));
	printf("ibv_event_type_str(INT_MIN) = \"%s\"\n", ibv_event_type_str((enum ibv_event_type)INT_MIN));
}

static void rates(void)
{
	int v;

	for (v = -2; v <= IBV_RATE_1200_GBPS + 3; v++)
		printf("rate %d: ibv_rate_to_mult = %d, ibv_rate_to_mbps = %d\n", v,
		       ibv_rate_to_mult((enum ibv_rate)v), ibv_rate_to_mbps((enum ibv_rate)v));
	printf("mult_to_ibv_rate:");
	for (v = -2; v <= 500; v++)
		printf(" %d:%d", v, (int)mult_to_ibv_rate(v));
	printf("\nmbps_to_ibv_rate:");
	for (v = IBV_RATE_MAX; v <= IBV_RATE_1200_GBPS + 1; v++) {
		int mbps = ibv_rate_to_mbps((enum ibv_rate)v);

		printf(" %d:%d %d:%d %d:%d", mbps - 1, (int)mbps_to_ibv_rate(mbps - 1), mbps,
		       (int)mbps_to_ibv_rate(mbps), mbps + 1, (int)mbps_to_ibv_rate(mbps + 1));
	}
	printf(" %d:%d %d:%d\n", INT_MIN, (int)mbps_to_ibv_rate(INT_MIN), INT_MAX,
	       (int)mbps_to_ibv_rate(INT_MAX));
}

static void device_list(void)
{
	struct ibv_device **l;
	int n = -1, i;

	/* Both libraries must agree: NULL with ENOSYS when the kernel has no
	 * uverbs class, else a NULL-terminated list of the supported devices. */
	errno = 0;
	l = ibv_get_device_list(&n);
	if (!l) {
		printf("ibv_get_device_list: NULL, n=%d, errno=%d\n", n, errno);
		return;
	}
	CHECK(n >= 0, "n=%d", n);
	for (i = 0; i < n; i++)
		CHECK(l[i] != NULL, "entry %d of %d is NULL", i, n);
	CHECK(l[n > 0 ? n : 0] == NULL, "no NULL terminator");
	printf("ibv_get_device_list: list, n=%d\n", n);
	ibv_free_device_list(l);
	/* NULL for num is allowed */
	l = ibv_get_device_list(NULL);
	CHECK(l != NULL, "ibv_get_device_list(NULL): errno %d", errno);
	if (l)
		ibv_free_device_list(l);
}

#define EXPECT_RET(call, want)                                                 \
	do {                                                                   \
		long r_;                                                       \
		errno = 0;                                                     \
		r_ = (long)(call);                                             \
		CHECK(r_ == (long)(want), "returned %ld, want %ld (errno %d)", \
		      r_, (long)(want), errno);                                \
		ctest_impl_line("%s = %ld", #call, r_);                        \
	} while (0)

#define EXPECT_ERRNO(call, want, werrno)                                       \
	do {                                                                   \
		long r_;                                                       \
		int e_;                                                        \
		errno = 0;                                                     \
		r_ = (long)(call);                                             \
		e_ = errno;                                                    \
		CHECK(r_ == (long)(want) && e_ == (werrno),                    \
		      "returned %ld errno %d, want %ld errno %d", r_, e_,      \
		      (long)(want), (werrno));                                 \
		ctest_impl_line("%s = %ld, errno %d", #call, r_, e_);          \
	} while (0)

#define EXPECT_NULL(call)                                                      \
	do {                                                                   \
		const void *p_;                                                \
		int e_;                                                        \
		errno = 0;                                                     \
		p_ = (const void *)(call);                                     \
		e_ = errno;                                                    \
		CHECK(p_ == NULL && e_ == EINVAL, "returned %s errno %d",      \
		      p_ ? "non-NULL" : "NULL", e_);                           \
		ctest_impl_line("%s = %s, errno %d", #call,                    \
				p_ ? "non-NULL" : "NULL", e_);                 \
	} while (0)

static void null_arguments(void)
{
	struct ibv_device_attr attr;
	union ibv_gid gid;
	struct ibv_gid_entry entry, entries[2];
	uint16_t pkey;

	if (!ctest_ours())
		return; /* rdma-core dereferences these NULLs */
	EXPECT_RET(ibv_query_device(NULL, &attr), EINVAL);
	EXPECT_RET(ibv_query_device(NULL, NULL), EINVAL);
	EXPECT_ERRNO(ibv_query_gid(NULL, 1, 0, &gid), -1, EINVAL);
	EXPECT_ERRNO(ibv_query_pkey(NULL, 1, 0, &pkey), -1, EINVAL);
	EXPECT_RET(ibv_query_gid_ex(NULL, 1, 0, &entry, 0), EINVAL);
	EXPECT_RET(ibv_query_gid_table(NULL, entries, 2, 0), -EINVAL);
	EXPECT_NULL(ibv_open_device(NULL));
	EXPECT_NULL(ibv_get_device_name(NULL));
	EXPECT_NULL(ibv_alloc_pd(NULL));
	EXPECT_NULL(ibv_create_comp_channel(NULL));
	EXPECT_RET(ibv_dealloc_pd(NULL), EINVAL);
	EXPECT_RET(ibv_dereg_mr(NULL), EINVAL);
	EXPECT_RET(ibv_destroy_cq(NULL), EINVAL);
#ifdef CTEST_OUR_HEADER
	{
		struct ibv_port_attr pattr;
		struct ibv_device_attr_ex xattr;

		EXPECT_RET(ibv_query_port(NULL, 1, &pattr), EINVAL);
		EXPECT_RET(ibv_query_device_ex(NULL, NULL, &xattr), EINVAL);
		EXPECT_RET(ibv_query_device_ex(NULL, NULL, NULL), EINVAL);
	}
	{
		/* Our header's inlines check for NULL objects (verbs_inline.h
		 * says why); Debian's dereference them. */
		struct ibv_wc wc;
		struct ibv_send_wr swr, *sbad = NULL;
		struct ibv_recv_wr rwr, *rbad = NULL;

		memset(&swr, 0, sizeof(swr));
		memset(&rwr, 0, sizeof(rwr));
		EXPECT_ERRNO(ibv_poll_cq(NULL, 1, &wc), -1, EINVAL);
		EXPECT_RET(ibv_req_notify_cq(NULL, 0), EINVAL);
		EXPECT_RET(ibv_post_send(NULL, &swr, &sbad), EINVAL);
		CHECK(sbad == &swr, "ibv_post_send(NULL): bad_wr not set");
		EXPECT_RET(ibv_post_recv(NULL, &rwr, &rbad), EINVAL);
		CHECK(rbad == &rwr, "ibv_post_recv(NULL): bad_wr not set");
		rbad = NULL;
		EXPECT_RET(ibv_post_srq_recv(NULL, &rwr, &rbad), EINVAL);
		CHECK(rbad == &rwr, "ibv_post_srq_recv(NULL): bad_wr not set");
		EXPECT_NULL(ibv_alloc_mw(NULL, IBV_MW_TYPE_1));
	}
#endif
}

int main(void)
{
	ctest_init();
	strings();
	rates();
	device_list();
	null_arguments();
	return ctest_finish();
}
