/* Address handles on rxe0 (VM: GID 1 = ::ffff:10.0.0.1, rxe1 = 10.0.0.2), and
 * the AH attributes libibverbs derives from a received completion.
 *
 * Compared with Debian's libibverbs (untagged lines):
 *  - ibv_create_ah / ibv_destroy_ah: the ibv_ah fields; bad port, GID index,
 *    no GRH (RoCE needs one), multicast and unroutable destinations;
 *    ibv_dealloc_pd is EBUSY while an AH uses the PD;
 *  - ibv_init_ah_from_wc: RoCE v2 over IPv4 (header checksum decides) and IPv6,
 *    no GRH flag, multicast destinations (EINVAL), unknown next header and IP
 *    version (EPROTONOSUPPORT), a destination not in the GID table;
 *  - ibv_create_ah_from_wc;
 *  - ibv_resolve_eth_l2_from_gid: local, multicast, link-local, unroutable,
 *    broadcast and unresolvable destinations, bad source GIDs.
 * [ours] lines: NULL attributes and double destroy (rdma-core crashes).
 */
#include "common.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/ip.h>
#include <stdint.h>

static const char *err(int e)
{
	static char buf[32];

	switch (e) {
	case 0: return "0";
	case EINVAL: return "EINVAL";
	case EBUSY: return "EBUSY";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case ENODATA: return "ENODATA";
	case ENETUNREACH: return "ENETUNREACH";
	case EHOSTUNREACH: return "EHOSTUNREACH";
	case EPROTONOSUPPORT: return "EPROTONOSUPPORT";
	case ENOENT: return "ENOENT";
	case EAGAIN: return "EAGAIN";
	case EDESTADDRREQ: return "EDESTADDRREQ";
	case EACCES: return "EACCES";
	}
	snprintf(buf, sizeof(buf), "errno %d", e);
	return buf;
}

static void v4gid(union ibv_gid *g, const char *ip)
{
	memset(g, 0, sizeof(*g));
	g->raw[10] = g->raw[11] = 0xff;
	inet_pton(AF_INET, ip, &g->raw[12]);
}

static struct ibv_ah_attr attr_to(const char *ip, int sgid_index)
{
	struct ibv_ah_attr a;

	memset(&a, 0, sizeof(a));
	a.is_global = 1;
	v4gid(&a.grh.dgid, ip);
	a.grh.sgid_index = sgid_index;
	a.grh.hop_limit = 64;
	a.port_num = 1;
	return a;
}

static void try_ah(struct ibv_context *ctx, struct ibv_pd *pd, const char *what,
		   struct ibv_ah_attr a)
{
	struct ibv_ah *ah;

	errno = 0;
	ah = ibv_create_ah(pd, &a);
	if (!ah) {
		printf("create_ah %s: NULL, %s\n", what, err(errno));
		return;
	}
	printf("create_ah %s: context ok %d, pd ok %d, handle %u\n", what, ah->context == ctx,
	       ah->pd == pd, ah->handle);
	printf("  destroy_ah = %s\n", err(ibv_destroy_ah(ah)));
}

static void print_attr(const char *what, int r, struct ibv_ah_attr *a)
{
	char s[INET6_ADDRSTRLEN];

	printf("init_ah_from_wc %s = %d, %s\n", what, r, err(r ? errno : 0));
	inet_ntop(AF_INET6, a->grh.dgid.raw, s, sizeof(s));
	printf("  dgid %s flow %#x sgid_index %u hop %u tclass %u dlid %u sl %u path_bits %u rate %u global %u port %u\n",
	       s, a->grh.flow_label, a->grh.sgid_index, a->grh.hop_limit, a->grh.traffic_class,
	       a->dlid, a->sl, a->src_path_bits, a->static_rate, a->is_global, a->port_num);
}

static uint16_t csum(const void *p)
{
	const uint16_t *w = p;
	uint32_t sum = 0;

	for (int i = 0; i < 10; i++)
		sum += w[i];
	sum = (sum & 0xffff) + (sum >> 16);
	sum += sum >> 16;
	return ~sum;
}

