/* Device, port, GID and P_Key queries, context close and import, on every
 * device (in the VM: rxe0 and rxe1). Everything the kernel and sysfs report
 * is printed, so run.sh / vm-test compare our answers (values, return codes,
 * errnos) with Debian's libibverbs in the same boot. Without a device the
 * test says so and passes.
 *
 * [ours] lines: NULL arguments, where rdma-core dereferences them (crash);
 * ours returns EINVAL the way each verb reports errors.
 */
#include "common.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <unistd.h>

/* rdma-core's private helper (IBVERBS_PRIVATE_34), not in verbs.h. */
int ibv_query_gid_type(struct ibv_context *context, uint8_t port_num,
		       unsigned int index, unsigned int *type);

static void print_gid(const char *what, int rc, const union ibv_gid *g)
{
	int i;

	printf("%s = %d", what, rc);
	if (rc)
		printf(" errno %d\n", errno);
	else {
		printf(" gid ");
		for (i = 0; i < 16; i++)
			printf("%02x%s", g->raw[i], i % 2 && i < 15 ? ":" : "");
		printf("\n");
	}
}

static void print_entry(const char *what, const struct ibv_gid_entry *e)
{
	int i;

	printf("%s: port %u index %u type %u ifindex %s gid ", what, e->port_num,
	       e->gid_index, e->gid_type, e->ndev_ifindex ? "set" : "0");
	for (i = 0; i < 16; i++)
		printf("%02x", e->gid.raw[i]);
	printf("\n");
}

static void device_attr(struct ibv_context *ctx)
{
	struct ibv_device_attr a;
	struct ibv_device_attr_ex x;
	struct ibv_query_device_ex_input in = { .comp_mask = 1 };
	int rc;

	memset(&a, 0xa5, sizeof(a));
	rc = ibv_query_device(ctx, &a);
	printf("ibv_query_device = %d\n", rc);
	printf("  fw_ver %s node_guid %llx sys_image_guid %llx max_mr_size %llx page_size_cap %llx\n",
	       a.fw_ver, (unsigned long long)a.node_guid, (unsigned long long)a.sys_image_guid,
	       (unsigned long long)a.max_mr_size, (unsigned long long)a.page_size_cap);
	printf("  vendor %x part %u hw %u max_qp %d max_qp_wr %d caps %x max_sge %d max_sge_rd %d\n",
	       a.vendor_id, a.vendor_part_id, a.hw_ver, a.max_qp, a.max_qp_wr, a.device_cap_flags,
	       a.max_sge, a.max_sge_rd);
	printf("  max_cq %d max_cqe %d max_mr %d max_pd %d rd_atom %d %d %d init_rd %d %d atomic %d\n",
	       a.max_cq, a.max_cqe, a.max_mr, a.max_pd, a.max_qp_rd_atom, a.max_ee_rd_atom,
	       a.max_res_rd_atom, a.max_qp_init_rd_atom, a.max_ee_init_rd_atom, a.atomic_cap);
	printf("  ee %d rdd %d mw %d raw %d %d mcast %d %d %d ah %d fmr %d %d srq %d %d %d pkeys %u ack %u ports %u\n",
	       a.max_ee, a.max_rdd, a.max_mw, a.max_raw_ipv6_qp, a.max_raw_ethy_qp, a.max_mcast_grp,
	       a.max_mcast_qp_attach, a.max_total_mcast_qp_attach, a.max_ah, a.max_fmr,
	       a.max_map_per_fmr, a.max_srq, a.max_srq_wr, a.max_srq_sge, a.max_pkeys,
	       a.local_ca_ack_delay, a.phys_port_cnt);

	memset(&x, 0xa5, sizeof(x));
	rc = ibv_query_device_ex(ctx, NULL, &x);
	printf("ibv_query_device_ex = %d: same base %d comp_mask %x odp %llx %x %x %x ts %llx clock %llu\n",
	       rc, memcmp(&x.orig_attr, &a, sizeof(a)) == 0, x.comp_mask,
	       (unsigned long long)x.odp_caps.general_caps, x.odp_caps.per_transport_caps.rc_odp_caps,
	       x.odp_caps.per_transport_caps.uc_odp_caps, x.odp_caps.per_transport_caps.ud_odp_caps,
	       (unsigned long long)x.completion_timestamp_mask, (unsigned long long)x.hca_core_clock);
	printf("  caps_ex %llx tso %u %u rss %u %u %u %llx %u wq_rq %u pacing %u %u %u raw %x\n",
	       (unsigned long long)x.device_cap_flags_ex, x.tso_caps.max_tso, x.tso_caps.supported_qpts,
	       x.rss_caps.supported_qpts, x.rss_caps.max_rwq_indirection_tables,
	       x.rss_caps.max_rwq_indirection_table_size,
	       (unsigned long long)x.rss_caps.rx_hash_fields_mask, x.rss_caps.rx_hash_function,
	       x.max_wq_type_rq, x.packet_pacing_caps.qp_rate_limit_min,
	       x.packet_pacing_caps.qp_rate_limit_max, x.packet_pacing_caps.supported_qpts,
	       x.raw_packet_caps);
	printf("  tm %u %u %u %u %u cq_mod %u %u dm %llu pci %u %u %u xrc_odp %x ports_ex %u\n",
	       x.tm_caps.max_rndv_hdr_size, x.tm_caps.max_num_tags, x.tm_caps.flags,
	       x.tm_caps.max_ops, x.tm_caps.max_sge, x.cq_mod_caps.max_cq_count,
	       x.cq_mod_caps.max_cq_period, (unsigned long long)x.max_dm_size,
	       x.pci_atomic_caps.fetch_add, x.pci_atomic_caps.swap, x.pci_atomic_caps.compare_swap,
	       x.xrc_odp_caps, x.phys_port_cnt_ex);
	rc = ibv_query_device_ex(ctx, &in, &x);
	printf("ibv_query_device_ex(comp_mask 1) = %d\n", rc);
}

