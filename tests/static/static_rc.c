/* A C program linked with libibverbs.a (make pkg-test, vm/guest/pkg-tests.sh):
 * proves no libibverbs.so is mapped, lists the devices, then sends one message
 * between two RC QPs of one rxe device (loopback) and checks what arrived.
 *
 *   static_rc [DEVICE [GID_INDEX]]     (default rxe0, GID index 1: RoCE v2 IPv4)
 */
#include <infiniband/verbs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define FAIL(...) do { fprintf(stderr, "static_rc: " __VA_ARGS__); fputc('\n', stderr); exit(1); } while (0)

static int maps_have_libibverbs(void)
{
	char line[512];
	int found = 0;
	FILE *f = fopen("/proc/self/maps", "r");

	if (!f)
		FAIL("cannot read /proc/self/maps");
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "libibverbs")) {
			fprintf(stderr, "static_rc: mapped: %s", line);
			found = 1;
		}
	fclose(f);
	return found;
}

static void to_init(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .pkey_index = 0, .port_num = 1,
				 .qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE };

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		FAIL("modify_qp INIT failed");
}

static void to_rts(struct ibv_qp *qp, uint32_t dest, const union ibv_gid *gid, int gidx)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTR, .path_mtu = IBV_MTU_1024, .dest_qp_num = dest,
		.rq_psn = 0, .max_dest_rd_atomic = 1, .min_rnr_timer = 12,
		.ah_attr = { .is_global = 1, .port_num = 1,
			     .grh = { .dgid = *gid, .sgid_index = (uint8_t)gidx, .hop_limit = 1 } },
	};

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				  IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		FAIL("modify_qp RTR failed");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.sq_psn = 0;
	a.max_rd_atomic = 1;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				  IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC))
		FAIL("modify_qp RTS failed");
}

int main(int argc, char **argv)
{
	const char *want = argc > 1 ? argv[1] : "rxe0";
	int gidx = argc > 2 ? atoi(argv[2]) : 1, n, i, got = 0;
	static const char msg[] = "hello from a statically linked libibverbs";
	struct ibv_device **list, *dev = NULL;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	struct ibv_qp *qp[2];
	union ibv_gid gid;
	char *buf;
	time_t t0;

	if (maps_have_libibverbs())
		FAIL("a libibverbs shared object is mapped: not a static link");
	printf("static_rc: no libibverbs shared object mapped\n");

	list = ibv_get_device_list(&n);
	if (!list)
		FAIL("ibv_get_device_list failed");
	printf("static_rc: %d device(s):", n);
	for (i = 0; i < n; i++) {
		printf(" %s", ibv_get_device_name(list[i]));
		if (!strcmp(ibv_get_device_name(list[i]), want))
			dev = list[i];
	}
	printf("\n");
	if (!dev)
		FAIL("no device %s", want);
	ctx = ibv_open_device(dev);
	if (!ctx)
		FAIL("ibv_open_device failed");
	if (ibv_query_gid(ctx, 1, gidx, &gid))
		FAIL("ibv_query_gid failed");

	buf = calloc(1, 4096);
	pd = ibv_alloc_pd(ctx);
	mr = pd ? ibv_reg_mr(pd, buf, 4096, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE) : NULL;
	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	if (!buf || !pd || !mr || !cq)
		FAIL("pd/mr/cq creation failed");
	for (i = 0; i < 2; i++) {
		struct ibv_qp_init_attr ia = { .send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
					       .cap = { .max_send_wr = 4, .max_recv_wr = 4,
							.max_send_sge = 1, .max_recv_sge = 1 } };

		qp[i] = ibv_create_qp(pd, &ia);
		if (!qp[i])
			FAIL("ibv_create_qp failed");
		to_init(qp[i]);
	}
	to_rts(qp[0], qp[1]->qp_num, &gid, gidx);
	to_rts(qp[1], qp[0]->qp_num, &gid, gidx);

	memcpy(buf, msg, sizeof(msg));
	struct ibv_sge rs = { .addr = (uintptr_t)buf + 2048, .length = 512, .lkey = mr->lkey };
	struct ibv_recv_wr rwr = { .wr_id = 2, .sg_list = &rs, .num_sge = 1 }, *bad_r;
	struct ibv_sge ss = { .addr = (uintptr_t)buf, .length = sizeof(msg), .lkey = mr->lkey };
	struct ibv_send_wr swr = { .wr_id = 1, .sg_list = &ss, .num_sge = 1, .opcode = IBV_WR_SEND,
				   .send_flags = IBV_SEND_SIGNALED }, *bad_s;

	if (ibv_post_recv(qp[1], &rwr, &bad_r))
		FAIL("ibv_post_recv failed");
	if (ibv_post_send(qp[0], &swr, &bad_s))
		FAIL("ibv_post_send failed");
	t0 = time(NULL);
	while (got < 2) {
		struct ibv_wc wc;
		int r = ibv_poll_cq(cq, 1, &wc);

		if (r < 0)
			FAIL("ibv_poll_cq failed");
		if (r == 0) {
			if (time(NULL) - t0 > 20)
				FAIL("timed out waiting for completions (%d of 2)", got);
			continue;
		}
		if (wc.status != IBV_WC_SUCCESS)
			FAIL("completion %llu: %s", (unsigned long long)wc.wr_id, ibv_wc_status_str(wc.status));
		if (wc.wr_id == 2 && wc.byte_len != sizeof(msg))
			FAIL("received %u bytes, not %zu", wc.byte_len, sizeof(msg));
		got++;
	}
	if (memcmp(buf + 2048, msg, sizeof(msg)))
		FAIL("received data differs");
	printf("static_rc: RC send on %s (GID index %d): \"%s\" arrived\n", want, gidx, buf + 2048);

	if (ibv_destroy_qp(qp[0]) || ibv_destroy_qp(qp[1]) || ibv_destroy_cq(cq) ||
	    ibv_dereg_mr(mr) || ibv_dealloc_pd(pd) || ibv_close_device(ctx))
		FAIL("teardown failed");
	ibv_free_device_list(list);
	free(buf);
	if (maps_have_libibverbs())
		FAIL("a libibverbs shared object got mapped while running");
	printf("static_rc: OK\n");
	return 0;
}