/* A GRH as rxe delivers RoCE v2 over IPv4: 20 bytes of zero, then the IP header. */
static void grh_v4(struct ibv_grh *g, const char *src, const char *dst, int good_csum)
{
	struct iphdr *ip = (struct iphdr *)((char *)g + 20);

	memset(g, 0, sizeof(*g));
	ip->version = 4;
	ip->ihl = 5;
	ip->tos = 0x28;
	ip->tot_len = htons(60);
	ip->ttl = 33;
	ip->protocol = IPPROTO_UDP;
	inet_pton(AF_INET, src, &ip->saddr);
	inet_pton(AF_INET, dst, &ip->daddr);
	ip->check = csum(ip);
	if (!good_csum)
		ip->check ^= 0x100;
}

static int read_gid0(union ibv_gid *g)
{
	FILE *f = fopen("/sys/class/infiniband/rxe0/ports/1/gids/0", "r");
	unsigned int v[8];
	int n;

	if (!f)
		return -1;
	n = fscanf(f, "%x:%x:%x:%x:%x:%x:%x:%x", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]);
	fclose(f);
	for (int i = 0; i < 8; i++) {
		g->raw[2 * i] = v[i] >> 8;
		g->raw[2 * i + 1] = v[i];
	}
	return n == 8 ? 0 : -1;
}

static void from_wc(struct ibv_context *ctx, struct ibv_pd *pd)
{
	struct ibv_wc wc;
	struct ibv_grh g;
	struct ibv_ah_attr a;
	struct ibv_ah *ah;
	union ibv_gid gid0;
	int r;

	memset(&wc, 0, sizeof(wc));
	wc.wc_flags = IBV_WC_GRH;
	wc.slid = 7;
	wc.sl = 3;
	wc.dlid_path_bits = 1;

	grh_v4(&g, "10.0.0.2", "10.0.0.1", 1);
	errno = 0;
	r = ibv_init_ah_from_wc(ctx, 1, &wc, &g, &a);
	print_attr("ipv4", r, &a);

	errno = 0;
	ah = ibv_create_ah_from_wc(pd, &wc, &g, 1);
	printf("create_ah_from_wc ipv4: %s\n", ah ? "ok" : err(errno));
	if (ah) {
		printf("  pd ok %d, destroy_ah = %s\n", ah->pd == pd, err(ibv_destroy_ah(ah)));
	}

	grh_v4(&g, "10.0.0.2", "10.0.0.9", 1);
	errno = 0;
	r = ibv_init_ah_from_wc(ctx, 1, &wc, &g, &a);
	print_attr("ipv4 to an address not in the table", r, &a);

	grh_v4(&g, "10.0.0.2", "224.0.0.5", 1);
	errno = 0;
	r = ibv_init_ah_from_wc(ctx, 1, &wc, &g, &a);
	print_attr("ipv4 multicast", r, &a);

	grh_v4(&g, "10.0.0.2", "10.0.0.1", 0);
	g.version_tclass_flow = htonl(6u << 28);
	errno = 0;
	r = ibv_init_ah_from_wc(ctx, 1, &wc, &g, &a);
	print_attr("ipv4 bad checksum (read as IPv6)", r, &a);

	grh_v4(&g, "10.0.0.2", "10.0.0.1", 1);
	g.version_tclass_flow = htonl(6u << 28);
	errno = 0;
	r = ibv_init_ah_from_wc(ctx, 1, &wc, &g, &a);
	print_attr("ipv4 in an IPv6 version field, good checksum", r, &a);

	grh_v4(&g, "10.0.0.2", "10.0.0.1", 1);
	((char *)&g)[20] = 0x35;
	errno = 0;
	r = ibv_init_ah_from_wc(ctx, 1, &wc, &g, &a);
	print_attr("ip version 3", r, &a);

	wc.wc_flags = 0;
	grh_v4(&g, "10.0.0.2", "10.0.0.1", 1);
	g.version_tclass_flow = htonl(0x60012345);
	errno = 0;
	r = ibv_init_ah_from_wc(ctx, 1, &wc, &g, &a);
	print_attr("no GRH flag", r, &a);
	wc.wc_flags = IBV_WC_GRH;

	if (read_gid0(&gid0) == 0) {
		memset(&g, 0, sizeof(g));
		g.version_tclass_flow = htonl((6u << 28) | (0x45u << 20) | 0xabcde);
		g.next_hdr = IPPROTO_UDP;
		g.hop_limit = 9;
		g.sgid = gid0;
		g.sgid.raw[15] ^= 1;
		g.dgid = gid0;
		errno = 0;
		r = ibv_init_ah_from_wc(ctx, 1, &wc, &g, &a);
		print_attr("ipv6 roce v2 (gid 0)", r, &a);
		g.next_hdr = 0x1b;
		errno = 0;
		r = ibv_init_ah_from_wc(ctx, 1, &wc, &g, &a);
		print_attr("ipv6 roce v1 header (no v1 gid)", r, &a);
		g.next_hdr = 6;
		errno = 0;
		r = ibv_init_ah_from_wc(ctx, 1, &wc, &g, &a);
		print_attr("ipv6 next header TCP", r, &a);
		g.next_hdr = IPPROTO_UDP;
		g.dgid.raw[0] = 0xff;
		errno = 0;
		r = ibv_init_ah_from_wc(ctx, 1, &wc, &g, &a);
		print_attr("ipv6 multicast", r, &a);
		g.dgid = gid0;
		errno = 0;
		r = ibv_init_ah_from_wc(ctx, 2, &wc, &g, &a);
		print_attr("ipv6 port 2", r, &a);
	}
}