/* The verbs_context slot with the caller's size, as older/newer callers use it. */
static void device_attr_sizes(struct ibv_context *ctx)
{
	struct verbs_context *v = verbs_get_ctx_op(ctx, query_device_ex);
	unsigned char buf[sizeof(struct ibv_device_attr_ex) + 64];
	size_t sizes[] = { 0, sizeof(struct ibv_device_attr) - 1, sizeof(struct ibv_device_attr),
			   sizeof(struct ibv_device_attr) + 4, 300, sizeof(struct ibv_device_attr_ex),
			   sizeof(buf) };
	unsigned int i, j, sum;
	int rc;

	if (!v) {
		printf("no query_device_ex slot\n");
		return;
	}
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		memset(buf, 0x5a, sizeof(buf));
		rc = v->query_device_ex(ctx, NULL, (struct ibv_device_attr_ex *)buf, sizes[i]);
		/* fw_ver, GUIDs and the rest differ per boot but not per library:
		 * print a checksum of the bytes, and where 0x5a stops. */
		for (sum = 0, j = 0; j < sizeof(buf); j++)
			sum = sum * 31 + buf[j];
		for (j = sizeof(buf); j > 0 && buf[j - 1] == 0x5a; j--)
			;
		printf("query_device_ex slot size %zu = %d, written up to %u, sum %08x\n", sizes[i],
		       rc, j, sum);
	}
}

static void port_attr(struct ibv_context *ctx)
{
	struct ibv_port_attr p;
	int ports[] = { 0, 1, 2, 99, 255 };
	unsigned int i;
	int rc;

	for (i = 0; i < sizeof(ports) / sizeof(ports[0]); i++) {
		memset(&p, 0xa5, sizeof(p));
		rc = ibv_query_port(ctx, ports[i], &p);
		printf("ibv_query_port(%d) = %d", ports[i], rc);
		if (rc) {
			printf(", first byte %02x\n", ((unsigned char *)&p)[0]);
			continue;
		}
		printf(": state %d mtu %d %d gids %d caps %x msg %x bad_pkey %u qkey %u pkeys %u lid %u sm %u lmc %u vl %u sl %u to %u itr %u width %u speed %u phys %u ll %u flags %u caps2 %x\n",
		       p.state, p.max_mtu, p.active_mtu, p.gid_tbl_len, p.port_cap_flags,
		       p.max_msg_sz, p.bad_pkey_cntr, p.qkey_viol_cntr, p.pkey_tbl_len, p.lid,
		       p.sm_lid, p.lmc, p.max_vl_num, p.sm_sl, p.subnet_timeout, p.init_type_reply,
		       p.active_width, p.active_speed, p.phys_state, p.link_layer, p.flags,
		       p.port_cap_flags2);
	}
}