/* ibv_resolve_eth_l2_from_gid: rdma-core asks the kernel's routing, link and
 * neighbour tables. In the VM 10.0.0.1 is veth0's own address (a local route:
 * veth0's MAC), 10.0.0.2 is local too but reached through veth0's subnet
 * route, where no neighbour ever answers (3 s, then -EHOSTUNREACH with
 * EDESTADDRREQ). */
static void l2(struct ibv_context *ctx, const char *what, int port, int sgid_index,
	       const union ibv_gid *dgid, int with_vid)
{
	struct ibv_ah_attr a;
	uint8_t mac[6] = {0};
	uint16_t vid = 0xeeee;
	int r;

	memset(&a, 0, sizeof(a));
	a.is_global = 1;
	a.grh.dgid = *dgid;
	a.grh.sgid_index = sgid_index;
	a.port_num = port;
	errno = 0;
	r = ibv_resolve_eth_l2_from_gid(ctx, &a, mac, with_vid ? &vid : NULL);
	printf("resolve_eth_l2_from_gid %s = %d, %s, mac %02x:%02x:%02x:%02x:%02x:%02x vid %#x\n",
	       what, r, err(errno), mac[0], mac[1], mac[2], mac[3], mac[4], mac[5], vid);
}

static void resolve_l2(struct ibv_context *ctx)
{
	union ibv_gid g, own;
	struct ibv_ah_attr a;
	uint8_t mac[6];
	uint16_t vid;

	v4gid(&g, "10.0.0.1");
	l2(ctx, "self", 1, 1, &g, 1);
	l2(ctx, "self, no vid", 1, 1, &g, 0);
	l2(ctx, "self from GID 0", 1, 0, &g, 1);
	l2(ctx, "bad port", 2, 1, &g, 1);
	l2(ctx, "empty source GID", 1, 3, &g, 1);
	l2(ctx, "source GID 200", 1, 200, &g, 1);
	v4gid(&g, "10.0.0.2");
	l2(ctx, "rxe1", 1, 1, &g, 1);
	v4gid(&g, "0.0.0.0");
	l2(ctx, "0.0.0.0", 1, 1, &g, 1);
	v4gid(&g, "224.0.0.5");
	l2(ctx, "224.0.0.5", 1, 1, &g, 1);
	v4gid(&g, "239.200.1.2");
	l2(ctx, "239.200.1.2", 1, 1, &g, 1);
	v4gid(&g, "192.168.1.1");
	l2(ctx, "192.168.1.1 (no route)", 1, 1, &g, 1);
	v4gid(&g, "10.0.0.255");
	l2(ctx, "10.0.0.255 (broadcast)", 1, 1, &g, 1);
	inet_pton(AF_INET6, "ff02::1", g.raw);
	l2(ctx, "ff02::1", 1, 1, &g, 1);
	l2(ctx, "ff02::1 from GID 0", 1, 0, &g, 1);
	inet_pton(AF_INET6, "fe80::1", g.raw);
	l2(ctx, "fe80::1 from GID 0", 1, 0, &g, 1);
	if (ibv_query_gid(ctx, 1, 0, &own) == 0)
		l2(ctx, "own GID 0 from GID 0", 1, 0, &own, 1);
	inet_pton(AF_INET6, "2001:db8::1", g.raw);
	l2(ctx, "2001:db8::1 from GID 0", 1, 0, &g, 1);
	inet_pton(AF_INET6, "::1", g.raw);
	l2(ctx, "::1 from GID 0", 1, 0, &g, 1);

	if (ctest_ours()) {
		a = attr_to("10.0.0.1", 1);
		int r;

		errno = 0;
		r = ibv_resolve_eth_l2_from_gid(ctx, &a, NULL, &vid);
		ctest_impl_line("resolve_eth_l2_from_gid NULL mac = %d, %s", r, err(errno));
		errno = 0;
		r = ibv_resolve_eth_l2_from_gid(ctx, NULL, mac, &vid);
		ctest_impl_line("resolve_eth_l2_from_gid NULL attr = %d, %s", r, err(errno));
		errno = 0;
		r = ibv_resolve_eth_l2_from_gid(NULL, &a, mac, &vid);
		ctest_impl_line("resolve_eth_l2_from_gid NULL context = %d, %s", r, err(errno));
	}
}