static void gids(struct ibv_context *ctx)
{
	struct { int port, index; } q[] = { { 1, 0 }, { 1, 1 }, { 1, 2 }, { 1, 1023 }, { 1, 1024 },
					    { 1, -1 }, { 0, 0 }, { 2, 0 }, { 99, 0 } };
	struct ibv_gid_entry e, table[8];
	unsigned char big[2][40];
	union ibv_gid g;
	unsigned int i, t;
	char what[64];
	ssize_t n;
	int rc;

	for (i = 0; i < sizeof(q) / sizeof(q[0]); i++) {
		memset(&g, 0xa5, sizeof(g));
		errno = 0;
		rc = ibv_query_gid(ctx, q[i].port, q[i].index, &g);
		snprintf(what, sizeof(what), "ibv_query_gid(%d, %d)", q[i].port, q[i].index);
		print_gid(what, rc, &g);

		memset(&e, 0xa5, sizeof(e));
		rc = ibv_query_gid_ex(ctx, q[i].port, q[i].index, &e, 0);
		printf("ibv_query_gid_ex(%d, %d) = %d\n", q[i].port, q[i].index, rc);
		if (!rc)
			print_entry("  entry", &e);

		t = 77;
		errno = 0;
		rc = ibv_query_gid_type(ctx, q[i].port, q[i].index, &t);
		printf("ibv_query_gid_type(%d, %d) = %d errno %d type %u\n", q[i].port, q[i].index,
		       rc, rc ? errno : 0, t);
	}
	rc = ibv_query_gid_ex(ctx, 1, 0, &e, 1);
	printf("ibv_query_gid_ex(flags 1) = %d\n", rc);
	rc = _ibv_query_gid_ex(ctx, 1, 0, &e, 0, 16);
	printf("_ibv_query_gid_ex(entry_size 16) = %d\n", rc);
	memset(big, 0xa5, sizeof(big));
	rc = _ibv_query_gid_ex(ctx, 1, 1, (struct ibv_gid_entry *)big[0], 0, sizeof(big[0]));
	printf("_ibv_query_gid_ex(entry_size 40) = %d, tail %02x%02x next %02x\n", rc, big[0][32],
	       big[0][39], big[1][0]);
	rc = _ibv_query_gid_ex(ctx, 1, 1, NULL, 0, sizeof(e));
	printf("_ibv_query_gid_ex(NULL entry) = %d\n", rc);
	rc = _ibv_query_gid_ex(ctx, 1, 5, NULL, 0, sizeof(e));
	printf("_ibv_query_gid_ex(NULL entry, empty index) = %d\n", rc);

	for (i = 0; i <= 8; i++) {
		memset(table, 0xa5, sizeof(table));
		n = ibv_query_gid_table(ctx, table, i, 0);
		printf("ibv_query_gid_table(max %u) = %zd\n", i, n);
		for (t = 0; n > 0 && t < (unsigned int)n; t++)
			print_entry("  table", &table[t]);
	}
	n = ibv_query_gid_table(ctx, table, 8, 1);
	printf("ibv_query_gid_table(flags 1) = %zd\n", n);
	n = _ibv_query_gid_table(ctx, table, 4, 0, 16);
	printf("_ibv_query_gid_table(entry_size 16) = %zd\n", n);
	memset(big, 0xa5, sizeof(big));
	n = _ibv_query_gid_table(ctx, (struct ibv_gid_entry *)big, 2, 0, 40);
	printf("_ibv_query_gid_table(entry_size 40) = %zd, tail %02x%02x\n", n, big[0][32], big[0][39]);
	n = _ibv_query_gid_table(ctx, table, 3000, 0, sizeof(table[0]));
	printf("_ibv_query_gid_table(3000 entries) = %zd\n", n);
	n = _ibv_query_gid_table(ctx, NULL, 8, 0, sizeof(table[0]));
	printf("_ibv_query_gid_table(NULL) = %zd\n", n);
	n = _ibv_query_gid_table(ctx, NULL, 0, 0, sizeof(table[0]));
	printf("_ibv_query_gid_table(NULL, 0) = %zd\n", n);
	n = _ibv_query_gid_table(ctx, table, 8, 0, 0);
	printf("_ibv_query_gid_table(entry_size 0) = %zd\n", n);
}

static void pkeys(struct ibv_context *ctx)
{
	struct { int port, index; } q[] = { { 1, 0 }, { 1, 1 }, { 1, -1 }, { 0, 0 }, { 2, 0 } };
	unsigned int i;
	__be16 k;
	int rc;

	for (i = 0; i < sizeof(q) / sizeof(q[0]); i++) {
		k = 0x5a5a;
		errno = 0;
		rc = ibv_query_pkey(ctx, q[i].port, q[i].index, &k);
		printf("ibv_query_pkey(%d, %d) = %d errno %d pkey %04x\n", q[i].port, q[i].index, rc,
		       rc ? errno : 0, be16toh(k));
	}
	errno = 0;
	rc = ibv_get_pkey_index(ctx, 1, htobe16(0xffff));
	printf("ibv_get_pkey_index(1, 0xffff) = %d\n", rc);
	rc = ibv_get_pkey_index(ctx, 1, htobe16(0x1234));
	printf("ibv_get_pkey_index(1, 0x1234) = %d errno %d\n", rc, errno);
	rc = ibv_get_pkey_index(ctx, 0, htobe16(0xffff));
	printf("ibv_get_pkey_index(0, 0xffff) = %d errno %d\n", rc, errno);
}