int main(void)
{
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	struct ibv_ah_attr a;
	struct ibv_pd *pd;
	struct ibv_ah *ah;
	int n;

	ctest_init();
	list = ibv_get_device_list(&n);
	for (int i = 0; list && i < n; i++)
		if (strcmp(ibv_get_device_name(list[i]), "rxe0") == 0)
			ctx = ibv_open_device(list[i]);
	if (!ctx) {
		printf("no rxe0\n");
		if (list)
			ibv_free_device_list(list);
		return ctest_finish();
	}
	pd = ibv_alloc_pd(ctx);
	CHECK(pd, "alloc_pd");

	try_ah(ctx, pd, "to rxe1", attr_to("10.0.0.2", 1));
	try_ah(ctx, pd, "to self", attr_to("10.0.0.1", 1));
	a = attr_to("10.0.0.2", 1);
	a.is_global = 0;
	try_ah(ctx, pd, "no GRH", a);
	a = attr_to("10.0.0.2", 1);
	a.port_num = 0;
	try_ah(ctx, pd, "port 0", a);
	a.port_num = 2;
	try_ah(ctx, pd, "port 2", a);
	try_ah(ctx, pd, "sgid index 0 (link-local)", attr_to("10.0.0.2", 0));
	try_ah(ctx, pd, "sgid index 7 (empty)", attr_to("10.0.0.2", 7));
	try_ah(ctx, pd, "sgid index 250", attr_to("10.0.0.2", 250));
	try_ah(ctx, pd, "ipv4 multicast", attr_to("224.1.2.3", 1));
	a = attr_to("10.0.0.1", 1);
	a.sl = 7;
	a.static_rate = IBV_RATE_10_GBPS;
	a.grh.traffic_class = 0x10;
	a.grh.flow_label = 0x12345;
	try_ah(ctx, pd, "sl, rate, tclass, flow label", a);

	a = attr_to("10.0.0.1", 1);
	ah = ibv_create_ah(pd, &a);
	CHECK(ah, "create_ah: %s", err(errno));
	if (!ah)
		return ctest_finish();
	printf("dealloc_pd with AH = %s\n", err(ibv_dealloc_pd(pd)));
	printf("destroy_ah = %s\n", err(ibv_destroy_ah(ah)));
	if (ctest_ours()) {
		int r;

		void *p;

		ctest_impl_line("destroy_ah again = %s", err(ibv_destroy_ah(ah)));
		errno = 0;
		p = ibv_create_ah(pd, NULL);
		ctest_impl_line("create_ah NULL attr = %s, %s", p ? "obj" : "NULL", err(errno));
		errno = 0;
		p = ibv_create_ah(NULL, &a);
		ctest_impl_line("create_ah NULL pd = %s, %s", p ? "obj" : "NULL", err(errno));
		ctest_impl_line("destroy_ah NULL = %s", err(ibv_destroy_ah(NULL)));
		errno = 0;
		r = ibv_init_ah_from_wc(ctx, 1, NULL, NULL, &a);
		ctest_impl_line("init_ah_from_wc NULL wc = %d, %s", r, err(errno));
	}

	from_wc(ctx, pd);

	resolve_l2(ctx);

	printf("dealloc_pd = %s\n", err(ibv_dealloc_pd(pd)));
	CHECK(ibv_close_device(ctx) == 0, "close");
	ibv_free_device_list(list);
	return ctest_finish();
}