static void null_args(struct ibv_context *ctx)
{
	int rc;

	if (!ctest_ours())
		return;
	rc = ibv_query_device(ctx, NULL);
	ctest_impl_line("ibv_query_device(NULL attr) = %d", rc);
	CHECK(rc == EINVAL, "%d", rc);
	errno = 0;
	rc = ibv_query_gid(ctx, 1, 0, NULL);
	ctest_impl_line("ibv_query_gid(NULL gid) = %d errno %d", rc, errno);
	CHECK(rc == -1 && errno == EINVAL, "%d %d", rc, errno);
	errno = 0;
	rc = ibv_query_pkey(ctx, 1, 0, NULL);
	ctest_impl_line("ibv_query_pkey(NULL pkey) = %d errno %d", rc, errno);
	CHECK(rc == -1 && errno == EINVAL, "%d %d", rc, errno);
	errno = 0;
	rc = ibv_query_gid_type(ctx, 1, 0, NULL);
	ctest_impl_line("ibv_query_gid_type(NULL type) = %d errno %d", rc, errno);
	CHECK(rc == -1 && errno == EINVAL, "%d %d", rc, errno);
	rc = ibv_close_device(NULL);
	ctest_impl_line("ibv_close_device(NULL) = %d", rc);
	CHECK(rc == EINVAL, "%d", rc);
}

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

static void import_and_close(struct ibv_device *dev)
{
	struct ibv_context *ctx, *imp;
	struct ibv_comp_channel *ch;
	int before, after, i, p[2];

	ctx = ibv_open_device(dev);
	CHECK(ctx, "open");
	if (!ctx)
		return;
	errno = 0;
	imp = ibv_import_device(ctx->cmd_fd);
	printf("ibv_import_device(cmd_fd) = %s errno %d\n", imp ? "context" : "NULL", errno);
	if (imp)
		ibv_close_device(imp);
	errno = 0;
	imp = ibv_import_device(-1);
	printf("ibv_import_device(-1) = %s errno %d\n", imp ? "context" : "NULL", errno);
	CHECK(pipe(p) == 0, "pipe");
	errno = 0;
	imp = ibv_import_device(p[0]);
	printf("ibv_import_device(pipe) = %s errno %d\n", imp ? "context" : "NULL", errno);
	close(p[0]);
	close(p[1]);
	i = open("/dev/null", O_RDWR);
	errno = 0;
	imp = ibv_import_device(i);
	printf("ibv_import_device(/dev/null) = %s errno %d\n", imp ? "context" : "NULL", errno);
	close(i);
	printf("ibv_close_device = %d\n", ibv_close_device(ctx));

	/* Open/close loops: no fd growth. */
	before = count_fds();
	for (i = 0; i < 20; i++) {
		ctx = ibv_open_device(dev);
		if (!ctx)
			break;
		ch = ibv_create_comp_channel(ctx);
		if (ch)
			ibv_destroy_comp_channel(ch);
		ibv_close_device(ctx);
	}
	after = count_fds();
	printf("open/close x20: %d done, fd growth %d\n", i, after - before);
	CHECK(after == before, "fds %d -> %d", before, after);

	/* Closing with a channel left open: rdma-core leaks the channel's fd,
	 * ours releases everything the context owns. */
	before = count_fds();
	for (i = 0; i < 20; i++) {
		ctx = ibv_open_device(dev);
		if (!ctx)
			break;
		ch = ibv_create_comp_channel(ctx);
		ibv_close_device(ctx);
	}
	after = count_fds();
	ctest_impl_line("open/close x20 leaving a channel: fd growth %d", after - before);
	if (ctest_ours())
		CHECK(after == before, "fds %d -> %d", before, after);
}

int main(void)
{
	struct ibv_device **list;
	int n, i;

	ctest_init();
	list = ibv_get_device_list(&n);
	if (!list || n == 0) {
		printf("no RDMA device: nothing to query\n");
		if (list)
			ibv_free_device_list(list);
		return ctest_finish();
	}
	for (i = 0; i < n; i++) {
		struct ibv_context *ctx = ibv_open_device(list[i]);

		printf("== %s\n", ibv_get_device_name(list[i]));
		CHECK(ctx, "open %s", ibv_get_device_name(list[i]));
		if (!ctx)
			continue;
		device_attr(ctx);
		device_attr_sizes(ctx);
		port_attr(ctx);
		gids(ctx);
		pkeys(ctx);
		null_args(ctx);
		CHECK(ibv_close_device(ctx) == 0, "close");
		import_and_close(list[i]);
	}
	ibv_free_device_list(list);
	return ctest_finish();
}
